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
        yield from _array(items)
    yield "\n}"


def _array(items: Iterable[Any]) -> Iterator[str]:
    """A list, as ``json.dumps(…, indent=2)`` writes it one level in: each item indented by
    four spaces (a string's own line breaks are escapes, so every break is indentation)."""
    empty = True
    for item in items:
        text = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n    ")
        yield ("[\n    " if empty else ",\n    ") + text
        empty = False
    yield "[]" if empty else "\n  ]"
