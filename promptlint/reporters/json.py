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
    """A list, as ``json.dumps(…, indent=2)`` writes it ``level`` levels in (two spaces a
    level), an item at a time: each item's own lines indented to the level below (a string's
    line breaks are escapes, so every break is indentation). SARIF's results use it too."""
    inner, outer = "\n" + "  " * (level + 1), "\n" + "  " * level
    empty = True
    for item in items:
        yield ("[" if empty else ",") + inner + json.dumps(item, indent=2, ensure_ascii=False).replace("\n", inner)
        empty = False
    yield "[]" if empty else outer + "]"
