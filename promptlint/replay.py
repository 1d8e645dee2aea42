"""Replay a log of real requests through the cache model and find where each one broke.

``promptlint replay LOG``: a JSONL file, one logged request per line, either a bare request
body or ``{"request": body, "timestamp": ISO or epoch seconds, "routing_key": str,
"usage": provider usage, "provider": "openai" | "anthropic"}``. Each body is rendered in its
provider's order (:mod:`promptlint.requestbody`), tokenised (o200k_base; ≈ for Claude),
and replayed through its cache model (:func:`promptlint.providers.simulate`; timestamps drive
TTLs; 1 s apart when absent). For each request: predicted vs reported cached tokens (the
provider modules' usage fields, :func:`promptlint.providers.reported`), the first divergence
from the previous request (JSON path, char and token offset, excerpts) and its likely cause;
then a summary with the tokens and money lost by cause.

Causes: ``timestamp``, ``id``, ``tool-order``, ``key-order``, ``whitespace``,
``model-change``, ``ttl-expiry``, ``history`` (an earlier message re-rendered) and
``content`` (anything else).

Pure apart from :func:`read_log`: :func:`replay` takes parsed entries and returns a dict.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from promptlint import providers, requestbody
from promptlint.providers import reported
from promptlint.providers.base import Breakpoint, CacheModelError, Request, Usage, cost, lcp
from promptlint.requestbody import ChunkTokenizer, Rendered

DEFAULT_GAP_SECONDS = 1.0
#: Our rendering is not the provider's exact template and Claude's tokenizer is not public:
#: predicted and reported counts may differ by this share before it is called a disagreement.
TOKEN_SLACK = 0.05
EXCERPT = 40


class ReplayError(Exception):
    """A log that cannot be replayed; the message is one line naming file and line."""


@dataclass
class LogEntry:
    line: int
    body: Mapping[str, Any]
    rendered: Rendered
    time: float | None
    routing_key: str | None
    usage: Mapping[str, Any] | None
    provider: str


def _timestamp(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ReplayError(f"{where}: timestamp must be an ISO string or epoch seconds")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            pass
    raise ReplayError(f"{where}: timestamp {value!r} is not an ISO string or epoch seconds")


def parse_line(text: str, where: str) -> LogEntry:
    """One log line. ReplayError (one line, naming ``where``) if it is not a request."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    wrapped = isinstance(value, dict) and isinstance(value.get("request"), dict)
    body = value["request"] if wrapped else value
    try:
        rendered = requestbody.render(body)
    except requestbody.RequestError as exc:
        raise ReplayError(f"{where}: {exc.message}") from None
    provider = (value.get("provider") if wrapped else None) or rendered.provider
    if provider not in ("openai", "anthropic", "gemini", "deepseek", "vllm", "sglang", "xai", "fireworks"):
        raise ReplayError(f"{where}: unknown provider {provider!r}")
    usage = value.get("usage") if wrapped else None
    key = value.get("routing_key") if wrapped else None
    return LogEntry(
        line=int(where.rsplit(":", 1)[-1]) if ":" in where else 0,
        body=body,
        rendered=rendered,
        time=_timestamp(value.get("timestamp") if wrapped else None, where),
        routing_key=str(key) if key is not None else None,
        usage=usage if isinstance(usage, Mapping) else None,
        provider=str(provider),
    )


