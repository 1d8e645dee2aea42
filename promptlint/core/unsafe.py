"""Unsafe rewrites, which change words: a clock's format literal finer than a day is
coarsened to day precision, and an unsorted Jinja loop over a tool list is sorted
(the edit itself is :func:`promptlint.core.loopsort.sort_edit`).

Computed only, like the move plan: the draft (:mod:`promptlint.core.draft`) applies the
edits, and ``promptlint fix --unsafe-fixes`` proves and writes them.
"""

from __future__ import annotations

import re

from promptlint.core import suppress
from promptlint.core.analysis import Unit
from promptlint.core.carriers import unit_label
from promptlint.core.ir import Block, Slot, Template
from promptlint.core.loopsort import sort_edit
from promptlint.core.volatility import PRECISIONS, precision_of_format

_FINER_THAN_DAY = frozenset(PRECISIONS[: PRECISIONS.index("day")])


def day_format(fmt: str) -> str:
    """A day-precision version of a strftime or moment format: time-of-day parts dropped."""
    if "%" in fmt:
        time_part = r"%[-_0^#]?[HIMSfpTXRrcsklzZ]"
        trimmed = re.sub(rf"[\s,T@:.-]*{time_part}(?:[\s:.,]*{time_part})*", "", fmt).strip(" ,T@:.-")
        if trimmed and precision_of_format(trimmed) in ("day",):
            return trimmed
        return "%Y-%m-%d"
    return "YYYY-MM-DD"


def unsafe_edits(
    template: Template, units: list[Unit], disabled: frozenset[str] = frozenset()
) -> tuple[list[tuple[int, int, str]], list[str], list[str], list[Unit]]:
    """The edits ``(start, end, new text)``, what they do, why other units are not
    rewritten, and the tool loops that the edits sort. A clock whose PC103 finding, or a
    loop whose PC102 finding, a ``promptlint: disable`` comment silences or ``disabled``
    (the rules select/ignore turn off) holds is left as it is: check reports nothing there."""
    edits: list[tuple[int, int, str]] = []
    sorted_loops: list[Unit] = []
    done: list[str] = []
    refused: list[str] = []
    source = template.source
    silenced = suppress.parse(source, template.syntax, template.statements)
    for unit in units:
        seg = unit.segment
        line = template.position(seg.span.start).line
        vol = unit.volatility
        code = "PC102" if isinstance(seg, Block) else "PC103"
        if code in disabled or silenced.silences(code, line):
            continue  # the rewrite that finding asks for is not wanted here
        if isinstance(seg, Slot) and vol.kind == "timestamp" and vol.precision in _FINER_THAN_DAY:
            fmt = unit.expr.format_spec
            if not fmt or precision_of_format(fmt) != vol.precision:
                refused.append(f"line {line}: timestamp {unit_label(unit)}: not coarsened (unsafe): no format string to "
                               "coarsen; only format literals are rewritten")
                continue
            text = source[seg.span.start : seg.span.end]
            new_fmt = day_format(fmt)
            candidates = [f":{fmt}}}"] if template.syntax == "format" else [q + fmt + q for q in ('"', "'", "`")]
            for candidate in candidates:
                at = text.rfind(candidate)
                if at >= 0:
                    start = seg.span.start + at + 1
                    edits.append((start, start + len(fmt), new_fmt))
                    done.append(f"line {line}: clock format {fmt!r} → {new_fmt!r} (unsafe)")
                    break
            else:
                refused.append(f"line {line}: timestamp {unit_label(unit)}: not coarsened (unsafe): the format is not a "
                               "plain literal in the template")
        elif isinstance(seg, Block) and vol.kind == "tool-order":
            edit, reason = sort_edit(template, seg)
            if edit is not None:
                edits.append(edit)
                sorted_loops.append(unit)
                done.append(f"line {line}: loop over `{unit.expr.source}` sorted (unsafe)")
            else:
                refused.append(f"line {line}: tool-order {unit_label(unit)}: not sorted (unsafe): {reason}")
    return edits, done, refused, sorted_loops
