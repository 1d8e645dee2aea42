"""Reading prompt files: decoding, syntax detection, and the error every loader raises."""

from __future__ import annotations

import codecs
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePath
from typing import NamedTuple

from promptlint.core.fences import fenced_regions, may_hold_fences

EXTENSIONS: dict[str, str] = {
    ".j2": "jinja",
    ".jinja": "jinja",
    ".jinja2": "jinja",
    ".mustache": "mustache",
    ".hbs": "mustache",
    ".handlebars": "mustache",
    ".gotmpl": "go",
    ".fmt": "format",
    ".tmpl": "dollar",
    ".tpl": "markdown",  # by content: a Go template (`coder.md.tpl`), else text
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
AMBIGUOUS = frozenset({".txt", ".prompt", ".md", ".markdown", ".tmpl", ".tpl"})


class LoadError(Exception):
    """A file that cannot be read or parsed. ``line``/``column`` are 1-based when known."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def describe(self) -> str:
        """The error as the one line a report shows: where, then what (a loader's message
        may quote text with a line break in it: it is escaped, never a second line)."""
        from promptlint.core.findings import one_line

        where = f"line {self.line}: " if self.line else ""
        if self.line and self.column:
            where = f"line {self.line}, column {self.column}: "
        return where + one_line(self.message)


class Decoded(NamedTuple):
    """A file's text, and what its bytes had that the text does not (a named tuple: a
    frozen dataclass sets each field through ``object.__setattr__``, a cost every file paid)."""

    text: str
    has_bom: bool
    newline: str


_WIDE_BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
              (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def _wide_encoding(data: bytes, has_nul: bool) -> str | None:
    """``"UTF-16"``/``"UTF-32"`` when the bytes are text in one of them (a BOM, or, without
    one, ASCII text with a NUL beside every character), else None: such a file is text in
    the wrong encoding, not binary, and the error should say how to fix it. ``has_nul``:
    whether the bytes hold a NUL (the caller looks for one anyway)."""
    for bom, name in _WIDE_BOMS:  # UTF-32 LE first: its BOM starts with UTF-16 LE's
        if data.startswith(bom):
            return f"{name} (with a byte-order mark)"
    if not has_nul:
        return None  # without a BOM, wide text has a NUL beside every ASCII character
    head = data[:4096]
    if len(head) >= 4 and len(head) % 2 == 0:
        even, odd = head[0::2], head[1::2]
        for text, zeros in ((even, odd), (odd, even)):
            if zeros.count(0) == len(zeros) and text.count(0) == 0:
                return "UTF-16 (no byte-order mark)"
    return None


def decode(data: bytes) -> Decoded:
    """UTF-8 text of a prompt file; binary, UTF-16/32 and invalid UTF-8 are refused with
    the offset. A NUL byte anywhere makes a file binary (not only in its head: the rest
    of it is read, and a NUL in a prompt is never meant)."""
    nul = data.find(b"\x00")
    wide = _wide_encoding(data, nul >= 0)
    if wide is not None:
        raise LoadError(f"text encoded as {wide}, not UTF-8: convert it to UTF-8")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise LoadError("binary file (contains NUL bytes), not a prompt", line=line if line > 1 else None)
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


# A pattern that finds a character not after another opens with that character and looks
# behind it (`\{(?<!\{\{)%`, not `(?<!\{)\{%`; `\$(?<!\\\$)\{` for a `${` not after a
# backslash, here and in _JINJA_STATEMENT): the same matches, but a pattern that opens with a
# character is scanned for it, while one that opens with a look-behind is tried at every
# position (a Markdown page's scan took ten times as long).
_JINJA_MARKERS = re.compile(r"\{(?<!\{\{)%-?\s*\w+|\{\{-?\s*[\w(]|\{#")
_MUSTACHE_MARKERS = re.compile(r"\{\{\{?\s*[#^/>!&]?\s*[\w.]+\s*\}?\}\}")
_MUSTACHE_SECTION = re.compile(r"\{\{~?\s*[#^/>!]")
# `{{#each items}}`, `{{^empty}}`, `{{#> layout}}` (a partial block), `{{#*inline "row"}}`.
_MUSTACHE_OPENER = re.compile(r"\{\{~?\s*[#^][*>]?\s*([\w.-]+)")
_MUSTACHE_NAME = re.compile(r"\{\{\{?~?\s*([A-Za-z_@][\w.@-]*)\s*~?\}?\}\}")
_DOLLAR_MARKERS = re.compile(r"\$(?<!\\\$)\{([^}\n]+)\}")
_DOLLAR_STOP = re.compile(r"[}\n]")


def _dollar_names(text: str) -> list[str]:
    """The names of ``_DOLLAR_MARKERS``' matches in ``text``, in a time linear in its length:
    the pattern's scan tries each `${` and reads to the `}` or line break after it, so a
    line of 100,000 `${` without a `}` took it minutes (each read to the end of the line).
    Here the first `}` or line break after a `${` is found once for all the `${` before it."""
    names: list[str] = []
    stop = -1  # the first "}" or line break at or after ``at + 2``, once known
    at = text.find("${")
    while at >= 0:
        if at and text[at - 1] == "\\":
            at = text.find("${", at + 1)
            continue
        if stop < at + 2:
            found = _DOLLAR_STOP.search(text, at + 2)
            stop = len(text) if found is None else found.start()
        if stop < len(text) and text[stop] == "}" and stop > at + 2:
            names.append(text[at + 2 : stop])
            at = text.find("${", stop + 1)
        else:
            at = text.find("${", at + 1)
    return names


# A `str.format` field: a name (with attribute/index access), a conversion and a spec. Not
# preceded by a word character, `\`, `$`, `^`, `_` or `}` (LaTeX `\frac{a}{b}`, `x_{i}`,
# `${x}`) and not part of a doubled brace (`{{` is an escaped brace in a format string).
# The look-behind stands after the brace, and reads the character before it: a pattern that
# starts with a look-behind is tried at every position of the text, one that starts with
# `{` only where a `{` is (the same matches, found 10-20 times faster in prompt files).
_FORMAT_FIELD = re.compile(
    r"\{(?<![{\\$^_}\w]\{)([A-Za-z_]\w*(?:\.\w+|\[\w+\])*)(?:![rsa])?(?::[^{}\n]*)?\}(?!\})"
)
_JSON_OBJECT = re.compile(r"\{(?<!\{\{)\s*\"")
# `{{"name": …` or `{{` and a line break, then `"thinking": …`: a JSON object whose braces a
# `str.format` template doubles. No Mustache tag or Jinja expression opens with a JSON key.
_ESCAPED_JSON = re.compile(r"\{\{\s*\"[^\"\n]*\"\s*:")
# Prose that explains a placeholder instead of being filled through it: "where {answer} is
# at most four sentences", "{reason} being one sentence", "replace {name} with your name".
_EXPLAINED_BEFORE = re.compile(
    r"\b(?:where|replace|replacing|substitute|(?:cite|cited|write|written|format|formatted|reply|respond|answer|shown|"
    r"render|rendered|appear|sign|signed)\s+(?:it\s+|them\s+)?as)\s*[\"'“(]?\s*$", re.IGNORECASE)
_EXPLAINED_AFTER = re.compile(
    r"^[\"'”)]?\s*(?:(?:is|are)\s+(?:at most|at least|one of|your|replaced|filled)\b|means\b|stands for\b|"
    r"being\b|with your\b|by your\b)",
    re.IGNORECASE,
)


def _explained(before: str, after: str) -> bool:
    """Whether a `{name}` is explained by the prose around it (an instruction to the model
    about its own output, not a field the code fills)."""
    return bool(_EXPLAINED_BEFORE.search(before) or _EXPLAINED_AFTER.search(after))


_CODE_SPAN = re.compile(r"`[^`\n]+`")


def _spans_blanked(text: str) -> str:
    """``text`` with each code span made spaces (same length): a prompt's placeholders in a
    code span are named, not used. A text without a backtick is returned as it is, unscanned."""
    if "`" not in text:
        return text
    return _CODE_SPAN.sub(lambda m: " " * len(m.group()), text)


_UPPER_PLACEHOLDER = re.compile(r"(?:\{\{\{?|\$\{)\s*[A-Z][A-Z0-9_]*\s*\}")

# How each inferred syntax is named in messages.
DESCRIPTIONS = {
    "jinja": "Jinja",
    "mustache": "Mustache-style placeholders",
    "go": "Go template actions",
    "format": "str.format fields",
    "placeholders": "`{NAME}` placeholders replaced in code (other braces literal)",
    "dollar": "${name} placeholders",
    "markdown": "static text",
    "json": "a request body",
}


@dataclass(frozen=True)
class Inference:
    """The syntax a file is read as, and the evidence that decided it."""

    syntax: str
    evidence: str
    # True when the content decided (not the extension, --syntax or config).
    from_content: bool = False

    @property
    def description(self) -> str:
        return DESCRIPTIONS.get(self.syntax, self.syntax)


def plain_syntax(path: str) -> str:
    """What a file is read as when its content says nothing: its extension's syntax (static
    text for `.md`, `.txt`, `.prompt`)."""
    suffixes = _suffixes(path)
    return EXTENSIONS.get(suffixes[-1] if suffixes else "", "markdown")


def detect_syntax(path: str, text: str, default: str | None = None) -> str:
    """The syntax of a file: by extension, and by content where the extension is ambiguous."""
    return infer_syntax(path, text, default).syntax


def _outside_fences(text: str) -> str:
    """The text with fenced code blocks blanked (same length, line breaks kept): placeholders
    inside an example are not evidence that the file itself is a template. Fences as the
    fix's layout reads them (:mod:`promptlint.core.fences`)."""
    if not may_hold_fences(text):
        return text  # no fence at all (most files): nothing to blank
    pieces, at = [], 0
    for _first, _last, _closed, start, end in fenced_regions(text):
        pieces += [text[at:start], _blank(text[start:end])]
        at = end
    pieces.append(text[at:])
    return "".join(pieces)


