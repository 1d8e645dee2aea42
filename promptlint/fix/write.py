"""Putting a rewrite on disk: the unified diff that shows it, and the write that keeps
everything about the file but its bytes.

A rewrite goes to a temporary file in the same folder (``.<name>.promptlint-XXXXXXXX.tmp``),
is fsynced, and then either renamed over the original (``os.replace``: atomic, a crash
leaves the old or the new file) or, where a rename would change what the file is, copied
into the original inode. A file changed since it was read is never overwritten.

What a demanding user expects to be kept, and how:

- owner, group and mode (and extended attributes: ACLs, SELinux labels): given to the
  temporary file before the rename; where that is not allowed (a file owned by someone
  else, as when not running as root), the file is written in place instead, which keeps
  them all by construction;
- hard links: a file with more than one name is written in place, so every name sees the
  new content (what vim's ``backupcopy=auto`` does); a rename would leave the other names
  with the old text. The temporary copy is written and fsynced first, so a full disk is
  found before the original is touched, and an OS error during the copy restores the
  original bytes;
- no stray files: SIGTERM and SIGINT are held while the temporary file exists (the write
  of one file), then delivered, so a kill leaves the old or the new file and no temporary
  one. Each temporary file is locked (``flock``) while its writer lives; a later write of
  the same file removes the unlocked ones a SIGKILL left behind, and only those.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

from promptlint.fix import linediff

try:
    import fcntl
except ImportError:  # pragma: no cover  # Windows: no flock, no stale-file cleanup
    fcntl = None  # type: ignore[assignment]

#: ``.<name>.promptlint-`` + tempfile's 8 random characters + this suffix.
TEMP_SUFFIX = ".tmp"
_HELD_SIGNALS = {signal.SIGINT, signal.SIGTERM}


class FileChangedError(Exception):
    """The file on disk is no longer the one that was read and fixed."""

    reason = "changed on disk since it was read; not overwritten"


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of two sources, each line with its own ending (a CRLF file's lines end
    in ``\\r\\n``, as ``git diff`` writes them and ``git apply`` reads them)."""
    def split(text: str) -> list[str]:
        lines = [line for line in re.split(r"(?<=\n)", text) if line]
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
        return lines

    shown = path.lstrip("/")  # `a/tmp/x.j2`, as git writes an absolute path's diff
    return linediff.unified_diff(split(old), split(new), _diff_name(f"a/{shown}"), _diff_name(f"b/{shown}"))


_GIT_ESCAPES = {"\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r",
                '"': '\\"', "\\": "\\\\"}


def _diff_name(name: str) -> str:
    """A diff header's file name as git writes it: quoted, C-style, when it holds a control
    character, a quote or a backslash (a line break in a name would break the header; an
    escape sequence would reach the terminal), else as it is."""
    if name.isprintable() and '"' not in name and "\\" not in name:
        return name
    out = []
    for c in name:
        if c in _GIT_ESCAPES:
            out.append(_GIT_ESCAPES[c])
        elif c.isprintable():
            out.append(c)
        else:
            out.extend(f"\\{byte:03o}" for byte in c.encode("utf-8", "surrogateescape"))
    return '"' + "".join(out) + '"'


def temp_name_pattern(name: str) -> re.Pattern[str]:
    """The names of the temporary files a write of ``name`` makes (and may leave on SIGKILL)."""
    return re.compile(rf"\.{re.escape(name)}\.promptlint-[A-Za-z0-9_]{{8}}{re.escape(TEMP_SUFFIX)}")


