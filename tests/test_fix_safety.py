"""`promptlint fix` keeps everything about a file but the bytes it moves (issue 13):
owner, group and mode; hard links; line endings byte for byte; no temporary file after a
kill; no write through a symlink out of the project; nothing written before every file
and config has been decided."""

from __future__ import annotations

import errno
import fcntl
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import promptlint.fix.apply as apply_mod
import promptlint.fix.write as write_mod
from promptlint.fix import fix_file, fix_paths
from tests.conftest import LONG_RULES

FIXABLE = f"Time {{{{ now() }}}}\n\n{LONG_RULES}\n"
MOVED_LAST = f"{LONG_RULES}\n\nTime {{{{ now() }}}}\n"


def _temps(folder: Path) -> list[str]:
    """Hidden files a write left (temporary files are hidden, under any naming)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".") and p.name != ".git")


# -- owner, group and mode -------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_owner_group_and_mode_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    os.chown(path, 1234, 2345)
    os.chmod(path, 0o640)
    assert fix_file(str(path)).written
    after = path.stat()
    assert (after.st_uid, after.st_gid, after.st_mode & 0o7777) == (1234, 2345, 0o640)
    assert path.read_text() == MOVED_LAST


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="chown to another user needs root")
def test_an_owner_that_cannot_be_given_is_kept_by_writing_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a user who may not chown (fchown refused): the file is rewritten in its own
    inode, so owner, group and mode stay."""
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    os.chown(path, 1234, 2345)
    os.chmod(path, 0o664)
    inode = path.stat().st_ino

    def not_permitted(fd: int, uid: int, gid: int) -> None:
        raise PermissionError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(write_mod.os, "fchown", not_permitted)
    assert fix_file(str(path)).written
    after = path.stat()
    assert (after.st_ino, after.st_uid, after.st_gid, after.st_mode & 0o7777) == (inode, 1234, 2345, 0o664)
    assert path.read_text() == MOVED_LAST
    assert _temps(tmp_path) == []


def test_extended_attributes_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    try:
        os.setxattr(path, "user.promptlint-test", b"kept")
    except (OSError, AttributeError):
        pytest.skip("no user extended attributes on this file system")
    assert fix_file(str(path)).written
    assert os.getxattr(path, "user.promptlint-test") == b"kept"
    assert path.read_text() == MOVED_LAST


# -- symlinks --------------------------------------------------------------------------------


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


