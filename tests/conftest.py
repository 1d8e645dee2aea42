"""Shared fixtures: a CLI runner, a prompt-file writer, and the tiling check every
loader test uses."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

# A stable block long enough (well over 100 tokens) that a volatile value before it
# is an error under DESIGN.md's severity policy.
LONG_RULES = "\n".join(
    f"Rule {i}: answer the customer politely, cite the handbook section you rely on, "
    "and never invent facts about orders, refunds or shipping."
    for i in range(1, 26)
)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: runs real external tools (pre-commit builds a hook environment from PyPI)"
    )


@pytest.fixture(autouse=True)
def _fresh_caches(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Config and .gitignore lookups are cached per folder; tests write new ones. The
    result cache of each test lives in a folder of its own, never the user's."""
    from promptlint import config as config_mod
    from promptlint import discovery

    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(tmp_path_factory.mktemp("result-cache")))

    config_mod._load_file.cache_clear()
    discovery._gitignore_at.cache_clear()
    yield
    config_mod._load_file.cache_clear()
    discovery._gitignore_at.cache_clear()


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


@pytest.fixture
def run_cli(monkeypatch: pytest.MonkeyPatch) -> Callable[..., CliResult]:
    """Run ``promptlint ARGS`` in-process (click's CliRunner) in a given folder.

    An exception that escapes the CLI (anything but SystemExit) fails the test with
    its traceback: the CLI must never crash.
    """
    from click.testing import CliRunner

    from promptlint.cli import main

    def run(*args: str, cwd: Path | None = None) -> CliResult:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        # Each run stands for a fresh process: forget configs read by earlier runs.
        from promptlint import config as config_mod
        from promptlint import discovery

        config_mod._load_file.cache_clear()
        discovery._gitignore_at.cache_clear()
        runner = CliRunner()
        result = runner.invoke(main, list(args), catch_exceptions=True)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            import traceback

            tb = "".join(traceback.format_exception(*result.exc_info)) if result.exc_info else ""
            pytest.fail(f"promptlint {' '.join(args)} crashed:\n{tb}")
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture
def run_process() -> Callable[..., CliResult]:
    """Run ``python -m promptlint ARGS`` as a real process (tracebacks reach stderr)."""

    def run(*args: str, cwd: Path | None = None, timeout: float = 120) -> CliResult:
        proc = subprocess.run(
            [sys.executable, "-m", "promptlint", *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return CliResult(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write a prompt file under tmp_path: ``write("a.j2", "text")`` or bytes."""

    def _write(name: str, content: str | bytes) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            # newline="" so that "\r\n" in the content is written as is.
            path.write_text(content, encoding="utf-8", newline="")
        return path

    return _write


def assert_tiles(template) -> None:  # type: ignore[no-untyped-def]
    """The leaf spans of a template cover its source exactly: in order, no gap, no overlap."""
    from promptlint.core.ir import leaf_spans

    spans = list(leaf_spans(template.segments))
    source = template.source
    if not source:
        assert spans == [] or all(s.start == s.end == 0 for s in spans)
        return
    assert spans, "no segments for a non-empty source"
    assert spans[0].start == 0, f"first span starts at {spans[0].start}, not 0"
    for before, after in pairwise(spans):
        assert before.end == after.start, (
            f"{'gap' if before.end < after.start else 'overlap'} between {before} and {after}: "
            f"{source[min(before.end, after.start):max(before.end, after.start)]!r}"
        )
    assert spans[-1].end == len(source), f"last span ends at {spans[-1].end}, source has {len(source)}"


@pytest.fixture
def tiles() -> Callable[..., None]:
    """The tiling check, as a fixture: ``tiles(template)``."""
    return assert_tiles


@pytest.fixture
def processes_for_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test's few small files still go to worker processes with -j N (a run checks files
    that weigh less than ``promptlint.parallel.PROCESS_MIN_BYTES`` in its own process)."""
    from promptlint import parallel

    monkeypatch.setattr(parallel, "PROCESS_MIN_BYTES", 0)


@pytest.fixture
def long_rules() -> str:
    """25 lines of stable rules (several hundred tokens)."""
    return LONG_RULES


# CI runs the same generated examples every time (a red CI must be reproducible);
# local runs explore new ones. HYPOTHESIS_PROFILE=ci locally reproduces CI.
def _hypothesis_profiles() -> None:
    import os

    from hypothesis import settings

    settings.register_profile("ci", derandomize=True)
    if os.environ.get("CI") or os.environ.get("HYPOTHESIS_PROFILE") == "ci":
        settings.load_profile("ci")


_hypothesis_profiles()
