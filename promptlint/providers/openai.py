"""OpenAI: before GPT-5.6 and from GPT-5.6 on (two table rows), Chat Completions and Responses.

Two cache models (provider-caching.md §13): before 5.6, automatic prefix caching on the
routing bucket's machine, read at implicit breakpoints and rounded to 128 tokens; from 5.6,
exact matches at explicit and implicit breakpoints with a write fee. ``simulate_openai`` is
also the xAI / Fireworks approximation (their rows name it). Models ``gpt-X.Y`` at or after
the ``openai-5.6`` row's ``from_gpt_version`` use that row.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from promptlint.providers import base
from promptlint.providers.base import CacheModelError, Provider, Request, Usage, UsageFields
from promptlint.providers.table import ProviderFacts, normalize_model
from promptlint.requestbody.blocks import OPENAI_CHAT, OPENAI_RESPONSES, Builder, without
from promptlint.requestbody.jsonspans import JSON_OBJECT, JsonPath


SECONDS_PER_MINUTE = 60.0
NEWER_ROW = "openai-5.6"


# --------------------------------------------------------------------------------------------
# Which row: GPT-5.6 and later


def _gpt_version(model: str) -> tuple[int, int] | None:
    match = re.match(r"^gpt-(\d+)(?:\.(\d+))?", normalize_model(model))
    if match is None:
        return None
    return int(match.group(1)), int(match.group(2) or 0)


def _version_tuple(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def choose_row(model: str, rows: Mapping[str, Any]) -> str | None:
    """``openai-5.6`` for a GPT model at or after that row's ``from_gpt_version``, else None."""
    newer = rows.get(NEWER_ROW, {})
    if "from_gpt_version" in newer:
        version = _gpt_version(model)
        if version is not None and version >= _version_tuple(newer["from_gpt_version"]):
            return NEWER_ROW
    return None


# --------------------------------------------------------------------------------------------
# OpenAI before GPT-5.6 (also the xAI / Fireworks approximation)


