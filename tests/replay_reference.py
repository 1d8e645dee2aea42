"""The replay as it was before it streamed: every entry held, then simulated, then diagnosed.

Kept verbatim (from promptlint/replay/analysis.py before the streaming rewrite) as the
straightforward reference the streaming replay is checked against; not used by promptlint.
"""

# ruff: noqa
# mypy: ignore-errors

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from promptlint import providers, requestbody
from promptlint.providers import reported
from promptlint.providers.base import Breakpoint, CacheModelError, Request, Usage, cost
from promptlint.replay.divergence import Prepared, divergence
from promptlint.replay.log import LogEntry, ReplayError
from promptlint.requestbody import ChunkTokenizer

DEFAULT_GAP_SECONDS = 1.0
#: Our rendering is not the provider's exact template and Claude's tokenizer is not public:
#: predicted and reported counts may differ by this share before it is called a disagreement.
TOKEN_SLACK = 0.05


def _sim_request(prepared: Prepared, provider: str) -> Request:
    rendered = prepared.entry.rendered
    segments = requestbody.strictly_increasing_ends(prepared.ends)
    breakpoints: list[Breakpoint] = []
    auto_ttl = None
    if provider == "anthropic":
        for index, marker in rendered.markers():
            if marker is rendered.auto_marker:
                auto_ttl = marker.ttl
            elif prepared.ends[index] > 0:
                breakpoints.append(Breakpoint(position=prepared.ends[index], ttl=marker.ttl))
    user_ends = [prepared.ends[i] for i, c in enumerate(rendered.chunks) if c.role == "user" and prepared.ends[i] > 0]
    system_ends = [prepared.ends[i] for i, c in enumerate(rendered.chunks) if c.section in ("tools", "schema", "system")]
    return Request(
        tokens=prepared.ids,
        segments=segments,
        breakpoints=breakpoints,
        time=prepared.time,
        routing_key=prepared.entry.routing_key,
        eligible_ends=sorted(set(user_ends)),
        developer_block_end=system_ends[-1] if system_ends and system_ends[-1] > 0 else None,
        auto_breakpoint_ttl=auto_ttl,
    )


def _cacheable(prepared: Prepared, provider: str) -> int:
    """Tokens a request could read at best: up to its last breakpoint (Anthropic), else all."""
    if provider == "anthropic":
        marks = [prepared.ends[i] for i, _ in prepared.entry.rendered.markers()]
        return max(marks, default=0)
    return len(prepared.ids)


def _readable(tokens: int, facts: Any) -> int:
    """What a provider could read of a ``tokens``-long identical prefix: nothing below its
    minimum, and whole increments of its granularity. A break below the minimum costs nothing:
    the request could never have been cached."""
    minimum = facts.min_cacheable_tokens or 0
    if tokens < minimum:
        return 0
    step = max(1, facts.granularity or 1)
    return tokens - (tokens - minimum) % step if minimum else tokens - tokens % step


