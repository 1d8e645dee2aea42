"""Move planning: which self-contained pieces of a template (carriers) would go to the
tail so that no volatile unit stands before stable text, and why the others cannot.

A carrier is the smallest piece that carries a volatile unit: its line(s), grown to the
paragraph or list item and the whole block it stands in (:meth:`Layout.grow`). A carrier
cannot move when it stands in a code fence or a table, when it holds a value that cannot
move, or (Jinja) when moving it would change what a name means. Pure: it plans, the
rewriter (``promptlint.fix``) edits.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field

from promptlint.core import suppress
from promptlint.core.analysis import Unit
from promptlint.core.ir import CODE_SYNTAXES, Block, Segment, Slot, Span, Tag, Template, walk
from promptlint.core.layout import Layout, layout_of

_IDENT = re.compile(r"(?<![\w.])[A-Za-z_]\w*")
_JINJA_WORDS = frozenset({
    "if", "else", "elif", "endif", "for", "endfor", "in", "not", "and", "or", "is", "set", "endset", "macro",
    "endmacro", "call", "endcall", "filter", "endfilter", "block", "endblock", "with", "endwith", "import",
    "from", "as", "include", "extends", "true", "false", "none", "True", "False", "None", "recursive",
    "context", "without", "ignore", "missing", "loop", "raw", "endraw", "trans", "endtrans", "pluralize",
    "autoescape", "endautoescape", "do", "break", "continue", "super", "self", "caller", "varargs", "kwargs",
})


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
class Carrier:
    """A range of lines (0-based, inclusive) that moves as a whole, and the units it carries."""

    first: int
    last: int
    units: list[Unit]

    @property
    def line(self) -> int:
        return min(u_line for u_line in self.unit_lines) if self.unit_lines else self.first

    unit_lines: list[int] = field(default_factory=list)


def unit_label(unit: Unit) -> str:
    """How a unit is named in a message: its source, or its name when the source is long."""
    source = unit.expr.source
    return f"`{source}`" if len(source) <= 60 else f"`{unit.expr.name}`"


def _participates(unit: Unit, unsafe: bool) -> bool:
    """PC101 units always; loops over tool lists (PC102) only with unsafe fixes."""
    return unsafe or not (unit.is_loop and unit.volatility.kind == "tool-order")


# Files whose lines are not the prompt's text in the order it renders: moving their lines
# cannot move a value in the prompt, so nothing in them is moved (or rewritten). Code is
# never rewritten (DESIGN.md: fixes are safe or they are not made, and moving an
# interpolation changes what the code means in ways no rendering proof can see).
_NOT_REWRITTEN_CODE = (
    "not rewritten: promptlint does not rewrite code (moving an interpolation changes what the "
    "code means)"
)
_NOT_REARRANGED = {
    "json": (
        "not rewritten: promptlint does not edit request bodies (a body is what your code sends, and its "
        "lines are not the prompt in render order)"
    ),
    **dict.fromkeys(CODE_SYNTAXES, _NOT_REWRITTEN_CODE),
}
# What to do instead, per value in such a file.
_INSTEAD = {
    "json": "send the value in the latest user message where the body is built",
    **dict.fromkeys(CODE_SYNTAXES, "move the value after the prompt's stable text, or into the latest user message"),
}


# A file sent as the latest user turn: nothing after it is cached, so where a value stands in
# it costs nothing (check reports no position finding there), and a move would only churn it.
_USER_TURN = ("not moved: the file is read as the latest user turn, where nothing after it is cached "
              "(set [role] in config if it is not)")


def refusal(template: Template) -> str | None:
    """Why nothing in this file is moved or rewritten, whatever it holds (None: it may be)."""
    refused = _NOT_REARRANGED.get(template.syntax)
    if refused is None and template.role == "user":
        return _USER_TURN
    return refused


def refused_reason(template: Template, unit: Unit, line: int) -> str:
    """What ``fix`` says of a value (at 1-based ``line``) in a file it never rewrites."""
    instead = _INSTEAD.get(template.syntax) if template.syntax in _NOT_REARRANGED else None
    return (f"line {line}: {unit.volatility.kind} {unit_label(unit)}: {refusal(template)}"
            + (f"; {instead}" if instead else ""))


def move_plan(
    template: Template,
    units: list[Unit],
    not_fixable: list[str],
    unsafe: bool,
    reasons: dict[int, str] | None = None,
    disabled: frozenset[str] = frozenset(),
) -> tuple[list[Carrier], set[int]]:
    """The carriers to emit at the tail (in order), and which of them move at all.

    Why a unit does not move is appended to ``not_fixable`` (what ``fix`` prints) and, per
    unit, recorded in ``reasons`` (``id(unit.segment)`` → reason), which also holds the units
    that need no move (already at the tail). A unit whose rule is in ``disabled`` (turned off
    by select/ignore) stays, as one a ``promptlint: disable`` comment silences does."""
    reasons = {} if reasons is None else reasons
    layout = layout_of(template)
    if not layout.count:
        return [], set()
    blocked: list[tuple[int, str, list[Unit]]] = []  # (line, reason, the units it concerns)
    refused = refusal(template)
    if refused is not None:
        for unit in units:
            line = layout.line_of(unit.segment.span.start)
            blocked.append((line, refused_reason(template, unit, line + 1), [unit]))
        units = []
    for unit in units:
        if not _participates(unit, unsafe):
            line = layout.line_of(unit.segment.span.start)
            blocked.append((line, (f"line {line + 1}: tool-order {unit_label(unit)}: not moved; sort it "
                                  "(PC102, `--unsafe-fixes`)"), [unit]))
    units = [u for u in units if _participates(u, unsafe)]
    # A value whose finding a `promptlint: disable` comment silences, or whose rule the config
    # or --select/--ignore turns off, is where the user wants it: check reports nothing there,
    # so fix does not move it (nor, past it, what follows).
    silenced = suppress.parse(template.source, template.syntax, template.statements)
    for unit in units:
        code = _rule_of(unit)
        start = unit.segment.open.start if isinstance(unit.segment, Block) else unit.segment.span.start
        line = layout.line_of(start)
        why = ("is disabled for it (`promptlint: disable`)" if silenced.silences(code, line + 1)
               else "is not selected (select/ignore)" if code in disabled else None)
        if why is not None:
            blocked.append((line, f"line {line + 1}: {unit.volatility.kind} {unit_label(unit)}: not moved: {code} {why}",
                            [unit]))
    staying = {id(unit) for _, _, concerned in blocked for unit in concerned}
    units = [u for u in units if id(u) not in staying]
    extends = any(isinstance(s, Tag) and s.tag == "extends" for s in template.walk())
    open_fence = next((f for f in layout.fences if not f[2]), None)
    carriers: list[Carrier] = []
    for unit in units:
        span = unit.segment.span
        first, last = layout.lines_of(span)
        label = f"line {first + 1}: {unit.volatility.kind} {unit_label(unit)}"
        fence = layout.fence_at(first) or layout.fence_at(last)
        if extends:
            blocked.append((first, f"{label}: not fixable: the template extends another one; move it inside its blocks",
                            [unit]))
            continue
        if fence is not None:
            blocked.append((first, f"{label}: not fixable: it stands inside a code fence (lines {fence[0] + 1}–{fence[1] + 1})",
                            [unit]))
            continue
        if any(line in layout.table_rows for line in range(first, last + 1)):
            blocked.append((first, f"{label}: not fixable: it stands in a table row; moving the row would break the table",
                            [unit]))
            continue
        first, last = layout.grow(first, last)
        carriers.append(Carrier(first, last, [unit], [layout.line_of(span.start)]))

    # A carrier that would take a value that cannot move along cannot move either.
    blocked_lines = sorted({line for line, _, _ in blocked})  # bisected: not walked for each carrier
    kept_carriers = []
    for carrier in carriers:
        at = bisect_left(blocked_lines, carrier.first)
        held = blocked_lines[at : bisect_left(blocked_lines, carrier.last + 1)]
        if held:
            blocked.append((carrier.line, (f"{_carrier_label(layout, carrier)}: not fixable: the unit that carries "
                                          f"it ({layout.describe(carrier.first, carrier.last)}) holds line "
                                          f"{held[0] + 1}, which cannot be moved"), carrier.units))
        else:
            kept_carriers.append(carrier)
    carriers = kept_carriers

    # Merge carriers that share lines (growing again: the union may cut something).
    carriers.sort(key=lambda c: c.first)
    merged: list[Carrier] = []
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
    active: list[Carrier] = []
    mark = _TRIM_MARKS.get(template.syntax)
    for carrier in carriers:
        label = _carrier_label(layout, carrier)
        cut = layout.fence_cut(carrier.first, carrier.last)
        joined = _trim_joined(layout, carrier, mark) if mark is not None else None
        if joined is not None:
            blocked.append((carrier.line, f"{label}: not fixable: {joined}", carrier.units))
        elif cut is not None:
            blocked.append((carrier.line, f"{label}: not fixable: it would split the code fence on lines {cut[0] + 1}–{cut[1] + 1}",
                            carrier.units))
        elif open_fence is not None and carrier.last < open_fence[0]:
            blocked.append((carrier.line, (f"{label}: not fixable: the file ends inside the code fence opened on line "
                                          f"{open_fence[0] + 1}, so text moved to the end would land in it"), carrier.units))
        else:
            active.append(carrier)

    sites = _Sites(template, layout)
    while True:
        covered = covered_lines(active)
        content_lines = [i for i in range(layout.count) if not layout.blank[i] and i not in covered]
        last_content = max(content_lines, default=-1)
        first_blocker = min((line for line, _, _ in blocked if line < last_content), default=None)
        dropped: list[tuple[Carrier, str]] = []
        for carrier in active:
            needs = last_content > carrier.last
            if needs and first_blocker is not None and carrier.first > first_blocker:
                dropped.append((carrier, (f"not moved: line {first_blocker + 1} holds a value that cannot be moved, "
                                          "so the stable prefix already ends before it")))
                continue
            reason = _definition_conflict(layout, sites, carrier, covered)
            if reason is not None:
                dropped.append((carrier, f"not fixable: {reason}"))
        if not dropped:
            break
        for carrier, reason in dropped:
            active.remove(carrier)
            blocked.append((carrier.line, f"{_carrier_label(layout, carrier)}: {reason}", carrier.units))

    covered = covered_lines(active)
    last_content = max((i for i in range(layout.count) if not layout.blank[i] and i not in covered), default=-1)
    moving = {id(c) for c in active if last_content > c.last}
    for carrier in active:
        if id(carrier) in moving:
            continue
        # Already at the tail, but carried by a paragraph or block with stable text after the value.
        inner_after = [i for i in range(max(carrier.unit_lines) + 1, carrier.last + 1) if not layout.blank[i]]
        if inner_after:
            reason = (
                f"{_carrier_label(layout, carrier)}: not fixable: the smallest unit that carries it "
                f"({layout.describe(carrier.first, carrier.last)}) already ends the file; split it to move the value"
            )
            not_fixable.append(reason)
        else:
            reason = f"{_carrier_label(layout, carrier)}: not moved: it already stands at the end of the file"
        for unit in carrier.units:
            reasons.setdefault(id(unit.segment), reason)
    for _, reason, concerned in sorted(blocked, key=lambda b: (b[0], b[1])):
        not_fixable.append(reason)
        for unit in concerned:
            reasons.setdefault(id(unit.segment), reason)
    if not moving:
        return [], set()
    return active, moving


# Whitespace control: a tag that opens with ``{{-`` (``{%-``, ``{#-``; Handlebars ``{{~``)
# eats the line breaks before it, one that closes with ``-}}`` those after it. Where that
# joins text to text (a value, or words beside the tag, rendered on the line before or
# after), a move would join it to other text: the rendered lines would change.
_TRIM_MARKS = {"jinja": "-", "go": "-", "mustache": "~"}
_OPENING = re.compile(r"\s*\{([{%#])([-~])")
_CLOSING = re.compile(r"([-~])([}%#])\}\s*$")
# What makes a ``{{ }}`` tag a statement, which prints nothing itself: a Go action's keyword,
# a Handlebars block, inverse, comment or `else`.
_STATEMENT = re.compile(r"[-~]?\s*(?:[#/^!]|(?:if|else|end|range|with|define|block|break|continue)\b|/\*)")


def _tag_prints(kind: str, body: str) -> bool:
    return kind == "{" and not _STATEMENT.match(body)


def _joins_up(text: str, mark: str) -> bool:
    """Whether the line's first tag trims the line break before it into text it prints."""
    found = _OPENING.match(text)
    if found is None or found.group(2) != mark:
        return False
    kind = found.group(1)
    close = "}}" if kind == "{" else kind + "}"
    end = text.find(close, found.end())
    if end < 0 or _tag_prints(kind, text[found.end():end]):
        return True  # a tag over several lines, or a value: joined
    return text[end - 1] == mark or bool(text[end + 2:].strip())


