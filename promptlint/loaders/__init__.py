"""One loader per syntax; each turns source text into a :class:`~promptlint.core.ir.Template`.

Owns reading files (regular files only, under a size limit), decoding, telling a file's
syntax, and the loaders: Jinja2 (jinja2's own lexer, imported only for Jinja files),
Mustache/Handlebars, Go templates, ``str.format``, ``${var}``, Markdown/text, and request JSON (through
:mod:`promptlint.requestbody`). May import :mod:`promptlint.core` and
:mod:`promptlint.requestbody`; never the rewriter, the probe, an SDK, click or rich.
"""

from __future__ import annotations

import importlib
import os
import stat
from collections.abc import Callable
from functools import lru_cache

from promptlint.core.ir import CODE_SYNTAXES, Block, Segment, Template
from promptlint.loaders.base import DESCRIPTIONS, Inference, LoadError, decode, detect_syntax, infer_syntax, plain_syntax

__all__ = ["FileTooLarge", "Inference", "LoadError", "detect_syntax", "infer_syntax", "load_bytes", "load_file",
           "load_text", "read_bytes"]


# The loader module of each syntax, imported when a file of that syntax is read (jinja2
# only for Jinja files, tree-sitter only for TypeScript/JavaScript). ``module:factory``
# names a module whose ``factory(syntax)`` gives the load function (one reader, two syntaxes).
_MODULES = {
    "jinja": "jinja", "mustache": "mustache", "go": "gotemplate", "format": "formatstr", "placeholders": "placeholders", "dollar": "dollar",
    "markdown": "markdown", "json": "requestjson", "python": "code.python",
    "typescript": "code.typescript:loader", "javascript": "code.typescript:loader",
}


@lru_cache(maxsize=None)
def _loader(syntax: str) -> Callable[[str, str], Template]:
    """The load function of a syntax, found once (an import, even of a module already
    loaded, went through importlib's machinery for every file)."""
    entry = _MODULES.get(syntax)
    if entry is None:
        raise LoadError(f"unknown syntax {syntax!r}")
    module, _, factory = entry.partition(":")
    loaded = importlib.import_module(f"promptlint.loaders.{module}")
    load: Callable[[str, str], Template] = getattr(loaded, factory)(syntax) if factory else loaded.load
    return load


# Prompt files larger than this are skipped with a warning, not read whole
# (config: `max-file-size`).
DEFAULT_MAX_FILE_SIZE = 2 * 1024 * 1024
# Blocks nested deeper than this are refused: no real prompt needs it, and every walk over
# the IR must stay far from Python's recursion limit.
MAX_NESTING = 100


class FileTooLarge(LoadError):
    """A file over the size limit: skipped with a warning, not an error."""


def load_text(
    path: str, text: str, syntax: str | None = None, evidence: str | None = None, prompt_names: tuple[str, ...] = ()
) -> Template:
    """Parse ``text`` as the given syntax, or the one its name and content suggest.
    ``evidence`` says what chose a given syntax (``--syntax``, a config glob);
    ``prompt_names`` (config ``[code] prompt-names``) are more names whose strings are
    prompts, for code files."""
    plain = None  # what a file read as a template by its content is read as if it is none
    if syntax is None:
        inferred = infer_syntax(path, text)
        syntax, evidence = inferred.syntax, inferred.evidence
        if inferred.from_content and syntax not in CODE_SYNTAXES and plain_syntax(path) != syntax:
            plain = plain_syntax(path)
    try:
        if syntax in CODE_SYNTAXES:
            from promptlint.loaders.code import load_code

            template = load_code(_loader(syntax), path, text, prompt_names)
        else:
            template = _loader(syntax)(path, text)
    except RecursionError:
        raise LoadError(f"nested too deeply to read as {syntax}") from None
    except LoadError as exc:
        if plain is None:
            raise
        # The content's template syntax was a guess (a page about templates quotes theirs in
        # prose): read as what its extension says, with why. A file named as a template
        # (`.j2`, `--syntax`, a config glob) that does not parse is still an error.
        where = f"line {exc.line}: " if exc.line else ""
        evidence = (f"{evidence}, but it does not parse as {DESCRIPTIONS.get(syntax, syntax)} "
                    f"({where}{exc.message})")
        syntax = plain
        template = _loader(syntax)(path, text)
    for part in template.prompts or [template]:
        depth = _nesting(part.segments)
        if depth > MAX_NESTING:
            raise LoadError(f"blocks nested {depth} deep (at most {MAX_NESTING} are read)")
    template.syntax_evidence = evidence
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
        # By descriptor: open() adds a buffered reader and three system calls (fstat, a
        # terminal check, a seek) that a whole-file read has no use for.
        handle = os.open(path, _READ_FLAGS)
        try:
            if max_size is None:
                return _read_upto(handle, None, info.st_size + 1)
            # As many bytes as the file had, and one more to see that it grew: a read of the
            # limit itself allocates the limit (megabytes) for every file, however small.
            return _read_upto(handle, max_size + 1, info.st_size + 1)
        finally:
            os.close(handle)
    except FileNotFoundError:
        raise LoadError("no such file") from None
    except PermissionError:
        raise LoadError("permission denied") from None
    except RuntimeError:  # pragma: no cover - os.stat reports loops as OSError(ELOOP)
        raise LoadError("symlink loop") from None
    except OSError as exc:
        raise LoadError(exc.strerror or str(exc)) from None


_READ_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _read_upto(handle: int, limit: int | None, first: int) -> bytes:
    """The bytes of an open file to its end, or its first ``limit`` (None: no limit); the
    first read asks for ``first`` (what its size says, and one more), the next ones for
    what is left (a file that grew since, or whose size is not told, as in /proc)."""
    pieces = []
    size = 0
    want = first if limit is None else min(first, limit)
    while want > 0:
        piece = os.read(handle, want)
        if not piece:
            break
        pieces.append(piece)
        size += len(piece)
        want = (1 << 20) if limit is None else min(1 << 20, limit - size)
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def _file_type(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a file"


def load_file(
    path: str, syntax: str | None = None, max_size: int | None = DEFAULT_MAX_FILE_SIZE, evidence: str | None = None,
    prompt_names: tuple[str, ...] = (),
) -> Template:
    """Read, decode and parse one prompt file. Raises :class:`LoadError`."""
    return load_bytes(path, read_bytes(path, max_size), syntax, evidence, prompt_names)


def load_bytes(
    path: str, data: bytes, syntax: str | None = None, evidence: str | None = None, prompt_names: tuple[str, ...] = ()
) -> Template:
    """Decode and parse a prompt file's bytes (BOM and line endings recorded)."""
    decoded = decode(data)
    template = load_text(path, decoded.text, syntax, evidence, prompt_names)
    template.has_bom = decoded.has_bom
    template.newline = decoded.newline
    return template