def remove_stale_temps(folder: str, name: str) -> list[str]:
    """Remove the temporary files of ``name`` that no live writer holds (a SIGKILL's
    leftovers): regular files named by :func:`temp_name_pattern` whose lock is free.
    Returns the paths removed."""
    if fcntl is None:
        return []
    pattern = temp_name_pattern(name)
    removed = []
    try:
        entries = os.listdir(folder)
    except OSError:
        return []
    for entry in entries:
        if not pattern.fullmatch(entry):
            continue
        path = os.path.join(folder, entry)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except OSError:
            continue  # a symlink, gone, or unreadable: not ours to remove
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a writer is alive and holds it
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
                removed.append(path)
        finally:
            os.close(fd)
    return removed


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends (then arrive as usual)."""
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover  # Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def write_atomic(path: str | os.PathLike[str], new_data: str | bytes, expected_original_bytes: bytes) -> None:
    """Replace a file's content, if it still holds ``expected_original_bytes``, keeping its
    owner, group, mode, extended attributes and hard links (see the module's docstring).

    ``path`` may be a symlink: its target is written, and the link stays a link (whether
    the target may be written is for the caller to decide). Raises
    :class:`FileChangedError` when the file on disk is not what was read; nothing is
    written then. An OSError leaves the original as it was, and no temporary file.
    """
    target = os.path.realpath(path)
    data = new_data.encode("utf-8") if isinstance(new_data, str) else new_data
    folder, name = os.path.split(target)
    remove_stale_temps(folder, name)
    with _signals_held():
        _check_unchanged(path, target, expected_original_bytes)
        if not os.access(target, os.W_OK):
            # A file made read-only is not rewritten: a rename over it would succeed (its
            # folder is writable), but its mode says not to change it (an editor asks first).
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(path))
        before = os.stat(target)
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115  # must outlive the block until renamed
            dir=folder, prefix=f".{name}.promptlint-", suffix=TEMP_SUFFIX, delete=False
        )
        try:
            with handle:
                if fcntl is not None:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
                renamed = before.st_nlink == 1 and _same_identity(handle.fileno(), target, before)
                _check_unchanged(path, target, expected_original_bytes)
                if renamed:
                    os.replace(handle.name, target)
                else:
                    _write_in_place(target, data, expected_original_bytes)
        finally:
            # Refused, interrupted, failed, or written in place: the copy goes.
            with contextlib.suppress(FileNotFoundError):
                os.unlink(handle.name)
    if renamed:
        _sync_folder(folder)


def _check_unchanged(path: str | os.PathLike[str], target: str, expected: bytes) -> None:
    if Path(target).read_bytes() != expected:
        raise FileChangedError(f"{os.fspath(path)}: {FileChangedError.reason}")


def _same_identity(fd: int, target: str, before: os.stat_result) -> bool:
    """Give the temporary file the original's owner, group, mode and extended attributes;
    False when one of them cannot be given (then the file is written in place)."""
    try:
        made = os.fstat(fd)
        if (made.st_uid, made.st_gid) != (before.st_uid, before.st_gid):
            os.fchown(fd, before.st_uid, before.st_gid)
        # After the chown, which clears set-id bits.
        os.fchmod(fd, stat.S_IMODE(before.st_mode))
        for attr in _xattrs(target):
            os.setxattr(fd, attr, os.getxattr(target, attr))
    except OSError:
        return False
    return True


def _xattrs(target: str) -> list[str]:
    if not hasattr(os, "listxattr"):  # pragma: no cover  # not Linux
        return []
    try:
        return os.listxattr(target)
    except OSError:  # the file system has none
        return []


def _write_in_place(target: str, data: bytes, original: bytes) -> None:
    """Copy ``data`` into the original inode (not atomic: called with the signals held and
    only after the full copy was written elsewhere); an OS error puts ``original`` back."""
    fd = os.open(target, os.O_WRONLY | os.O_NOFOLLOW)
    try:
        try:
            _overwrite(fd, data)
        except OSError:
            with contextlib.suppress(OSError):
                _overwrite(fd, original)
            raise
    finally:
        os.close(fd)


def _overwrite(fd: int, data: bytes) -> None:
    view = memoryview(data)
    offset = 0
    while offset < len(view):
        offset += os.pwrite(fd, view[offset:], offset)
    os.ftruncate(fd, len(data))
    os.fsync(fd)


def _sync_folder(folder: str) -> None:
    """Make a rename durable where the platform allows it."""
    try:
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
