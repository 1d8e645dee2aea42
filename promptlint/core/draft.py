"""Drafting a rewrite, unproved: unsafe rewrites first (with ``unsafe``), then the moves
the move plan (:mod:`promptlint.core.carriers`) chose, applied again until nothing changes.

The carriers are taken out of the source and appended, in their original order, after
one blank line. Each of the template's volatile units is followed through the rounds, so
that the draft can say which of them it moved or sorted, and why the others stay.

Pure: the draft is text. Whether it helps is for :func:`promptlint.core.fixability.outlook`,
whether it may be written for the proof (:func:`promptlint.fix.prove.prove`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.core.analysis import Unit, units_of
from promptlint.core.carriers import Carrier, covered_lines, move_plan, refusal, unit_label
from promptlint.core.ir import Template
from promptlint.core.layout import Layout, layout_of
from promptlint.core.unsafe import unsafe_edits
from promptlint.core.volatility import Overrides
from promptlint.loaders.base import LoadError


@dataclass
class Draft:
    """An unproved rewrite and what it did."""

    source: str
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    baseline: str = ""  # the source after unsafe rewrites, before moves
    # The source after the first round's unsafe rewrites alone (no move in any round).
    unsafe_only: str = ""
    # False when the moves did not settle within the round limit.
    settled: bool = True
    # The template's own units (``id(unit.segment)``): those the draft moved, those it
    # sorted, what carried each moved one, and why each other one stays where it is.
    moved_units: set[int] = field(default_factory=set)
    sorted_units: set[int] = field(default_factory=set)
    carried_by: dict[int, str] = field(default_factory=dict)
    reasons: dict[int, str] = field(default_factory=dict)
    # ``source`` as parsed by the last round (which found nothing more to move), so that
    # judging the draft does not parse it again; None when no round settled on it.
    reloaded: Template | None = field(default=None, repr=False, compare=False)


def _assemble(template: Template, layout: Layout, carriers: list[Carrier]) -> tuple[str, dict[int, int]]:
    """The source with the carriers removed and appended, in order, after one blank line;
    and where each line that is kept starts in it (line index → offset).

    Line endings are kept byte for byte: what ends the file (its final newline or none,
    a lone ``\r``, trailing blank lines) still ends it; the line that was last takes the
    ending of the line that becomes last, and a blank line the move adds takes the ending
    of one it took out (a CRLF line in an LF file stays CRLF). Only a blank line added
    where none was taken out is new: it ends as most lines of the file do."""
    crlf = template.source.count("\r\n")
    newline = "\r\n" if crlf > template.source.count("\n") - crlf else "\n"
    last = max((i for i in range(layout.count) if not layout.blank[i]), default=layout.count - 1)
    body = layout.lines[last].rstrip("\r\n")
    tail = template.source[layout.starts[last] + len(body):]
    texts = [*layout.lines[:last], body]
    moved = covered_lines(carriers)
    kept: list[tuple[int | None, str]] = []
    freed_blanks: list[str] = []  # the endings of the blank lines taken out
    removed_here = False
    for i, line in enumerate(texts):
        if i in moved:
            removed_here = True
            continue
        if layout.blank[i] and removed_here and (not kept or not kept[-1][1].strip()):
            freed_blanks.append(_ending(line))
            continue  # no double blank line (or leading one) where text was taken out
        if not layout.blank[i]:
            removed_here = False
        kept.append((i, line))
    while kept and not kept[-1][1].strip():
        freed_blanks.append(_ending(kept.pop()[1]))

    def blank() -> tuple[None, str]:
        return None, freed_blanks.pop(0) if freed_blanks else newline

    pieces = kept + ([blank()] if kept else [])
    previous: Carrier | None = None
    for carrier in carriers:
        if previous is not None and not (_is_item(layout, previous) and _is_item(layout, carrier)):
            pieces.append(blank())
        pieces += [(i, texts[i]) for i in range(carrier.first, min(carrier.last, last) + 1)]
        previous = carrier
    # The file's own ending goes last; the ending the last piece had goes to the line that was last.
    final, final_text = pieces[-1]
    stem = final_text.rstrip("\r\n")
    pieces[-1] = (final, stem)
    freed = final_text[len(stem):] or newline
    starts: dict[int, int] = {}
    out: list[str] = []
    at = 0
    for index, text in pieces:
        if index == last and final != last:
            text += freed
        if index is not None:
            starts[index] = at
        out.append(text)
        at += len(text)
    return "".join(out) + tail, starts


def _ending(line: str) -> str:
    return line[len(line.rstrip("\r\n")):]


def _is_item(layout: Layout, carrier: Carrier) -> bool:
    return layout.list_item(carrier.first) == (carrier.first, carrier.last)


_UNSAFE_ROUNDS = 4
MOVE_ROUNDS = 5


class _Tracker:
    """Where each of the original template's units starts in the current draft."""

    def __init__(self, units: list[Unit]) -> None:
        self.at: dict[int, int | None] = {id(u.segment): u.segment.span.start for u in units}

    def originals(self, units: list[Unit]) -> dict[int, int]:
        """The current template's units (``id(segment)``) → the original unit they are."""
        by_offset = {offset: original for original, offset in self.at.items() if offset is not None}
        return {id(u.segment): by_offset[u.segment.span.start] for u in units if u.segment.span.start in by_offset}

    def edited(self, edits: list[tuple[int, int, str]]) -> None:
        """Follow text edits ``(start, end, new text)`` that do not overlap."""
        for original, offset in self.at.items():
            if offset is None:
                continue
            shift = 0
            for start, end, text in edits:
                if end <= offset:
                    shift += len(text) - (end - start)
                elif start < offset:
                    offset = None  # the edit swallowed the unit's start
                    break
            self.at[original] = None if offset is None else offset + shift

    def assembled(self, layout: Layout, starts: dict[int, int]) -> None:
        """Follow a reassembly: each kept line starts where ``starts`` says."""
        for original, offset in self.at.items():
            if offset is None:
                continue
            line = layout.line_of(offset)
            self.at[original] = starts[line] + offset - layout.starts[line] if line in starts else None


