"""``promptlint fix``: move volatile parts to the tail, provably without losing a word.

The safe fix only moves text. For every volatile unit that has stable content after
it, the smallest self-contained piece of the file that carries it is taken: the whole
line(s) it stands on, grown to its paragraph (consecutive non-blank lines) or its
Markdown list item (the item line and its indented continuation), and to the whole
``{% if %}``/``{% for %}`` block or Mustache section it stands in. These pieces go to
the end of the file in their original order, after one blank line.

Nothing is written before the rewrite is proved (black's habit): the new text parses
with the same loader; rendering old and new with the same random values yields the
same multiset of non-empty lines, for several value sets; the source keeps every word
and gains none; planning again on the result changes nothing; and the stable prefix,
in tokens, grew. Writing is atomic (temporary file in the same folder, fsync,
``os.replace``) and keeps the file's mode, BOM, line endings and final newline; a file
that changed on disk since it was read is left alone.

Unsafe fixes (``unsafe=True``) change words: a clock's format literal finer than a day
is coarsened to day precision, and an unsorted Jinja loop over a tool list gets
``| sort(attribute="name")`` (``| dictsort`` for ``k, v in x.items()``).
"""

from __future__ import annotations

import datetime as _dt
import difflib
import hashlib
import os
import random
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptlint.core.analysis import Analysis, Unit, analyze, find_units
from promptlint.config import Config
from promptlint.core.ir import RENDERED_BLOCKS, Block, Segment, Slot, Span, Tag, Template, Text, walk
from promptlint.loaders import LoadError, load_text
from promptlint.core.volatility import PRECISIONS, Overrides, precision_of_format

# How many random value sets the rendering proof uses.
PROOF_ROUNDS = 4

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$|^\s*\|\s*:?-+:?\s*\|\s*$")
_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_JINJA_WORDS = frozenset({
    "if", "else", "elif", "endif", "for", "endfor", "in", "not", "and", "or", "is", "set", "endset", "macro",
    "endmacro", "call", "endcall", "filter", "endfilter", "block", "endblock", "with", "endwith", "import",
    "from", "as", "include", "extends", "true", "false", "none", "True", "False", "None", "recursive",
    "context", "without", "ignore", "missing", "loop", "raw", "endraw", "trans", "endtrans", "pluralize",
    "autoescape", "endautoescape", "do", "break", "continue", "super", "self", "caller", "varargs", "kwargs",
})
_FINER_THAN_DAY = frozenset(PRECISIONS[: PRECISIONS.index("day")])
_NO_GAIN = "the stable prefix did not grow"
_MORE_BEFORE = "more volatile values would stand before stable text"


# ---------------------------------------------------------------------------------------
# Results


@dataclass
class FixPlan:
    """What ``plan_fix`` would do to one template, and whether it is proved."""

    template: Template
    new_source: str
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    stable_before: int = 0
    stable_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    # With a provider in config: the cache model's cost per 1,000 calls of the file as it
    # is and as rewritten, and what they were computed for.
    cost_before: float | None = None
    cost_after: float | None = None
    cost_basis: str | None = None

    @property
    def changed(self) -> bool:
        """True when a proved rewrite differs from the source."""
        return self.new_source != self.template.source and not self.problems


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    path: str
    changed: bool = False
    written: bool = False
    diff: str = ""
    stable_before: int = 0
    stable_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    moved: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    cost_before: float | None = None
    cost_after: float | None = None
    cost_basis: str | None = None
    # The file could not be read or parsed (exit 2); nothing else is set then.
    error: str | None = None