def _joins_down(text: str, mark: str) -> bool:
    """Whether the line's last tag trims the line break after it, joining the line's text."""
    found = _CLOSING.search(text)
    if found is None or found.group(1) != mark:
        return False
    kind = "{" if found.group(2) == "}" else found.group(2)
    start = text.rfind("{" + kind, 0, found.start())
    if start < 0 or _tag_prints(kind, text[start + 2:found.start()]):
        return True
    return text[start + 2:start + 3] == mark or bool(text[:start].strip())


def _trim_joined(layout: Layout, carrier: Carrier, mark: str) -> str | None:
    """Why whitespace control joins the carrier's text to the text around it (None: it does not)."""

    def content(lines: range) -> int | None:
        return next((i for i in lines if not layout.blank[i]), None)

    first, last = content(range(carrier.first, carrier.last + 1)), content(range(carrier.last, carrier.first - 1, -1))
    before, after = content(range(carrier.first - 1, -1, -1)), content(range(carrier.last + 1, layout.count))
    end = content(range(layout.count - 1, carrier.last, -1))  # what moved text lands after
    for line, joins in ((first, _joins_up), (after, _joins_up), (last, _joins_down), (before, _joins_down),
                        (end, _joins_down)):
        if line is not None and joins(layout.lines[line].rstrip("\r\n"), mark):
            return (f"whitespace control on line {line + 1} joins its text to the line next to it; "
                    "moving the lines would join other text")
    return None


