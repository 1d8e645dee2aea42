"""Symbolic string values of code (a string, a list of pieces, a loop's pieces, an opaque
value) and the string operations both readers apply to them."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Text
from promptlint.loaders.base import LoadError

# ---------------------------------------------------------------------------------------
# Bounds of one file's evaluation

# Code builds values far larger than itself: a string doubled 30 times (`s = s + s`) holds
# a billion pieces after 30 lines, ternaries that choose between two copies of a value
# nest one in each branch (a prompt of 2**40 pieces, in shared blocks, that every walk over
# it unfolds), and a prompt grown by 20,000 `+=` copies its pieces at each. Real builders
# stay far below both bounds: in 17,000 modules of installed packages and 1,100 large
# TypeScript/JavaScript files, the largest value held 8,500 pieces and the most one file
# built in all was 75,000.
MAX_PIECES = 100_000  # in one value, and in a file's prompts with their blocks unfolded
MAX_BUILT = 20_000_000  # in all the values one file's evaluation builds (copies included)
_built = 0


def start_budget() -> None:
    """A file's evaluation starts: nothing built yet."""
    global _built
    _built = 0


def spend(pieces: int, held: int | None = None) -> None:
    """Count ``pieces`` built (a value's, a copy's); a file past the bounds is refused
    before its evaluation takes minutes or gigabytes. ``held``: what the value holds once
    they are added, where it grows in place (else the pieces are the whole value)."""
    global _built
    _built += pieces
    if (pieces if held is None else held) > MAX_PIECES:
        raise LoadError(f"too large to evaluate its prompts (a value of over {MAX_PIECES:,} pieces)")
    if _built > MAX_BUILT:
        raise LoadError(f"too large to evaluate its prompts (over {MAX_BUILT:,} pieces built)")


def unfolded_size(segments: list[Segment], sizes: dict[int, int]) -> int:
    """How many pieces ``segments`` hold with each block's body counted wherever the block
    stands (what every walk over a prompt visits), in a time linear in the distinct blocks:
    ``sizes`` keeps each block's by its id (blocks are shared, not copied)."""
    stack = [seg for seg in segments if isinstance(seg, Block)]
    while stack:
        block = stack[-1]
        if id(block) in sizes:
            stack.pop()
            continue
        pending = [seg for seg in block.body if isinstance(seg, Block) and id(seg) not in sizes]
        if pending:
            stack.extend(pending)
            continue
        sizes[id(block)] = 1 + sum(sizes[id(seg)] if isinstance(seg, Block) else 1 for seg in block.body)
        stack.pop()
    return sum(sizes[id(seg)] if isinstance(seg, Block) else 1 for seg in segments)


# ---------------------------------------------------------------------------------------
# Symbolic values


@dataclass
class Str:
    """A string value: the segments it renders to."""

    parts: list[Segment]

    def __post_init__(self) -> None:
        spend(len(self.parts))


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

    def __post_init__(self) -> None:
        spend(len(self.items))


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


def extend(value: Str, more: Value | None, span: Span) -> None:
    """``value + more`` made in ``value`` itself, which nothing else holds (a value the
    fold of a ``+`` chain has just made: a chain of 20,000 links copied its value at each)."""
    added = segments_of(more, span)
    spend(len(added), held=len(value.parts) + len(added))
    value.parts.extend(added)


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
    """A copy of a value's pieces (a snapshot before a branch or a loop: counted as built)."""
    if isinstance(value, Str):
        spend(len(value.parts))
        return list(value.parts)
    if isinstance(value, Lst):
        spend(len(value.items))
        return list(value.items)
    return None
