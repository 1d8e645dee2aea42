"""Gemini: implicit caching (automatic, best-effort: a range) and explicit CachedContent.

Two table rows, ``gemini-implicit`` (what ``gemini`` means) and ``gemini-explicit``, each with
its cache model of provider-caching.md §13.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from promptlint.providers import base
from promptlint.providers.base import CacheModelError, Provider, Request, Usage, UsageFields
from promptlint.providers.table import ProviderFacts


def simulate_gemini_implicit(
    requests: Sequence[Request],
    facts: ProviderFacts,
    *,
    hit_probability: float | None = None,
    window_seconds: float | None = None,
) -> list[Usage]:
    """Gemini implicit caching (§13): a range, not a number.

    ``c`` = longest common prefix with an earlier request sent less than ``window_seconds``
    ago (default 5 min; unpublished), 0 if under ``min_cacheable_tokens``. The read lies in
    ``[0, c]``; ``read_expected = c · hit_probability`` (default 0.3; field reports show rare
    hits). No write fee.
    """
    base.check_requests(requests)
    probability = facts.hit_probability if hit_probability is None else hit_probability
    window = facts.window_seconds if window_seconds is None else window_seconds
    if probability is None or window is None:
        raise CacheModelError(f"{facts.provider}: hit_probability and window_seconds are needed")
    history = base.PrefixIndex()  # every earlier request, when it was sent
    usages: list[Usage] = []
    for request in requests:
        now, tokens = request.time, tuple(request.tokens)
        common = history.longest(tokens, now, window)
        if common < facts.min_cacheable_tokens:
            common = 0
        expected = common * probability
        note = (
            f"Gemini implicit caching is best-effort: read between 0 and {common}; expected "
            f"{expected:g} at hit probability {probability:g} (an assumption, configurable)"
            if common
            else None
        )
        read = math.floor(expected)
        usages.append(
            Usage(
                read=read,
                write=0,
                uncached=len(tokens) - read,
                total=len(tokens),
                note=note,
                read_min=0,
                read_max=common,
                read_expected=expected,
            )
        )
        history.add(tokens, now)
    return usages


def simulate_gemini_explicit(
    requests: Sequence[Request],
    facts: ProviderFacts,
    *,
    cached_tokens: int,
    created_at: float = 0.0,
    ttl_seconds: float | None = None,
) -> list[Usage]:
    """Gemini explicit caching (§13): every request references one CachedContent.

    The cache is the first ``cached_tokens`` tokens of each prompt, created at ``created_at``
    and alive for ``ttl_seconds`` (default 1 h). Each request while it lives reads all of it
    (if it is at least ``min_cacheable_tokens``). Creation (billed at the input price) and
    storage (per token-hour) are not per-request costs and are not included.
    """
    base.check_requests(requests)
    lifetime = base.ttl_for(facts, None) if ttl_seconds is None else ttl_seconds
    usages: list[Usage] = []
    for request in requests:
        total = len(request.tokens)
        alive = created_at <= request.time < created_at + lifetime
        usable = alive and facts.min_cacheable_tokens <= cached_tokens <= total
        read = cached_tokens if usable else 0
        note = None if usable else "cached content expired, too short, or longer than the prompt"
        usages.append(Usage(read=read, write=0, uncached=total - read, total=total, note=note))
    return usages


def read_usage(fields: UsageFields, usage: Mapping[str, Any]) -> base.Reported | None:
    """A Gemini ``usage_metadata`` object (implicit and explicit caching report alike)."""
    if fields.cached not in usage:
        return None
    total = usage.get(fields.input)
    return (fields.count(usage[fields.cached], fields.cached),
            fields.count(total, fields.input) if total is not None else None)


USAGE = UsageFields(
    "gemini", "cached_content_token_count", read_usage, input="prompt_token_count", precedence=50
)


PROVIDER = Provider(
    name="gemini",
    row="gemini-implicit",
    simulators={
        "gemini-implicit": simulate_gemini_implicit,
        "gemini-explicit": simulate_gemini_explicit,
    },
    usage=(USAGE,),
    default_model="gemini-2.5-flash",
    model_prefixes=("gemini",),
    genai_prices_id="google",
    tiktoken_exact=False,
)