def draft_fix(template: Template, overrides: Overrides | None, unsafe: bool) -> Draft:
    """Plan without proving, to a fixed point (as ruff re-runs its fixes): a move can
    change the units around it (a continuation line that followed a moved block now
    joins the list item above), so the plan is applied again until nothing changes.
    A plan that does not settle within the round limit says so (``settled``)."""
    units = units_of(template, overrides)
    tracker = _Tracker(units)
    draft = Draft(template.source, baseline=template.source, unsafe_only=template.source)
    _draft_once(template, template, units, overrides, unsafe, draft, tracker, first=True)
    if draft.source == template.source:
        return draft
    draft.settled = False
    for _round in range(MOVE_ROUNDS):
        try:
            current = reload(template, draft.source)
        except LoadError:
            draft.settled = True  # the outlook reports that the draft does not parse
            break
        before = draft.source
        _draft_once(template, current, units_of(current, overrides), overrides, unsafe, draft, tracker, first=False)
        # Each round's draft is read by its round only (and, the last, by the judgement, which
        # reads no layout): its lines are not held as long as the outlook is (a large file's
        # layout is tens of MB), and its layout, which names it, leaves no cycle.
        current.layout = None
        if draft.source == before:
            draft.settled = True
            draft.reloaded = current
            break
    return draft


