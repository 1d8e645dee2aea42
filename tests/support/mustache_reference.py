"""The Mustache/Handlebars parser as it read every tag, before the loader's parse took a
shortcut for a plain name (``{{name}}``) and kept the body it adds to instead of looking it
up per segment: the oracle tests/test_loaders.py holds the loader to, on generated templates
(the same segments, the same errors)."""

from __future__ import annotations

from collections.abc import Callable

from promptlint.core.findings import one_line
from promptlint.core.ir import Block, Segment, Slot, Span, Tag, Text
from promptlint.loaders.base import LoadError
from promptlint.loaders.mustache import _BLOCK_PARAMS, _SORTING_HELPERS, _STANDALONE_SIGILS, block_kind, describe


class ReferenceParser:
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

    def _raw_block(self, start: int, body: list[Segment], flush: Callable[[int], None]) -> int:
        """Read the raw block opening at ``start`` into ``body`` (its tags render nothing, its
        content as written); where the text after it starts."""
        open_end = self.source.find("}}}}", start + 4)
        name = self.source[start + 4 : open_end].strip() if open_end >= 0 else ""
        closing = f"{{{{{{{{/{name}}}}}}}}}"
        close_at = self.source.find(closing, open_end) if name else -1
        if close_at < 0:
            line = self.source.count("\n", 0, start) + 1
            raise LoadError(f"unclosed Handlebars raw block {self.source[start:start + 20]!r}", line=line)
        flush(start)
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
        root: list[Segment] = []
        stack: list[tuple[Block, str]] = []
        cursor = 0
        text_start = 0

        def body() -> list[Segment]:
            return stack[-1][0].body if stack else root

        def flush(until: int) -> None:
            if until > text_start:
                body().append(Text(Span(text_start, until), self.source[text_start:until]))

        while True:
            start = self.source.find(self.open, cursor)
            if start < 0:
                break
            if self.open == "{{" and start > 0 and self.source[start - 1] == "\\":
                # Handlebars: `\{{name}}` renders `{{name}}`; the backslash is markup.
                flush(start - 1)
                body().append(Text(Span(start - 1, start), ""))
                text_start = start
                close_at = self.source.find("}}", start + 2)
                cursor = len(self.source) if close_at < 0 else close_at + 2
                continue
            if self.open == "{{" and self.source.startswith("{{{{", start):
                # Handlebars' raw block, `{{{{raw}}}} … {{{{/raw}}}}`: its content renders verbatim.
                cursor = text_start = self._raw_block(start, body(), flush)
                continue
            triple = self.open == "{{" and self.source.startswith("{{{", start)
            close = "}}}" if triple else self.close
            end = self.source.find(close, start + len(self.open))
            if end < 0:
                line = self.source.count("\n", 0, start) + 1
                raise LoadError(f"unclosed Mustache tag {self.source[start:start + 20]!r}", line=line)
            end += len(close)
            inner = self.source[start + (3 if triple else len(self.open)) : end - len(close)]
            strip_left = inner.startswith("~")
            strip_right = inner.endswith("~")
            inner = inner.strip("~")
            sigil = "{" if triple else (inner.strip()[:1] if inner.strip()[:1] in "#^/>!&=" else "")
            content = inner.strip()[1:].strip() if sigil and not triple else inner.strip()
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
                while tag_start > text_start and self.source[tag_start - 1] in " \t\r\n":
                    tag_start -= 1
            flush(tag_start)
            span = Span(tag_start, tag_end)
            if strip_right:
                while tag_end < len(self.source) and self.source[tag_end] in " \t\r\n":
                    tag_end += 1
                span = Span(tag_start, tag_end)
            if is_else:
                body().append(Tag(span, "else"))
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
                    raise LoadError(f"section tag {one_line(self.source[start:end])} names nothing",
                                    line=self._line(start))
                helper = words[0] if sigil == "#" and (len(words) > 1 or marker) else None
                expr = describe("" if marker else words[1] if helper else content)
                kind = "if" if marker else block_kind(helper, sigil)
                block = Block(kind, span, None, expr=expr, helper=helper)
                block.sorted = bool(_SORTING_HELPERS.intersection((helper or "",) + expr.calls))
                if kind in ("each", "section", "with"):
                    # Names inside are looked up on the item (or value) first.
                    block.loop_vars = ("this", ".") + (tuple(params.group(1).split()) if params else ())
                body().append(block)
                stack.append((block, helper or content))
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
            elif sigil == "!":
                body().append(Tag(span, "comment"))
            elif sigil == ">":
                # `{{> footer year=2025}}`, `{{> row item}}`: the partial is the first word (the
                # rest is its context and hash options); `{{> (lookup . "name")}}` names none.
                partial = content.split(None, 1)[0].strip("\"'") if content and content[0] != "(" else ""
                body().append(Tag(span, "partial", target=partial or None))
            elif sigil == "=":
                body().append(Tag(span, "delimiters"))
                parts = content.split()
                if len(parts) != 2:
                    raise LoadError(f"bad set-delimiter tag {self.source[start:end]!r}", line=self._line(start))
                self.open, self.close = parts
            else:
                body().append(Slot(span, describe(content)))
            cursor = text_start = span.end
        if stack:
            block, name = stack[-1]
            line = self.source.count("\n", 0, block.open.start) + 1
            raise LoadError(f"unclosed Mustache section {name!r}", line=line)
        flush(len(self.source))
        return root
