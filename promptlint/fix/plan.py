"""The fix of one template: the draft, its proof, the stable prefix before and after, and
(with a provider in config) the cost per 1,000 calls before and after."""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.config import Config
from promptlint.core.analysis import Analysis, analyze
from promptlint.core.ir import CODE_SYNTAXES, Template
from promptlint.fix.draft import draft_fix, reload
from promptlint.fix.prove import MORE_BEFORE, NO_GAIN, prove


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


def plan_fix(template: Template, config: Config | None = None, unsafe: bool = False) -> FixPlan:
    """The proved rewrite of one template (``plan.changed``), or the reasons there is none."""
    from promptlint.core import tokens

    config = config or Config()
    if template.syntax in CODE_SYNTAXES:
        from promptlint.fix.code import code_plan

        return code_plan(template, config)
    encoding = tokens.encoding_name_for_model(config.target_model)
    draft = draft_fix(template, config.overrides, unsafe)
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
    no_gain = [p for p in plan.problems if p.startswith((NO_GAIN, MORE_BEFORE))]
    if no_gain and len(no_gain) == len(plan.problems):
        # Safe but useless (a moved unit takes the stable text before it along, past a value
        # that cannot move): not a failure, and nothing is written.
        plan.not_fixable.append(f"nothing moved: {no_gain[0]}")
        plan.new_source, plan.moved, plan.rewritten, plan.problems = template.source, [], [], []
        return plan
    if not plan.problems:
        after = analyze(reload(template, draft.source), encoding, config.overrides)
        plan.stable_after, plan.tokens_after = after.stable_prefix_tokens, after.tokens
        if config.provider:
            _price(plan, config, before, after)
    return plan


def _price(plan: FixPlan, config: Config, before: Analysis, after: Analysis) -> None:
    """The provider's cost per 1,000 calls of the file before and after the rewrite."""
    from promptlint import cachecost

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
