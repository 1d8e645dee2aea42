"""One loader per syntax; each turns source text into a :class:`~promptlint.core.ir.Template`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from promptlint.core.ir import Template
from promptlint.loaders.base import LoadError, decode, detect_syntax

__all__ = ["LoadError", "detect_syntax", "load_bytes", "load_file", "load_text", "read_bytes"]


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
    raise LoadError(f"unknown syntax {syntax!r}")


def load_text(path: str, text: str, syntax: str | None = None) -> Template:
    """Parse ``text`` as the given syntax, or the one its name and content suggest."""
    return _loader(syntax or detect_syntax(path, text))(path, text)


def read_bytes(path: str) -> bytes:
    """A file's bytes; :class:`LoadError` with a one-line reason when it cannot be read."""
    try:
        return Path(path).read_bytes()
    except IsADirectoryError:
        raise LoadError("is a directory") from None
    except FileNotFoundError:
        raise LoadError("no such file") from None
    except PermissionError:
        raise LoadError("permission denied") from None
    except OSError as exc:
        raise LoadError(exc.strerror or str(exc)) from None


def load_file(path: str, syntax: str | None = None) -> Template:
    """Read, decode and parse one prompt file. Raises :class:`LoadError`."""
    return load_bytes(path, read_bytes(path), syntax)


def load_bytes(path: str, data: bytes, syntax: str | None = None) -> Template:
    """Decode and parse a prompt file's bytes (BOM and line endings recorded)."""
    decoded = decode(data)
    template = load_text(path, decoded.text, syntax)
    template.has_bom = decoded.has_bom
    template.newline = decoded.newline
    return template