def _rule_of(unit: Unit) -> str:
    """The rule that reports a unit check would have fix move: PC102 a tool loop, PC104 an
    include, PC101 any other value."""
    if unit.is_loop and unit.volatility.kind == "tool-order":
        return "PC102"
    return "PC104" if unit.is_include else "PC101"


def _carrier_label(layout: Layout, carrier: Carrier) -> str:
    what = ", ".join(f"{u.volatility.kind} {unit_label(u)}" for u in carrier.units)
    return f"line {carrier.line + 1}: {what}"


def covered_lines(carriers: Iterable[Carrier]) -> set[int]:
    """Every line some carrier takes."""
    return {i for c in carriers for i in range(c.first, c.last + 1)}


@dataclass
class _Site:
    """One Jinja expression site (slot, tag, block opening): where it is and the names it
    defines and reads, read once per plan (every carrier asks about every later site)."""

    start: int
    line: int
    defines: set[str]
    reads: set[str]


class _Sites:
    def __init__(self, template: Template, layout: Layout) -> None:
        source = template.source
        self.all = [_Site(span.start, layout.line_of(span.start), _defined_names(seg, source),
                          _read_names(seg, source))
                    for span, seg in (_expression_sites(template) if template.syntax == "jinja" else [])]
        self.defining = [site for site in self.all if site.defines]
        self.by_start = sorted(self.all, key=lambda site: site.start)
        self.starts = [site.start for site in self.by_start]


def _definition_conflict(layout: Layout, sites: _Sites, carrier: Carrier, covered: set[int]) -> str | None:
    """Why moving a Jinja carrier past the text after it would change what a name means."""
    if not sites.all:
        return None
    lo, hi = layout.offsets(carrier.first, carrier.last)
    inside = sites.by_start[bisect_left(sites.starts, lo) : bisect_left(sites.starts, hi)]
    defines = set().union(*(site.defines for site in inside))
    reads = set().union(*(site.reads for site in inside))
    # Without a definition inside, only a later definition can conflict: those few are read.
    for site in sites.all if defines else sites.defining:
        if site.start < hi or site.line in covered:
            continue
        used = defines & site.reads
        if used:
            return f"defines `{min(used)}` used on line {site.line + 1}"
        reset = reads & site.defines
        if reset:
            return f"reads `{min(reset)}`, which is set again on line {site.line + 1}"
    return None
