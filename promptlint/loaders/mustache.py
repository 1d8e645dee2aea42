"""Mustache and Handlebars templates.

No maintained Python Mustache library exposes tag offsets, so tags are read here,
following the Mustache spec (sections, inverted sections, partials, comments,
set-delimiter tags, standalone lines) and the Handlebars additions (``{{#each}}``,
``{{#if}}``/``{{else}}``, helpers with arguments, ``~`` whitespace control).
"""

from __future__ import annotations

import re
import shlex
from functools import lru_cache

from promptlint.core.findings import one_line
from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Tag, Template, Text
from promptlint.loaders.base import LoadError

# Handlebars helpers that sort what they are given.
_SORTING_HELPERS = frozenset({"sort", "sortBy", "sorted", "orderBy", "sort_by", "eachSorted", "sortedEach"})
_STANDALONE_SIGILS = frozenset("#^/>!=")
# Block helpers by what they do with their body: repeat it per item, render it or not, or
# render it once in the context of a value. Unknown helpers render their body (conditionally).
_LOOP_HELPERS = frozenset({"each", "list", "forEach", "foreach", "for", "iterate", "loop", "map", "join",
                           "eachIndex", "eachProperty", "eachSorted", "sortedEach", "repeat", "items"})
_CONTEXT_HELPERS = frozenset({"with", "let"})
_HASH_OPTION = re.compile(r"(?<![\w.])[A-Za-z_][\w-]*=(?:\"[^\"]*\"|'[^']*'|\([^()]*\)|[^\s)]+)")
_BLOCK_PARAMS = re.compile(r"\s+as\s+\|([^|]*)\|\s*$")
# A tag that is only a name between the default delimiters, `{{name}}`, `{{ user.name }}` (not
# after a backslash, which escapes it): a slot whose content is the name (unless it is `else`).
_PLAIN_TAG = re.compile(r"\{\{[ \t]*([A-Za-z_][\w.-]*)[ \t]*\}\}")


def block_kind(helper: str | None, sigil: str) -> str:
    """The IR kind of a section or block helper: each (a loop), if, unless, with, section
    (a Mustache section over a value), inverted."""
    if sigil == "^":
        return "inverted"
    if helper is None:
        return "section"
    if helper in _LOOP_HELPERS:
        return "each"
    if helper == "unless":
        return "unless"
    if helper in _CONTEXT_HELPERS:
        return "with"
    return "if"


def load(path: str, source: str) -> Template:
    return Template(path=path, syntax="mustache", source=source, segments=_Parser(source).parse())


