"""The hostile-input corpus (``tests/bad_inputs/manifest.toml``): build each case's input
folder, run the real command line on it in a child process under a hang guard and a memory
bound, and say what came of it.

Shared by ``tests/test_bad_inputs_corpus.py`` (which asserts the contract) and
``bench/bad_inputs.py`` (which prints the table). Inputs git cannot hold (FIFOs, sockets,
device symlinks, symlink loops, unreadable files, multi-megabyte lines, 10,000-deep
nesting) are built here from the manifest's description, at run time.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CORPUS = Path(__file__).resolve().parents[1] / "bad_inputs"
MANIFEST = CORPUS / "manifest.toml"
STATIC = CORPUS / "files"

#: A case that has not ended by then hangs (a hang guard, not a speed figure; a much
#: slower machine may raise it with PROMPTLINT_HANG_GUARD_S).
HANG_GUARD_S = float(os.environ.get("PROMPTLINT_HANG_GUARD_S", "5"))
#: The child's address-space limit: a runaway allocation fails inside it, not on the host.
ADDRESS_SPACE_LIMIT = 1536 * 1024 * 1024
#: Peak resident memory a case may reach (issue 13: under 500 MB).
MAX_RSS_MB = 500.0

OUTCOMES = {"error": 2, "finding": 1, "clean": 0}
#: Root reads a mode-000 file as if it were 0644 (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
#: unreadable-file cases run as root drop both from the child's capability bounding set,
#: which execve turns into its permitted set (prctl PR_CAPBSET_DROP).
_PR_CAPBSET_DROP = 24
_DAC_CAPS = (1, 2)


@dataclass(frozen=True)
class Case:
    name: str
    args: tuple[str, ...]
    exit: int
    outcome: str
    files: dict[str, dict[str, Any]]
    #: Fragments the one-line message must hold, in order, on a single line.
    fragments: tuple[str, ...] = ()
    #: Text that must appear nowhere in the output (a file's content, a Python repr).
    forbid: tuple[str, ...] = ()
    #: Files that must not exist after the run (what an injected payload would create).
    absent: tuple[str, ...] = ()
    #: Whether the case needs a user that cannot read a mode-000 file.
    unprivileged: bool = False
    #: A known gap another branch closes: the test is expected to fail, with this reason.
    xfail: str | None = None
    #: A longer hang guard (seconds) for an input known to be slow but bounded, with its reason in `note`.
    hang_guard_s: float | None = None
    note: str = ""


def load() -> list[Case]:
    """Every case of the manifest, checked for consistency (outcome agrees with exit)."""
    data = tomllib.loads(MANIFEST.read_text(encoding="utf-8"))
    cases = []
    for raw in data["case"]:
        case = Case(
            name=raw["name"], args=tuple(raw["args"]), exit=raw["exit"], outcome=raw["outcome"],
            files=dict(raw.get("files", {})), fragments=tuple(raw.get("fragments", ())),
            forbid=tuple(raw.get("forbid", ())), absent=tuple(raw.get("absent", ())),
            unprivileged=bool(raw.get("unprivileged", False)), xfail=raw.get("xfail"), note=raw.get("note", ""),
            hang_guard_s=raw.get("hang_guard_s"),
        )
        if OUTCOMES.get(case.outcome) != case.exit:
            raise ValueError(f"{case.name}: outcome {case.outcome!r} does not match exit {case.exit}")
        cases.append(case)
    names = [c.name for c in cases]
    if len(set(names)) != len(names):
        raise ValueError("duplicate case names in the manifest")
    return cases


def _content(spec: dict[str, Any]) -> bytes:
    """A regular file's bytes from its spec: ``text`` (UTF-8 unless ``encoding``), ``bytes``
    (Python escapes, for what TOML strings cannot hold), ``parts`` ([piece, times] pairs;
    Python escapes with ``raw``)
    or ``ladder`` (line i indented i times: deep Markdown lists), ``numbered`` (``count``
    lines, ``{i}`` in ``line`` their number: a log of distinct requests), ``static`` (a file in
    tests/bad_inputs/files), and ``size``/``fill`` (megabytes of one character)."""
    if "static" in spec:
        return (STATIC / spec["static"]).read_bytes()
    if "bytes" in spec:
        return codecs.escape_decode(spec["bytes"].encode("utf-8"))[0]  # type: ignore[no-any-return]
    if "parts" in spec and spec.get("raw"):
        return b"".join(codecs.escape_decode(piece.encode("utf-8"))[0] * times for piece, times in spec["parts"])
    if "parts" in spec:
        text = "".join(piece * times for piece, times in spec["parts"])
    elif "numbered" in spec:
        numbered = spec["numbered"]
        text = "".join(numbered["line"].replace("{i}", str(i)) + "\n" for i in range(numbered["count"]))
    elif "ladder" in spec:
        ladder = spec["ladder"]
        text = "".join(ladder["indent"] * i + ladder["line"] + "\n" for i in range(ladder["count"]))
    elif "size" in spec:
        text = spec.get("head", "") + spec.get("fill", "x") * int(spec["size"]) + spec.get("tail", "")
    else:
        text = spec["text"]
    return str(text).encode(spec.get("encoding", "utf-8"))


def build(case: Case, folder: Path) -> None:
    """Create the case's files under ``folder`` (created here)."""
    folder.mkdir(parents=True, exist_ok=True)
    modes: list[tuple[Path, int]] = []
    for name, spec in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if "symlink" in spec:
            os.symlink(spec["symlink"], path)
        elif spec.get("fifo"):
            os.mkfifo(path)
        elif spec.get("socket"):
            _make_socket(path)
        elif spec.get("dir"):
            path.mkdir(exist_ok=True)
        else:
            path.write_bytes(_content(spec))
        if "mode" in spec:
            modes.append((path, int(spec["mode"])))
    # Modes last: a folder made unreadable must first be filled.
    for path, mode in reversed(modes):
        path.chmod(mode)