_NOT_A_BREAK = re.compile(r"[^\r\n]")


def _blank(text: str) -> str:
    """``text`` with every character but its line breaks made a space (a substitution per
    character took a tenth of a long page's check: a fence's lines are made whole)."""
    if "\r" in text:
        return _NOT_A_BREAK.sub(" ", text)
    return "\n".join(map(" ".__mul__, map(len, text.split("\n"))))


def _names(found: list[str], what: str, limit: int = 4) -> str:
    """``3 `{{NAME}}` placeholders (A, B, C)``: how many distinct names, and the first few."""
    distinct = list(dict.fromkeys(found))
    shown = ", ".join(distinct[:limit]) + (", …" if len(distinct) > limit else "")
    return f"{len(distinct)} {what} ({shown})"


def _format_fields(text: str, scanned: str | None = None) -> list[str]:
    """The `str.format` field names of a text that reads as a valid format template, else [].
    ``scanned``: the text with its fenced blocks and code spans blanked, when the caller has it."""
    import string

    if scanned is None:
        scanned = _spans_blanked(_outside_fences(text))
    if not _FORMAT_FIELD.search(scanned):
        return []  # no field (most text, and text whose braces are all doubled): none to vouch for
    try:
        list(string.Formatter().parse(text))
    except ValueError:
        return []  # unbalanced braces: not a format template
    if _JSON_OBJECT.search(text):
        return []  # a JSON object, even in an example, would be written with `{{` in a format template
    fields = []
    for match in _FORMAT_FIELD.finditer(scanned):
        before = scanned[max(0, match.start() - 40) : match.start()].rsplit("\n", 1)[-1]
        if _explained(before, scanned[match.end() : match.end() + 40]):
            return []  # the file explains its placeholders: an instruction, not a template
        if not _url_parameter(scanned, match.start(), match.end()):
            fields.append(match.group(1))
    return fields