def read_log(path: str) -> list[LogEntry]:
    """Every request of a JSONL log; blank lines are skipped. ReplayError on a bad line."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{path}: not UTF-8 text") from None
    entries = [parse_line(text, f"{path}:{number}") for number, text in enumerate(lines, 1) if text.strip()]
    if not entries:
        raise ReplayError(f"{path}: no requests")
    return entries


# ------------------------------------------------------------------------------------------
# Divergence and its cause

_TIME_PATTERNS = (
    re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"),
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),
    re.compile(r"\b1[6-9]\d{8}(?:\d{3})?\b"),  # epoch seconds / milliseconds
)
_ID_PATTERNS = (
    re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    re.compile(r"\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{12,}\b"),
    re.compile(r"\b[a-z]{2,8}_[A-Za-z0-9]{10,}\b"),
)


def _common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    low, high = 0, limit
    while low < high:  # binary search on slices: fast for long equal prefixes
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _changed_region(a: str, b: str) -> tuple[int, int, int]:
    """(common prefix, end of the changed part in ``a``, in ``b``)."""
    prefix = _common_prefix(a, b)
    suffix = min(_common_prefix(a[::-1], b[::-1]), min(len(a), len(b)) - prefix)
    return prefix, len(a) - suffix, len(b) - suffix


def _touches(patterns: Sequence[re.Pattern[str]], text: str, start: int, end: int) -> bool:
    end = max(end, start + 1)
    window = text[max(0, start - 40) : end + 40]
    offset = max(0, start - 40)
    return any(
        m.start() + offset < end and m.end() + offset > start for p in patterns for m in p.finditer(window)
    )


def _same_json(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except (json.JSONDecodeError, TypeError):
        return False


def classify(previous: Rendered, current: Rendered, chunk_index: int) -> str:
    """The likely cause of the first difference, which lies in chunk ``chunk_index``."""
    old, new = previous.chunks[chunk_index], current.chunks[chunk_index]
    if new.section == "tools":
        old_names = [c.body for c in previous.chunks if c.section == "tools"]
        new_names = [c.body for c in current.chunks if c.section == "tools"]
        if old_names != new_names and sorted(map(_canonical, old_names)) == sorted(map(_canonical, new_names)):
            return "tool-order" if [_canonical(x) for x in old_names] != [_canonical(x) for x in new_names] else "key-order"
    if old.body != new.body and _same_json(old.body, new.body):
        return "key-order"
    if re.sub(r"\s+", "", old.text) == re.sub(r"\s+", "", new.text):
        return "whitespace"
    prefix, end_old, end_new = _changed_region(old.text, new.text)
    if _touches(_TIME_PATTERNS, new.text, prefix, end_new) or _touches(_TIME_PATTERNS, old.text, prefix, end_old):
        return "timestamp"
    if _touches(_ID_PATTERNS, new.text, prefix, end_new) or _touches(_ID_PATTERNS, old.text, prefix, end_old):
        return "id"
    if new.section == "messages" and new.message_index != current.latest_user_index:
        return "history"
    return "content"


def _canonical(text: str) -> str:
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except json.JSONDecodeError:
        return text


@dataclass
class _Prepared:
    entry: LogEntry
    model: str
    ids: list[int]
    ends: list[int]
    time: float


def _excerpt(text: str, at: int) -> str:
    start = max(0, at - EXCERPT)
    return ("…" if start else "") + text[start : at + EXCERPT] + ("…" if at + EXCERPT < len(text) else "")


def divergence(
    previous: _Prepared, current: _Prepared, tokenizer: ChunkTokenizer, ttl_seconds: float | None
) -> dict[str, Any] | None:
    """The first place ``current`` stops repeating ``previous``, or None (a plain extension)."""
    old, new = previous.entry.rendered, current.entry.rendered
    if previous.model != current.model:
        return {"path": "model", "char_offset": 0, "token_offset": 0, "cause": "model-change",
                "before": previous.model, "after": current.model}
    chunk_index = next(
        (i for i, (a, b) in enumerate(zip(old.chunks, new.chunks)) if a.text != b.text or a.path != b.path),
        None,
    )
    if chunk_index is None:
        if ttl_seconds is not None and current.time - previous.time > ttl_seconds:
            path = new.chunks[0].path_text if new.chunks else ""
            return {"path": path, "char_offset": 0, "token_offset": 0, "cause": "ttl-expiry",
                    "gap_seconds": round(current.time - previous.time, 3)}
        return None
    a, b = old.chunks[chunk_index], new.chunks[chunk_index]
    if a.section == "messages" and a.role == "user" and a.message_index == old.latest_user_index and (
        b.message_index == new.latest_user_index
    ):
        return None  # the latest turn is new on every request: not a break
    within = _common_prefix(a.text, b.text)
    chars_before = sum(len(c.text) for c in new.chunks[:chunk_index])
    tokens_before = current.ends[chunk_index - 1] if chunk_index else 0
    token_offset = tokens_before + lcp(tokenizer.encode(a.text), tokenizer.encode(b.text))
    return {
        "path": b.path_text,
        "char_offset": chars_before + within,
        "token_offset": token_offset,
        "cause": classify(old, new, chunk_index),
        "before": _excerpt(a.text, within),
        "after": _excerpt(b.text, within),
    }


# ------------------------------------------------------------------------------------------
# The replay


def _sim_request(prepared: _Prepared, provider: str) -> Request:
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


def _cacheable(prepared: _Prepared, provider: str) -> int:
    """Tokens a request could read at best: up to its last breakpoint (Anthropic), else all."""
    if provider == "anthropic":
        marks = [prepared.ends[i] for i, _ in prepared.entry.rendered.markers()]
        return max(marks, default=0)
    return len(prepared.ids)


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
    prepared: list[_Prepared] = []
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
        prepared.append(_Prepared(entry, chosen, ids, ends, clock))

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
            potential = min(_cacheable(item, provider), len(previous.ids))
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


__all__ = ["DEFAULT_GAP_SECONDS", "LogEntry", "ReplayError", "classify", "parse_line", "read_log", "replay", "reported"]