@dataclass
class FixReport:
    files: list[FixResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(r.error for r in self.files)


class FileChangedError(Exception):
    """The file on disk is no longer the one that was read and fixed."""


# ---------------------------------------------------------------------------------------
# The shape of a file: lines, paragraphs, list items, code fences, tables


class _Layout:
    def __init__(self, template: Template) -> None:
        self.template = template
        source = template.source
        self.lines: list[str] = [line for line in re.split(r"(?<=\n)", source) if line]
        self.starts: list[int] = []
        at = 0
        for line in self.lines:
            self.starts.append(at)
            at += len(line)
        self.count = len(self.lines)
        self.blank = [not line.strip() for line in self.lines]
        self.fences: list[tuple[int, int, bool]] = self._fences()
        self.table_rows = self._table_rows()
        # Spans that may not be cut: every block (at any depth) and every tag or slot.
        self.whole: list[tuple[Span, Block | None]] = []
        for seg in walk(template.segments):
            if isinstance(seg, Block):
                self.whole.append((seg.span, seg))
            elif isinstance(seg, Slot | Tag) and seg.span.end > seg.span.start:
                self.whole.append((seg.span, None))

    # positions
    def line_of(self, offset: int) -> int:
        lo, hi = 0, self.count - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def lines_of(self, span: Span) -> tuple[int, int]:
        return self.line_of(span.start), self.line_of(max(span.start, span.end - 1))

    def offsets(self, first: int, last: int) -> tuple[int, int]:
        return self.starts[first], self.starts[last] + len(self.lines[last])

    # Markdown structure
    def _fences(self) -> list[tuple[int, int, bool]]:
        fences: list[tuple[int, int, bool]] = []
        opened: tuple[int, str, int] | None = None
        for i, line in enumerate(self.lines):
            match = _FENCE.match(line)
            if opened is None:
                if match:
                    opened = (i, match.group(1)[0], len(match.group(1)))
            elif match and match.group(1)[0] == opened[1] and len(match.group(1)) >= opened[2] \
                    and line.strip() == match.group(1):
                fences.append((opened[0], i, True))
                opened = None
        if opened is not None:
            fences.append((opened[0], self.count - 1, False))
        return fences

    def _table_rows(self) -> set[int]:
        rows: set[int] = set()
        for i, line in enumerate(self.lines):
            if not _TABLE_DELIMITER.match(line.rstrip("\r\n")) or "|" not in line:
                continue
            first, last = self.paragraph(i)
            rows.update(j for j in range(first, last + 1) if "|" in self.lines[j])
        rows.update(i for i, line in enumerate(self.lines) if line.lstrip().startswith("|"))
        return rows

    def fence_at(self, line: int) -> tuple[int, int, bool] | None:
        return next((f for f in self.fences if f[0] <= line <= f[1]), None)

    def paragraph(self, line: int) -> tuple[int, int]:
        if self.blank[line]:
            return line, line
        first = line
        while first > 0 and not self.blank[first - 1]:
            first -= 1
        last = line
        while last + 1 < self.count and not self.blank[last + 1]:
            last += 1
        return first, last

    def _indent(self, line: int) -> int:
        text = self.lines[line]
        return len(text) - len(text.lstrip(" \t"))

    def _is_item(self, line: int) -> bool:
        return bool(_LIST_ITEM.match(self.lines[line]))

    def list_item(self, line: int) -> tuple[int, int] | None:
        """The top-level Markdown list item a line belongs to (item line + continuation)."""
        if self.blank[line]:
            return None
        item: int | None = line if self._is_item(line) else None
        base = self._indent(line)
        j = line - 1
        while j >= 0 and not self.blank[j]:
            indent = self._indent(j)
            if indent < base:
                if not self._is_item(j):
                    break
                item, base = j, indent
            j -= 1
        if item is None:
            return None
        last = item
        while last + 1 < self.count and not self.blank[last + 1] and self._indent(last + 1) > self._indent(item):
            last += 1
        return (item, last) if item <= line <= last else None

    def grow(self, first: int, last: int) -> tuple[int, int]:
        """Grow a line range until it cuts no block, tag, paragraph or list item."""
        while True:
            lo, hi = self.offsets(first, last)
            new_first, new_last = first, last
            for span, _ in self.whole:
                if span.start < hi and span.end > lo and not (lo <= span.start and span.end <= hi):
                    a, b = self.lines_of(span)
                    new_first, new_last = min(new_first, a), max(new_last, b)
            for line in (new_first, new_last):
                item = self.list_item(line)
                if item is not None:
                    new_first, new_last = min(new_first, item[0]), max(new_last, item[1])
            new_first, new_last = self._statement(new_first, new_last)
            if (new_first, new_last) == (first, last):
                return first, last
            first, last = new_first, new_last

    def _ends_statement(self, line: int) -> bool:
        """A line that ends a sentence (``.``, ``!``, ``?``) or a value (``}}``, ``%}``, ``}``)."""
        text = self.lines[line].rstrip().rstrip("\"')*_]`")
        return text.endswith((".", "!", "?", "}"))

    def _comment_only(self, line: int) -> bool:
        return bool(re.fullmatch(r"\s*(\{#.*#\}|\{\{!.*\}\})\s*", self.lines[line]))

    def _statement(self, first: int, last: int) -> tuple[int, int]:
        """Grow a range to the statement it belongs to within its paragraph.

        Prompts often put one statement per line (``Current time: …`` under ``You are
        Atlas.``); such a line is self-contained. A line that runs on (hard-wrapped
        prose, an intro ending in ``:``, a comment about what follows) takes its
        neighbours with it, up to the whole paragraph.
        """
        top, bottom = self.paragraph(first)[0], self.paragraph(last)[1]
        if self.list_item(first) is None:
            while first > top and self.list_item(first - 1) is None and (
                not self._ends_statement(first - 1) or self._comment_only(first - 1)
            ):
                first -= 1
        if self.list_item(last) is None:
            while last < bottom and self.list_item(last + 1) is None and not self._ends_statement(last):
                last += 1
        return first, last

    def describe(self, first: int, last: int) -> str:
        where = f"line {first + 1}" if first == last else f"lines {first + 1}–{last + 1}"
        for span, block in self.whole:
            if block is not None and self.lines_of(span) == (first, last):
                return f"{_block_name(block, self.template)} on {where}"
        if self.list_item(first) == (first, last):
            return f"list item on {where}"
        if first != last and self.paragraph(first) == (first, last):
            return f"paragraph on {where}"
        return where


def _block_name(block: Block, template: Template) -> str:
    if template.syntax == "jinja":
        return f"`{{% {block.kind} %}}` block"
    return f"section `{template.source[block.open.start:block.open.end].strip()}`"


# ---------------------------------------------------------------------------------------
# Jinja names: what a piece of a template defines and reads


def _expression_sites(template: Template) -> list[tuple[Span, Segment]]:
    sites: list[tuple[Span, Segment]] = []
    for seg in walk(template.segments):
        if isinstance(seg, Slot | Tag):
            sites.append((seg.span, seg))
        elif isinstance(seg, Block):
            sites.append((seg.open, seg))
    return sites


def _defined_names(seg: Segment, source: str) -> set[str]:
    text = source[_span_of(seg).start : _span_of(seg).end]
    if isinstance(seg, Tag):
        if seg.tag == "set" and seg.target:
            return set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", seg.target))
        if seg.tag in ("import", "from"):
            after = re.split(r"\bimport\b", text, maxsplit=1)[-1] if seg.tag == "from" else text
            names = set(_IDENT.findall(after.split(" as ", 1)[-1] if seg.tag == "import" else after))
            return names - _JINJA_WORDS
    if isinstance(seg, Block) and seg.kind in ("set", "macro"):
        match = re.match(r"\{%[-+]?\s*(?:set|macro)\s+([A-Za-z_]\w*)", text)
        return {match.group(1)} if match else set()
    return set()


def _span_of(seg: Segment) -> Span:
    return seg.open if isinstance(seg, Block) else seg.span


def _read_names(seg: Segment, source: str) -> set[str]:
    span = _span_of(seg)
    return set(_IDENT.findall(source[span.start : span.end])) - _JINJA_WORDS


# ---------------------------------------------------------------------------------------
# Planning


@dataclass
class _Carrier:
    first: int
    last: int
    units: list[Unit]

    @property
    def line(self) -> int:
        return min(u_line for u_line in self.unit_lines) if self.unit_lines else self.first

    unit_lines: list[int] = field(default_factory=list)


@dataclass
class _Draft:
    source: str
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    baseline: str = ""  # the source after unsafe rewrites, before moves


def _what(unit: Unit) -> str:
    source = unit.expr.source
    return f"`{source}`" if len(source) <= 60 else f"`{unit.expr.name}`"


def _participates(unit: Unit, unsafe: bool) -> bool:
    """PC101 units always; loops over tool lists (PC102) only with unsafe fixes."""
    return unsafe or not (unit.is_loop and unit.volatility.kind == "tool-order")


def _move_plan(
    template: Template, units: list[Unit], not_fixable: list[str], unsafe: bool
) -> tuple[list[_Carrier], set[int]]:
    """The carriers to emit at the tail (in order), and which of them move at all."""
    layout = _Layout(template)
    if not layout.count:
        return [], set()
    blocked: list[tuple[int, str]] = []  # (line, reason)
    for unit in units:
        if not _participates(unit, unsafe):
            line = layout.line_of(unit.segment.span.start)
            blocked.append((line, (f"line {line + 1}: tool-order {_what(unit)}: not moved; sort it "
                                  "(PC102, `--unsafe-fixes`)")))
    units = [u for u in units if _participates(u, unsafe)]
    extends = any(isinstance(s, Tag) and s.tag == "extends" for s in template.walk())
    open_fence = next((f for f in layout.fences if not f[2]), None)
    carriers: list[_Carrier] = []
    for unit in units:
        span = unit.segment.span
        first, last = layout.lines_of(span)
        label = f"line {first + 1}: {unit.volatility.kind} {_what(unit)}"
        fence = layout.fence_at(first) or layout.fence_at(last)
        if extends:
            blocked.append((first, f"{label}: not fixable: the template extends another one; move it inside its blocks"))
            continue
        if fence is not None:
            blocked.append((first, f"{label}: not fixable: it stands inside a code fence (lines {fence[0] + 1}–{fence[1] + 1})"))
            continue
        if any(line in layout.table_rows for line in range(first, last + 1)):
            blocked.append((first, f"{label}: not fixable: it stands in a table row; moving the row would break the table"))
            continue
        first, last = layout.grow(first, last)
        carriers.append(_Carrier(first, last, [unit], [layout.line_of(span.start)]))

    # A carrier that would take a value that cannot move along cannot move either.
    blocked_lines = {line for line, _ in blocked}
    kept_carriers = []
    for carrier in carriers:
        held = sorted(line for line in blocked_lines if carrier.first <= line <= carrier.last)
        if held:
            blocked.append((carrier.line, (f"{_carrier_label(layout, carrier)}: not fixable: the unit that carries "
                                          f"it ({layout.describe(carrier.first, carrier.last)}) holds line "
                                          f"{held[0] + 1}, which cannot be moved")))
        else:
            kept_carriers.append(carrier)
    carriers = kept_carriers

    # Merge carriers that share lines (growing again: the union may cut something).
    carriers.sort(key=lambda c: c.first)
    merged: list[_Carrier] = []
    for carrier in carriers:
        if merged and carrier.first <= merged[-1].last:
            top = merged[-1]
            top.first, top.last = layout.grow(min(top.first, carrier.first), max(top.last, carrier.last))
            top.units += carrier.units
            top.unit_lines += carrier.unit_lines
            while len(merged) > 1 and merged[-2].last >= merged[-1].first:
                top = merged.pop()
                prev = merged[-1]
                prev.first, prev.last = layout.grow(prev.first, max(prev.last, top.last))
                prev.units += top.units
                prev.unit_lines += top.unit_lines
        else:
            merged.append(carrier)
    carriers = merged

    # A carrier that cuts a code fence cannot move; nor can anything when the file ends in an open one.
    active: list[_Carrier] = []
    for carrier in carriers:
        label = _carrier_label(layout, carrier)
        cut = next((f for f in layout.fences if (carrier.first <= f[0] <= carrier.last) != (carrier.first <= f[1] <= carrier.last)), None)
        if cut is not None:
            blocked.append((carrier.line, f"{label}: not fixable: it would split the code fence on lines {cut[0] + 1}–{cut[1] + 1}"))
        elif open_fence is not None and carrier.last < open_fence[0]:
            blocked.append((carrier.line, (f"{label}: not fixable: the file ends inside the code fence opened on line "
                                          f"{open_fence[0] + 1}, so text moved to the end would land in it")))
        else:
            active.append(carrier)

    sites = _expression_sites(template) if template.syntax == "jinja" else []
    while True:
        covered = _covered(active)
        content_lines = [i for i in range(layout.count) if not layout.blank[i] and i not in covered]
        last_content = max(content_lines, default=-1)
        first_blocker = min((line for line, _ in blocked if line < last_content), default=None)
        dropped: list[tuple[_Carrier, str]] = []
        for carrier in active:
            needs = last_content > carrier.last
            if needs and first_blocker is not None and carrier.first > first_blocker:
                dropped.append((carrier, (f"not moved: line {first_blocker + 1} holds a value that cannot be moved, "
                                          "so the stable prefix already ends before it")))
                continue
            reason = _definition_conflict(template, layout, sites, carrier, covered)
            if reason is not None:
                dropped.append((carrier, f"not fixable: {reason}"))
        if not dropped:
            break
        for carrier, reason in dropped:
            active.remove(carrier)
            blocked.append((carrier.line, f"{_carrier_label(layout, carrier)}: {reason}"))

    covered = _covered(active)
    last_content = max((i for i in range(layout.count) if not layout.blank[i] and i not in covered), default=-1)
    moving = {id(c) for c in active if last_content > c.last}
    for carrier in active:
        if id(carrier) in moving:
            continue
        # Already at the tail, but carried by a paragraph or block with stable text after the value.
        inner_after = [i for i in range(max(carrier.unit_lines) + 1, carrier.last + 1) if not layout.blank[i]]
        if inner_after:
            not_fixable.append(
                f"{_carrier_label(layout, carrier)}: not fixable: the smallest unit that carries it "
                f"({layout.describe(carrier.first, carrier.last)}) already ends the file; split it to move the value"
            )
    not_fixable.extend(reason for _, reason in sorted(blocked))
    if not moving:
        return [], set()
    return active, moving


def _carrier_label(layout: _Layout, carrier: _Carrier) -> str:
    what = ", ".join(f"{u.volatility.kind} {_what(u)}" for u in carrier.units)
    return f"line {carrier.line + 1}: {what}"


def _covered(carriers: Iterable[_Carrier]) -> set[int]:
    return {i for c in carriers for i in range(c.first, c.last + 1)}


def _definition_conflict(
    template: Template, layout: _Layout, sites: list[tuple[Span, Segment]], carrier: _Carrier, covered: set[int]
) -> str | None:
    """Why moving a Jinja carrier past the text after it would change what a name means."""
    if not sites:
        return None
    lo, hi = layout.offsets(carrier.first, carrier.last)
    inside = [seg for span, seg in sites if lo <= span.start < hi]
    after = [(span, seg) for span, seg in sites
             if span.start >= hi and layout.line_of(span.start) not in covered]
    defines = set().union(*(_defined_names(seg, template.source) for seg in inside)) if inside else set()
    reads = set().union(*(_read_names(seg, template.source) for seg in inside)) if inside else set()
    for span, seg in after:
        line = layout.line_of(span.start) + 1
        used = defines & _read_names(seg, template.source)
        if used:
            return f"defines `{min(used)}` used on line {line}"
        reset = reads & _defined_names(seg, template.source)
        if reset:
            return f"reads `{min(reset)}`, which is set again on line {line}"
    return None


def _assemble(template: Template, layout: _Layout, carriers: list[_Carrier]) -> str:
    """The source with the carriers removed and appended, in order, after one blank line."""
    newline = "\r\n" if "\r\n" in template.source else template.newline
    moved = _covered(carriers)
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
    previous: _Carrier | None = None
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


def _is_item(layout: _Layout, carrier: _Carrier) -> bool:
    return layout.list_item(carrier.first) == (carrier.first, carrier.last)


_UNSAFE_ROUNDS = 4
_MOVE_ROUNDS = 5


def _draft(template: Template, overrides: Overrides | None, unsafe: bool) -> _Draft:
    """Plan without proving, to a fixed point (as ruff re-runs its fixes): a move can
    change the units around it (a continuation line that followed a moved block now
    joins the list item above), so the plan is applied again until nothing changes.
    A plan that does not settle is left for the proof to refuse as not idempotent."""
    draft = _draft_once(template, overrides, unsafe)
    for _round in range(_MOVE_ROUNDS):
        try:
            current = _reload(template, draft.source)
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


def _draft_once(template: Template, overrides: Overrides | None, unsafe: bool) -> _Draft:
    """One round of planning: unsafe rewrites first (with unsafe), then the moves."""
    draft = _Draft(template.source, baseline=template.source)
    current = template
    # Unsafe rewrites run to a fixed point: sorting a tool loop uncovers the values inside
    # it (a clock in the loop body), which the next round can coarsen.
    for _round in range(_UNSAFE_ROUNDS if unsafe else 0):
        edits, rewritten, refused = _unsafe_edits(current, find_units(current, overrides))
        draft.not_fixable += [r for r in refused if r not in draft.not_fixable]
        if not edits:
            break
        source = current.source
        for start, end, text in sorted(edits, reverse=True):
            source = source[:start] + text + source[end:]
        try:
            current = _reload(template, source)
        except LoadError as exc:
            draft.not_fixable.append(f"unsafe rewrites skipped: the result does not parse ({exc.message})")
            break
        draft.rewritten += rewritten
        draft.source = draft.baseline = source
    units = find_units(current, overrides)
    carriers, moving = _move_plan(current, units, draft.not_fixable, unsafe)
    if moving:
        layout = _Layout(current)
        draft.source = _assemble(current, layout, carriers)
        for carrier in carriers:
            if id(carrier) in moving:
                values = ", ".join(f"{u.volatility.kind} {_what(u)}" for u in carrier.units)
                draft.moved.append(f"{layout.describe(carrier.first, carrier.last)} ({values}) → end of file")
    return draft


def _reload(template: Template, source: str) -> Template:
    new = load_text(template.path, source, template.syntax)
    new.has_bom = template.has_bom
    new.newline = template.newline
    return new


# ---------------------------------------------------------------------------------------
# Unsafe rewrites


def day_format(fmt: str) -> str:
    """A day-precision version of a strftime or moment format: time-of-day parts dropped."""
    if "%" in fmt:
        time_part = r"%[-_0^#]?[HIMSfpTXRrcsklzZ]"
        trimmed = re.sub(rf"[\s,T@:.-]*{time_part}(?:[\s:.,]*{time_part})*", "", fmt).strip(" ,T@:.-")
        if trimmed and precision_of_format(trimmed) in ("day",):
            return trimmed
        return "%Y-%m-%d"
    return "YYYY-MM-DD"


def _unsafe_edits(template: Template, units: list[Unit]) -> tuple[list[tuple[int, int, str]], list[str], list[str]]:
    edits: list[tuple[int, int, str]] = []
    done: list[str] = []
    refused: list[str] = []
    source = template.source
    for unit in units:
        seg = unit.segment
        line = template.position(seg.span.start).line
        vol = unit.volatility
        if isinstance(seg, Slot) and vol.kind == "timestamp" and vol.precision in _FINER_THAN_DAY:
            fmt = unit.expr.format_spec
            if not fmt or precision_of_format(fmt) != vol.precision:
                refused.append(f"line {line}: timestamp {_what(unit)}: not fixable (unsafe): no format string to "
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
                refused.append(f"line {line}: timestamp {_what(unit)}: not fixable (unsafe): the format is not a "
                               "plain literal in the template")
        elif isinstance(seg, Block) and vol.kind == "tool-order":
            edit, reason = _sort_edit(template, seg)
            if edit is not None:
                edits.append(edit)
                done.append(f"line {line}: loop over `{unit.expr.source}` sorted (unsafe)")
            else:
                refused.append(f"line {line}: tool-order {_what(unit)}: not fixable (unsafe): {reason}")
    return edits, done, refused


def _sort_edit(template: Template, block: Block) -> tuple[tuple[int, int, str] | None, str]:
    if template.syntax != "jinja" or block.kind != "for":
        return None, "only Jinja `{% for %}` loops can be sorted in the template; sort the list where it is filled"
    source = template.source
    tag = source[block.open.start : block.open.end]
    match = re.match(r"(\{%[-+]?\s*for\s+)(.+?)(\s+in\s+)(.+?)(\s*[-+]?%\})$", tag, re.DOTALL)
    if match is None:
        return None, "the loop tag could not be read"
    from jinja2 import TemplateSyntaxError
    from jinja2 import nodes as n

    from promptlint.loaders.jinja import environment

    target_src, iter_src = match.group(2), match.group(4)
    try:
        loop = environment().parse("{% for " + target_src + " in " + iter_src + " %}{% endfor %}").body[0]
    except TemplateSyntaxError:
        return None, "the loop tag could not be read"
    assert isinstance(loop, n.For)
    if loop.test is not None or loop.recursive:
        return None, "the loop has a condition or is recursive"
    names = [loop.target] if isinstance(loop.target, n.Name) else list(getattr(loop.target, "items", []))
    items = re.fullmatch(r"(.+?)\s*\.\s*items\s*\(\s*\)", iter_src.strip(), re.DOTALL)
    if len(names) == 2 and items is not None:
        new_iter = f"{items.group(1)} | dictsort"
    elif len(names) == 1 and isinstance(loop.target, n.Name):
        var = loop.target.name
        body = source[block.open.end : block.close.start if block.close else block.span.end]
        by_name = re.search(rf"(?<![\w.]){re.escape(var)}\s*(?:\.\s*name\b|\[\s*['\"]name['\"]\s*\])", body)
        key = '(attribute="name")' if by_name or not re.search(rf"(?<![\w.]){re.escape(var)}\s*(?:\}}|\|)", body) else ""
        plain = isinstance(loop.iter, n.Name | n.Getattr | n.Getitem | n.Filter | n.Call)
        new_iter = f"{iter_src} | sort{key}" if plain else f"({iter_src}) | sort{key}"
    else:
        return None, "the loop unpacks names from something other than `.items()`"
    start = block.open.start + match.start(4)
    return (start, start + len(iter_src), new_iter), ""


# ---------------------------------------------------------------------------------------
# The proof


class _Value:
    """A template value for the rendering proof: prints its own path, has every
    attribute, iterates to two items (none when falsy), and can be called."""

    unsafe_callable = False
    alters_data = False
    jinja_pass_arg = None

    def __init__(self, path: str, salt: str, truthy: bool = True) -> None:
        self._path = path
        self._salt = salt
        self._truthy = truthy

    def __str__(self) -> str:
        return f"{self._path}~{self._salt}"

    def __getattr__(self, name: str) -> _Value:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Value(f"{self._path}.{name}", self._salt, self._truthy)

    def __getitem__(self, key: object) -> _Value:
        if isinstance(key, str):
            return self.__getattr__(key)
        return _Value(f"{self._path}[{key}]", self._salt, self._truthy)

    def __call__(self, *args: object, **kwargs: object) -> _Value:
        return _Value(f"{self._path}()", self._salt, self._truthy)

    def __iter__(self) -> Iterator[_Value]:
        return iter([self[0], self[1]] if self._truthy else [])

    def __len__(self) -> int:
        return 2 if self._truthy else 0

    def __bool__(self) -> bool:
        return self._truthy

    def __lt__(self, other: object) -> bool:
        return str(self) < str(other)

    def __gt__(self, other: object) -> bool:
        return str(self) > str(other)


class _Clock(_dt.datetime):
    """``now`` for the proof: a fixed datetime that can also be called (``now()``)."""

    def __call__(self, *args: object, **kwargs: object) -> _Clock:
        return self


_CLOCK_NAMES = frozenset({"now", "utcnow", "today", "datetime", "current_time", "current_datetime", "clock"})


def _jinja_values(names: Iterable[str], round_: int, salt: str, abstract_clock: bool) -> dict[str, Any]:
    rng = random.Random(f"{salt}-{round_}")
    values: dict[str, Any] = {}
    for name in sorted(names):
        truthy = True if round_ == 0 else (False if round_ == 1 else rng.random() < 0.6)
        if name in _CLOCK_NAMES and not abstract_clock:
            values[name] = _Clock(2026, 11, 30 - round_ % 3, 14, 3 + round_, 27 + round_)
        else:
            values[name] = _Value(name, f"{salt}{round_}", truthy)
    return values


def _render_jinja(sources: Sequence[str], rounds: int, salt: str, abstract_clock: bool) -> list[list[str]] | None:
    """Each source rendered with the same values per round; None if one cannot render."""
    from jinja2 import meta

    from promptlint.loaders.jinja import environment

    env = environment()
    try:
        names: set[str] = set()
        compiled = []
        for source in sources:
            names |= meta.find_undeclared_variables(env.parse(source))
            compiled.append(env.from_string(source))
        return [
            [t.render(_jinja_values(names, r, salt, abstract_clock)) for r in range(rounds)] for t in compiled
        ]
    except Exception:  # noqa: BLE001 - generated values cannot satisfy every expression
        return None


def render_ir(template: Template, round_: int, salt: str = "", abstract_clock: bool = False) -> str:
    """Render a template from its IR with random values: the same value for the same
    slot source, every loop twice (or never), every condition by one random draw per
    expression. Used for syntaxes without a renderer here (Mustache, format, ``${}``).
    ``abstract_clock`` keys slots without their format string (to prove unsafe rewrites
    of clock formats changed nothing else)."""
    rng_cache: dict[str, bool] = {}

    def truth(key: str) -> bool:
        if round_ == 0:
            return True
        if key not in rng_cache:
            rng_cache[key] = random.Random(f"{salt}-{round_}-{key}").random() < 0.6
        return rng_cache[key]

    out: list[str] = []

    def visit(segments: list[Segment], scope: str) -> None:
        for seg in segments:
            if isinstance(seg, Text):
                out.append(seg.text)
            elif isinstance(seg, Slot):
                key = seg.expr.source
                if abstract_clock and seg.expr.format_spec:
                    key = key.replace(seg.expr.format_spec, "")
                out.append(f"{key}{scope}~{salt}{round_}")
            elif isinstance(seg, Block):
                if seg.kind not in RENDERED_BLOCKS:
                    continue
                key = seg.expr.source if seg.expr is not None else seg.kind
                branches: list[list[Segment]] = [[]]
                conditions: list[str] = [key]
                for inner in seg.body:
                    if isinstance(inner, Tag) and inner.tag in ("else", "elif"):
                        branches.append([])
                        conditions.append(inner.expr.source if inner.expr is not None else "")
                    else:
                        branches[-1].append(inner)
                if seg.kind in ("for", "each", "section"):
                    if truth(key):
                        for i in range(2):
                            visit(branches[0], f"{scope}[{key}:{i}]")
                    elif len(branches) > 1:
                        visit(branches[-1], scope)
                elif seg.kind in ("inverted", "unless"):
                    visit(branches[0] if not truth(key) else (branches[1] if len(branches) > 1 else []), scope)
                elif seg.kind == "if":
                    for condition, branch in zip(conditions, branches):
                        if not condition or truth(condition):
                            visit(branch, scope)
                            break
                else:
                    visit(seg.body, scope)

    visit(template.segments, "")
    return "".join(out)


def _lines(text: str) -> Counter[str]:
    return Counter(line.rstrip("\r") for line in text.split("\n") if line.strip())


def _volatile_before_stable(analysis: Analysis) -> int:
    """How many volatile units have stable, non-blank text rendered after them."""
    return sum(1 for u in analysis.units if analysis.stable_text[analysis.offset_of(u.segment) :].strip())


def prove(
    original: Template, new_source: str, unsafe: bool = False, config: Config | None = None
) -> list[str]:
    """Reasons the rewrite of ``original`` into ``new_source`` is not safe (empty: proved)."""
    config = config or Config()
    problems: list[str] = []
    try:
        new = _reload(original, new_source)
    except LoadError as exc:
        return [f"the rewritten template does not parse: {exc.message}"]
    baseline = _draft(original, config.overrides, unsafe).baseline if unsafe else original.source

    lost = Counter(baseline.split()) - Counter(new_source.split())
    added = Counter(new_source.split()) - Counter(baseline.split())
    if lost:
        problems.append(f"words lost: {', '.join(repr(w) for w in sorted(lost)[:5])}")
    if added:
        problems.append(f"words added: {', '.join(repr(w) for w in sorted(added)[:5])}")

    # Random values, seeded by the text itself so that a refusal can be reproduced.
    salt = hashlib.sha256((original.source + "\0" + new_source).encode()).hexdigest()[:8]
    rendered = None
    if original.syntax == "jinja":
        rendered = _render_jinja([original.source, new_source], PROOF_ROUNDS, salt, abstract_clock=unsafe)
    if rendered is None:
        # Values the template cannot take (or not Jinja): render from the IR instead.
        rendered = [[render_ir(t, r, salt, unsafe) for r in range(PROOF_ROUNDS)] for t in (original, new)]
    for round_, (before, after) in enumerate(zip(*rendered)):
        if _lines(before) != _lines(after):
            missing = _lines(before) - _lines(after)
            extra = _lines(after) - _lines(before)
            detail = f"missing {next(iter(missing))!r}" if missing else f"new {next(iter(extra))!r}"
            problems.append(f"rendered lines differ with value set {round_ + 1} ({detail})")
            break

    again = _draft(new, config.overrides, unsafe)
    if again.source != new_source:
        problems.append("not idempotent: fixing the result would change it again")

    from promptlint.core import tokens

    encoding = tokens.encoding_name_for_model(config.target_model)
    before_analysis = analyze(original, encoding, config.overrides)
    after_analysis = analyze(new, encoding, config.overrides)
    moved = new_source != baseline
    if after_analysis.stable_prefix_tokens < before_analysis.stable_prefix_tokens or (
        moved and after_analysis.stable_prefix_tokens == before_analysis.stable_prefix_tokens
    ):
        problems.append(
            f"{_NO_GAIN} ({before_analysis.stable_prefix_tokens} → "
            f"{after_analysis.stable_prefix_tokens} tokens)"
        )
    if _volatile_before_stable(after_analysis) > _volatile_before_stable(before_analysis):
        problems.append(f"{_MORE_BEFORE} than before")
    return problems


# ---------------------------------------------------------------------------------------
# The public engine


def plan_fix(template: Template, config: Config | None = None, unsafe: bool = False) -> FixPlan:
    """The proved rewrite of one template (``plan.changed``), or the reasons there is none."""
    from promptlint.core import tokens

    config = config or Config()
    encoding = tokens.encoding_name_for_model(config.target_model)
    draft = _draft(template, config.overrides, unsafe)
    before = analyze(template, encoding, config.overrides)
    plan = FixPlan(
        template=template,
        new_source=draft.source,
        moved=draft.moved,
        rewritten=draft.rewritten,
        not_fixable=draft.not_fixable,
        stable_before=before.stable_prefix_tokens,
        stable_after=before.stable_prefix_tokens,
        tokens_before=before.tokens,
        tokens_after=before.tokens,
    )
    if draft.source == template.source:
        return plan
    plan.problems = prove(template, draft.source, unsafe, config)
    no_gain = [p for p in plan.problems if p.startswith((_NO_GAIN, _MORE_BEFORE))]
    if no_gain and len(no_gain) == len(plan.problems):
        # Safe but useless (a moved unit takes the stable text before it along, past a value
        # that cannot move): not a failure, and nothing is written.
        plan.not_fixable.append(f"nothing moved: {no_gain[0]}")
        plan.new_source, plan.moved, plan.rewritten, plan.problems = template.source, [], [], []
        return plan
    if not plan.problems:
        after = analyze(_reload(template, draft.source), encoding, config.overrides)
        plan.stable_after, plan.tokens_after = after.stable_prefix_tokens, after.tokens
        if config.provider:
            _price(plan, config, before, after)
    return plan


def _price(plan: FixPlan, config: Config, before: Analysis, after: Analysis) -> None:
    """The provider's cost per 1,000 calls of the file before and after the rewrite."""
    from promptlint.providers import cost as cachecost

    assert config.provider is not None
    body_model = cachecost.body_model_of(plan.template)
    now = cachecost.compute(before, config.provider, config.model, provider_overrides=config.providers or None,
                            price_overrides=config.prices or None, body_model=body_model)
    fixed = cachecost.compute(after, config.provider, config.model, provider_overrides=config.providers or None,
                              price_overrides=config.prices or None, body_model=body_model)
    plan.cost_before, plan.cost_after = now["cost_per_1k_calls"], fixed["cost_per_1k_calls"]
    dated = f", prices as of {now['prices_as_of']}" if now["prices_as_of"] else ""
    plan.cost_basis = f"{now['provider']} {now['model']}{dated}"
    if fixed["cached_tokens_per_call"] == 0:
        plan.cost_basis += f"; still nothing cached: {fixed['tokens_per_call']:,} tokens is below the provider minimum"


def is_fixable(template: Template, unit: Unit, overrides: Overrides | None = None) -> bool:
    """Whether ``promptlint fix`` moves this unit (or, for a tool loop, fixes it with unsafe fixes)."""
    unsafe = unit.is_loop and unit.volatility.kind == "tool-order"
    try:
        units = find_units(template, overrides)
        if not any(u.segment is unit.segment for u in units):
            units.append(unit)
        if unsafe and isinstance(unit.segment, Block) and _sort_edit(template, unit.segment)[0] is not None:
            return True
        carriers, moving = _move_plan(template, units, [], unsafe)
    except LoadError:
        return False
    return any(id(c) in moving and any(u.segment is unit.segment for u in c.units) for c in carriers)


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of two sources (line endings shown as ``\\n``)."""
    def split(text: str) -> list[str]:
        lines = [line.replace("\r\n", "\n") for line in re.split(r"(?<=\n)", text) if line]
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
        return lines

    shown = path.lstrip("/")  # `a/tmp/x.j2`, as git writes an absolute path's diff
    return "".join(difflib.unified_diff(split(old), split(new), f"a/{shown}", f"b/{shown}"))


def write_atomic(path: str | os.PathLike[str], new_data: str | bytes, expected_original_bytes: bytes) -> None:
    """Replace a file's content atomically, if it still holds ``expected_original_bytes``.

    A temporary file in the same folder is written, fsynced, given the original's mode
    and renamed over the original (``os.replace``), so a crash at any point leaves
    either the old or the new file. Raises :class:`FileChangedError` when the file on
    disk is not what was read; nothing is written then.
    """
    target = os.path.realpath(path)
    data = new_data.encode("utf-8") if isinstance(new_data, str) else new_data
    if Path(target).read_bytes() != expected_original_bytes:
        raise FileChangedError(f"{path}: changed on disk since it was read; not overwritten")
    mode = stat.S_IMODE(os.stat(target).st_mode)
    folder, name = os.path.split(target)
    # Not a `with` block: the file must outlive it until os.replace (delete=False).
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115
        dir=folder, prefix=f".{name}.", suffix=".promptlint-fix", delete=False
    )
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)
        if Path(target).read_bytes() != expected_original_bytes:
            raise FileChangedError(f"{path}: changed on disk since it was read; not overwritten")
        os.replace(handle.name, target)
    except BaseException:
        # Interrupted or refused before the rename: the original is untouched; drop the copy.
        try:
            os.unlink(handle.name)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable where the platform allows it
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def fix_file(
    path: str,
    config: Config | None = None,
    syntax: str | None = None,
    *,
    unsafe: bool = False,
    write: bool = True,
    model: str | None = None,
    provider: str | None = None,
) -> FixResult:
    """Plan, prove and (with ``write``) apply the fix to one file."""
    from promptlint.core import tokens
    from promptlint.api import _describe, _syntax_for, config_for_file
    from promptlint.config import ConfigError
    from promptlint.loaders import load_bytes, read_bytes

    try:
        original_bytes = read_bytes(path)
        config = config_for_file(path, config, model=model, provider=provider)
        template = load_bytes(path, original_bytes, _syntax_for(path, config, syntax))
        plan = plan_fix(template, config, unsafe)
    except ConfigError as exc:
        return FixResult(path, error=str(exc))
    except LoadError as exc:
        return FixResult(path, error=_describe(exc))
    except tokens.TokenizerError as exc:
        return FixResult(path, error=str(exc))
    result = FixResult(
        path=path,
        changed=plan.changed,
        stable_before=plan.stable_before,
        stable_after=plan.stable_after,
        tokens_before=plan.tokens_before,
        tokens_after=plan.tokens_after,
        cost_before=plan.cost_before,
        cost_after=plan.cost_after,
        cost_basis=plan.cost_basis,
        moved=plan.moved if plan.changed else [],
        rewritten=plan.rewritten if plan.changed else [],
        not_fixable=plan.not_fixable,
        problems=plan.problems,
    )
    if not plan.changed:
        return result
    result.diff = unified_diff(path, template.source, plan.new_source)
    if write:
        data = (b"\xef\xbb\xbf" if template.has_bom else b"") + plan.new_source.encode("utf-8")
        try:
            write_atomic(path, data, original_bytes)
        except FileChangedError as exc:
            result.problems.append(str(exc))
        except OSError as exc:
            result.problems.append(f"{path}: could not write ({exc.strerror or exc})")
        else:
            result.written = True
    return result


def fix_paths(
    paths: Sequence[str],
    *,
    config_file: str | None = None,
    syntax: str | None = None,
    unsafe: bool = False,
    write: bool = True,
    model: str | None = None,
    provider: str | None = None,
) -> FixReport:
    """Fix files and folders (folders are walked as ``promptlint check`` walks them)."""
    from promptlint.api import collect

    report = FixReport()
    files, explicit, report.errors = collect(paths, config_file)
    for path in files:
        report.files.append(
            fix_file(path, explicit, syntax, unsafe=unsafe, write=write, model=model, provider=provider)
        )
    report.files.extend(_fix_assembly_orders(files, explicit, write))
    return report


def _fix_assembly_orders(files: Sequence[str], explicit: Config | None, write: bool) -> list[FixResult]:
    """Rewrite `[assembly] order` in each config that governs the fixed files (PC106)."""
    from promptlint.api import _config_for
    from promptlint.config import ConfigError
    from promptlint.fix_assembly import plan_order_fix
    from promptlint.project import Project

    configs: dict[Path, Config] = {}
    for path in files:
        try:
            config = _config_for(path, explicit)
        except ConfigError:
            continue
        if config.path is not None and config.assembly.get("order"):
            configs.setdefault(config.path.resolve(), config)
    results = []
    project = Project()
    for config_path, config in configs.items():
        shown = os.path.relpath(config_path) if not os.path.relpath(config_path).startswith("..") else str(config_path)
        plan = plan_order_fix(config, project)
        if plan is None:
            continue
        result = FixResult(
            shown,
            stable_before=plan.stable_before,
            stable_after=plan.stable_after if plan.new_text is not None else plan.stable_before,
            tokens_before=plan.tokens,
            tokens_after=plan.tokens,
            not_fixable=plan.not_fixable,
        )
        if plan.new_text is None or plan.new_text == plan.old_text:
            results.append(result)
            continue
        result.changed, result.moved = True, plan.moved
        result.diff = unified_diff(shown, plan.old_text, plan.new_text)
        if write:
            try:
                write_atomic(config_path, plan.new_text, plan.old_text.encode("utf-8"))
            except FileChangedError as exc:
                result.problems.append(str(exc))
            except OSError as exc:
                result.problems.append(f"{shown}: could not write ({exc.strerror or exc})")
            else:
                result.written = True
        results.append(result)
    return results


__all__ = [
    "FileChangedError",
    "FixPlan",
    "FixReport",
    "FixResult",
    "day_format",
    "fix_file",
    "fix_paths",
    "is_fixable",
    "plan_fix",
    "prove",
    "render_ir",
    "unified_diff",
    "write_atomic",
]
