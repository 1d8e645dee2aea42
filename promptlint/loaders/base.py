"""Reading prompt files: decoding, syntax detection, and the error every loader raises."""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass
from pathlib import PurePath

EXTENSIONS: dict[str, str] = {
    ".j2": "jinja",
    ".jinja": "jinja",
    ".jinja2": "jinja",
    ".mustache": "mustache",
    ".hbs": "mustache",
    ".handlebars": "mustache",
    ".fmt": "format",
    ".tmpl": "dollar",
    ".md": "markdown",
    ".markdown": "markdown",
    ".mdx": "markdown",
    ".txt": "markdown",
    ".prompt": "markdown",
    ".json": "json",
    # Prompt builders in code (promptlint.loaders.code).
    ".py": "python",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
}
# Extensions whose syntax is read from the content (a .txt or .prompt may be a template).
AMBIGUOUS = frozenset({".txt", ".prompt", ".md", ".markdown", ".tmpl"})


class LoadError(Exception):
    """A file that cannot be read or parsed. ``line``/``column`` are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


@dataclass(frozen=True)
class Decoded:
    text: str
    has_bom: bool
    newline: str


def decode(data: bytes) -> Decoded:
    """UTF-8 text of a prompt file; binary and invalid UTF-8 are refused with the offset."""
    if b"\x00" in data[:8192]:
        raise LoadError("binary file (contains NUL bytes), not a prompt")
    has_bom = data.startswith(codecs.BOM_UTF8)
    if has_bom:
        data = data[len(codecs.BOM_UTF8) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        # A column counts characters, as every other position does (the bytes before
        # the bad one on its line are valid UTF-8).
        column = len(data[data.rfind(b"\n", 0, exc.start) + 1 : exc.start].decode("utf-8")) + 1
        raise LoadError(f"invalid UTF-8 (byte 0x{data[exc.start]:02x})", line=line, column=column) from None
    newline = "\r\n" if "\r\n" in text else "\n"
    return Decoded(text, has_bom, newline)


_JINJA_MARKERS = re.compile(r"\{%-?\s*\w+|\{\{-?\s*[\w(]|\{#")
_MUSTACHE_MARKERS = re.compile(r"\{\{\{?\s*[#^/>!&]?\s*[\w.]+\s*\}?\}\}")
_MUSTACHE_SECTION = re.compile(r"\{\{\s*[#^/>!]")
_DOLLAR_MARKERS = re.compile(r"\$\{[^}\n]+\}")
_FORMAT_MARKERS = re.compile(r"(?<!\{)\{[A-Za-z_][\w.\[\]]*(?:![rsa])?(?::[^{}\n]*)?\}(?!\})")


def detect_syntax(path: str, text: str, default: str | None = None) -> str:
    """The syntax of a file: by extension, and by content where the extension is ambiguous."""
    suffixes = [s.lower() for s in PurePath(path).suffixes]
    suffix = suffixes[-1] if suffixes else ""
    if suffix in EXTENSIONS and suffix not in AMBIGUOUS:
        return EXTENSIONS[suffix]
    # `name.j2.md`, `name.fmt.txt`: an inner template extension wins.
    for inner in reversed(suffixes[:-1]):
        if inner in EXTENSIONS and inner not in AMBIGUOUS:
            return EXTENSIONS[inner]
    if default:
        return default
    # `{#` opens a Jinja comment, but `{{#each}}` is a Mustache section.
    if ("{%" in text or re.search(r"(?<!\{)\{#", text)) and _JINJA_MARKERS.search(text):
        return "jinja"
    if _MUSTACHE_SECTION.search(text):
        return "mustache"
    if suffix == ".tmpl" or _DOLLAR_MARKERS.search(text):
        return "dollar"
    if "{{" in text and _JINJA_MARKERS.search(text) and re.search(r"\{\{\s*[\w.]+\s*\|", text):
        return "jinja"
    if "{{" in text and _MUSTACHE_MARKERS.search(text):
        # `{{ name }}` is both Jinja and Mustache; the IR is the same for plain names.
        return "jinja" if re.search(r"\{\{[^}]*[(|]", text) else "mustache"
    if "{{" in text and re.search(r"\{\{-?\s*[\w.]+\s*\(", text):
        return "jinja"  # `{{ now().strftime(...) }}`: a call is Jinja, not Mustache
    # Markdown agent files are static: `{answer}` in prose is an instruction, not a field.
    return EXTENSIONS.get(suffix, "markdown")
