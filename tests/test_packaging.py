"""The package as built and installed, not as the source tree happens to import it.

A copy of the checkout's files (tracked and untracked, not ignored) is built with the
test environment's own setuptools (``--no-build-isolation``: nothing is downloaded) and
installed non-editable with ``pip install --target``. The interpreter then runs with
``-S``, so the editable install of the test virtualenv (a ``.pth`` finder) is not seen:
only that target folder and the dependencies' site-packages are on the path.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
SOUL = "fixtures/agents/SOUL.md"


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


@pytest.fixture(scope="module")
def installed(source_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A non-editable install of the checkout, in a folder of its own."""
    target = _install(source_copy, tmp_path_factory.mktemp("target"))
    assert (target / "promptlint" / "rules" / "__init__.py").is_file()
    return target


def _install(source: Path, target: Path) -> Path:
    """``source`` installed non-editable into ``target`` (nothing downloaded)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return target


def _python_without_editable(installed: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``python -S``: the install in ``installed`` plus the dependencies, no .pth finders."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(installed), sysconfig.get_paths()["purelib"]])
    return subprocess.run(
        [sys.executable, "-S", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=120, check=False
    )


_WHERE = "import promptlint, promptlint.rules; print(promptlint.__file__); print(promptlint.rules.__file__)"


def test_the_installed_package_carries_its_rules(installed: Path, tmp_path: Path) -> None:
    proc = _python_without_editable(installed, "-c", _WHERE, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    package, rules = proc.stdout.splitlines()
    assert Path(package).parent == installed / "promptlint"
    assert Path(rules).parent == installed / "promptlint" / "rules"
    proc = _python_without_editable(installed, "-m", "promptlint", "check", str(REPO_ROOT / SOUL), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SOUL.md: stable prefix" in proc.stdout


def test_python_m_promptlint_in_the_source_root_with_a_non_editable_install(installed: Path) -> None:
    """The source folder shadows the install (the current directory comes first on
    sys.path); its rules/ sits beside the package, and must still be found."""
    proc = _python_without_editable(installed, "-m", "promptlint", "check", SOUL, cwd=REPO_ROOT)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "No module named" not in output and "internal error" not in output
    assert f"{SOUL}: stable prefix" in proc.stdout
    proc = _python_without_editable(installed, "-c", _WHERE, cwd=REPO_ROOT)
    package, rules = proc.stdout.splitlines()
    assert Path(package).parent == REPO_ROOT / "promptlint"
    assert Path(rules).parent == REPO_ROOT / "rules"
    proc = _python_without_editable(installed, "-m", "promptlint", "rules", cwd=REPO_ROOT)
    assert proc.returncode == 0 and "PC101" in proc.stdout and "PC208" in proc.stdout, proc.stderr


_FINGERPRINT = ("from pathlib import Path; import promptlint; from promptlint import resultcache; "
                "print(resultcache._wheel_record(Path(promptlint.__file__).parent) is not None); "
                "print(resultcache._code_fingerprint())")


def test_a_fresh_install_of_the_same_package_keeps_the_result_cache(installed: Path, source_copy: Path,
                                                                     tmp_path_factory: pytest.TempPathFactory,
                                                                     tmp_path: Path) -> None:
    """A CI job installs promptlint afresh each time: its files' mtimes are new, and the
    cache its last job left (restored by actions/cache) must still serve. The installed
    package is fingerprinted by its wheel's RECORD, not by mtimes."""
    again = _install(source_copy, tmp_path_factory.mktemp("again"))
    first, second = (_python_without_editable(target, "-c", _FINGERPRINT, cwd=tmp_path) for target in (installed, again))
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert first.stdout.splitlines()[0] == "True"
    assert first.stdout == second.stdout
    # The source tree (what the editable install imports) is fingerprinted by its files.
    source = _python_without_editable(installed, "-c", _FINGERPRINT, cwd=REPO_ROOT)
    assert source.stdout.splitlines()[0] == "False" and source.stdout != first.stdout


def test_the_benchmarks_run_the_installed_package_and_say_so(installed: Path) -> None:
    """Started in the source root, bench/startup.py times the install, not the folder."""
    proc = _python_without_editable(installed, "bench/startup.py", "--runs", "1", cwd=REPO_ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"promptlint 0.1.0 from {installed / 'promptlint'} (installed)"), first
    assert "run as python -P -S -m promptlint" in first
    assert "heavy modules imported by check: none" in proc.stdout
    proc = _python_without_editable(
        installed, "bench/accuracy.py", "--no-peers", "--corpus", "fixtures/agents",
        "--labels", "fixtures/agents/expected.yaml", cwd=REPO_ROOT,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"promptlint 0.1.0 from {installed / 'promptlint'} (installed)" in proc.stdout
    assert "could not check" not in proc.stdout


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
