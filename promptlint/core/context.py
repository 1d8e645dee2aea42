"""What a rule is given: one analysed file, its configuration, and a finding builder."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from promptlint.core.analysis import Analysis, Unit
from promptlint.core.carriers import refusal
from promptlint.config import Config
from promptlint.core.findings import Finding
from promptlint.core.ir import CODE_SYNTAXES, Slot, Span, Template


@dataclass
class RuleContext:
    path: str
    template: Template
    analysis: Analysis
    config: Config
    # Each slot by its span, the first in source order where two share one (see slot_at).
    _slots_by_span: dict[tuple[int, int], Slot] | None = field(default=None, init=False, repr=False, compare=False)

    def fix_status(self, unit: Unit) -> tuple[bool, str | None]:
        """Whether ``promptlint fix`` fixes ``unit``, and if not why; (False, None) unasked
        when the run does not plan fixes (``Config.plan_fixes``: a text report)."""
        if not self.config.plan_fixes:
            return False, None
        from promptlint.core.fixability import fix_status

        return fix_status(self.template, unit, self.config.overrides, analysis=self.analysis)

    def finding(
        self,
        code: str,
        name: str,
        span: Span,
        *,
        severity: str,
        message: str,
        kind: str | None = None,
        frequency: str | None = None,
        tokens_lost: int = 0,
        fixable: bool = False,
        unfixable_reason: str | None = None,
        evidence: str | None = None,
        confidence: str = "high",
        **extra: Any,
    ) -> Finding:
        """A finding of rule ``code``/``name`` located at ``span`` of this file.

        A finding that is not ``fixable`` says why where that is known: the rule's own
        reason (:func:`promptlint.core.fixability.fix_status`), or the file's, when
        ``promptlint fix`` rewrites nothing in it (a request body)."""
        if not fixable and self.config.plan_fixes:
            unfixable_reason = unfixable_reason or refusal(self.template)
            if unfixable_reason:
                extra["unfixable_reason"] = unfixable_reason
        # Lines and columns as Template.position gives them, read off its line index without
        # making a Position for each end (a third of the time of a finding).
        start, lines = span.start, self.template.lines
        line = lines.line_of(start)
        line_start = lines.offset(line, 1)
        # The end is inclusive of the last character, like an editor selection. A standalone
        # section tag's span takes in the line break after it (which does not render): the
        # end is the last character before it, not a column past the end of the line.
        last, source = span.end - 1, self.template.source
        while last > start and source[last] in "\r\n":
            last -= 1
        last = max(start, last)
        # Most spans end on the line they start on: its start serves both ends.
        if source.find("\n", start, last) < 0:
            end_line, end_line_start = line, line_start
        else:
            end_line = lines.line_of(last)
            end_line_start = lines.offset(end_line, 1)
        return Finding(
            path=self.path,
            line=line,
            column=start - line_start + 1,
            end_line=end_line,
            end_column=last - end_line_start + 2,  # a column past the last character
            rule=code,
            name=name,
            severity=severity,
            kind=kind,
            frequency=frequency,
            message=message,
            tokens_lost=tokens_lost,
            fixable=fixable,
            evidence=evidence,
            confidence=confidence,
            extra=extra,
        )

    def last_stable_line(self) -> int:
        """The last line that renders stable text (where volatile parts should go after)."""
        if self.template.syntax in CODE_SYNTAXES:
            from promptlint.core.codefiles import last_text_line

            found = last_text_line(self.template)
            if found is not None:
                return found
        for line in range(self.template.lines.line_count, 0, -1):
            if self.template.lines.line_text(line).strip():
                return line
        return 1

    def slot_at(self, start: int, end: int) -> Slot | None:
        """The slot whose span is exactly ``[start, end)`` (a literal value of a request body),
        looked up in an index of the template's slots made on the first call (a walk of the
        template for each of 5,500 values of one body took 30 s)."""
        if self._slots_by_span is None:
            found: dict[tuple[int, int], Slot] = {}
            for seg in self.template.walk():
                if isinstance(seg, Slot):
                    found.setdefault((seg.span.start, seg.span.end), seg)
            self._slots_by_span = found
        return self._slots_by_span.get((start, end))

    def unit_span(self, unit: Unit) -> Span:
        """The span a finding points at: a slot, or a loop's opening tag."""
        seg = unit.segment
        return seg.open if hasattr(seg, "open") else seg.span
