"""Anthropic Messages API: opt-in breakpoints (``cache_control``), 20-block lookback.

The cache model of provider-caching.md §13 (markers, lookback, the A/B/C write accounting of
5 m and 1 h TTLs) and the minimum cacheable length the PC2xx rules check bodies against.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from promptlint.providers import base
from promptlint.providers.base import CacheModelError, Provider, Request, Usage, UsageFields
from promptlint.providers.table import ProviderFacts
from promptlint.requestbody.blocks import ANTHROPIC, Builder, without
from promptlint.requestbody.jsonspans import JsonPath


@dataclass(frozen=True)
class _Marker:
    block_index: int
    position: int
    ttl: str


def _anthropic_markers(request: Request, blocks: list[int], facts: ProviderFacts) -> list[_Marker]:
    default_ttl = facts.default_ttl or "5m"
    markers: list[_Marker] = []
    for breakpoint_ in request.breakpoints:
        if breakpoint_.block_index is not None:
            if not 0 <= breakpoint_.block_index < len(blocks) or (
                blocks[breakpoint_.block_index] != breakpoint_.position
            ):
                raise CacheModelError(
                    f"breakpoint block {breakpoint_.block_index} does not end at "
                    f"{breakpoint_.position}"
                )
            index = breakpoint_.block_index
        elif breakpoint_.position in blocks:
            index = blocks.index(breakpoint_.position)
        else:
            raise CacheModelError(f"breakpoint at {breakpoint_.position} is not a block end")
        markers.append(_Marker(index, breakpoint_.position, breakpoint_.ttl or default_ttl))
    if request.auto_breakpoint_ttl is not None:
        # §2.1: automatic caching marks the last block; same-TTL marker there = no-op,
        # a different TTL or four explicit markers already = 400.
        last = len(blocks) - 1
        existing = [m for m in markers if m.block_index == last]
        if any(m.ttl != request.auto_breakpoint_ttl for m in existing):
            raise CacheModelError("automatic caching TTL differs from the last block's marker")
        if not existing:
            if len(markers) >= (facts.max_breakpoints or 4):
                raise CacheModelError("automatic caching needs a free breakpoint slot")
            markers.append(_Marker(last, blocks[last], request.auto_breakpoint_ttl))
    if facts.max_breakpoints is not None and len(markers) > facts.max_breakpoints:
        raise CacheModelError(
            f"{len(markers)} cache breakpoints; Anthropic allows at most {facts.max_breakpoints}"
        )
    markers.sort(key=lambda m: m.position)
    shortest_ttl_so_far = math.inf
    for marker in markers:
        seconds = base.ttl_for(facts, marker.ttl)
        if seconds > shortest_ttl_so_far:
            raise CacheModelError(
                f"a {marker.ttl} breakpoint follows a shorter-TTL one; longer TTLs must come first"
            )
        shortest_ttl_so_far = min(shortest_ttl_so_far, seconds)
    return markers


def simulate_anthropic(requests: Sequence[Request], facts: ProviderFacts) -> list[Usage]:
    """Anthropic prompt caching (§13); :func:`stream_anthropic` for the rules, all at once."""
    base.check_requests(requests)
    return list(stream_anthropic(requests, facts))


def stream_anthropic(requests: Iterable[Request], facts: ProviderFacts) -> Iterator[Usage]:
    """Anthropic prompt caching (§13): breakpoints, 20-block lookback, A/B/C billing.

    Blocks are ``Request.segments`` (without them, the breakpoint positions and the end).
    More than ``max_breakpoints`` markers, or a 1 h marker after a 5 m one, raise
    :class:`CacheModelError`. Markers whose prefix is under ``min_cacheable_tokens`` are
    ignored. Each marker scans its block and the ``lookback_blocks − 1`` blocks before it for a
    live entry a previous request wrote; ``A`` is the longest hit. ``B`` = furthest 1 h marker
    after ``A`` (else ``A``), ``C`` = last marker (≥ ``A``): ``write_1h = B − A``,
    ``write_5m = C − B``, ``uncached = total − C``. Entries are stored at every marker; a hit
    refreshes its entry's TTL. One usage per request, as each is drawn (checked as it comes).
    """
    store: dict[tuple[int, ...], base.Entry] = {}
    prune = base.Pruner()
    for request in base.checked(requests):
        now, tokens = request.time, tuple(request.tokens)
        prune(store, now)
        blocks = list(request.segments) or sorted(
            {b.position for b in request.breakpoints} | {len(tokens)}
        )
        markers = _anthropic_markers(request, blocks, facts)
        cacheable = [m for m in markers if m.position >= facts.min_cacheable_tokens]

        read, hit_entry = 0, None
        for marker in reversed(cacheable):
            for index in range(
                marker.block_index, marker.block_index - (facts.lookback_blocks or 20), -1
            ):
                if index < 0:
                    break
                entry = base.live(store, tokens[: blocks[index]], now)
                if entry is not None:
                    if blocks[index] > read:
                        read, hit_entry = blocks[index], entry
                    break
        if hit_entry is not None:
            hit_entry.refresh(now)

        long_ttl = [m.position for m in cacheable if m.ttl == "1h" and m.position > read]
        end_1h = max(long_ttl, default=read)
        end_last = max([read] + [m.position for m in cacheable])
        for marker in cacheable:
            key = tokens[: marker.position]
            base.store_entry(store, key, key, now, base.ttl_for(facts, marker.ttl), facts)
        write_1h = end_1h - read
        write = write_1h + (end_last - end_1h)
        yield Usage(
            read=read,
            write=write,
            write_1h=write_1h,
            uncached=len(tokens) - end_last,
            total=len(tokens),
        )


# --------------------------------------------------------------------------------------------
# Render order of a Messages body


def _content(builder: Builder, content: Any, path: JsonPath, index: int, role: str) -> None:
    header = f"[{role}]\n"
    if isinstance(content, str):
        builder.add((*path, "content"), "messages", content, header=header, message_index=index, role=role)
        return
    if not isinstance(content, list):
        builder.add((*path, "content"), "messages", content, header=header, message_index=index, role=role)
        return
    for j, block in enumerate(content):
        where = (*path, "content", j)
        marker = builder.marker(block, where)
        head = header if j == 0 else ""
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text" and isinstance(block.get("text"), str):
            builder.add((*where, "text"), "messages", block["text"], header=head, message_index=index, role=role, marker=marker)
        elif kind == "tool_result" and isinstance(block.get("content"), str):
            builder.add((*where, "content"), "messages", block["content"], header=head, message_index=index, role=role, marker=marker)
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            builder.add((*where, "thinking"), "messages", block["thinking"], header=head, message_index=index, role=role, marker=marker)
        elif kind in ("image", "document"):
            builder.add(where, "messages", f"[{kind}]", header=head, message_index=index, role=role, marker=marker)
        else:
            value = without(block, "cache_control") if isinstance(block, Mapping) else block
            builder.add(where, "messages", value, header=head, message_index=index, role=role, marker=marker)


def render_messages(builder: Builder, body: Mapping[str, Any]) -> None:
    """Render order of a Messages body: tools, system, messages; a top-level ``cache_control``
    is automatic caching (a breakpoint on the last block)."""
    builder.tools(body)
    system = body.get("system")
    if isinstance(system, str):
        builder.add(("system",), "system", system, header="[system]\n")
    elif isinstance(system, list):
        for i, block in enumerate(system):
            head = "[system]\n" if i == 0 else ""
            marker = builder.marker(block, ("system", i))
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                builder.add(("system", i, "text"), "system", block["text"], header=head, marker=marker)
            else:
                builder.add(("system", i), "system", block, header=head, marker=marker)
    for index, message in enumerate(body.get("messages") or ()):
        if isinstance(message, Mapping):
            role = str(message.get("role") or "user")
            _content(builder, message.get("content"), ("messages", index), index, role)
    builder.auto_marker = builder.marker(body, ())


# --------------------------------------------------------------------------------------------
# Usage object and minimum


def read_usage(fields: UsageFields, usage: Mapping[str, Any]) -> base.Reported | None:
    """A Messages usage object: ``input_tokens`` counts only what was neither read nor written."""
    if fields.cached in usage or fields.cache_write in usage:
        read = fields.count(usage.get(fields.cached) or 0, fields.cached)
        written = fields.count(usage.get(fields.cache_write) or 0, fields.cache_write)
        return read, read + written + fields.count(usage.get(fields.uncached) or 0, fields.uncached)
    return None


# First: no other shape has these fields, and its input_tokens would read as a Responses usage.
USAGE = UsageFields(
    ANTHROPIC, "cache_read_input_tokens", read_usage, cache_write="cache_creation_input_tokens",
    uncached="input_tokens", precedence=10,
)


def minimum(
    model: str | None, provider_overrides: Mapping[str, Any] | None = None
) -> tuple[int, str]:
    """(minimum cacheable tokens, model label) for a Claude model (the row's fallback if unknown)."""
    from promptlint.providers.registry import facts

    name = model if model and model.lower().startswith("claude") else None
    found = facts("anthropic", name, provider_overrides)
    return found.min_cacheable_tokens, name or "an unknown Claude model (fallback minimum)"


PROVIDER = Provider(
    name="anthropic",
    simulators={"anthropic": simulate_anthropic},
    streams={"anthropic": stream_anthropic},
    renderers={ANTHROPIC: render_messages},
    usage=(USAGE,),
    default_model="claude-sonnet-5",
    model_prefixes=("claude",),
    genai_prices_id="anthropic",
    tiktoken_exact=False,
)