def _draft_once(
    original: Template,
    template: Template,
    units: list[Unit],
    overrides: Overrides | None,
    unsafe: bool,
    draft: Draft,
    tracker: _Tracker,
    first: bool,
) -> None:
    """One round of planning on ``template`` (the draft so far): unsafe rewrites first (with
    unsafe), then the moves. What it refuses is kept from the first round, whose line
    numbers are the file's own."""
    current = template
    not_fixable: list[str] = []
    reasons: dict[int, str] = {}  # the original unit → why it stays
    disabled = overrides.disabled if overrides is not None else frozenset()  # rules select/ignore turn off

    def keep(found: dict[int, str], units: list[Unit]) -> None:
        origin = tracker.originals(units)
        for segment, reason in found.items():
            if segment in origin:
                reasons.setdefault(origin[segment], reason)

    # Unsafe rewrites run to a fixed point: sorting a tool loop uncovers the values inside
    # it (a clock in the loop body), which the next round can coarsen.
    for _round in range(_UNSAFE_ROUNDS if unsafe and refusal(template) is None else 0):
        edits, rewritten, refused, sorted_loops = unsafe_edits(current, units, disabled)
        not_fixable += [r for r in refused if r not in not_fixable]
        keep(_named(current, units, refused), units)
        if not edits:
            break
        source = current.source
        for start, end, text in sorted(edits, reverse=True):
            source = source[:start] + text + source[end:]
        try:
            reloaded = reload(original, source)
        except LoadError as exc:
            not_fixable.append(f"unsafe rewrites skipped: the result does not parse ({exc.message})")
            break
        origin = tracker.originals(sorted_loops)
        draft.sorted_units |= {origin[id(u.segment)] for u in sorted_loops if id(u.segment) in origin}
        tracker.edited(sorted(edits))
        current = reloaded
        units = units_of(current, overrides)
        draft.rewritten += rewritten
        draft.source = draft.baseline = source
        if first:
            draft.unsafe_only = source
    found: dict[int, str] = {}
    carriers, moving = move_plan(current, units, not_fixable, unsafe, found, disabled=disabled)
    origin = tracker.originals(units)
    for segment, reason in found.items():
        if segment in origin:
            reasons[origin[segment]] = reason  # the move plan's reason wins: a loop it cannot sort may move
    if first:
        draft.not_fixable = not_fixable
        draft.reasons = reasons
    if not moving:
        _done_with(current, template)
        return
    layout = layout_of(current)
    draft.source, starts = _assemble(current, layout, carriers)
    next_staying = _next_staying(carriers, moving)
    for carrier in carriers:
        if id(carrier) in moving:
            values = ", ".join(f"{u.volatility.kind} {unit_label(u)}" for u in carrier.units)
            where = layout.describe(carrier.first, carrier.last)
            draft.moved.append(f"{where} ({values}) → {_destination(layout, next_staying, carrier)}")
            for unit in carrier.units:
                if id(unit.segment) in origin:
                    draft.moved_units.add(origin[id(unit.segment)])
                    draft.carried_by.setdefault(origin[id(unit.segment)], where)
    tracker.assembled(layout, starts)
    _done_with(current, template)


def _done_with(current: Template, template: Template) -> None:
    """At the end of a round: the unsafe rewrites' own parse (``current``, when it is not the
    round's ``template``) is read by this round only. Its layout, which names it back (a cycle
    only the garbage collector frees), goes with it."""
    if current is not template:
        current.layout = None


def _named(template: Template, units: list[Unit], refused: list[str]) -> dict[int, str]:
    """The units that unsafe refusals name (by their ``line N: kind `label`:`` head)."""
    named: dict[int, str] = {}
    for reason in refused:
        for unit in units:
            head = f"line {template.position(unit.segment.span.start).line}: {unit.volatility.kind} {unit_label(unit)}:"
            if reason.startswith(head):
                named.setdefault(id(unit.segment), reason)
                break
    return named


def _destination(layout: Layout, next_staying: dict[int, Carrier], carrier: Carrier) -> str:
    """Where a moved carrier lands: the end of the file, or before the carriers that
    already end it and are kept after it (in their original order; ``next_staying``: the
    first carrier after each that is kept, see :func:`_next_staying`)."""
    staying = next_staying.get(id(carrier))
    if staying is None:
        return "end of file"
    what = layout.describe(staying.first, staying.last)
    return f"before {'' if what.startswith('line') else 'the '}{what}, which stays at the end of the file"


def reload(template: Template, source: str) -> Template:
    """``source`` parsed as ``template`` was, keeping its BOM, line endings and role."""
    from promptlint.loaders import load_text

    new = load_text(template.path, source, template.syntax)
    new.has_bom = template.has_bom
    new.newline = template.newline
    new.role, new.role_evidence = template.role, template.role_evidence
    return new


def _next_staying(carriers: list[Carrier], moving: set[int]) -> dict[int, Carrier]:
    """For each carrier (by id), the first carrier after it that is not moved."""
    found: dict[int, Carrier] = {}
    after: Carrier | None = None
    for carrier in reversed(carriers):
        if after is not None:
            found[id(carrier)] = after
        if id(carrier) not in moving:
            after = carrier
    return found
