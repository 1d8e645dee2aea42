"""The result of a code file that builds several prompts: each prompt's figures, and
each finding once (a helper interpolated twice is one place to change)."""

from __future__ import annotations

from typing import Any

from promptlint.core.analysis import Analysis
from promptlint.core.findings import Finding
from promptlint.core.ir import Slot, Template, Text

def describe_prompts(template: Template, analyses: list[Analysis]) -> list[dict[str, Any]]:
    """``{"name", "line", "tokens", "stable_prefix_tokens"}`` per prompt, in source order."""
    out = []
    for part, analysis in zip(template.prompts, analyses, strict=False):
        first = next((s for s in part.walk() if isinstance(s, Slot | Text) and s.span.end > s.span.start), None)
        out.append({
            "name": part.name,
            "line": template.position(first.span.start).line if first is not None else None,
            "tokens": analysis.tokens,
            "stable_prefix_tokens": analysis.stable_prefix_tokens,
        })
    return out


def distinct_findings(findings: list[Finding]) -> list[Finding]:
    """One finding per rule and place: the same interpolation reached twice (a section
    helper called from two prompts, a value used twice) is reported once, at its worst."""
    from promptlint.core.findings import severity_rank

    best: dict[tuple[str, int, int], Finding] = {}
    for finding in findings:
        key = (finding.rule, finding.line, finding.column)
        old = best.get(key)
        if old is None or (severity_rank(finding.severity), finding.tokens_lost) > (
                severity_rank(old.severity), old.tokens_lost):
            best[key] = finding
    return list(best.values())


def last_text_line(template: Template) -> int | None:
    """The last source line of literal text a prompt renders (where volatile parts go after)."""
    last = None
    for seg in template.walk():
        if isinstance(seg, Text) and seg.text.strip() and seg.span.end > seg.span.start:
            last = seg
    return template.position(max(last.span.start, last.span.end - 1)).line if last is not None else None
