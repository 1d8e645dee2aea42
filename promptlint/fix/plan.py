"""The fix of one template: the outlook (the draft, and whether it helps, as ``check``
judges ``fixable``), its proof, the stable prefix before and after, and (with a provider in
config) the cost per 1,000 calls before and after."""

from __future__ import annotations

from dataclasses import dataclass, field

from promptlint.config import Config
from promptlint.core.analysis import Analysis
from promptlint.core.fixability import outlook
from promptlint.core.ir import Template
from promptlint.fix.prove import prove


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
    encoding = tokens.encoding_name_for_model(config.target_model)
    # The same outlook that marks check's findings fixable: a draft that would not help is
    # not made, and each value it leaves says why (in not_fixable).
    look = outlook(template, config.overrides, unsafe, encoding)
    before = look.before
    plan = FixPlan(
        template=template,
        new_source=look.source,
        moved=look.moved,
        rewritten=look.rewritten,
        not_fixable=look.not_fixable,
        stable_before=before.stable_prefix_tokens,
        stable_after=before.stable_prefix_tokens,
        tokens_before=before.tokens,
        tokens_after=before.tokens,
    )
    if look.source == template.source:
        return plan
    plan.problems = prove(template, look.source, unsafe, config)
    if not plan.problems:
        plan.stable_after, plan.tokens_after = look.after.stable_prefix_tokens, look.after.tokens
        if config.provider:
            _price(plan, config, before, look.after)
    return plan


def _price(plan: FixPlan, config: Config, before: Analysis, after: Analysis) -> None:
    """The provider's cost per 1,000 calls of the file before and after the rewrite: the
    very figures `check --provider` prints for the file ("now" and "after the fix"), so
    the two commands never disagree."""
    from promptlint.providers import cost as cachecost

    assert config.provider is not None
    cache = cachecost.compute(before, config.provider, config.model, provider_overrides=config.providers or None,
                              price_overrides=config.prices or None, body_model=cachecost.body_model_of(plan.template))
    plan.cost_before, plan.cost_after = cache["cost_per_1k_calls"], cache["cost_per_1k_calls_fixed"]
    dated = f", prices as of {cache['prices_as_of']}" if cache["prices_as_of"] else ""
    plan.cost_basis = f"{cache['provider']} {cache['model']}{dated}"
    if cache["nothing_cached_because"]:
        plan.cost_basis += f"; still nothing cached: {cache['nothing_cached_because']}"
    if plan.not_fixable:
        plan.cost_basis += "; the figure after assumes every volatile part at the tail, and some could not move"