"""Which promptlint the benchmarks run: the installed package, never the source folder
that happens to be the current directory.

``python -m promptlint`` started in a source checkout imports the checkout's
``promptlint/`` (the current directory comes first on ``sys.path``) even when a
non-editable install is what was installed. The benchmarks run ``python -P -m promptlint``
(``-P``: the current directory is not put on ``sys.path``), with the interpreter flags of
the Python that runs them, and print which package that is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path


def python_command() -> list[str]:
    """This interpreter, as the benchmarks start it: ``-P``, plus ``-S``/``-I`` if set here."""
    flags = ["-P"]
    if sys.flags.no_site:
        flags.append("-S")
    if sys.flags.isolated:
        flags.append("-I")
    return [sys.executable, *flags]


def promptlint_command() -> list[str]:
    """The installed package's command line: ``python -P -m promptlint``."""
    return [*python_command(), "-m", "promptlint"]


def package_info() -> dict[str, str]:
    """Where this process imports promptlint (and its rules) from, and how it is installed."""
    from importlib import metadata

    import promptlint
    import promptlint.rules  # type: ignore[import-not-found]  # mapped from rules/

    try:
        dist = metadata.distribution("promptlint-cache")
        direct = json.loads(dist.read_text("direct_url.json") or "{}")
        install = "editable install" if direct.get("dir_info", {}).get("editable") else "installed"
        version = dist.version
    except metadata.PackageNotFoundError:
        install, version = "not installed: a folder on sys.path", promptlint.__version__
    package = Path(promptlint.__file__).resolve().parent
    if install == "installed" and Path(promptlint.rules.__file__).resolve().parent.parent != package:
        install = "a source folder shadowing the installed package"
    return {"package": str(package), "install": install, "version": version}


_PROBE = (
    f"import json, sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); import installed; "
    "print(json.dumps(installed.package_info()))"
)


_COMPILE = (
    "import compileall, os, sys, promptlint, promptlint.rules\n"
    "folders = {os.path.dirname(promptlint.__file__), os.path.dirname(promptlint.rules.__file__)}\n"
    "ok = all(compileall.compile_dir(f, quiet=1) for f in sorted(folders))\n"
    "print('compiled' if ok else 'not compiled')"
)


def byte_compiled() -> str:
    """Byte-compile the package the benchmarks run, as ``pip install`` does, and say so.

    Python caches each module's bytecode in ``__pycache__`` on first import, unless
    ``PYTHONDONTWRITEBYTECODE`` is set (as in many containers): then an editable install
    compiles every promptlint module again in every process (about 0.1 s a start, and
    again in each ``-j`` worker for the modules it imports), while the floors' libraries
    (click, rich, jinja2, tiktoken), byte-compiled by pip, do not. Compiling here first
    times the package as an installed one runs."""
    proc = subprocess.run([*python_command(), "-c", _COMPILE], capture_output=True, text=True, check=False)
    state = proc.stdout.strip() if proc.returncode == 0 else "not compiled"
    env = " (PYTHONDONTWRITEBYTECODE is set here)" if os.environ.get("PYTHONDONTWRITEBYTECODE") else ""
    return f"bytecode: {state}{env}"


def describe(root: Path, info: dict[str, str] | None = None, how: str | None = None) -> str:
    """One line: the promptlint the benchmark runs (``info``; default: what
    ``python -P`` imports), where it comes from, how it is installed, and how it is run."""
    how = how or "run as " + " ".join(_short(promptlint_command()))
    if info is None:
        proc = subprocess.run([*python_command(), "-c", _PROBE], capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["?"])[-1]
            return f"promptlint: cannot be imported by {sys.executable} ({last})"
        info = json.loads(proc.stdout)
    package = Path(info["package"])
    shown = package.relative_to(root).as_posix() + "/" if package.is_relative_to(root) else str(package)
    return f"promptlint {info['version']} from {shown} ({info['install']}); {how}"


def _short(command: list[str]) -> list[str]:
    return ["python" if part == sys.executable else part for part in command]