def replay(
    entries: Sequence[LogEntry],
    *,
    provider: str | None = None,
    model: str | None = None,
    price_overrides: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Replay ``entries``; the dict ``replay --format json`` prints (ReplayError if impossible)."""
    from promptlint.providers.cost import resolve_model
    from promptlint.providers.pricing import prices_for

    provider = (provider or entries[0].provider).lower()
    if provider not in providers.known_providers():
        raise ReplayError(f"unknown provider {provider!r}; known: {', '.join(providers.known_providers())}")
    exact = provider != "anthropic"
    tokenizer = ChunkTokenizer("o200k_base")
    prepared: list[Prepared] = []
    clock = 0.0
    origin: float | None = None
    for number, entry in enumerate(entries):
        if entry.time is not None:
            origin = entry.time if origin is None else origin
            clock = entry.time - origin
        elif number:
            clock += DEFAULT_GAP_SECONDS
        chosen, _ = resolve_model(provider, model, entry.rendered.model)
        ids, ends = tokenizer.request(entry.rendered)
        prepared.append(Prepared(entry, chosen, ids, ends, clock))

    usages: list[Usage | None] = [None] * len(prepared)
    facts_by_model: dict[str, providers.ProviderFacts] = {}
    for chosen in dict.fromkeys(p.model for p in prepared):
        facts = providers.facts(provider, chosen)
        facts_by_model[chosen] = facts
        # The cache sees requests in time order; a log written by several workers may not be.
        indices = sorted((i for i, p in enumerate(prepared) if p.model == chosen and p.ids),
                         key=lambda i: prepared[i].time)
        try:
            results = providers.simulate(provider, chosen, [_sim_request(prepared[i], provider) for i in indices],
                                          facts=facts)
        except CacheModelError as exc:
            raise ReplayError(f"the cache model rejects a request: {exc}") from None
        for i, usage in zip(indices, results, strict=True):
            usages[i] = usage

    prices: dict[str, Any] = {}
    notes: list[str] = []
    for chosen in facts_by_model:
        try:
            prices[chosen] = prices_for(provider, chosen, price_overrides)
        except (LookupError, ValueError) as exc:
            notes.append(f"no price for {chosen}: {exc}")

    rows: list[dict[str, Any]] = []
    last_by_key: dict[str, int] = {}
    lost_tokens: dict[str, int] = {}
    lost_cost: float | None = 0.0
    predicted_cost: float | None = 0.0
    for index, item in enumerate(prepared):
        simulated = usages[index]
        predicted = simulated.read if simulated else 0
        total = len(item.ids)
        rep_read, rep_total = reported(item.entry.usage)
        facts = facts_by_model[item.model]
        ttl = None
        try:
            ttl = facts.ttl()
        except ValueError:
            pass
        # Compare with the previous request of the same conversation (routing key), if keyed.
        key = item.entry.routing_key
        before = last_by_key.get(key) if key is not None else (index - 1 if index else None)
        found = divergence(prepared[before], item, tokenizer, ttl) if before is not None else None
        if key is not None:
            last_by_key[key] = index
        lost = 0
        if found is not None:
            previous = prepared[before]  # type: ignore[index]
            potential = _readable(min(_cacheable(item, provider), len(previous.ids)), facts)
            lost = max(0, potential - max(found["token_offset"], predicted))
            found["tokens_lost"] = lost
            lost_tokens[found["cause"]] = lost_tokens.get(found["cause"], 0) + lost
        price = prices.get(item.model)
        if price is None or simulated is None:
            predicted_cost = None if price is None else predicted_cost
            lost_cost = None if price is None else lost_cost
        else:
            per_token = price.per_token()
            if predicted_cost is not None:
                predicted_cost += cost(simulated, per_token)
            # A lost token is paid at the input (or, before an Anthropic breakpoint, write)
            # price instead of the read price.
            missed = per_token.cache_write if provider == "anthropic" else per_token.input
            if lost_cost is not None:
                lost_cost += lost * (missed - per_token.cache_read)
        slack = max(facts.granularity, math.ceil(TOKEN_SLACK * total))
        disagrees = rep_read is not None and abs(rep_read - predicted) > slack
        rows.append({
            "index": index,
            "line": item.entry.line,
            "tokens": total,
            "predicted_cached_tokens": predicted,
            "reported_cached_tokens": rep_read,
            "reported_tokens": rep_total,
            "predicted_written_tokens": simulated.write if simulated else 0,
            "disagrees": disagrees,
            "divergence": found,
        })

    total_tokens = sum(r["tokens"] for r in rows)
    predicted_total = sum(r["predicted_cached_tokens"] for r in rows)
    with_usage = [r for r in rows if r["reported_cached_tokens"] is not None and r["reported_tokens"]]
    reported_rate = (
        sum(r["reported_cached_tokens"] for r in with_usage) / sum(r["reported_tokens"] for r in with_usage)
        if with_usage
        else None
    )
    as_of = sorted({p.as_of for p in prices.values() if p.as_of})
    below = [r for r, item in zip(rows, prepared, strict=True)
             if r["tokens"] < (facts_by_model[item.model].min_cacheable_tokens or 0)]
    if below:
        minimum = min(facts_by_model[item.model].min_cacheable_tokens for item in prepared)
        notes.append(f"{len(below)} of {len(rows)} request(s) are below the {minimum:,}-token minimum: they could "
                     "never be cached, whatever their content, and cost nothing lost")
    if not exact:
        notes.append("token counts are ≈: o200k_base is not Claude's tokenizer")
    notes.append(f"predicted and reported counts may differ by the provider's granularity or {TOKEN_SLACK:.0%}"
                 " (our rendering is not the provider's exact template)")
    return {
        "requests": rows,
        "summary": {
            "requests": len(rows),
            "provider": provider,
            "models": sorted(facts_by_model),
            "tokens": total_tokens,
            "predicted_cached_tokens": predicted_total,
            "predicted_hit_rate": round(predicted_total / total_tokens, 4) if total_tokens else 0.0,
            "reported_hit_rate": round(reported_rate, 4) if reported_rate is not None else None,
            "breaks": sum(1 for r in rows if r["divergence"]),
            "disagreements": sum(1 for r in rows if r["disagrees"]),
            "tokens_lost_by_cause": dict(sorted(lost_tokens.items(), key=lambda kv: -kv[1])),
            "tokens_lost": sum(lost_tokens.values()),
            "cost_lost": round(lost_cost, 6) if lost_cost is not None else None,
            "predicted_cost": round(predicted_cost, 6) if predicted_cost is not None else None,
            "currency": "USD",
            "prices_as_of": as_of[-1] if as_of else None,
            "exact_tokens": exact,
            "notes": notes,
        },
    }
