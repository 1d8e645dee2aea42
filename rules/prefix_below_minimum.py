"""## What it does
Compares the stable prefix with the target provider's minimum cacheable length
(OpenAI 1,024 tokens; Anthropic 512 to 4,096 by model; Gemini 2,048 or 4,096). It
reports a prompt whose stable prefix is below the minimum although its stable content
is not: the volatile parts placed early are all that stop caching from ever starting.
It also reports a prompt that is stable but a little short of the minimum (within
10 %), where a few more stable tokens (instructions that are already sent later, or
examples) would make every call cacheable.

## Why is this bad?
Below the minimum, providers cache nothing at all, silently: both cache counters stay
at 0 and no error is returned. A volatile line near the top of a 1,500-token prompt
does not cost "the tokens after it": it costs the whole discount.

## Example
A 1,400-token system prompt with `{{ user.name }}` on line 2: 20 stable tokens
before the name, 1,380 after. OpenAI caches nothing (20 < 1,024).

## Use instead
Move the name to the tail: 1,380 stable tokens, 1,280 cached per call.

## Fix safety
The fix is PC101's (moving the volatile parts); this rule has none of its own.

## Options
- `provider` and `model` in config (or `--model`) choose the minimum.
- `[providers.<name>] min_cacheable_tokens = N` overrides it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Any

from promptlint import providers
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Span
from promptlint.providers import cost

CODE = "PC107"
NAME = "prefix-below-minimum"
SUMMARY = "Stable prefix shorter than the provider's minimum cacheable length"
FIX = None

_NEAR_MISS_SHARE = 0.9


def minimum_for(ctx: RuleContext) -> tuple[int, str]:
    """(minimum cacheable tokens, provider/model label) for this file's configuration."""
    config = ctx.config
    provider = config.provider or "openai"
    try:
        # The model a request body names wins over the default, as in `check --provider`.
        asked = config.model or (None if config.provider else config.target_model)
        body_model = cost.body_model_of(ctx.template) or asked
        if config.providers:
            return _minimum(provider, config.model, body_model, config.providers)
        return _bundled_minimum(provider, config.model, body_model)
    except ValueError:
        return 0, provider  # an unknown provider is reported by the config check


@lru_cache(maxsize=64)
def _bundled_minimum(provider: str, model: str | None, body_model: str | None) -> tuple[int, str]:
    """:func:`_minimum` from the bundled table, once per provider and models (every file of
    a run asks)."""
    return _minimum(provider, model, body_model, None)


def _minimum(provider: str, model: str | None, body_model: str | None,
             rows: dict[str, Any] | None) -> tuple[int, str]:
    chosen, _ = cost.resolve_model(provider, model, body_model)
    facts = providers.facts(provider, chosen, rows)
    return facts.min_cacheable_tokens, f"{provider} {chosen}"


def check(ctx: RuleContext) -> Iterator[Finding]:
    analysis = ctx.analysis
    minimum, target = minimum_for(ctx)
    if minimum <= 0:
        return
    stable = analysis.stable_prefix_tokens
    # The stable tokens of the whole prompt are counted only where the prefix falls short.
    stable_content = analysis.stable_tokens_from(0) if analysis.units and stable < minimum else 0
    if stable < minimum <= stable_content:
        first = min(analysis.units, key=lambda u: ctx.unit_span(u).start)
        yield ctx.finding(
            CODE,
            NAME,
            ctx.unit_span(first),
            severity="warning",
            message=(
                f"the stable prefix is {stable:,} tokens, below the {minimum:,}-token minimum of {target}: "
                f"nothing is cached on any call; the prompt has {stable_content:,} stable tokens, so moving "
                "the volatile parts to the tail would let caching start"
            ),
            kind="threshold",
            frequency=first.volatility.frequency,
            tokens_lost=stable_content,
            minimum=minimum,
        )
    elif not analysis.units and _NEAR_MISS_SHARE * minimum <= stable < minimum:
        yield ctx.finding(
            CODE,
            NAME,
            Span(0, 0),
            severity="info",
            message=(
                f"the prompt is {stable:,} stable tokens, {minimum - stable:,} short of the {minimum:,}-token "
                f"minimum of {target}: nothing is cached; a few more stable tokens would make every call cacheable"
            ),
            kind="threshold",
            frequency="per-deploy",
            tokens_lost=stable,
            minimum=minimum,
        )
