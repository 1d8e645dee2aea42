"""What a prompt's cache layout costs on one provider, now and after the fix.

:func:`compute` is pure: an :class:`~promptlint.core.analysis.Analysis`, a provider and a model in,
the ``cache`` object of ``check --provider`` out. It runs the provider's cache model
(:func:`promptlint.providers.registry.simulate`) on two calls whose volatile parts differ (the
analysis's two renderings) and reads the second call's cached tokens: the steady state of a
prompt sent again and again. "After the fix" is the same with the stable content first and
the volatile parts at the tail (what ``promptlint fix`` produces). Costs are input-side USD
per 1,000 calls from :func:`promptlint.providers.pricing.prices_for`.

Breakpoints: a request body's own ``cache_control`` markers; for a template, one breakpoint at
the end of the system prompt (after the fix: at the end of its stable part), which is where
Anthropic users put it and where OpenAI 5.6+ users put an explicit marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptlint.core import tokens
from promptlint.core.analysis import Analysis, render
from promptlint.core.ir import Segment, Tag, Template
from promptlint.providers import registry
from promptlint.providers.base import Breakpoint, Request, Usage, cost, lcp

CALLS = 1000
CALL_GAP_SECONDS = 30.0


def resolve_model(provider: str, model: str | None, body_model: str | None = None) -> tuple[str, list[str]]:
    """The model to price and simulate, and a note when it is not the one asked for.

    A model fits when it starts with one of the provider's ``model_prefixes``; else the
    provider's ``default_model`` (the config default is an OpenAI model).
    """
    known = registry.find(provider)
    prefixes = known.model_prefixes if known is not None else None

    def fits(name: str | None) -> bool:
        short = (name or "").lower().rsplit("/", 1)[-1]
        return bool(name) and (prefixes is None or short.startswith(prefixes))

    for candidate in (model, body_model):
        if fits(candidate):
            assert candidate is not None
            return candidate, []
    default = known.default_model if known is not None else (model or "unknown")
    note = f"model {model!r} is not for {provider}; using {default} (set --model)" if model else ""
    return default, [note] if note else []


def _breakpoints(template: Template) -> list[Tag]:
    return [s for s in template.walk() if isinstance(s, Tag) and s.tag == "breakpoint"]


def _pieces(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut at character offsets (breakpoints), empty pieces dropped."""
    out, start = [], 0
    for cut in sorted(set(cuts)):
        if start < cut <= len(text):
            out.append(text[start:cut])
            start = cut
    if start < len(text):
        out.append(text[start:])
    return out


def _request(pieces: list[str], encoding: str, time: float, marked: int) -> Request:
    """A request of ``pieces`` (blocks) with a breakpoint at the end of the first ``marked``."""
    ids: list[int] = []
    ends: list[int] = []
    for piece in pieces:
        ids.extend(tokens.encode(piece, encoding))
        if ids and (not ends or len(ids) > ends[-1]):
            ends.append(len(ids))
    marks = ends[: max(1, marked)] if ends else []
    return Request(
        tokens=ids,
        segments=ends,
        breakpoints=[Breakpoint(position=p) for p in marks],
        time=time,
        developer_block_end=marks[-1] if marks else None,
    )


def _render_with_cuts(analysis: Analysis, variant: int, tags: list[Tag]) -> tuple[str, list[int]]:
    wanted = {id(t) for t in tags}
    cuts: list[int] = []

    def record(segment: Segment, at: int) -> None:
        if id(segment) in wanted:
            cuts.append(at)

    text = render(analysis.template, analysis.units, variant, record)
    return text, cuts


def _volatile_tail(analysis: Analysis, variant: int) -> str:
    """The volatile units alone, rendered with sample values, one per line."""
    template = analysis.template
    parts = []
    for unit in analysis.units:
        alone = Template(template.path, template.syntax, "", [unit.segment])
        parts.append(render(alone, analysis.units, variant))
    return "\n".join(p for p in parts if p)


def _marked(text: str, cuts: list[int]) -> int:
    """How many leading pieces of ``text`` end at a breakpoint (all of it when none is set)."""
    return len({c for c in cuts if 0 < c <= len(text)})


def _layouts(analysis: Analysis) -> tuple[list[list[str]], list[list[str]], int, int, bool]:
    """Pieces of two calls now and after the fix, and how many pieces end in a breakpoint.

    Without breakpoint tags (a template), the breakpoint is at the end of the prompt now and
    at the end of the stable part after the fix.
    """
    tags = _breakpoints(analysis.template)
    stable = analysis.stable_text
    stable_cuts = [analysis.offset_of(t) for t in tags] or [len(stable)]
    now: list[list[str]] = []
    fixed: list[list[str]] = []
    now_marked = 1
    for variant in (0, 1):
        text, cuts = _render_with_cuts(analysis, variant, tags)
        if not tags:
            cuts = [len(text)]
        now.append(_pieces(text, cuts))
        now_marked = _marked(text, cuts)
        tail = _volatile_tail(analysis, variant)
        fixed.append(_pieces(stable, stable_cuts) + (["\n" + tail] if tail else []))
    return now, fixed, now_marked, _marked(stable, stable_cuts), bool(tags)


