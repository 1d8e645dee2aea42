"""``promptlint fix`` on a prompt builder in code: nothing is rewritten.

Code is never rewritten (DESIGN.md: fixes are safe or they are not made, and moving an
interpolation in code changes what the code means in ways no rendering proof can see). The
plan says so once per finding, with where the value should go, and claims no proof."""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptlint.config import Config
from promptlint.core.ir import Template

if TYPE_CHECKING:
    from promptlint.fix.plan import FixPlan


def code_plan(template: Template, config: Config) -> FixPlan:
    """A plan that changes nothing and lists each finding as not fixable, with its advice."""
    from promptlint.api import check_template
    from promptlint.fix.plan import FixPlan
    from promptlint.loaders import load_text

    if config.prompt_names:
        template = load_text(template.path, template.source, template.syntax, config.prompt_names)
    result = check_template(template, config)
    plan = FixPlan(template=template, new_source=template.source, stable_before=result.stable_prefix_tokens or 0,
                   stable_after=result.stable_prefix_tokens or 0, tokens_before=result.tokens or 0,
                   tokens_after=result.tokens or 0)
    for finding in result.findings:
        if finding.kind is None or finding.rule == "PC103" and any(
                f.rule == "PC101" and f.line == finding.line for f in result.findings):
            continue
        advice = finding.message.rsplit("; ", 1)[-1] if "; " in finding.message else ""
        plan.not_fixable.append(
            f"line {finding.line}:{finding.column} {finding.rule} {finding.kind}: not rewritten "
            f"({template.syntax} code is never rewritten by promptlint)" + (f"; {advice}" if advice else "")
        )
    return plan