def _make_socket(path: Path) -> None:
    """A Unix socket left on disk (bound, then closed: the entry stays). Bound by a relative
    name from its folder: socket paths are limited to about 100 bytes."""
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(path.name)
        sock.close()
    finally:
        os.chdir(here)


def snapshot(folder: Path) -> dict[str, str]:
    """What every entry under ``folder`` is: a regular file's sha256, a link's target,
    another entry's type. Nothing but regular files is opened (a FIFO would block)."""
    seen: dict[str, str] = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                seen[rel] = "link:" + os.readlink(path)
            elif stat.S_ISREG(info.st_mode):
                try:
                    with open(path, "rb") as handle:
                        seen[rel] = hashlib.sha256(handle.read()).hexdigest() + f":{stat.S_IMODE(info.st_mode):o}"
                except PermissionError:
                    seen[rel] = f"unreadable:{info.st_size}:{info.st_mtime_ns}"
            else:
                seen[rel] = f"mode:{stat.S_IFMT(info.st_mode):o}:{stat.S_IMODE(info.st_mode):o}"
    return seen


@dataclass
class Outcome:
    exit: int | None
    stdout: str
    stderr: str
    wall_s: float
    peak_rss_mb: float
    timed_out: bool
    changed: list[str] = field(default_factory=list)

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    @property
    def outcome(self) -> str:
        for name, code in OUTCOMES.items():
            if code == self.exit:
                return name
        return "hang" if self.timed_out else f"exit {self.exit}"


def _limits(unprivileged: bool) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))
        if unprivileged:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            for cap in _DAC_CAPS:
                if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
                    raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")

    return apply


def can_run_unprivileged() -> str | None:
    """Why unreadable-file cases cannot be run here, or None when they can: as a user, or
    as root without the capabilities that read any file, who cannot read mode-000 files."""
    if os.geteuid() != 0:
        return None
    with tempfile.TemporaryDirectory() as folder:
        secret = Path(folder) / "secret"
        secret.write_text("x")
        secret.chmod(0)
        try:
            probe = subprocess.run([sys.executable, "-c", f"open({str(secret)!r}).read()"],
                                   preexec_fn=_limits(True), capture_output=True, check=False)  # noqa: PLW1509
        except (OSError, subprocess.SubprocessError) as exc:
            return f"running as root, and the capabilities that read any file cannot be dropped ({exc})"
        if b"PermissionError" not in probe.stderr:
            return "running as root, and a child without CAP_DAC_OVERRIDE still reads a mode-000 file"
    return None


def workspace(case: Case) -> Path:
    """A fresh folder for one run (outside the checkout, so no config above it applies)."""
    return Path(tempfile.mkdtemp(prefix="promptlint-bad-"))


def run(case: Case, base: Path, timeout: float = HANG_GUARD_S) -> Outcome:
    """Build ``case`` under ``base/in`` and run ``python -m promptlint ARGS`` there.

    The child gets its own result cache (outside the input folder), an address-space
    limit, and ``timeout`` seconds; its peak RSS comes from ``wait4``."""
    folder = base / "in"
    build(case, folder)
    before = snapshot(folder)
    cache = base / "cache"
    cache.mkdir()
    drop = case.unprivileged and os.geteuid() == 0
    env = {k: v for k, v in os.environ.items() if k != "PROMPTLINT_DEBUG"}
    env.update(PROMPTLINT_CACHE_DIR=str(cache), HOME=str(base), PYTHONPATH=str(Path(__file__).resolve().parents[2]),
               COLUMNS="200", NO_COLOR="1")
    out_path, err_path = base / "stdout", base / "stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(  # noqa: S603
            [sys.executable, "-m", "promptlint", *case.args], cwd=folder, env=env, stdin=subprocess.DEVNULL,
            stdout=out, stderr=err, preexec_fn=_limits(drop), start_new_session=True,  # noqa: PLW1509
        )
        timed_out, status, usage = _wait(proc, timeout)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status) if not timed_out else None
    after = snapshot(folder)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return Outcome(
        exit=code, stdout=out_path.read_text(errors="replace"), stderr=err_path.read_text(errors="replace"),
        wall_s=wall, peak_rss_mb=usage.ru_maxrss / 1024, timed_out=timed_out, changed=changed,
    )


def _wait(proc: subprocess.Popen[bytes], timeout: float) -> tuple[bool, int, Any]:
    """Reap the child with ``wait4`` (for its rusage), killing its process group after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    timed_out = False
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            pid, status, usage = os.wait4(proc.pid, 0)
            break
        time.sleep(0.01)
    proc.returncode = os.waitstatus_to_exitcode(status)  # Popen must not reap it again
    return timed_out, status, usage


def cleanup(base: Path) -> None:
    """Remove a run's folder, restoring modes that would stop the removal."""
    # Top-down: each folder is opened up before the walk goes into it.
    for root, dirs, _files in os.walk(base):
        for name in dirs:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)
    shutil.rmtree(base, ignore_errors=True)