def test_a_symlink_out_of_the_project_is_refused_and_both_ends_are_unchanged(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "elsewhere" / "real.j2"
    outside.parent.mkdir()
    outside.write_text(FIXABLE)
    project = _project(tmp_path)
    (project / "prompts").mkdir()
    link = project / "prompts" / "link.j2"
    link.symlink_to(outside)
    for target in (project / "prompts", link):
        result = run_cli("fix", str(target))
        # named: refused, exit 2; in a walked folder: not read, with a warning (and the folder
        # then holds no prompt file to fix: exit 2 too)
        assert result.exit_code == 2, result.output
        refused = [line for line in result.output.splitlines() if "link.j2" in line and "symlink" in line]
        assert len(refused) == 1 and str(outside) in refused[0], result.output
        assert link.is_symlink() and os.readlink(link) == str(outside)
        assert outside.read_text() == FIXABLE
    assert _temps(outside.parent) == [] and _temps(project / "prompts") == []


def test_a_folder_reached_through_a_symlink_out_of_the_project_is_not_written(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "real.j2").write_text(FIXABLE)
    project = _project(tmp_path)
    (project / "linked").symlink_to(outside, target_is_directory=True)
    result = run_cli("fix", str(project / "linked" / "real.j2"))
    assert result.exit_code == 2, result.output
    assert "reached through a symlink" in result.output and "internal error" not in result.output
    assert (outside / "real.j2").read_text() == FIXABLE
    assert _temps(outside) == []


def test_a_symlink_inside_the_project_writes_its_target_and_stays_a_link(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project = _project(tmp_path)
    (project / "shared").mkdir()
    (project / "agents").mkdir()
    real = project / "shared" / "real.j2"
    real.write_text(FIXABLE)
    link = project / "agents" / "link.j2"
    link.symlink_to("../shared/real.j2")
    result = run_cli("fix", str(project / "agents"))
    assert result.exit_code == 0, result.output
    assert link.is_symlink() and os.readlink(link) == "../shared/real.j2"
    assert real.read_text() == MOVED_LAST
    assert _temps(project / "shared") == [] and _temps(project / "agents") == []


# -- hard links ------------------------------------------------------------------------------


def test_a_hard_linked_file_keeps_its_inode_and_every_name_sees_the_fix(tmp_path: Path) -> None:
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    other = tmp_path / "b.j2"
    os.link(path, other)
    inode = path.stat().st_ino
    assert fix_file(str(path)).written
    assert path.stat().st_ino == inode and other.stat().st_ino == inode and path.stat().st_nlink == 2
    assert other.read_text() == MOVED_LAST
    assert _temps(tmp_path) == []


def test_an_error_while_writing_in_place_puts_the_original_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    os.link(path, tmp_path / "b.j2")
    real_pwrite = os.pwrite
    calls = []

    def disk_full_once(fd: int, data: bytes, offset: int) -> int:
        calls.append(offset)
        if len(calls) == 1:
            real_pwrite(fd, bytes(data[: len(data) // 2]), offset)  # half the rewrite lands
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_pwrite(fd, data, offset)

    monkeypatch.setattr(write_mod.os, "pwrite", disk_full_once)
    result = fix_file(str(path))
    assert not result.written
    assert result.write_error == f"{path}: could not write (No space left on device)" and result.problems == []
    assert path.read_text() == FIXABLE and (tmp_path / "b.j2").read_text() == FIXABLE
    assert _temps(tmp_path) == []


def test_a_fix_that_cannot_be_written_fails_the_run_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Not "proof failed or file changed", exit 1: the run itself failed (exit 2), as when a
    # file cannot be read; the other file is still fixed, this one left as it was.
    from click.testing import CliRunner

    from promptlint.cli import main
    from promptlint.fix import FixReport
    from promptlint.reporters.fixreport import exit_code

    stuck, other = tmp_path / "stuck.j2", tmp_path / "other.j2"
    stuck.write_text(FIXABLE)
    other.write_text(FIXABLE)
    real_replace = os.replace

    def read_only_disk(src: str, dst: str) -> None:
        if dst.endswith("stuck.j2"):
            raise OSError(errno.EROFS, "Read-only file system")
        real_replace(src, dst)

    monkeypatch.setattr(write_mod.os, "replace", read_only_disk)
    result = CliRunner().invoke(main, ["fix", str(stuck), str(other)])
    assert result.exit_code == 2, result.output
    assert f"    error: {stuck}: could not write (Read-only file system)\n" in result.output
    assert "2 file(s): 1 fixed, 1 would change, 1 could not be written" in result.output
    assert "proof failed" not in result.output
    assert stuck.read_text() == FIXABLE and other.read_text() != FIXABLE
    assert exit_code(FixReport(files=[fix_file(str(stuck))])) == 2


# -- line endings ----------------------------------------------------------------------------

_RULES_CRLF = LONG_RULES.replace("\n", "\r\n")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # LF lines, the file ending with a lone CR: the CR still ends the file.
        (f"Time {{{{ now() }}}}\n\n{LONG_RULES}\r", f"{LONG_RULES}\n\nTime {{{{ now() }}}}\r"),
        # LF file whose last line is a lone CR.
        (f"Time {{{{ now() }}}}\n\n{LONG_RULES}\n\r", f"{LONG_RULES}\n\nTime {{{{ now() }}}}\n\r"),
        # CRLF file ending with a lone CR.
        (f"Time {{{{ now() }}}}\r\n\r\n{_RULES_CRLF}\r\n\r", f"{_RULES_CRLF}\r\n\r\nTime {{{{ now() }}}}\r\n\r"),
        # Trailing blank lines stay trailing.
        (f"Time {{{{ now() }}}}\n\n{LONG_RULES}\n\n\n", f"{LONG_RULES}\n\nTime {{{{ now() }}}}\n\n\n"),
        # One CRLF line in an LF file, moved last: its CRLF goes to the line that was last.
        (f"Time {{{{ now() }}}}\r\n\n{LONG_RULES}\n", f"{LONG_RULES}\r\n\nTime {{{{ now() }}}}\n"),
    ],
    ids=["final-lone-cr", "last-line-lone-cr", "crlf-then-lone-cr", "trailing-blank-lines", "mixed"],
)
def test_line_endings_are_kept_byte_for_byte(tmp_path: Path, source: str, expected: str) -> None:
    path = tmp_path / "a.j2"
    path.write_bytes(source.encode())
    assert fix_file(str(path)).written
    data = path.read_bytes()
    assert data == expected.encode()
    assert (data.count(b"\r"), data.count(b"\n")) == (source.count("\r"), source.count("\n"))


def test_a_file_with_lone_cr_line_endings_is_left_byte_for_byte(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Classic Mac endings: no line break the fix can move at; it must not touch the file."""
    path = tmp_path / "a.j2"
    original = FIXABLE.replace("\n", "\r").encode()
    path.write_bytes(original)
    result = run_cli("fix", str(path))
    assert result.exit_code == 0, result.output
    assert path.read_bytes() == original


# -- kills and exceptions --------------------------------------------------------------------

_PAUSE_AT_RENAME = textwrap.dedent(
    """
    import os, signal, sys
    import promptlint.fix.write as write

    # SIGINT raises KeyboardInterrupt, as in a process started from a terminal (one started
    # in the background of a non-interactive shell, as a CI step may be, inherits SIGINT
    # ignored, and Python then leaves it ignored: the signal would never arrive).
    signal.signal(signal.SIGINT, signal.default_int_handler)

    real_replace = os.replace

    def paused(src, dst):
        print("READY", src, flush=True)
        sys.stdin.readline()  # the test has sent its signal; go on
        real_replace(src, dst)

    write.os.replace = paused
    from promptlint.fix import fix_file
    fix_file(sys.argv[1])
    print("NOT KILLED", flush=True)
    """
)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_kill_at_the_moment_of_writing_leaves_no_temporary_file(tmp_path: Path, signum: int) -> None:
    """The signal arrives while the temporary file exists (the writer is paused just before
    the rename): it is held until the file is replaced, then ends the process."""
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    proc = subprocess.Popen([sys.executable, "-c", _PAUSE_AT_RENAME, str(path)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("READY"), (line, proc.stderr.read() if proc.stderr else "")
        temp = Path(line.split(" ", 1)[1].strip())
        assert temp.exists() and temp.parent == tmp_path
        proc.send_signal(signum)
        proc.stdin.write("go\n")
        proc.stdin.flush()
        out, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signum and "NOT KILLED" not in out
    assert _temps(tmp_path) == []
    assert path.read_text() in (FIXABLE, MOVED_LAST)
    # Recognisable, so that a later run can clear what a SIGKILL leaves (next test).
    assert re.fullmatch(r"\.a\.j2\.promptlint-[a-z0-9_]{8}\.tmp", temp.name), temp.name


@pytest.mark.parametrize("error", [KeyboardInterrupt, OSError(errno.EIO, "Input/output error")])
def test_an_exception_while_writing_leaves_the_original_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException | type[BaseException]
) -> None:
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)

    def failing(src: str, dst: str) -> None:
        raise error

    monkeypatch.setattr(write_mod.os, "replace", failing)
    if error is KeyboardInterrupt:
        with pytest.raises(KeyboardInterrupt):
            fix_file(str(path))
    else:
        assert fix_file(str(path)).write_error == f"{path}: could not write (Input/output error)"
    assert path.read_text() == FIXABLE
    assert _temps(tmp_path) == []


def test_a_later_write_removes_only_its_own_stale_temporary_files(tmp_path: Path) -> None:
    """What a SIGKILL leaves (an unlocked `.a.j2.promptlint-XXXXXXXX.tmp`) goes; a live
    writer's (locked), another file's, a look-alike and a symlink stay."""
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    stale = tmp_path / ".a.j2.promptlint-k1ll3d00.tmp"
    live = tmp_path / ".a.j2.promptlint-alive123.tmp"
    others = [tmp_path / ".b.j2.promptlint-k1ll3d00.tmp", tmp_path / ".a.j2.promptlint-notes.tmp",
              tmp_path / "a.j2.promptlint-k1ll3d00.tmp"]
    for name in (stale, live, *others):
        name.write_text("left over")
    linked = tmp_path / ".a.j2.promptlint-symlink0.tmp"
    linked.symlink_to(tmp_path / ".b.j2.promptlint-k1ll3d00.tmp")
    with open(live) as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        assert fix_file(str(path)).written
    assert not stale.exists()
    assert live.exists() and linked.is_symlink() and all(p.exists() for p in others)
    assert path.read_text() == MOVED_LAST


# -- decide everything, then write -----------------------------------------------------------


def test_a_badly_typed_config_is_an_error_before_any_file_is_written(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "promptlint.toml").write_text("[assembly]\norder = 3\n")
    path = tmp_path / "a.j2"
    path.write_text(FIXABLE)
    result = run_cli("fix", str(path))
    assert result.exit_code == 2, result.output
    assert "`assembly.order` must be a list" in result.output and "internal error" not in result.output
    assert path.read_text() == FIXABLE


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_failure_while_deciding_any_file_leaves_every_file_unwritten(
    processes_for_any_size: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jobs: int
) -> None:
    # With -j 2 the plans are made in forked workers (which inherit the patch); the bug in
    # one of them reaches this process before anything is written.
    if jobs > 1 and "fork" not in __import__("multiprocessing").get_all_start_methods():
        pytest.skip("no fork here")
    paths = [tmp_path / f"p{n}.j2" for n in range(8)]
    for path in paths:
        path.write_text(FIXABLE)
    real_plan = apply_mod.plan_fix

    def fails_on_p5(template, *args, **kwargs):  # type: ignore[no-untyped-def]
        if template.path.endswith("p5.j2"):
            raise RuntimeError("a bug while planning p5.j2")
        return real_plan(template, *args, **kwargs)

    monkeypatch.setattr(apply_mod, "plan_fix", fails_on_p5)
    with pytest.raises(RuntimeError, match="p5.j2"):
        fix_paths([str(tmp_path)], jobs=jobs)
    assert all(path.read_text() == FIXABLE for path in paths)


def test_fix_in_processes_writes_and_reports_what_one_process_does(
    processes_for_any_size: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import concurrent.futures

    pools: list[int] = []
    real = concurrent.futures.ProcessPoolExecutor

    def pool(*args, **kwargs):  # type: ignore[no-untyped-def]
        pools.append(args[0] if args else kwargs["max_workers"])
        return real(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    sources = {f"p{n}.j2": FIXABLE if n % 3 else "Stable rules only.\n" for n in range(9)}
    reports = []
    for jobs in (1, 2):
        folder = tmp_path / f"j{jobs}"
        folder.mkdir()
        for name, text in sources.items():
            (folder / name).write_text(text)
        report = fix_paths([str(folder)], jobs=jobs)
        reports.append(([(Path(r.path).name, r.changed, r.written, r.moved, r.stable_after) for r in report.files],
                        {p.name: p.read_text() for p in folder.iterdir()}))
    assert pools == [2]  # -j 1 starts no pool
    assert reports[0] == reports[1]
    files, written = reports[1]
    assert sum(changed and done for _, changed, done, _, _ in files) == 6
    assert written["p1.j2"] != FIXABLE and written["p0.j2"] == "Stable rules only.\n"


def test_a_small_parallel_fix_is_planned_in_its_own_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A pre-commit hook's few files: starting workers, and building the encoding for them,
    # took longer than fixing them here (14 agent files, 64 KB: 0.56-0.60 s at -j 2 against
    # 0.23-0.36 s at -j 1). The files are fixed all the same.
    from promptlint import parallel

    def no_workers(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("workers were started for a few small files")

    monkeypatch.setattr(apply_mod, "map_in_order", no_workers)
    for n in range(9):
        (tmp_path / f"p{n}.j2").write_text(FIXABLE)
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) < parallel.PROCESS_MIN_BYTES
    report = fix_paths([str(tmp_path)], jobs=2)
    assert len(report.files) == 9 and all(r.written for r in report.files)
    assert all(p.read_text() != FIXABLE for p in tmp_path.iterdir())