def _url_parameter(text: str, start: int, end: int) -> bool:
    """Whether the braces at ``[start, end)`` are a parameter of a URL path, as API
    documentation writes one (`GET /tasks/{task_id}`, `'http://host/thread/{thread_id}/response'`):
    the reader (or the model) fills it in; no code replaces it in the prompt."""
    return start > 0 and text[start - 1] == "/" and (end == len(text) or text[end] in "/?#.\"'`) \t\r\n*")


@lru_cache(maxsize=256)
def _suffixes(path: str) -> tuple[str, ...]:
    """``PurePath(path).suffixes``, lower-cased, read from the name as a string. Asked two to
    four times for every file checked (its syntax detected, inferred, its plain syntax),
    read once."""
    name = os.path.basename(path)
    if name in ("", "."):  # `folder/`, `folder/.`: pathlib reads the folder's own name
        name = PurePath(path).name
    if name.endswith("."):
        return ()
    return tuple("." + part for part in name.lower().lstrip(".").split(".")[1:])


def infer_syntax(path: str, text: str, default: str | None = None) -> Inference:
    """The syntax of a file and why: the extension, or for `.md`/`.txt`/`.prompt`/`.tmpl`
    the placeholders the content holds (several of one style, shaped like variables)."""
    if not text:  # the name alone (is it a code file?): asked of every file, decided once per suffixes
        return _by_name(_suffixes(path), default)
    return _infer(_suffixes(path), text, default)


