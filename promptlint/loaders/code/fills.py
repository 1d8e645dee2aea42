"""Placeholders a library fills in a string literal at run time: the literal is a template
of that library's, not text (Google ADK's ``{key}`` from the session state, LangChain's
``{name}`` in a chat prompt template). Each such placeholder becomes a slot, placed where
its text stands in the source."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from promptlint.core.ir import Expr, Segment, Slot, Span, Text
from promptlint.loaders.code.values import Str, Value

# What a library's reader finds in one literal text: (start, end, expression) of each
# placeholder it fills, in order.
Finder = Callable[[str], Iterator[tuple[int, int, Expr]]]


def filled(value: Value, source: str, find: Finder) -> Value:
    """``value`` with each placeholder ``find`` reads in its literal text made a slot. A
    placeholder is placed where its text stands in ``source`` within its literal's span (a
    cooked string, dedented or with escapes, is not the source); one not found there stays
    text."""
    if not isinstance(value, Str):
        return value
    parts: list[Segment] = []
    for part in value.parts:
        parts.extend(_split(part, source, find) if isinstance(part, Text) else [part])
    return Str(parts)


def _split(text: Text, source: str, find: Finder) -> list[Segment]:
    written = source[text.span.start : text.span.end]
    out: list[Segment] = []
    at = 0  # in text.text
    cursor = 0  # in written
    for start, end, expr in find(text.text):
        placeholder = text.text[start:end]
        where = written.find(placeholder, cursor)
        if where < 0:
            # Not written as read (split across literals): the rest stays text too, or each
            # would read the rest of the literal again.
            break
        if start > at:
            out.append(Text(text.span, text.text[at:start]))
        begin = text.span.start + where
        out.append(Slot(Span(begin, begin + len(placeholder)), expr))
        at, cursor = end, where + len(placeholder)
    if not out:
        return [text]
    if at < len(text.text):
        out.append(Text(text.span, text.text[at:]))
    return out
