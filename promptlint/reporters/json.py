"""``--format json``: the output contract of DESIGN.md."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from promptlint.core.findings import Report


def render(report: Report) -> str:
    """The report as one JSON document (``json.dumps(…, indent=2)`` of the contract's object)."""
    return "".join(chunks(report))


def chunks(report: Report) -> Iterator[str]:
    """:func:`render`'s text, a file or finding at a time: the same characters, without every
    file's and finding's object held at once (on 2,000 files they took six times the text)."""
    parts: list[tuple[str, Iterable[Any]]] = [
        ("files", (r.to_json() for r in report.files)),
        ("findings", (f.to_json() for f in report.findings)),
    ]
    for key, values in (("errors", report.errors), ("warnings", report.warnings), ("notes", report.notes)):
        if values:
            parts.append((key, list(values)))
    yield '{\n  "version": 1'
    for key, items in parts:
        yield f',\n  {json.dumps(key)}: '
        yield from array(items)
    yield "\n}"


def array(items: Iterable[Any], level: int = 1) -> Iterator[str]:
    """A list, as ``json.dumps(…, indent=2, ensure_ascii=False)`` writes it ``level`` levels
    in (two spaces a level), an item at a time. SARIF's results use it too."""
    inner, outer = "\n" + "  " * (level + 1), "\n" + "  " * level
    empty = True
    for item in items:
        yield ("[" if empty else ",") + inner + indented(item, inner)
        empty = False
    yield "[]" if empty else outer + "]"


_string = json.encoder.encode_basestring  # C's, as json.dumps(…, ensure_ascii=False) uses it


def indented(value: Any, newline: str = "\n") -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` with each line break followed by
    ``newline``'s indentation: the same characters, made in less than half the time. With an
    indent, json's encoder is its pure-Python one, a generator that yields every comma and
    bracket on its own; here each object is joined once, and strings and numbers are written
    by the C functions json itself uses. Anything but dicts with string keys, lists, strings,
    ints, floats, booleans and None (a tuple, a subclass) is left to ``json.dumps`` itself."""
    kind = type(value)
    if kind is str:
        return _string(value)
    if kind is dict:
        if not value:
            return "{}"
        inner = newline + "  "
        parts = []
        for key, item in value.items():
            if type(key) is not str:
                return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline)
            parts.append(_string(key) + ": " + indented(item, inner))
        return "{" + inner + ("," + inner).join(parts) + newline + "}"
    if kind is list:
        if not value:
            return "[]"
        inner = newline + "  "
        return "[" + inner + ("," + inner).join([indented(item, inner) for item in value]) + newline + "]"
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float and value - value == 0:  # finite (NaN and the infinities are json's to spell)
        return float.__repr__(value)
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline)  # floats (NaN, Infinity), the rest