@lru_cache(maxsize=256)
def _by_name(suffixes: tuple[str, ...], default: str | None) -> Inference:
    """:func:`infer_syntax` of an empty text: the name's suffixes alone decide."""
    return _infer(suffixes, "", default)


@lru_cache(maxsize=256)
def _by_extension(suffixes: tuple[str, ...], default: str | None) -> Inference | None:
    """The syntax a template extension or the default gives, whatever the content; None
    where the content decides. Decided once per suffixes (most files are named by theirs)."""
    suffix = suffixes[-1] if suffixes else ""
    if suffix in EXTENSIONS and suffix not in AMBIGUOUS:
        return Inference(EXTENSIONS[suffix], f"extension {suffix}")
    # `name.j2.md`, `name.fmt.txt`: an inner template extension wins.
    for inner in reversed(suffixes[:-1]):
        if inner in EXTENSIONS and inner not in AMBIGUOUS:
            return Inference(EXTENSIONS[inner], f"extension {inner}")
    if default:
        return Inference(default, "default")
    return None


def _infer(suffixes: tuple[str, ...], text: str, default: str | None) -> Inference:
    named = _by_extension(suffixes, default)
    if named is not None:
        return named
    suffix = suffixes[-1] if suffixes else ""
    found = _infer_from_content(text, suffix)
    if found is not None:
        return found
    # Markdown agent files are static: `{answer}` in prose is an instruction, not a field.
    plain = EXTENSIONS.get(suffix, "markdown")
    return Inference(plain, f"extension {suffix}" if suffix else "no extension")


# `{{.Time}}`, `{{- .User.Name }}`, `{{ $.Cwd }}`: a Go template field; `{{range .Tools}}`,
# `{{if .Memory}}` … `{{end}}`: its actions.
_GO_FIELD = re.compile(r"\{\{-?\s*\$?\.([A-Za-z_]\w*)")
_GO_ACTION = re.compile(r"\{\{-?\s*(?:if|range|with|block|define|template)\s")
_GO_END = re.compile(r"\{\{-?\s*end\s*-?\}\}")
# `{{ exec "git status" }}`, `{{ now | date "2006-01-02" }}`: a function given a quoted argument
# without parentheses (a Jinja filter takes its arguments in parentheses).
_GO_CALL = re.compile(r"\{\{-?\s*((?:[a-z]\w*\s*\|\s*)*[a-z]\w*)\s+\"")


# "| `{{USER_NAME}}` | the user's name |", "- `{{CURRENT_DATE}}`: today's date"
_DEFINED = re.compile(r"^[ \t]*(?:\|[ \t]*|[-*+][ \t]+)`[^`\n]*(?:\{\{\{?|\$\{|\{)[ \t]*[A-Z][A-Z0-9_]*[ \t]*\}[^`\n]*`"
                      r"[ \t]*(?:\||:|—|–|-[ \t]|is\b|becomes\b)", re.MULTILINE)


