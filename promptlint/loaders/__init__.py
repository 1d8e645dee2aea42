"""One loader per syntax; each turns source text into a :class:`~promptlint.core.ir.Template`."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable

from promptlint.core.ir import CODE_SYNTAXES, Block, Segment, Template
from promptlint.loaders.base import LoadError, decode, detect_syntax

__all__ = ["FileTooLarge", "LoadError", "detect_syntax", "load_bytes", "load_file", "load_text", "read_bytes"]


def _loader(syntax: str) -> Callable[[str, str], Template]:
    if syntax == "jinja":
        from promptlint.loaders import jinja

        return jinja.load
    if syntax == "mustache":
        from promptlint.loaders import mustache

        return mustache.load
    if syntax == "format":
        from promptlint.loaders import formatstr

        return formatstr.load
    if syntax == "dollar":
        from promptlint.loaders import dollar

        return dollar.load
    if syntax == "markdown":
        from promptlint.loaders import markdown

        return markdown.load
    if syntax == "json":
        from promptlint.loaders import requestjson

        return requestjson.load
    if syntax == "python":
        from promptlint.loaders.code import python

        return python.load
    if syntax in ("typescript", "javascript"):
        from promptlint.loaders.code import typescript

        return typescript.loader(syntax)
    raise LoadError(f"unknown syntax {syntax!r}")


# Prompt files larger than this are skipped with a warning, not read whole
# (config: `max-file-size`).
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
# Blocks nested deeper than this are refused: no real prompt needs it, and every walk over
# the IR must stay far from Python's recursion limit.
MAX_NESTING = 100


class FileTooLarge(LoadError):
    """A file over the size limit: skipped with a warning, not an error."""


def load_text(path: str, text: str, syntax: str | None = None, prompt_names: tuple[str, ...] = ()) -> Template:
    """Parse ``text`` as the given syntax, or the one its name and content suggest.

    ``prompt_names`` (config ``[code] prompt-names``) are more names whose strings are
    prompts, for code files."""
    syntax = syntax or detect_syntax(path, text)
    try:
        if syntax in CODE_SYNTAXES:
            from promptlint.loaders.code import load_code

            template = load_code(_loader(syntax), path, text, prompt_names)
        else:
            template = _loader(syntax)(path, text)
    except RecursionError:
        raise LoadError(f"nested too deeply to read as {syntax}") from None
    for part in template.prompts or [template]:
        depth = _nesting(part.segments)
        if depth > MAX_NESTING:
            raise LoadError(f"blocks nested {depth} deep (at most {MAX_NESTING} are read)")
    return template


def _nesting(segments: list[Segment]) -> int:
    """How deep blocks nest, without recursion (the IR may be as deep as the file)."""
    deepest = 0
    stack = [(segments, 0)]
    while stack:
        body, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_NESTING:
            break
        stack.extend((seg.body, depth + 1) for seg in body if isinstance(seg, Block))
    return deepest


def read_bytes(path: str, max_size: int | None = DEFAULT_MAX_FILE_SIZE) -> bytes:
    """A regular file's bytes; :class:`LoadError` with a one-line reason when it cannot be
    read. FIFOs, devices and sockets are refused before they are opened (opening a FIFO
    blocks; a device never ends)."""
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            raise LoadError("is a directory")
        if not stat.S_ISREG(info.st_mode):
            raise LoadError(f"not a regular file ({_file_type(info.st_mode)}), not read")
        if max_size is not None and info.st_size > max_size:
            raise FileTooLarge(f"{info.st_size:,} bytes, over the {max_size:,}-byte limit (`max-file-size`): skipped")
        with open(path, "rb") as handle:
            return handle.read() if max_size is None else handle.read(max_size + 1)
    except FileNotFoundError:
        raise LoadError("no such file") from None
    except PermissionError:
        raise LoadError("permission denied") from None
    except RuntimeError:  # pragma: no cover - os.stat reports loops as OSError(ELOOP)
        raise LoadError("symlink loop") from None
    except OSError as exc:
        raise LoadError(exc.strerror or str(exc)) from None


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def load_file(path: str, syntax: str | None = None, max_size: int | None = DEFAULT_MAX_FILE_SIZE,
              prompt_names: tuple[str, ...] = ()) -> Template:
    """Read, decode and parse one prompt file. Raises :class:`LoadError`."""
    return load_bytes(path, read_bytes(path, max_size), syntax, prompt_names)


def load_bytes(path: str, data: bytes, syntax: str | None = None, prompt_names: tuple[str, ...] = ()) -> Template:
    """Decode and parse a prompt file's bytes (BOM and line endings recorded)."""
    decoded = decode(data)
    template = load_text(path, decoded.text, syntax, prompt_names)
    template.has_bom = decoded.has_bom
    template.newline = decoded.newline
    return template
