"""The package as built, not as the source tree happens to import it.

A copy of the checkout's files (tracked and untracked, not ignored) is built with the
test environment's own setuptools (nothing is downloaded).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


def _copy_checkout(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout
    for rel in filter(None, listed.split("\0")):
        source = REPO_ROOT / rel
        if rel.startswith(("fixtures/", "tests/", "bench/")) or not source.is_file():
            continue  # not part of the distribution; keeps the copy small
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target / rel)
    return target


@pytest.fixture(scope="module")
def source_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _copy_checkout(tmp_path_factory.mktemp("source"))


def test_license_metadata_is_spdx_and_builds_without_setuptools_warnings(source_copy: Path, tmp_path: Path) -> None:
    """`make demo` installs the package; setuptools must have nothing to warn about
    (a `project.license` table is deprecated since setuptools 77)."""
    assert (REPO_ROOT / "LICENSE").is_file()
    out = tmp_path / "metadata"
    out.mkdir()
    code = (
        "import sys; from setuptools import build_meta; "
        f"print(build_meta.prepare_metadata_for_build_wheel({str(out)!r}))"
    )
    build = tmp_path / "build"
    shutil.copytree(source_copy, build)
    proc = subprocess.run(
        [sys.executable, "-W", "always", "-c", code], cwd=build, capture_output=True, text=True, timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr
    metadata = (out / proc.stdout.strip().splitlines()[-1] / "METADATA").read_text()
    assert "License-Expression: MIT" in metadata
    assert "License-File: LICENSE" in metadata