# "the placeholders `{{USER_NAME}}` and `{{CURRENT_DATE}}`": prose that names them.
_NAMED = re.compile(r"(?i)\b(?:placeholders?|variables?|template\s+tokens?)\s+(?:such\s+as\s+|like\s+|named\s+)?"
                    r"`[^`\n]*(?:\{\{\{?|\$\{|\{)[ \t]*[A-Z][A-Z0-9_]*[ \t]*\}")


# What both patterns hold, a brace in a code span before a letter: searched for first, it
# leaves 775 of 11,890 real Markdown pages to them, which took 3.4 s over all of them.
_SPAN_BRACE = re.compile(r"`[^`\n]*\{[ \t]*\w")


def _documents_placeholders(body: str) -> bool:
    """Whether every upper-case placeholder sits in a code span and some are defined in a
    table row or list item, or named as placeholders in prose: a page about templates."""
    if "`" not in body or not _SPAN_BRACE.search(body) or not (_DEFINED.search(body) or _NAMED.search(body)):
        return False  # both name a placeholder in a code span
    outside = _spans_blanked(body)
    return not _UPPER_PLACEHOLDER.search(outside)


def _replaced_tokens(body: str) -> list[str]:
    """`{CURRENT_TIME}`, `{search_results}` tokens in a file that is no format template (a
    raw JSON example beside them): replaced by name in code. Two distinct UPPER_CASE
    names, or a name that says what changes, are evidence; a lone `{ANSWER}` or `{answer}`
    in prose is an instruction."""
    from promptlint.core.names import _by_name
    from promptlint.loaders.placeholders import TOKEN

    found = []
    for match in TOKEN.finditer(body):
        before = body[max(0, match.start() - 40) : match.start()].rsplit("\n", 1)[-1]
        if _explained(before, body[match.end() : match.end() + 40]):
            return []
        if not _url_parameter(body, match.start(), match.end()):
            found.append(match.group(1))
    upper = {name for name in found if name.isupper()}
    if len(upper) >= 2 or any(_by_name((name,)) is not None for name in upper) or any(
            _names_a_volatile_value(name) for name in set(found) - upper):
        return found
    return []


_GO_COMMENT = re.compile(r"\{\{-?\s*/\*.*?\*/\s*-?\}\}", re.S)


def _go_actions(body: str) -> str | None:
    """What says a file is a Go template: fields read on the cursor (`{{.Time}}`), or
    `if`/`range`/`with` actions closed by `{{end}}`, outside fenced examples (``body``);
    None when nothing does."""
    fields = [m.group(1) for m in _GO_FIELD.finditer(body)]
    if fields:
        return _names([f".{f}" for f in fields], "`{{.Field}}` actions")
    if _GO_ACTION.search(body) and _GO_END.search(body):
        return "`{{if}}`/`{{range}}` actions closed by `{{end}}`"
    if "/*" in body and _GO_COMMENT.search(body):
        return "`{{/* … */}}` comments"  # Go's comment syntax; in Mustache `{{/` would close a section
    return None


# `{#` not after `{` (the look-behind follows the brace: see _FORMAT_FIELD).
_JINJA_COMMENT = re.compile(r"\{(?<!\{\{)#")
# `{%` opens a Jinja statement, but `{{% notice %}}` is a Hugo shortcode.
_JINJA_STATEMENT = re.compile(r"\{(?<!\{\{)%-?\s*(\w+)")


def _jinja_comment(text: str) -> bool:
    """Whether ``text`` holds a Jinja comment: a `{#` (not Mustache's `{{#each}}`) with a
    `#}` after it. A Markdown heading's attributes (`## Setup {#setup}`, MkDocs, Pandoc) open
    with `{#` and close with `}`: read as Jinja, every page of a documentation site was a
    "malformed Jinja template"."""
    opener = _JINJA_COMMENT.search(text) if "{#" in text else None
    return opener is not None and text.find("#}", opener.end()) >= 0


