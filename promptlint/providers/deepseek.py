"""DeepSeek context caching on disk: persisted prefix units (provider-caching.md §13)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from promptlint.providers import base
from promptlint.providers.base import Provider, Request, Usage, UsageFields
from promptlint.providers.table import ProviderFacts


def simulate_deepseek(
    requests: Sequence[Request], facts: ProviderFacts, *, legacy: bool | None = None
) -> list[Usage]:
    """DeepSeek disk caching (§13): reads only whole persisted prefix units.

    After each request, units are persisted at the end of the user input, at the end of the
    output, at the common prefix with every earlier request of the partition
    (``routing_key``), and every ``unit_interval_tokens`` (0 = off). ``read`` = longest ready,
    unexpired unit that is a prefix of the new prompt. ``legacy`` (default: the table's
    ``legacy_units``) uses the pre-2026 rule instead: ``floor(lcp / 64) · 64`` against any
    earlier prompt, 0 under 64. Idle expiry ``ttl_seconds.idle`` (6 h), refreshed on a hit.
    """
    base.check_requests(requests)
    use_legacy = facts.legacy_units if legacy is None else legacy
    idle_seconds = base.ttl_for(facts, None)
    # Each partition's units and prompts apart: a request reads only its own partition's
    # (with 10,000 partitions, walking every unit of every one took 105 s for 30,000 requests).
    partitions: dict[str | None, dict[tuple[int, ...], base.Entry]] = {}
    prompts_of: dict[str | None, list[tuple[int, ...]]] = {}
    usages: list[Usage] = []
    for request in requests:
        now, tokens, partition = request.time, tuple(request.tokens), request.routing_key
        units = partitions.setdefault(partition, {})
        prompts = prompts_of.setdefault(partition, [])
        read = 0
        if use_legacy:
            # Legacy mode persists only whole prompts, so every live unit is an earlier prompt.
            common = base.longest_shared_prefix(tokens, [entry.tokens for entry in units.values() if entry.live(now)])
            read = common // facts.legacy_unit_tokens * facts.legacy_unit_tokens
        else:
            hit = None
            for unit_tokens, entry in units.items():
                if entry.live(now) and len(unit_tokens) > read and tokens[: len(unit_tokens)] == unit_tokens:
                    read, hit = len(unit_tokens), entry
            if hit is not None:
                hit.refresh(now)
        new_units = [tokens]
        if not use_legacy:
            new_units.append(tokens + tuple(request.output_tokens))
            for old in prompts:  # another partition's prompts persist nothing here
                common = base.lcp(tokens, old)
                if common > 0:
                    new_units.append(tokens[:common])
            if facts.unit_interval_tokens > 0:
                full = tokens + tuple(request.output_tokens)
                new_units.extend(
                    full[:end]
                    for end in range(
                        facts.unit_interval_tokens, len(full) + 1, facts.unit_interval_tokens
                    )
                )
        for unit_tokens in new_units:
            base.store_entry(units, unit_tokens, unit_tokens, now, idle_seconds, facts)
        prompts.append(tokens)
        usages.append(Usage(read=read, write=0, uncached=len(tokens) - read, total=len(tokens)))
    return usages


def read_usage(fields: UsageFields, usage: Mapping[str, Any]) -> base.Reported | None:
    """A DeepSeek usage object: cache hits and misses at the top level, total ``prompt_tokens``."""
    if fields.cached not in usage:
        return None
    total = fields.count(usage.get(fields.input) or 0, fields.input)
    return fields.count(usage[fields.cached], fields.cached), total or None


# After OpenAI Chat's: a DeepSeek usage also has prompt_tokens, and is read as a Chat usage
# (cached = prompt_tokens_details.cached_tokens, 0 when absent); this shape is the fallback.
USAGE = UsageFields(
    "deepseek", "prompt_cache_hit_tokens", read_usage, input="prompt_tokens",
    uncached="prompt_cache_miss_tokens", precedence=40,
)


PROVIDER = Provider(
    name="deepseek",
    simulators={"deepseek": simulate_deepseek},
    usage=(USAGE,),
    default_model="deepseek-chat",
    model_prefixes=("deepseek",),
    genai_prices_id="deepseek",
    tiktoken_exact=False,
)