@lru_cache(maxsize=4096)
def describe(content: str) -> Expr:
    """A Mustache name (``user.name``) or a Handlebars helper call (``formatDate now "HH:mm"``).
    Hash options (``join=", "``) configure a helper; they are not its data. Read once per
    content (an immutable Expr): a prompt repeats the same names, drafts read them again."""
    content = _HASH_OPTION.sub(" ", content)
    try:
        words = shlex.split(content, posix=True)
    except ValueError:
        words = content.split()
    # Handlebars subexpressions `(sortBy tools "name")` group words; the parentheses
    # are not part of any name.
    words = [w.strip("()") for w in words if w.strip("()")]
    quoted = re.findall(r"\"([^\"]*)\"|'([^']*)'", content)
    literals = tuple(a or b for a, b in quoted)
    names = [w for w in words if w not in literals and not re.fullmatch(r"[\w.@/-]+=.*", w)]
    calls: tuple[str, ...] = ()
    if len(names) > 1 or (names and literals):
        calls, names = (names[0],), names[1:]
    names = [w.strip("()") for w in names]
    paths = tuple(tuple(p for p in n.replace("/", ".").split(".") if p) for n in names if n not in (".", "this"))
    return Expr(
        source=content.strip(),
        path=paths[0] if paths else (),
        paths=paths,
        calls=calls,
        filters=calls,
        format_spec=literals[0] if literals else None,
        literals=literals,
    )


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.open, self.close = "{{", "}}"

    def _line_bounds(self, start: int, end: int) -> tuple[int, int] | None:
        """The extent of the line if the tag at [start, end) stands alone on it. Read out
        from the tag over blanks only: reading the whole line around each tag cost a line of
        100,000 tags its length per tag."""
        source = self.source
        line_start = start
        while line_start > 0 and source[line_start - 1] != "\n":
            if not source[line_start - 1].isspace():
                return None
            line_start -= 1
        line_end = end
        while line_end < len(source) and source[line_end] != "\n":
            if not source[line_end].isspace():
                return None
            line_end += 1
        return line_start, min(line_end + 1, len(source))

    def _raw_block(self, start: int, body: list[Segment], text_start: int) -> int:
        """Read the raw block opening at ``start`` into ``body``, after the text from
        ``text_start`` (its tags render nothing, its content as written); where the text
        after it starts."""
        open_end = self.source.find("}}}}", start + 4)
        name = self.source[start + 4 : open_end].strip() if open_end >= 0 else ""
        closing = f"{{{{{{{{/{name}}}}}}}}}"
        close_at = self.source.find(closing, open_end) if name else -1
        if close_at < 0:
            line = self.source.count("\n", 0, start) + 1
            raise LoadError(f"unclosed Handlebars raw block {self.source[start:start + 20]!r}", line=line)
        if start > text_start:
            body.append(Text(Span(text_start, start), self.source[text_start:start]))
        body.append(Text(Span(start, open_end + 4), ""))
        if close_at > open_end + 4:
            body.append(Text(Span(open_end + 4, close_at), self.source[open_end + 4 : close_at]))
        body.append(Text(Span(close_at, close_at + len(closing)), ""))
        return close_at + len(closing)

    def _line(self, offset: int) -> int:
        """The 1-based line of an offset, counted for an error only (counting each tag's
        would cost the file's length per tag)."""
        return self.source.count("\n", 0, offset) + 1

    def parse(self) -> list[Segment]:
        source = self.source
        root: list[Segment] = []
        stack: list[tuple[Block, str]] = []
        body = root  # where segments go: the innermost open section's body, else the root
        cursor = text_start = 0
        while True:
            start = source.find(self.open, cursor)
            if start < 0:
                break
            # Handlebars' own forms (escapes, raw blocks, triple mustaches) open with `{{`.
            handlebars = self.open == "{{"
            if handlebars and start > 0 and source[start - 1] == "\\":
                # Handlebars: `\{{name}}` renders `{{name}}`; the backslash is markup.
                if start - 1 > text_start:
                    body.append(Text(Span(text_start, start - 1), source[text_start : start - 1]))
                body.append(Text(Span(start - 1, start), ""))
                text_start = start
                close_at = source.find("}}", start + 2)
                cursor = len(source) if close_at < 0 else close_at + 2
                continue
            plain = _PLAIN_TAG.match(source, start) if handlebars and self.close == "}}" else None
            if plain is not None and plain[1] != "else":
                # Most tags of a prompt: a name, read as the lines below read it.
                if start > text_start:
                    body.append(Text(Span(text_start, start), source[text_start:start]))
                cursor = text_start = plain.end()
                body.append(Slot(Span(start, cursor), describe(plain[1])))
                continue
            triple = handlebars and source.startswith("{", start + 2)
            if triple and source.startswith("{", start + 3):
                # Handlebars' raw block, `{{{{raw}}}} … {{{{/raw}}}}`: its content renders verbatim.
                cursor = text_start = self._raw_block(start, body, text_start)
                continue
            close = "}}}" if triple else self.close
            inner_start = start + (3 if triple else len(self.open))
            inner_end = source.find(close, inner_start)
            if inner_end < 0:
                raise LoadError(f"unclosed Mustache tag {source[start:start + 20]!r}", line=self._line(start))
            end = inner_end + len(close)
            inner = source[inner_start:inner_end]
            strip_left = inner.startswith("~")
            strip_right = inner.endswith("~")
            if strip_left or strip_right:
                inner = inner.strip("~")
            content = inner.strip()
            sigil = "{" if triple else content[:1]
            if sigil and sigil in "#^/>!&=":
                content = content[1:].strip()
            elif not triple:
                sigil = ""
            if sigil == "=":
                content = content.rstrip("=").strip()
            # `{{else}}`, `{{else if cond}}`, `{{^}}` (Handlebars' inverse marker).
            is_else = (not sigil and (content == "else" or content.startswith("else "))) or (
                sigil == "^" and not content)
            tag_start, tag_end = start, end
            if sigil in _STANDALONE_SIGILS or is_else:
                bounds = self._line_bounds(start, end)
                if bounds is not None:
                    tag_start, tag_end = bounds
            if strip_left:
                while tag_start > text_start and source[tag_start - 1] in " \t\r\n":
                    tag_start -= 1
            if strip_right:
                while tag_end < len(source) and source[tag_end] in " \t\r\n":
                    tag_end += 1
            if tag_start > text_start:
                body.append(Text(Span(text_start, tag_start), source[text_start:tag_start]))
            span = Span(tag_start, tag_end)
            cursor = text_start = tag_end
            if not sigil and not is_else or sigil == "{" or sigil == "&":
                body.append(Slot(span, describe(content)))
            elif is_else:
                body.append(Tag(span, "else"))
            elif sigil in ("#", "^"):
                params = _BLOCK_PARAMS.search(content)
                if params:
                    content = content[: params.start()]
                # Handlebars' partial block, `{{#> layout}}…{{/layout}}` (its body renders where
                # the partial is missing), and inline partial, `{{#*inline "row"}}…{{/inline}}`
                # (its body renders where the partial is used): closed by the name after the
                # `>` or `*`, and conditional text, no value.
                marker = content[:1] if sigil == "#" and content[:1] in ">*" else ""
                content = content[1:].strip() if marker else content
                words = content.split(None, 1)
                if not words:
                    raise LoadError(f"section tag {one_line(source[start:end])} names nothing",
                                    line=self._line(start))
                helper = words[0] if sigil == "#" and (len(words) > 1 or marker) else None
                expr = describe("" if marker else words[1] if helper else content)
                kind = "if" if marker else block_kind(helper, sigil)
                block = Block(kind, span, None, expr=expr, helper=helper)
                block.sorted = bool(_SORTING_HELPERS.intersection((helper or "",) + expr.calls))
                if kind in ("each", "section", "with"):
                    # Names inside are looked up on the item (or value) first.
                    block.loop_vars = ("this", ".") + (tuple(params.group(1).split()) if params else ())
                body.append(block)
                stack.append((block, helper or content))
                body = block.body
            elif sigil == "/":
                if not stack:
                    raise LoadError(f"closing tag {one_line('{{/' + content + '}}')} with no open section",
                                    line=self._line(start))
                block, name = stack[-1]
                if content != name and content != name.split()[0]:
                    raise LoadError(f"{one_line('{{/' + content + '}}')} closes section {name!r}",
                                    line=self._line(start))
                stack.pop()
                block.close = span
                body = stack[-1][0].body if stack else root
            elif sigil == "!":
                body.append(Tag(span, "comment"))
            elif sigil == ">":
                # `{{> footer year=2025}}`, `{{> row item}}`: the partial is the first word (the
                # rest is its context and hash options); `{{> (lookup . "name")}}` names none.
                partial = content.split(None, 1)[0].strip("\"'") if content and content[0] != "(" else ""
                body.append(Tag(span, "partial", target=partial or None))
            else:  # "=": a set-delimiter tag
                body.append(Tag(span, "delimiters"))
                parts = content.split()
                if len(parts) != 2:
                    raise LoadError(f"bad set-delimiter tag {source[start:end]!r}", line=self._line(start))
                self.open, self.close = parts
        if stack:
            block, name = stack[-1]
            raise LoadError(f"unclosed Mustache section {name!r}", line=self._line(block.open.start))
        if len(source) > text_start:
            body.append(Text(Span(text_start, len(source)), source[text_start:]))
        return root