# Liquid (Jekyll, Shopify) looks like Jinja and is not: a filter takes its arguments after a
# colon (`{{ page.date | date: "%B %d" }}`), and `{% assign %}`, `{% unless %}`,
# `{% capture %}` are no Jinja tags. Read as Jinja, every page of a Jekyll site was a
# "malformed Jinja template".
_LIQUID = re.compile(r"\{(?:\{[^{}\n]*(\|\s*[a-z_]+\s*:)(?!=)|(?<!\{\{)%-?\s*(assign|capture|unless|case|comment|increment|"
                     r"decrement|tablerow|cycle)\b)")


def _closed_sections(body: str) -> list[str]:
    """The names of the `{{#name}}` and `{{^name}}` sections of ``body`` that a `{{/name}}`
    closes: a section that is never closed is no Mustache section but a directive or its
    mention ("appended at runtime via {{#runtime-import}}" in a gh-aw file's front matter),
    and read as Mustache the file was an "unclosed Mustache section". Asked only where
    _MUSTACHE_SECTION finds a `{{#`, `{{^`, `{{/`, `{{>` or `{{!` (most files have none)."""
    closed = set(re.findall(r"\{\{~?\s*/\s*([\w.-]+)\s*~?\}\}", body))
    return [name for name in _MUSTACHE_OPENER.findall(body) if name in closed]


