"""The replay: each logged request through the provider's cache model, with what each break cost.

Tokenises every entry (o200k_base; ≈ for Claude), simulates them in time order per model,
compares predicted with reported cached tokens, finds each request's divergence from the
previous one of its conversation (:mod:`promptlint.replay.divergence`) and prices the tokens
lost.

Streamed: entries are taken one at a time and dropped once handled. What is kept per
conversation (routing key) is the previous request's blocks and token ends, which the next
one is compared with; per request, a few numbers for the summary. Block ids are remembered
within a budget (:mod:`promptlint.replay.tokencache`), so a request costs its new content, not
its history. A log out of time order is read twice: once for the order, once to replay it
(:mod:`promptlint.replay.simfeed`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from promptlint import providers, requestbody
from promptlint.providers import reported
from promptlint.providers.base import Breakpoint, CacheModelError, Request, cost
from promptlint.replay.divergence import Prepared, divergence
from promptlint.replay.log import LogEntry, ReplayError
from promptlint.replay.simfeed import Feed, OutOfOrder
from promptlint.replay.tokencache import TokenCache

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


@dataclass(frozen=True, slots=True)
class _Row:
    """What the summary needs of one request once it has been handled (its usage comes later)."""

    line: int
    model: str
    tokens: int
    reported_read: int | None
    reported_total: int | None
    found: dict[str, Any] | None
    potential: int  # tokens it could have read, had it not broken (0 without a break)


Entries = Iterable[LogEntry] | Callable[[], Iterable[LogEntry]]


def replay(
    entries: Entries,
    *,
    provider: str | None = None,
    model: str | None = None,
    price_overrides: Mapping[str, float] | None = None,
) -> dict[str, Any]:
    """Replay ``entries``; the dict ``replay --format json`` prints (ReplayError if impossible).

    ``entries``: the log's entries, or a function that returns a fresh iterator over them
    (``lambda: iter_log(path)``), which lets the log be streamed and, if out of time order, read
    a second time. A one-shot iterator is held whole, in case it has to be.
    """
    if callable(entries):
        source = entries
    else:
        kept = entries if isinstance(entries, Sequence) else list(entries)
        source = lambda: kept  # noqa: E731
    try:
        return _replay(source, provider, model, price_overrides, None)
    except OutOfOrder:
        return _replay(source, provider, model, price_overrides, _time_order(source, provider, model))


def _clocks(entries: Iterable[LogEntry]) -> Iterable[tuple[LogEntry, float]]:
    """Each entry with its clock: seconds since the first timestamp; 1 s on where none is given."""
    clock = 0.0
    origin: float | None = None
    for number, entry in enumerate(entries):
        if entry.time is not None:
            origin = entry.time if origin is None else origin
            clock = entry.time - origin
        elif number:
            clock += DEFAULT_GAP_SECONDS
        yield entry, clock


def _chosen(provider: str | None, model: str | None, entry: LogEntry, first: LogEntry) -> tuple[str, str]:
    name = (provider or first.provider).lower()
    return name, _resolved(name, model, entry.rendered.model)


@lru_cache(maxsize=256)
def _resolved(provider: str, model: str | None, body_model: str | None) -> str:
    """The model a request is simulated and priced as (a log names a few models, many times)."""
    from promptlint.providers.cost import resolve_model

    return resolve_model(provider, model, body_model)[0]


def _time_order(source: Callable[[], Iterable[LogEntry]], provider: str | None, model: str | None) -> dict[str, list[int]]:
    """Per model, the log indices of its requests in the order the cache sees them: by time,
    then log order (the requests with no tokens are not simulated)."""
    keyed: dict[str, list[tuple[float, int]]] = {}
    first: LogEntry | None = None
    for index, (entry, clock) in enumerate(_clocks(source())):
        first = first or entry
        _, chosen = _chosen(provider, model, entry, first)
        if any(chunk.text for chunk in entry.rendered.chunks):
            keyed.setdefault(chosen, []).append((clock, index))
    return {chosen: [i for _, i in sorted(pairs, key=lambda pair: pair[0])] for chosen, pairs in keyed.items()}


def _replay(
    source: Callable[[], Iterable[LogEntry]],
    provider_name: str | None,
    model: str | None,
    price_overrides: Mapping[str, float] | None,
    order: dict[str, list[int]] | None,
) -> dict[str, Any]:
    from promptlint.providers.pricing import prices_for

    tokenizer = TokenCache("o200k_base")
    feeds: dict[str, Feed] = {}
    pending: list[_Row] = []
    last_by_key: dict[str | None, tuple[Prepared, int]] = {}
    provider = ""
    first: LogEntry | None = None
    for index, (entry, clock) in enumerate(_clocks(source())):
        if first is None:
            first = entry
            provider = (provider_name or entry.provider).lower()
            if provider not in providers.known_providers():
                known = ", ".join(providers.known_providers())
                raise ReplayError(f"{_where(entry)}unknown provider {provider!r}; known: {known}")
        _, chosen = _chosen(provider, model, entry, first)
        ids, ends = tokenizer.ids(entry.rendered)
        item = Prepared(entry, chosen, ids, ends, clock)  # type: ignore[arg-type]
        feed = feeds.get(chosen)
        if feed is None:
            facts = providers.facts(provider, chosen)
            feed = feeds[chosen] = Feed(provider, chosen, facts, None if order is None else order.get(chosen, []))
        if ids:
            try:
                feed.add(index, _sim_request(item, provider))
            except CacheModelError as exc:
                raise ReplayError(f"{_where(entry)}the cache model rejects a request: {exc}") from None
        pending.append(_handle(item, provider, feed.facts, tokenizer, last_by_key))
    if first is None:
        raise ReplayError("no requests")
    for feed in feeds.values():
        try:
            feed.finish()
        except CacheModelError as exc:
            raise ReplayError(f"the cache model rejects a request: {exc}") from None
    prices: dict[str, Any] = {}
    notes: list[str] = []
    for chosen in feeds:
        try:
            prices[chosen] = prices_for(provider, chosen, price_overrides)
        except (LookupError, ValueError) as exc:
            notes.append(f"no price for {chosen}: {exc}")
    return _summarise(pending, feeds, prices, notes, provider)


def _where(entry: LogEntry) -> str:
    if entry.where:
        return f"{entry.where}: "
    return f"line {entry.line}: " if entry.line else ""


def _handle(
    item: Prepared,
    provider: str,
    facts: providers.ProviderFacts,
    tokenizer: TokenCache,
    last_by_key: dict[str | None, tuple[Prepared, int]],
) -> _Row:
    """Compare ``item`` with the previous request of its conversation (routing key; the
    previous line if unkeyed), and keep it, slimmed, for the next ones."""
    ttl = None
    try:
        ttl = facts.ttl()
    except ValueError:
        pass
    key = item.entry.routing_key
    before = last_by_key.get(key)
    found = divergence(before[0], item, tokenizer, ttl) if before is not None else None
    potential = 0
    if found is not None and before is not None:
        potential = _readable(min(_cacheable(item, provider), before[1]), facts)
    # The next request needs only this one's blocks, model, time and token ends. ``None``
    # holds the previous line, which an unkeyed request is compared with.
    entry = item.entry
    kept = LogEntry(entry.line, {}, entry.rendered, entry.time, entry.routing_key, None, entry.provider, entry.where)
    slim = (Prepared(kept, item.model, [], item.ends, item.time), len(item.ids))
    last_by_key[None] = slim
    if key is not None:
        last_by_key[key] = slim
    try:
        rep_read, rep_total = reported(item.entry.usage)
    except ValueError as exc:  # a count that is no number: the log's line is malformed
        raise ReplayError(f"{_where(item.entry)}{exc}") from None
    return _Row(item.entry.line, item.model, len(item.ids), rep_read, rep_total, found, potential)


def _summarise(
    pending: list[_Row], feeds: dict[str, Feed], prices: dict[str, Any], notes: list[str], provider: str
) -> dict[str, Any]:
    exact = provider != "anthropic"
    rows: list[dict[str, Any]] = []
    lost_tokens: dict[str, int] = {}
    lost_cost: float | None = 0.0
    predicted_cost: float | None = 0.0
    below = 0
    for index, item in enumerate(pending):
        pending[index] = None  # type: ignore[call-overload]  # freed as its row is made
        feed = feeds[item.model]
        facts = feed.facts
        simulated = feed.usages.get(index)
        predicted = simulated.read if simulated else 0
        total = item.tokens
        rep_read, rep_total = item.reported_read, item.reported_total
        found = item.found
        lost = 0
        if found is not None:
            lost = max(0, item.potential - max(found["token_offset"], predicted))
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
            "line": item.line,
            "tokens": total,
            "predicted_cached_tokens": predicted,
            "reported_cached_tokens": rep_read,
            "reported_tokens": rep_total,
            "predicted_written_tokens": simulated.write if simulated else 0,
            "disagrees": disagrees,
            "divergence": found,
        })
        below += total < (facts.min_cacheable_tokens or 0)

    facts_by_model = {chosen: feed.facts for chosen, feed in feeds.items()}
    total_tokens = sum(r["tokens"] for r in rows)
    predicted_total = sum(r["predicted_cached_tokens"] for r in rows)
    with_usage = [r for r in rows if r["reported_cached_tokens"] is not None and r["reported_tokens"]]
    reported_rate = (
        sum(r["reported_cached_tokens"] for r in with_usage) / sum(r["reported_tokens"] for r in with_usage)
        if with_usage
        else None
    )
    as_of = sorted({p.as_of for p in prices.values() if p.as_of})
    if below:
        minimum = min(facts.min_cacheable_tokens for facts in facts_by_model.values())
        notes.append(f"{below} of {len(rows)} request(s) are below the {minimum:,}-token minimum: they could "
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
