"""The real pre-commit hook, run by the real `pre-commit` against a temporary git repo.

The hook repository is this checkout, working tree included: its tracked and untracked
(not ignored) files are committed into a snapshot repository with a fixed author and
date, so the same working tree always gives the same commit sha and pre-commit reuses
the hook environment it built for it (PRE_COMMIT_HOME lives in the checkout's .venv).
The first run builds that environment from PyPI, which takes a while.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT_HOME = REPO_ROOT / ".venv" / "pre-commit-home"
SNAPSHOT = REPO_ROOT / ".venv" / "pre-commit-snapshot"
TIMEOUT = 600
CLOCK = '{{ now().strftime("%H:%M:%S") }}'
FIXED_IDENTITY = {
    "GIT_AUTHOR_NAME": "promptlint tests",
    "GIT_AUTHOR_EMAIL": "tests@promptlint.invalid",
    "GIT_COMMITTER_NAME": "promptlint tests",
    "GIT_COMMITTER_EMAIL": "tests@promptlint.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}


def _pre_commit() -> str:
    exe = Path(sys.executable).with_name("pre-commit")
    if exe.exists():
        return str(exe)
    found = shutil.which("pre-commit")
    if found is None:
        pytest.fail("pre-commit is not installed (pip install -e '.[test]')")
    return found


def _git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _snapshot() -> tuple[Path, str]:
    """A git repo holding this checkout's working tree; returns (path, commit sha)."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO_ROOT)
    if SNAPSHOT.exists():
        shutil.rmtree(SNAPSHOT)
    SNAPSHOT.mkdir(parents=True)
    _git("init", "-q", cwd=SNAPSHOT)
    for rel in filter(None, listed.split("\0")):
        source = REPO_ROOT / rel
        if not source.is_file() and not source.is_symlink():
            continue  # deleted in the working tree
        target = SNAPSHOT / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    _git("add", "-A", cwd=SNAPSHOT)
    _git("commit", "-q", "--no-verify", "-m", "promptlint working tree", cwd=SNAPSHOT, env=FIXED_IDENTITY)
    return SNAPSHOT, _git("rev-parse", "HEAD", cwd=SNAPSHOT).strip()


def _prune_stale_environments(sha: str) -> None:
    """Drop hook environments built for earlier snapshots (about 150 MB each)."""
    import sqlite3

    db = PRE_COMMIT_HOME / "db.db"
    if not db.exists():
        return
    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT ref, path FROM repos WHERE repo = ?", (str(SNAPSHOT),)).fetchall()
            for ref, path in rows:
                if ref != sha:
                    shutil.rmtree(path, ignore_errors=True)
                    conn.execute("DELETE FROM repos WHERE repo = ? AND ref = ?", (str(SNAPSHOT), ref))
    except sqlite3.Error:
        pass  # pre-commit's own store layout changed: leave it alone


@pytest.fixture(scope="module")
def hook_repo() -> tuple[Path, str]:
    path, sha = _snapshot()
    _prune_stale_environments(sha)
    return path, sha


@pytest.fixture
def user_repo(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    repo = tmp_path / "user-repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    path, sha = hook_repo
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {path}\n    rev: {sha}\n    hooks:\n      - id: promptlint\n"
    )
    return repo


def _run_hook(repo: Path, *files: str) -> subprocess.CompletedProcess[str]:
    _git("add", "-A", cwd=repo)
    PRE_COMMIT_HOME.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(PRE_COMMIT_HOME), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [_pre_commit(), "run", "promptlint", "--files", *files],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
        check=False,
    )


def _body() -> str:
    return "\n".join(
        f"Rule {i}: answer the customer politely, cite the handbook section you rely on, "
        "and never invent facts about orders, refunds or shipping."
        for i in range(1, 26)
    )


def test_hook_fails_on_a_cache_breaking_prompt(user_repo: Path) -> None:
    (user_repo / "prompts").mkdir()
    (user_repo / "prompts" / "system.j2").write_text(f"You are Atlas.\nTime: {CLOCK}\n{_body()}\n")
    proc = _run_hook(user_repo, "prompts/system.j2")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "Traceback" not in output
    assert "prompts/system.j2:2:7 PC101" in output
    assert "Failed" in output


def test_hook_passes_on_a_clean_prompt(user_repo: Path) -> None:
    (user_repo / "prompts").mkdir()
    (user_repo / "prompts" / "system.j2").write_text(f"You are Atlas.\n{_body()}\n")
    proc = _run_hook(user_repo, "prompts/system.j2")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Traceback" not in output
    assert "Passed" in output


def test_hook_only_runs_on_prompt_files(user_repo: Path) -> None:
    """The hook's `files` pattern keeps it off files that hold no prompt: a stylesheet is
    skipped, not checked."""
    (user_repo / "style.css").write_text("body { color: black; }\n")
    proc = _run_hook(user_repo, "style.css")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "no files to check" in output.lower()


def test_hook_checks_prompt_builders_in_code(user_repo: Path) -> None:
    """Python and TypeScript files are passed to the hook: one that builds a prompt with a
    clock fails it; one that builds none passes with one quiet note."""
    (user_repo / "app.py").write_text(
        "from datetime import datetime\n\n"
        "SYSTEM_PROMPT = f\"Time: {datetime.now():%H:%M}. You are a helpful assistant for the shop.\"\n"
    )
    (user_repo / "util.ts").write_text("export const add = (a: number, b: number) => a + b;\n")
    proc = _run_hook(user_repo, "app.py", "util.ts")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "app.py:3:" in output and "PC10" in output