def _infer_from_content(text: str, suffix: str) -> Inference | None:
    body = _outside_fences(text)
    liquid = _LIQUID.search(body) if "|" in body or "{%" in body else None  # a filter's `|`, a tag's `{%`
    if liquid is not None:  # a site's page, no prompt template promptlint can read
        argument, tag = liquid.groups()
        what = f"a Liquid filter argument (`{argument}`)" if argument else f"a Liquid tag (`{{% {tag} %}}`)"
        return Inference(EXTENSIONS.get(suffix, "markdown"), f"inferred from content: {what}, which Jinja cannot read",
                         True)
    # A statement in a code span is named, not run: "the `{% message %}` tag" on a page about
    # a Jinja extension (read as Jinja, the page was a malformed template).
    prose = _spans_blanked(body)
    if (("{%" in prose and _JINJA_STATEMENT.search(prose)) or _jinja_comment(prose)) and _JINJA_MARKERS.search(body):
        statements = _JINJA_STATEMENT.findall(text)
        what = f"{len(statements)} `{{% … %}}` statement(s)" if statements else "`{# … #}` comments"
        return Inference("jinja", f"inferred from content: {what}", True)
    go = _go_actions(prose)  # in code spans: named, not used (a survey table quoting `{{each}}`)
    if go is not None:
        return Inference("go", f"inferred from content: {go}", True)
    # In a code span only an UPPER_CASE placeholder is evidence (`{{CURRENT_DATETIME}}` is
    # replaced in code); "use `${name}` in your templates" is a prompt about templates.
    # A page that documents placeholders (each defined in a table row or list item, none
    # used outside a code span) is about templates, not one.
    keep = not _documents_placeholders(body)
    if "`" in body:
        body = _CODE_SPAN.sub(
            lambda m: m.group() if keep and _UPPER_PLACEHOLDER.search(m.group()) else " " * len(m.group()), body)
    # JSX in a fenced example, `style={{ // note`, is no `{{/section}}` closing tag.
    marked = _MUSTACHE_SECTION.search(body) is not None
    sections = _closed_sections(body) if marked else []
    if sections or (marked and re.search(r"\{\{~?\s*[>!]", body)):
        what = _names([f"{{{{#{s}}}}}" for s in sections], "Mustache/Handlebars sections") if sections else (
            "Mustache partials or comments")
        return Inference("mustache", f"inferred from content: {what}", True)
    dollars = [name.strip() for name in _dollar_names(body)]
    if suffix == ".tmpl":
        calls = _GO_CALL.findall(body) if not dollars else []
        if calls:  # `{{ now | date "Mon 02 Jan" }}`, `{{ exec "git status" }}`: Go (sprig) functions
            return Inference("go", f"inferred from content: {_names(calls, 'Go template function calls')}", True)
        return Inference("dollar", "extension .tmpl", False)
    if dollars:  # `${` is template syntax wherever it stands outside a code example
        return Inference("dollar", f"inferred from content: {_names(dollars, '`${name}` placeholders')}", True)
    # Expressions in fenced examples are not evidence either (a design page quoting a Helm chart).
    if "|" in body and _JINJA_MARKERS.search(body) and re.search(r"\{\{\s*[\w.]+\s*\|", body):
        return Inference("jinja", "inferred from content: `{{ name | filter }}` expressions", True)
    mustache = [m.group(1) for m in _MUSTACHE_NAME.finditer(body)]
    fields = _format_fields(text, prose)
    if fields and _ESCAPED_JSON.search(text):
        # browser-use's system prompt: `{max_actions}` filled by `str.format`, its JSON example
        # and `<step_{{step_number}}>` written with doubled braces (a literal `{step_number}`).
        what = _names(fields, "`{name}` str.format field" + ("s" if len(set(fields)) > 1 else ""))
        return Inference("format", f"inferred from content: {what} and JSON written with `{{{{`/`}}}}` escaped "
                         "braces", True)
    if mustache and len(set(mustache)) >= len(set(fields)) and _MUSTACHE_MARKERS.search(text):
        # `{{ name }}` is both Jinja and Mustache; the IR is the same for plain names.
        if ("(" in body or "|" in body) and re.search(r"\{\{[^}]*[(|]", body):
            return Inference("jinja", "inferred from content: `{{ call() }}` expressions", True)
        style = "{{UPPER_CASE}}" if all(n.isupper() for n in mustache) else "{{name}}"
        return Inference("mustache", f"inferred from content: {_names(mustache, f'`{style}` placeholders')}", True)
    if "(" in body and re.search(r"\{\{-?\s*[\w.]+\s*\(", body):
        return Inference("jinja", "inferred from content: `{{ call() }}` expressions", True)
    replaced = _replaced_tokens(body) if not fields else []
    if replaced:
        style = "{UPPER_CASE}" if all(n.isupper() for n in replaced) else "{name}"
        what = _names(replaced, f"`{style}` placeholders")
        return Inference("placeholders", f"inferred from content: {what}", True)
    if len(set(fields)) >= 2:
        escaped = " and `{{`/`}}` escaped braces" if re.search(r"\{\{|\}\}", text) else ""
        what = _names(fields, "`{name}` str.format fields")
        return Inference("format", f"inferred from content: {what}{escaped}, no JSON outside them", True)
    if len(set(fields)) == 1 and _clock_format(text, fields[0]):
        what = f"1 `{{name}}` str.format field ({fields[0]}) with a strftime format"
        return Inference("format", f"inferred from content: {what}, no JSON outside it", True)
    if len(set(fields)) == 1 and (_names_a_volatile_value(fields[0]) or _placed_and_volatile(text, fields[0])):
        what = f"1 `{{name}}` str.format field ({fields[0]}) whose name reads as a volatile value"
        return Inference("format", f"inferred from content: {what}, no JSON outside it", True)
    return None


def _placed_and_volatile(text: str, field: str) -> bool:
    """A one-word name the vocabulary reads as volatile, standing where a value is put, not in
    a sentence: on a line of its own under the prose that introduces it (`{documents}`), or
    ending a line after a label's colon (`The current timestamp is: {timestamp}`)."""
    from promptlint.core.names import _by_name

    slot = r"\{" + re.escape(field) + r"\}[ \t]*$"
    if re.search(r"(?m)(?:^[ \t]*|:[ \t]*)" + slot, text) is None:
        return False
    return _by_name(tuple(field.split("."))) is not None


def _clock_format(text: str, field: str) -> bool:
    """`{now:%Y-%m-%d %H:%M:%S}`: a field given a strftime format, which only `str.format`
    applies (to a date or time)."""
    return re.search(r"\{" + re.escape(field) + r":[^{}\n]*%[YmdHMSaAbBIpyjz]", text) is not None


def _names_a_volatile_value(field: str) -> bool:
    """`{current_date_and_time}`, `{search_results}`: a snake_case name of several words that
    says what changes. A lone `{answer}` or `{final_answer}` in prose is an instruction."""
    from promptlint.core.names import _by_name

    return "_" in field.strip("_") and _by_name(tuple(field.split("."))) is not None
