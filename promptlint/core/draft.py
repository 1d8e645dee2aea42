"""Drafting a rewrite, unproved: unsafe rewrites first (with ``unsafe``), then the moves
the core's move plan chose, applied again until nothing changes.

The carriers are taken out of the source and appended, in their original order, after
one blank line. Pure: the draft is text, planned in the core so that what ``check`` calls
fixable and what ``fix`` drafts can be one computation. Whether the draft may be written
is for :func:`promptlint.fix.prove.prove`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.core.analysis import find_units
from promptlint.core.carriers import Carrier, covered_lines, move_plan, unit_label
from promptlint.core.ir import Template
from promptlint.core.layout import Layout
from promptlint.core.volatility import Overrides
from promptlint.core.unsafe import unsafe_edits
from promptlint.loaders import LoadError, load_text


@dataclass
class Draft:
    """An unproved rewrite and what it did."""

    source: str
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    baseline: str = ""  # the source after unsafe rewrites, before moves


def _assemble(template: Template, layout: Layout, carriers: list[Carrier]) -> str:
    """The source with the carriers removed and appended, in order, after one blank line."""
    newline = "\r\n" if "\r\n" in template.source else template.newline
    moved = covered_lines(carriers)
    kept: list[str] = []
    removed_here = False
    for i, line in enumerate(layout.lines):
        if i in moved:
            removed_here = True
            continue
        if layout.blank[i] and removed_here and (not kept or not kept[-1].strip()):
            continue  # no double blank line (or leading one) where text was taken out
        if not layout.blank[i]:
            removed_here = False
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    out = "".join(kept)
    if out:
        if not out.endswith("\n"):
            out += newline
        out += newline
    previous: Carrier | None = None
    for carrier in carriers:
        text = "".join(layout.lines[carrier.first : carrier.last + 1])
        if not text.endswith("\n"):
            text += newline
        if previous is not None and not (_is_item(layout, previous) and _is_item(layout, carrier)):
            out += newline
        out += text
        previous = carrier
    if not template.source.endswith("\n"):
        out = out.removesuffix("\n").removesuffix("\r")
    return out


def _is_item(layout: Layout, carrier: Carrier) -> bool:
    return layout.list_item(carrier.first) == (carrier.first, carrier.last)


_UNSAFE_ROUNDS = 4
_MOVE_ROUNDS = 5


def draft_fix(template: Template, overrides: Overrides | None, unsafe: bool) -> Draft:
    """Plan without proving, to a fixed point (as ruff re-runs its fixes): a move can
    change the units around it (a continuation line that followed a moved block now
    joins the list item above), so the plan is applied again until nothing changes.
    A plan that does not settle is left for the proof to refuse as not idempotent."""
    draft = _draft_once(template, overrides, unsafe)
    for _round in range(_MOVE_ROUNDS):
        try:
            current = reload(template, draft.source)
        except LoadError:
            break  # the proof reports the parse failure
        again = _draft_once(current, overrides, unsafe)
        if again.source == draft.source:
            break
        draft.source = again.source
        draft.moved += again.moved
        draft.rewritten += again.rewritten
        draft.not_fixable = again.not_fixable
    return draft


def _draft_once(template: Template, overrides: Overrides | None, unsafe: bool) -> Draft:
    """One round of planning: unsafe rewrites first (with unsafe), then the moves."""
    draft = Draft(template.source, baseline=template.source)
    current = template
    # Unsafe rewrites run to a fixed point: sorting a tool loop uncovers the values inside
    # it (a clock in the loop body), which the next round can coarsen.
    for _round in range(_UNSAFE_ROUNDS if unsafe else 0):
        edits, rewritten, refused = unsafe_edits(current, find_units(current, overrides))
        draft.not_fixable += [r for r in refused if r not in draft.not_fixable]
        if not edits:
            break
        source = current.source
        for start, end, text in sorted(edits, reverse=True):
            source = source[:start] + text + source[end:]
        try:
            current = reload(template, source)
        except LoadError as exc:
            draft.not_fixable.append(f"unsafe rewrites skipped: the result does not parse ({exc.message})")
            break
        draft.rewritten += rewritten
        draft.source = draft.baseline = source
    units = find_units(current, overrides)
    carriers, moving = move_plan(current, units, draft.not_fixable, unsafe)
    if moving:
        layout = Layout(current)
        draft.source = _assemble(current, layout, carriers)
        for carrier in carriers:
            if id(carrier) in moving:
                values = ", ".join(f"{u.volatility.kind} {unit_label(u)}" for u in carrier.units)
                draft.moved.append(f"{layout.describe(carrier.first, carrier.last)} ({values}) → end of file")
    return draft


def reload(template: Template, source: str) -> Template:
    """``source`` parsed as ``template`` was, keeping its BOM and line endings."""
    new = load_text(template.path, source, template.syntax)
    new.has_bom = template.has_bom
    new.newline = template.newline
    return new
