"""Symbolic string values of code (a string, a list of pieces, a loop's pieces, an opaque
value) and the string operations both readers apply to them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Text

# ---------------------------------------------------------------------------------------
# Symbolic values


@dataclass
class Str:
    """A string value: the segments it renders to."""

    parts: list[Segment]


@dataclass
class Each:
    """Items added to a list inside a loop or a branch."""

    kind: str  # "for" or "if"
    open: Span
    items: list[Item]
    expr: Expr | None = None
    loop_vars: tuple[str, ...] = ()
    sorted: bool = False


Item = Str | Each


@dataclass
class Lst:
    """A list of strings (sections, lines) in the order they were added."""

    items: list[Item]


@dataclass
class Opaque:
    """Any other value, known by the expression that computes it."""

    expr: Expr


Value = Str | Lst | Opaque


def text_value(span: Span, text: str) -> Str:
    return Str([Text(span, text)])


def literal_text(value: Value | None) -> str | None:
    """The text of a value made of literal text only (a constant), else None."""
    if isinstance(value, Str) and all(isinstance(p, Text) for p in value.parts):
        return "".join(p.text for p in value.parts if isinstance(p, Text))
    return None


def segments_of(value: Value | None, span: Span, source: str = "") -> list[Segment]:
    """What a value renders to where it is interpolated at ``span``."""
    if value is None:
        return []
    if isinstance(value, Str):
        return list(value.parts)
    if isinstance(value, Lst):
        return [Slot(span, Expr(source=source or "list", path=("list",), paths=(("list",),)))]
    return [Slot(span, value.expr)]


def concat(left: Value | None, right: Value | None, left_span: Span, right_span: Span) -> Value:
    if isinstance(left, Lst) and isinstance(right, Lst):
        return Lst(left.items + right.items)
    return Str(segments_of(left, left_span) + segments_of(right, right_span))


def item_segments(item: Item, separator: Text | None) -> list[Segment]:
    if isinstance(item, Str):
        return list(item.parts)
    body: list[Segment] = []
    for inner in item.items:
        body.extend(item_segments(inner, separator))
        if separator is not None and isinstance(inner, Str):
            body.append(separator)
    return [Block(item.kind, item.open, None, body, expr=item.expr, loop_vars=item.loop_vars, sorted=item.sorted)]


def join(separator: Text | None, items: Lst) -> Str:
    """``sep.join(items)``: the items' segments with the separator between them."""
    parts: list[Segment] = []
    previous: Item | None = None
    for item in items.items:
        if previous is not None and separator is not None and isinstance(previous, Str):
            parts.append(separator)
        parts.extend(item_segments(item, separator))
        previous = item
    return Str(parts)


def as_list(value: Value | None, span: Span, source: str) -> Lst:
    if isinstance(value, Lst):
        return value
    if isinstance(value, Str):
        return Lst([value])
    if value is None:
        return Lst([])
    return Lst([Str([Slot(span, value.expr)])])


def transform_text(value: Str, how: Callable[[str], str]) -> Str:
    """Apply a text transformation (dedent, strip) to the literal parts of a value, with
    each slot or block standing in as one placeholder character."""
    marker = "\x00"
    texts: list[str] = []
    for part in value.parts:
        texts.append(part.text.replace(marker, " ") if isinstance(part, Text) else marker)
    out = how("".join(texts)).split(marker)
    holes = [p for p in value.parts if not isinstance(p, Text)]
    if len(out) != len(holes) + 1:
        return value
    # The transformed text between two holes is given to the first Text there (others empty).
    result: list[Segment] = []
    chunk = 0
    pending: list[Text] = []

    def flush() -> None:
        nonlocal chunk
        new = out[chunk]
        if pending:
            result.append(Text(pending[0].span, new))
            result.extend(Text(t.span, "") for t in pending[1:])
        elif new:
            result.append(Text(Span(0, 0), new))
        pending.clear()
        chunk += 1

    for part in value.parts:
        if isinstance(part, Text):
            pending.append(part)
        else:
            flush()
            result.append(part)
    flush()
    return Str(result)


def dedent(value: Str) -> Str:
    return transform_text(value, textwrap.dedent)


def cleandoc(value: Str) -> Str:
    import inspect

    return transform_text(value, inspect.cleandoc)


def strip(value: Str, how: str) -> Str:
    return transform_text(value, getattr(str, how))


def wrap_tail(value: Value, since: list[Segment] | list[Item], each: Each) -> Value:
    """Replace what was added to a value after ``since`` (its earlier contents) by ``each``
    (a loop or branch), which takes the added pieces as its items."""
    if isinstance(value, Str):
        each.items = [Str(list(value.parts[len(since):]))]
        return Str(list(value.parts[: len(since)]) + item_segments(each, None))
    assert isinstance(value, Lst)
    each.items = list(value.items[len(since):])
    return Lst(list(value.items[: len(since)]) + [each])


def grown_since(value: Value | None, before: list[Segment] | list[Item] | None) -> bool:
    """Whether ``value`` is ``before`` with more added at its end."""
    if before is None or value is None:
        return False
    current: list[Segment] | list[Item]
    if isinstance(value, Str):
        current = value.parts
    elif isinstance(value, Lst):
        current = value.items
    else:
        return False
    return len(current) > len(before) and all(a is b for a, b in zip(current, before))


def contents(value: Value | None) -> list[Segment] | list[Item] | None:
    if isinstance(value, Str):
        return list(value.parts)
    if isinstance(value, Lst):
        return list(value.items)
    return None