def openai_reported_read(common_prefix: int, facts: ProviderFacts) -> int:
    """Cached tokens OpenAI (pre-5.6) reports for a ``common_prefix``-token match (§13 rule 4).

    The last implicit breakpoint inside the match (every ``breakpoint_interval`` tokens counted
    from the start of the ``hidden_tokens``), minus the hidden tokens, rounded down to
    ``granularity``; 0 below ``min_cacheable_tokens``. E.g. interval 128, H = 0, M = 1,024:
    1,023 → 0, 1,024 → 1,024, 1,200 → 1,152.
    """
    hidden = facts.hidden_tokens
    interval = max(1, facts.breakpoint_interval)
    boundary = max(0, (hidden + common_prefix) // interval * interval - hidden)
    read = boundary // max(1, facts.granularity) * max(1, facts.granularity)
    return read if read >= facts.min_cacheable_tokens else 0


def simulate_openai(requests: Sequence[Request], facts: ProviderFacts, **options: Any) -> list[Usage]:
    """OpenAI models before GPT-5.6 (§13); :func:`stream_openai`, all at once."""
    base.check_requests(requests)
    return list(stream_openai(requests, facts, **options))


def stream_openai(
    requests: Iterable[Request],
    facts: ProviderFacts,
    *,
    retention: str | None = None,
    optimistic: bool = False,
    routing_overflow: bool = False,
) -> Iterator[Usage]:
    """OpenAI models before GPT-5.6 (§13): automatic prefix caching, no write fee.

    Each request reads the longest common prefix with a live entry on its machine, reported
    by :func:`openai_reported_read`, and stores its whole prompt. ``retention`` is
    ``"in_memory"`` or ``"24h"`` (default: the model's); idle TTLs are pessimistic unless
    ``optimistic``; a hit refreshes the entry up to the hard cap. A machine is the routing
    bucket (first ``routing_prefix_tokens`` tokens + ``routing_key``); with
    ``routing_overflow``, each further ``overflow_requests_per_minute`` requests in the trailing
    60 s of a bucket land on another machine, which starts cold. One usage per request, as
    each is drawn; machines whose entries have all expired are dropped now and then (exact:
    a lookup keeps only live entries, and an expired one never lives again).
    """
    ttl_class = retention or facts.default_ttl
    idle_seconds = base.ttl_for(facts, ttl_class, optimistic)
    lifetime_cap = float(facts.max_lifetime_seconds.get(ttl_class or "", math.inf))
    machines: dict[Any, list[base.Entry]] = {}
    bucket_times: dict[Any, list[float]] = {}
    sweep_after = base.Pruner.MIN_SWEEP
    for request in base.checked(requests):
        now, tokens = request.time, tuple(request.tokens)
        if len(machines) >= sweep_after:
            for key in [k for k, kept in machines.items() if all(e.expires_at <= now for e in kept)]:
                del machines[key]
            sweep_after = max(base.Pruner.MIN_SWEEP, 2 * len(machines))
        head = tokens[: facts.routing_prefix_tokens or len(tokens)]
        bucket = (head, request.routing_key)
        machine_index = 0
        if routing_overflow and facts.overflow_requests_per_minute:
            recent = [s for s in bucket_times.get(bucket, []) if s > now - SECONDS_PER_MINUTE]
            machine_index = len(recent) // facts.overflow_requests_per_minute
            bucket_times.setdefault(bucket, []).append(now)
        entries = [e for e in machines.get((bucket, machine_index), []) if e.live(now)]
        # The first entry sharing the longest prefix. Newest first, an entry shorter than
        # the best so far cannot share more, and is not compared: in a growing
        # conversation the last request's entry is the best, and every older one shorter.
        best_entry, common = None, 0
        for entry in reversed(entries):
            if len(entry.tokens) < common:
                continue
            length = base.lcp(tokens, entry.tokens)
            if length > common or (length == common and length > 0):
                best_entry, common = entry, length
        read = openai_reported_read(common, facts)
        if best_entry is not None and read > 0:
            best_entry.refresh(now)
        # Lengths first: tuples of unequal lengths are compared up to their first difference.
        same = next((e for e in entries if len(e.tokens) == len(tokens) and e.tokens == tokens), None)
        if same is not None:
            same.refresh(now)
        else:
            entries.append(
                base.Entry(
                    tokens,
                    now,
                    now + facts.visibility_delay_seconds,
                    min(now + idle_seconds, now + lifetime_cap),
                    idle_seconds,
                    now + lifetime_cap,
                )
            )
        machines[(bucket, machine_index)] = entries
        yield Usage(read=read, write=0, uncached=len(tokens) - read, total=len(tokens))


# --------------------------------------------------------------------------------------------
# OpenAI GPT-5.6 and later


def _lookup_candidates(request: Request, facts: ProviderFacts) -> set[int]:
    explicit = sorted(b.position for b in request.breakpoints)
    first = explicit[: facts.lookback_first_explicit or 0]
    latest = explicit[-facts.lookback_latest_explicit :] if facts.lookback_latest_explicit else []
    candidates = set(first) | set(latest)
    if request.cache_mode == "implicit":
        eligible = sorted(request.eligible_ends)
        if eligible:
            candidates.add(eligible[-1])
            earlier = (
                eligible[:-1][-(facts.lookback_earlier_eligible or 0) :]
                if (facts.lookback_earlier_eligible)
                else []
            )
            candidates.update(earlier)
        if request.developer_block_end is not None:
            candidates.add(request.developer_block_end)
    return candidates


def simulate_openai_56(requests: Sequence[Request], facts: ProviderFacts) -> list[Usage]:
    """OpenAI GPT-5.6 and later (§13); :func:`stream_openai_56`, all at once."""
    base.check_requests(requests)
    return list(stream_openai_56(requests, facts))


def stream_openai_56(requests: Iterable[Request], facts: ProviderFacts) -> Iterator[Usage]:
    """OpenAI GPT-5.6 and later (§13): exact matches at breakpoints, 1.25× writes.

    ``read`` is the largest lookup candidate boundary (first 2 + latest 50 explicit markers;
    in implicit mode also the implicit breakpoint, 20 earlier eligible message ends and the
    initial developer block end) ≥ ``min_cacheable_tokens`` with a live entry for exactly that
    prefix; no rounding, no fallback to unmarked prefixes. Writes: the implicit breakpoint
    (implicit mode; it takes one of the ``max_writes_per_request`` slots) plus the latest
    writable explicit markers, minus those already live or below the minimum;
    ``write = max(0, max(written) − read)``. Reads and writes set ``expires_at = t + 30 min``.
    Partition: ``routing_key``. One usage per request, as each is drawn.
    """
    ttl_seconds = base.ttl_for(facts, None)
    store: dict[tuple[str | None, tuple[int, ...]], base.Entry] = {}
    prune = base.Pruner()
    for number, request in enumerate(base.checked(requests)):
        prune(store, request.time)
        if request.cache_mode not in ("implicit", "explicit"):
            raise CacheModelError(f"request {number}: cache_mode {request.cache_mode!r}")
        for breakpoint_ in request.breakpoints:
            if breakpoint_.ttl is not None:
                base.ttl_for(facts, breakpoint_.ttl)  # only "30m" is accepted
        now, tokens, partition = request.time, tuple(request.tokens), request.routing_key
        minimum = facts.min_cacheable_tokens
        read = 0
        for boundary in sorted(_lookup_candidates(request, facts), reverse=True):
            entry = (
                base.live(store, (partition, tokens[:boundary]), now) if boundary >= minimum else None
            )
            if entry is not None:
                read = boundary
                entry.refresh(now)
                break

        slots = facts.max_writes_per_request or 0
        chosen: list[int] = []
        eligible = sorted(request.eligible_ends)
        if request.cache_mode == "implicit" and eligible and slots > 0:
            chosen.append(eligible[-1])
            slots -= 1
        writable = sorted(b.position for b in request.breakpoints if not b.read_only)
        chosen.extend(writable[len(writable) - slots :] if slots > 0 else [])
        written = sorted(
            {
                b
                for b in chosen
                if b >= minimum and base.live(store, (partition, tokens[:b]), now) is None
            }
        )
        for boundary in written:
            prefix = tokens[:boundary]
            store[(partition, prefix)] = base.new_entry(prefix, now, ttl_seconds, facts)
        write = max(0, max(written, default=0) - read)
        yield Usage(read=read, write=write, uncached=len(tokens) - read - write, total=len(tokens))


# --------------------------------------------------------------------------------------------
# Render order of Chat Completions and Responses bodies


def _message(builder: Builder, message: Any, path: JsonPath, index: int, content_key: str) -> None:
    if not isinstance(message, JSON_OBJECT):
        builder.add(path, "messages", message, message_index=index)
        return
    role = str(message.get("role") or message.get("type") or "user")
    section = "system" if role in ("system", "developer") else "messages"
    header = f"[{role}]\n"
    content = message.get(content_key)
    if isinstance(content, str):
        builder.add((*path, content_key), section, content, header=header, message_index=index, role=role)
    elif isinstance(content, list):
        for j, part in enumerate(content):
            where = (*path, content_key, j)
            head = header if j == 0 else ""
            if isinstance(part, JSON_OBJECT) and isinstance(part.get("text"), str):
                builder.add((*where, "text"), section, part["text"], header=head, message_index=index, role=role)
            elif isinstance(part, JSON_OBJECT) and part.get("type") in ("image_url", "input_image", "input_file", "file"):
                builder.add(where, section, "[image]" if "image" in str(part.get("type")) else "[file]", header=head, message_index=index, role=role)
            else:
                builder.add(where, section, part, header=head, message_index=index, role=role)
    elif content is None and role in ("function_call_output",) and isinstance(message.get("output"), str):
        builder.add((*path, "output"), "messages", message["output"], header=header, message_index=index, role=role)
    else:
        rest = without(message, "role")
        builder.add(path, section, rest, header=header, message_index=index, role=role)
        return
    if isinstance(message.get("tool_calls"), list):
        builder.add((*path, "tool_calls"), section, message["tool_calls"], message_index=index, role=role)


def render_chat(builder: Builder, body: Mapping[str, Any]) -> None:
    """Render order of a Chat Completions body: tools, ``response_format``, messages."""
    builder.tools(body)
    if body.get("response_format") is not None:
        builder.add(("response_format",), "schema", body["response_format"], header="[response_format]\n")
    for index, message in enumerate(body.get("messages") or ()):
        _message(builder, message, ("messages", index), index, "content")


def render_responses(builder: Builder, body: Mapping[str, Any]) -> None:
    """Render order of a Responses body: tools, ``text.format``, instructions, input items."""
    builder.tools(body)
    text = body.get("text")
    if isinstance(text, JSON_OBJECT) and text.get("format") is not None:
        builder.add(("text", "format"), "schema", text["format"], header="[text.format]\n")
    if isinstance(body.get("instructions"), str):
        builder.add(("instructions",), "system", body["instructions"], header="[instructions]\n")
    items = body.get("input")
    if isinstance(items, str):
        builder.add(("input",), "messages", items, header="[user]\n", message_index=0, role="user")
    elif isinstance(items, list):
        for index, item in enumerate(items):
            _message(builder, item, ("input", index), index, "content")


# --------------------------------------------------------------------------------------------
# Usage objects


def read_usage(fields: UsageFields, usage: Mapping[str, Any]) -> base.Reported | None:
    """A Chat Completions or Responses usage object: cached tokens inside the details object."""
    cached = fields.value(usage, fields.cached)
    if cached is not None or fields.input in usage:
        reported_total = usage.get(fields.input)
        return (fields.count(cached or 0, fields.cached),
                fields.count(reported_total, fields.input) if reported_total is not None else None)
    return None


# After Anthropic's (its input_tokens is also a Responses field); before DeepSeek's, whose
# usage also has prompt_tokens and so reads as a Chat usage (its own shape is the fallback).
# The cache-write fields are GPT-5.6+'s; replay does not read them.
CHAT_USAGE = UsageFields(
    OPENAI_CHAT, "prompt_tokens_details.cached_tokens", read_usage, input="prompt_tokens",
    cache_write="prompt_tokens_details.cache_write_tokens", precedence=20,
)
RESPONSES_USAGE = UsageFields(
    OPENAI_RESPONSES, "input_tokens_details.cached_tokens", read_usage, input="input_tokens",
    cache_write="input_tokens_details.cache_write_tokens", precedence=30,
)


PROVIDER = Provider(
    name="openai",
    simulators={"openai": simulate_openai, NEWER_ROW: simulate_openai_56},
    streams={"openai": stream_openai, NEWER_ROW: stream_openai_56},
    choose_row=choose_row,
    renderers={OPENAI_CHAT: render_chat, OPENAI_RESPONSES: render_responses},
    usage=(CHAT_USAGE, RESPONSES_USAGE),
    default_model="gpt-5.5",
    model_prefixes=("gpt", "o1", "o3", "o4", "chatgpt", "ft:gpt"),
    genai_prices_id="openai",
)
