"""Putting a rewrite on disk: the unified diff that shows it, and the atomic write
(temporary file in the same folder, fsync, ``os.replace``) that refuses a file changed
since it was read."""

from __future__ import annotations

import difflib
import os
import re
import stat
import tempfile
from pathlib import Path


class FileChangedError(Exception):
    """The file on disk is no longer the one that was read and fixed."""


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of two sources (line endings shown as ``\\n``)."""
    def split(text: str) -> list[str]:
        lines = [line.replace("\r\n", "\n") for line in re.split(r"(?<=\n)", text) if line]
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
        return lines

    shown = path.lstrip("/")  # `a/tmp/x.j2`, as git writes an absolute path's diff
    return "".join(difflib.unified_diff(split(old), split(new), f"a/{shown}", f"b/{shown}"))


def write_atomic(path: str | os.PathLike[str], new_data: str | bytes, expected_original_bytes: bytes) -> None:
    """Replace a file's content atomically, if it still holds ``expected_original_bytes``.

    A temporary file in the same folder is written, fsynced, given the original's mode
    and renamed over the original (``os.replace``), so a crash at any point leaves
    either the old or the new file. Raises :class:`FileChangedError` when the file on
    disk is not what was read; nothing is written then.
    """
    target = os.path.realpath(path)
    data = new_data.encode("utf-8") if isinstance(new_data, str) else new_data
    if Path(target).read_bytes() != expected_original_bytes:
        raise FileChangedError(f"{path}: changed on disk since it was read; not overwritten")
    mode = stat.S_IMODE(os.stat(target).st_mode)
    folder, name = os.path.split(target)
    # Not a `with` block: the file must outlive it until os.replace (delete=False).
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115
        dir=folder, prefix=f".{name}.", suffix=".promptlint-fix", delete=False
    )
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)
        if Path(target).read_bytes() != expected_original_bytes:
            raise FileChangedError(f"{path}: changed on disk since it was read; not overwritten")
        os.replace(handle.name, target)
    except BaseException:
        # Interrupted or refused before the rename: the original is untouched; drop the copy.
        try:
            os.unlink(handle.name)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable where the platform allows it
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)