def _steady(provider: str, model: str, calls: list[list[str]], marked: int, encoding: str,
            facts: Any) -> Usage | None:
    # Two calls a little apart: well inside every TTL, after DeepSeek's units are persisted.
    requests = [_request(pieces, encoding, i * CALL_GAP_SECONDS, marked) for i, pieces in enumerate(calls)]
    if not requests[-1].tokens:
        return None
    usage = registry.simulate(provider, model, requests, facts=facts)[-1]
    if facts.simulator == "deepseek" and not facts.legacy_units:
        # DeepSeek persists the common prefix of two calls as a unit after the second: from
        # the third call on, that unit is read (the steady state).
        common = lcp(requests[0].tokens, requests[1].tokens)
        if common > usage.read:
            usage = Usage(read=common, write=0, uncached=usage.total - common, total=usage.total,
                                   note="DeepSeek: the common-prefix unit is read from the third call on")
    return usage


def _price_overrides(prices: Mapping[str, Any] | None, provider: str, model: str) -> dict[str, float] | None:
    """Config ``prices``: flat (``input = 3.0``) or keyed by ``provider/model``, model or provider."""
    if not prices:
        return None
    from promptlint.providers.pricing import PRICE_KEYS

    if all(key in PRICE_KEYS for key in prices):
        return {k: float(v) for k, v in prices.items()}
    for key in (f"{provider}/{model}", model, provider):
        value = prices.get(key)
        if isinstance(value, Mapping):
            return {k: float(v) for k, v in value.items()}
    return None


def compute(
    analysis: Analysis,
    provider: str,
    model: str | None = None,
    *,
    provider_overrides: Mapping[str, Any] | None = None,
    price_overrides: Mapping[str, Any] | None = None,
    body_model: str | None = None,
) -> dict[str, Any]:
    """The ``cache`` object for one analysed file. ValueError for an unknown provider."""
    from promptlint.providers.pricing import prices_for

    provider = provider.strip().lower()
    known = registry.find(provider)
    if known is None:
        raise ValueError(f"unknown provider {provider!r}; known: {', '.join(registry.known_providers())}")
    model, notes = resolve_model(provider, model, body_model)
    facts = registry.facts(provider, model, provider_overrides)
    notes.extend(facts.notes)
    now_calls, fixed_calls, now_marked, fixed_marked, from_body = _layouts(analysis)
    encoding = analysis.encoding
    now = _steady(provider, model, now_calls, now_marked, encoding, facts)
    fixed = _steady(provider, model, fixed_calls, fixed_marked, encoding, facts)
    total = now.total if now else 0
    exact = known.tiktoken_exact and tokens.is_exact_for(model)
    if provider == "anthropic":
        notes.append(
            "breakpoints as in the request body"
            if from_body
            else "one cache_control breakpoint assumed at the end of the system prompt "
            "(after the fix: at the end of its stable part)"
        )
    if not exact:
        notes.append(f"token counts are ≈: {encoding} is not {model}'s tokenizer")
    for usage in (now, fixed):
        if usage is not None and usage.note:
            notes.append(usage.note)
    minimum = facts.min_cacheable_tokens
    because = None
    if fixed is not None and fixed.read == 0 and 0 < minimum:
        stable = tokens.count(analysis.stable_text, encoding)
        because = (
            f"{stable:,} stable tokens are below the {minimum:,}-token minimum of {facts.provider} {model}"
            if stable < minimum
            else f"no breakpoint covers the {stable:,} stable tokens"
        )
        notes.append(f"nothing is cached after the fix either: {because}")

    cost_now: float | None = None
    cost_fixed: float | None = None
    as_of: str | None = None
    try:
        prices = prices_for(provider, model, _price_overrides(price_overrides, provider, model))
    except (LookupError, ValueError) as exc:
        notes.append(f"no price: {exc}")
    else:
        per_token = prices.per_token()
        cost_now = round(cost(now, per_token) * CALLS, 4) if now else 0.0
        cost_fixed = round(cost(fixed, per_token) * CALLS, 4) if fixed else 0.0
        as_of = prices.as_of
        notes.extend(prices.notes)
    cached_now = now.read if now else 0
    cached_fixed = fixed.read if fixed else 0
    approx = "" if exact else "≈"
    summary = (
        f"{provider} {model}: {approx}{cached_now:,} of {approx}{total:,} tokens cached per call now, "
        f"{approx}{cached_fixed:,} after the fix"
    )
    if because is not None:
        summary += f" ({because})"
    if cost_now is not None and cost_fixed is not None:
        dated = f"prices as of {as_of}" if as_of else "self-hosted: prices from config, else 0"
        summary += f" · ${cost_now:,.2f} → ${cost_fixed:,.2f} per 1,000 calls ({dated})"
        if round(cost_fixed, 2) > round(cost_now, 2) and now is not None and fixed is not None:
            # Say why the fix would cost more: never a bare, unexplained increase.
            summary += (f"; the fix costs ${cost_fixed - cost_now:,.2f} more: its rendering is "
                        f"{fixed.total - now.total:+,} tokens and nothing more is cached")
    else:
        summary += " · no price known"
    return {
        "provider": provider,
        "model": model,
        "cached_tokens_per_call": cached_now,
        "cached_tokens_per_call_fixed": cached_fixed,
        "cost_per_1k_calls": cost_now,
        "cost_per_1k_calls_fixed": cost_fixed,
        "currency": "USD",
        "prices_as_of": as_of,
        "tokens_per_call": total,
        "exact_tokens": exact,
        "summary": summary,
        "nothing_cached_because": because,
        "notes": [n for n in dict.fromkeys(notes) if n],
    }


def body_model_of(template: Template) -> str | None:
    """The ``model`` field of a request-JSON file (its last body), if any."""
    if template.syntax != "json":
        return None
    from promptlint import requestbody

    try:
        return requestbody.load_cached(template.source).requests[-1].model
    except requestbody.RequestError:
        return None
