"""What ``promptlint fix`` will do to a template, computed once and asked twice: by the
rules (is a finding ``fixable``, and if not, why) and by the rewriter (what to prove and
write). Neither imports the other (the check pipeline never imports ``promptlint.fix``).

The outlook drafts the fix (:func:`promptlint.core.draft.draft_fix`) and decides whether it
helps: a draft that does not settle, does not parse, does not grow the stable prefix, or
leaves more volatile values before stable text than before, is not made, and every unit it
would have moved or sorted says so. What remains for the rewriter is the proof that the
rewrite keeps every rendered line (:func:`promptlint.fix.prove.prove`): a safe move that
fails it is a bug of the move plan, reported as ``not written``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from promptlint.core.analysis import Analysis, Unit, analyze
from promptlint.core.carriers import refused_reason, unit_label
from promptlint.core.draft import MOVE_ROUNDS, Draft, draft_fix, reload
from promptlint.core.ir import CODE_SYNTAXES, Block, Template
from promptlint.core.volatility import Overrides
from promptlint.loaders.base import LoadError, infer_syntax

MORE_BEFORE = "more volatile values would stand before stable text"


@dataclass
class FixOutlook:
    """The fix of one template, drafted and judged, not yet proved."""

    source: str  # the rewrite; the template's own source when the fix changes nothing
    baseline: str  # the source after unsafe rewrites, before moves
    before: Analysis
    after: Analysis  # the rewrite's analysis (``before`` when nothing changes)
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    # The template's units (``id(unit.segment)``) the fix moves or sorts; why each other stays.
    fixed: set[int] = field(default_factory=set)
    reasons: dict[int, str] = field(default_factory=dict)
    # The rewrite as parsed (``after.template``) when the draft's last round planned on that
    # very template and found nothing more to do: planning again on it changes nothing.
    settled_on: Template | None = field(default=None, repr=False, compare=False)

    def fixes(self, unit: Unit) -> bool:
        return id(unit.segment) in self.fixed

    def reason(self, unit: Unit) -> str | None:
        """Why the fix leaves this unit where it is (None when it fixes it, or cannot say)."""
        return None if self.fixes(unit) else self.reasons.get(id(unit.segment))


def outlook(
    template: Template,
    overrides: Overrides | None = None,
    unsafe: bool = False,
    encoding: str = "o200k_base",
    analysis: Analysis | None = None,
) -> FixOutlook:
    """What the fix (safe, or with ``unsafe`` fixes) will do to ``template``; computed once
    per template, mode, tokenizer and overrides (``analysis``: the template's own, if known)."""
    key = (unsafe, encoding, overrides or Overrides())
    for cached_key, cached in template.fix_outlooks:
        if cached_key == key and isinstance(cached, FixOutlook):
            return cached
    own = analysis is not None and analysis.template is template and analysis.encoding == encoding
    before = analysis if own and analysis is not None else analyze(template, encoding, overrides)
    if template.syntax in CODE_SYNTAXES:
        found = _code_outlook(template, before)
    else:
        found = _judge(template, draft_fix(template, overrides, unsafe), before, overrides, encoding)
    template.fix_outlooks.append((key, found))
    # The layout served this outlook's rounds; the outlook is kept as long as the template,
    # its lines need not be (the other mode's outlook, when asked, builds them again).
    template.layout = None
    return found


def forget_outlooks(template: Template) -> None:
    """Drop the outlooks :func:`outlook` kept on ``template``, where the template is no longer
    needed. They name it again through their analyses (and the rewrite's outlook, from the
    proof, names the rewrite): cycles that only the garbage collector frees, which kept each
    template until it ran, or, frozen in a run's settled heap, to the run's end."""
    for _key, look in template.fix_outlooks:
        after = getattr(look, "after", None)
        if after is not None and after.template is not template:
            after.template.fix_outlooks.clear()
    template.fix_outlooks.clear()


def _code_outlook(template: Template, before: Analysis) -> FixOutlook:
    """Code is never rewritten (``refusal``): no draft is made (a prompt built in code does
    not tile its file), and each value says so, and where it should go instead."""
    look = FixOutlook(source=template.source, baseline=template.source, before=before, after=before)
    said: set[str] = set()  # (a list's `in` made 40,000 values of one prompt take 2 s)
    for unit in before.units:
        segment = unit.segment
        # A loop's body may stand before its `for` (a comprehension): its line is the loop's.
        start = segment.open.start if isinstance(segment, Block) else segment.span.start
        reason = refused_reason(template, unit, template.position(start).line)
        look.reasons[id(segment)] = reason
        if reason not in said:  # a helper interpolated twice is one place to change
            said.add(reason)
            look.not_fixable.append(reason)
    look.not_fixable.sort(key=_line_of)
    return look


def _judge(
    template: Template, draft: Draft, before: Analysis, overrides: Overrides | None, encoding: str
) -> FixOutlook:
    """The draft, or (when it would not help) the unsafe rewrites alone, or nothing."""
    look = FixOutlook(
        source=draft.source, baseline=draft.baseline, before=before, after=before,
        moved=draft.moved, rewritten=draft.rewritten, not_fixable=list(draft.not_fixable),
        fixed=draft.moved_units | draft.sorted_units, reasons=dict(draft.reasons),
    )
    if draft.source == template.source:
        return look
    problem, after = _why_it_does_not_help(template, draft.source, draft.baseline, before, draft,
                                           overrides, encoding)
    if problem is None and after is not None:
        look.after = after
        if draft.reloaded is not None and after.template is draft.reloaded:
            look.settled_on = draft.reloaded
        return look
    assert problem is not None
    refused = look.fixed
    alone: tuple[str | None, Analysis | None] = (problem, None)
    if draft.moved and draft.unsafe_only != template.source:
        # The moves do not help; the unsafe rewrites may, alone.
        alone = _why_it_does_not_help(template, draft.unsafe_only, draft.unsafe_only, before, None,
                                      overrides, encoding)
    if alone[0] is None and alone[1] is not None:
        look.source = look.baseline = draft.unsafe_only
        look.after, look.moved, look.fixed = alone[1], [], set(draft.sorted_units)
        refused = draft.moved_units - draft.sorted_units
    else:
        look.source = look.baseline = template.source
        look.moved, look.rewritten, look.fixed = [], [], set()
    for unit in before.units:
        if id(unit.segment) in refused:
            verb = "not sorted" if id(unit.segment) in draft.sorted_units else "not moved"
            look.reasons[id(unit.segment)] = reason = f"{_label(template, unit)}: {verb}: {problem}"
            look.not_fixable.append(reason)
    look.not_fixable.sort(key=_line_of)
    return look


def _line_of(reason: str) -> int:
    """The line a ``line N: …`` reason is about (others last), to list reasons in file order."""
    match = re.match(r"line (\d+)", reason)
    return int(match.group(1)) if match else 1 << 30


def _why_it_does_not_help(
    template: Template,
    source: str,
    baseline: str,
    before: Analysis,
    draft: Draft | None,
    overrides: Overrides | None,
    encoding: str,
) -> tuple[str | None, Analysis | None]:
    """Why writing ``source`` would not help (None: it would), and its analysis."""
    try:
        known = draft.reloaded if draft is not None else None
        new = known if known is not None and known.source == source else reload(template, source)
    except LoadError as exc:
        return f"the file would not parse after the fix ({exc.message})", None
    if draft is not None and not draft.settled:
        return (f"the moves do not settle: after {MOVE_ROUNDS} rounds, fixing the result would move "
                "text again"), None
    read_otherwise = _read_otherwise(template, source)
    if read_otherwise is not None:
        return read_otherwise, None
    after = analyze(new, encoding, overrides)
    moved = source != baseline
    if after.stable_prefix_tokens < before.stable_prefix_tokens or (
        moved and after.stable_prefix_tokens == before.stable_prefix_tokens
    ):
        why = (f"the fix would not grow the stable prefix ({before.stable_prefix_tokens} → "
               f"{after.stable_prefix_tokens} tokens)")
        blocker = _first_left_before_stable(before, draft)
        if blocker is not None:
            why += (f"; it would still end at line {_line(template, blocker)}, where "
                    f"{blocker.volatility.kind} {unit_label(blocker)} is not moved")
        return why, after
    if volatile_before_stable(after) > volatile_before_stable(before):
        return f"{MORE_BEFORE} than before", after
    return None, after


def _read_otherwise(template: Template, source: str) -> str | None:
    """Why the next check would read ``source`` in another syntax than ``template`` (None: it
    would not). Where the file's name and content chose the syntax (no ``--syntax``, no config
    glob), it is chosen again from the rewritten content: a value moved after a code fence, or
    a placeholder of another style moved to the top, can change that choice, and the file is
    then not the template the fix was planned and proved on."""
    chosen = infer_syntax(template.path, template.source)
    if (chosen.syntax, chosen.evidence) != (template.syntax, template.syntax_evidence):
        return None  # the syntax was given: it is given again
    then = infer_syntax(template.path, source)
    if then.syntax == template.syntax:
        return None
    return (f"after the fix the file would be read as {then.description} ({then.evidence}), not as "
            f"{chosen.description}; set its syntax with `--syntax` or `[syntax]` in config")


def _first_left_before_stable(analysis: Analysis, draft: Draft | None) -> Unit | None:
    """The first unit the draft leaves in place that has stable text after it."""
    done = (draft.moved_units | draft.sorted_units) if draft is not None else set()
    end = _last_stable_text(analysis)
    left = [u for u in analysis.units if id(u.segment) not in done and analysis.offset_of(u.segment) < end]
    return min(left, key=lambda u: analysis.offset_of(u.segment), default=None)


def volatile_before_stable(analysis: Analysis) -> int:
    """How many volatile units have stable, non-blank text rendered after them."""
    end = _last_stable_text(analysis)
    return sum(1 for u in analysis.units if analysis.offset_of(u.segment) < end)


def _last_stable_text(analysis: Analysis) -> int:
    """Where the stable text's last non-blank character ends: a unit rendered before it has
    stable text after it (one scan, not a copy of the text's tail per unit)."""
    return len(analysis.stable_text.rstrip())


def _line(template: Template, unit: Unit) -> int:
    return template.position(unit.segment.span.start).line


def _label(template: Template, unit: Unit) -> str:
    return f"line {_line(template, unit)}: {unit.volatility.kind} {unit_label(unit)}"


def _unsafe_for(unit: Unit) -> bool:
    """A tool loop is fixed by unsafe fixes (sorted, or moved); everything else by the safe fix."""
    return unit.is_loop and unit.volatility.kind == "tool-order"


def fix_status(
    template: Template,
    unit: Unit,
    overrides: Overrides | None = None,
    encoding: str | None = None,
    analysis: Analysis | None = None,
) -> tuple[bool, str | None]:
    """Whether ``promptlint fix`` fixes this unit (a tool loop: with ``--unsafe-fixes``), and
    if not, why (None when it cannot say)."""
    encoding = encoding or (analysis.encoding if analysis is not None else "o200k_base")
    look = outlook(template, overrides, _unsafe_for(unit), encoding, analysis)
    return look.fixes(unit), look.reason(unit)


def is_fixable(
    template: Template,
    unit: Unit,
    overrides: Overrides | None = None,
    encoding: str | None = None,
    analysis: Analysis | None = None,
) -> bool:
    """Whether ``promptlint fix`` moves this unit (or, for a tool loop, fixes it with unsafe fixes)."""
    return fix_status(template, unit, overrides, encoding, analysis)[0]
