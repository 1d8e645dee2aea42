"""Python ``str.format`` templates, read through ``string.Formatter().parse``."""

from __future__ import annotations

import re
import string
from functools import lru_cache

from promptlint.core.ir import Expr, Segment, Slot, Span, Template, Text
from promptlint.loaders.base import LoadError


@lru_cache(maxsize=4096)
def describe(field_name: str, format_spec: str | None, conversion: str | None) -> Expr:
    """``user.name``, ``user[name]``, ``0`` and a format spec such as ``%H:%M`` (described
    once per field: a template repeats its fields, a project its templates')."""
    path = tuple(p for p in re.split(r"[.\[\]]", field_name) if p)
    source = field_name + (f"!{conversion}" if conversion else "") + (f":{format_spec}" if format_spec else "")
    calls = tuple(re.findall(r"(\w+)\(", field_name))
    return Expr(source=source, path=path, paths=(path,), calls=calls, format_spec=format_spec or None)


def _field_end(source: str, start: int) -> int:
    """Offset just past the ``}`` closing the replacement field opened at ``start``."""
    close = source.find("}", start)
    if close >= 0 and source.find("{", start + 1, close) < 0:
        return close + 1  # no field nested in its format spec (most): the first `}` closes it
    depth = 0
    for i in range(start, len(source)):
        if source[i] == "{":
            depth += 1
        elif source[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    raise LoadError("unclosed '{' in format string", line=source.count("\n", 0, start) + 1)


def _problem_at(source: str, cursor: int) -> int:
    """Where the brace that ``Formatter.parse`` refused is: the first single ``}`` or
    unclosed ``{`` at or after ``cursor`` (the parser raises before yielding the text
    that precedes it)."""
    i = cursor
    while i < len(source):
        ch = source[i]
        if ch in "{}" and source.startswith(ch * 2, i):
            i += 2
        elif ch == "}":
            return i
        elif ch == "{":
            try:
                i = _field_end(source, i)
            except LoadError:
                return i
        else:
            i += 1
    return cursor


def _literal_end(source: str, cursor: int, literal: str) -> int:
    """Where ``literal`` (a piece of text ``Formatter.parse`` gave, its ``{{``/``}}`` read
    as one brace) ends in ``source``, from ``cursor``: a character each, two for a brace
    the source doubles. The stretches between braces are skipped whole."""
    i = 0
    while True:
        opening, closing = literal.find("{", i), literal.find("}", i)
        brace = min(opening, closing) if opening >= 0 and closing >= 0 else max(opening, closing)
        if brace < 0:
            return cursor + len(literal) - i
        cursor += brace - i
        ch = literal[brace]
        cursor += 2 if source.startswith(ch * 2, cursor) else 1
        i = brace + 1


def load(path: str, source: str) -> Template:
    segments: list[Segment] = []
    cursor = 0
    items = iter(string.Formatter().parse(source))
    while True:
        try:
            literal, field_name, format_spec, conversion = next(items)
        except StopIteration:
            break
        except ValueError as exc:
            line = source.count("\n", 0, _problem_at(source, cursor)) + 1
            raise LoadError(f"malformed format string: {exc}", line=line) from None
        if literal:
            start = cursor
            cursor = _literal_end(source, cursor, literal)
            segments.append(Text(Span(start, cursor), literal))
        if field_name is not None:
            end = _field_end(source, cursor)
            segments.append(Slot(Span(cursor, end), describe(field_name, format_spec, conversion)))
            cursor = end
    if cursor != len(source):  # pragma: no cover - Formatter.parse consumes everything
        raise LoadError("could not read the whole format string")
    return Template(path=path, syntax="format", source=source, segments=segments)
