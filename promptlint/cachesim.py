"""Offline prompt-cache simulator: provider-caching.md §13 "Simulator rules", one function each.

Every simulator takes an ordered sequence of :class:`Request` (rendered token ids, block ends,
breakpoints, a timestamp) and the provider's :class:`~promptlint.providers.ProviderFacts`, and
returns one :class:`Usage` per request: tokens read from cache, written to it, and uncached.
The functions are pure: each run starts from an empty cache. :func:`cost` prices a usage.

How ``Request.routing_key`` is read, per provider:

* OpenAI before 5.6 / xAI / Fireworks: part of the routing bucket (with the first ~256 tokens).
* OpenAI 5.6+: a cache partition (Sep-2026 semantics: hits never cross keys).
* DeepSeek: the ``user_id`` partition. vLLM / SGLang: the ``cache_salt``.
* Anthropic and Gemini: ignored (one workspace / project is simulated).
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from promptlint.providers import ProviderFacts
from promptlint.providers import facts as provider_facts

SECONDS_PER_MINUTE = 60.0


class CacheModelError(ValueError):
    """A request the provider would reject (e.g. 5 Anthropic breakpoints), or bad input."""


@dataclass(frozen=True)
class Breakpoint:
    """A cache breakpoint: the cached prefix ends at token offset ``position``.

    ``ttl`` is a TTL class of the provider (``"5m"``, ``"1h"``, ``"30m"``; ``None`` = its
    default). ``block_index`` optionally names the block (index into ``Request.segments``)
    that ends at ``position``. ``read_only`` marks a GPT-5.6+ marker from an earlier turn,
    which the provider looks up but never writes again.
    """

    position: int
    ttl: str | None = None
    block_index: int | None = None
    read_only: bool = False


@dataclass(frozen=True)
class Request:
    """One request as the simulator sees it.

    ``tokens``: the rendered prompt's token ids (visible tokens; hidden provider tokens are
    ``ProviderFacts.hidden_tokens``). ``segments``: end offsets of the prompt's blocks, in
    order (Anthropic's lookback walks these). ``time``: seconds since any fixed origin.
    ``output_tokens``: generated ids (cached by DeepSeek, vLLM and SGLang).

    GPT-5.6+ only: ``eligible_ends`` are the end offsets of eligible messages (user messages,
    last tool response of a run, last developer message of the initial block), in order; the
    last one is the implicit breakpoint. ``developer_block_end`` ends the initial developer
    block. ``cache_mode`` is ``"implicit"`` (default) or ``"explicit"``.

    Anthropic only: ``auto_breakpoint_ttl`` set means top-level automatic caching with that TTL
    (a breakpoint on the last block that counts as one of the four).
    """

    tokens: Sequence[int]
    segments: Sequence[int] = ()
    breakpoints: Sequence[Breakpoint] = ()
    time: float = 0.0
    routing_key: str | None = None
    output_tokens: Sequence[int] = ()
    eligible_ends: Sequence[int] = ()
    developer_block_end: int | None = None
    cache_mode: str = "implicit"
    auto_breakpoint_ttl: str | None = None


@dataclass(frozen=True)
class Usage:
    """Simulated input-token accounting of one request.

    ``read + write + uncached == total``. ``write`` counts all writes; ``write_1h`` is the part
    written with a 1 h TTL (Anthropic), so ``write_5m = write - write_1h``. Gemini implicit
    caching is a range: ``read_min``..``read_max`` with ``read_expected`` (and ``read`` =
    ``floor(read_expected)``); ``note`` says why a number is uncertain.
    """

    read: int
    write: int
    uncached: int
    total: int
    write_1h: int = 0
    note: str | None = None
    read_min: int | None = None
    read_max: int | None = None
    read_expected: float | None = None

    @property
    def write_5m(self) -> int:
        """Tokens written with the short (5 m / default) TTL."""
        return self.write - self.write_1h


@dataclass(frozen=True)
class TokenPrices:
    """USD per token for each kind of input token.

    Providers without a write fee bill written tokens as ordinary input, so ``cache_write`` is
    the input price there. ``cache_write_1h`` is Anthropic's 1 h write price.
    """

    input: float
    cache_read: float
    cache_write: float
    cache_write_1h: float


def cost(usage: Usage, prices: TokenPrices) -> float:
    """USD for the input side of ``usage`` (§13 cost rules; output tokens are not included).

    One formula covers every provider: ``read·cache_read + write_5m·cache_write +
    write_1h·cache_write_1h + uncached·input``. With OpenAI 5.6+ prices (read 0.1×, write
    1.25×) it is OpenAI's weighted formula; with no write fee it is ``read·cached +
    (input − read)·input``. A Gemini range is priced at its expected read.
    """
    read = usage.read if usage.read_expected is None else usage.read_expected
    uncached = usage.total - read - usage.write
    return (
        read * prices.cache_read
        + usage.write_5m * prices.cache_write
        + usage.write_1h * prices.cache_write_1h
        + uncached * prices.input
    )


def lcp(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences."""
    limit = min(len(a), len(b))
    for index in range(limit):
        if a[index] != b[index]:
            return index
    return limit


@dataclass
class _Entry:
    """A cache entry (mutable: hits refresh ``expires_at``)."""

    tokens: tuple[int, ...]
    created_at: float
    ready_at: float
    expires_at: float
    ttl_seconds: float
    max_expires_at: float = math.inf

    def live(self, now: float) -> bool:
        # §13: all live checks use expires_at > t; entries are usable once ready.
        return self.ready_at <= now < self.expires_at

    def refresh(self, now: float) -> None:
        self.expires_at = min(max(self.expires_at, now + self.ttl_seconds), self.max_expires_at)


def _check_requests(requests: Sequence[Request]) -> None:
    previous_time = -math.inf
    for number, request in enumerate(requests):
        if request.time < previous_time:
            raise CacheModelError(f"request {number}: time {request.time} goes backwards")
        previous_time = request.time
        total = len(request.tokens)
        ends = list(request.segments)
        if any(b <= a for a, b in pairwise(ends)) or any(e <= 0 or e > total for e in ends):
            raise CacheModelError(
                f"request {number}: segments must be increasing end offsets in 1..{total}"
            )
        for breakpoint_ in request.breakpoints:
            if not 0 < breakpoint_.position <= total:
                raise CacheModelError(
                    f"request {number}: breakpoint at {breakpoint_.position} outside 1..{total}"
                )


def _live(store: Mapping[Any, _Entry], key: Any, now: float) -> _Entry | None:
    """The entry stored under ``key`` if it is live at ``now``."""
    entry = store.get(key)
    return entry if entry is not None and entry.live(now) else None


def _ttl_seconds(facts: ProviderFacts, ttl_class: str | None, optimistic: bool = False) -> float:
    try:
        return facts.ttl(ttl_class, optimistic=optimistic)
    except ValueError as error:
        raise CacheModelError(str(error)) from error


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


def simulate_openai(
    requests: Sequence[Request],
    facts: ProviderFacts,
    *,
    retention: str | None = None,
    optimistic: bool = False,
    routing_overflow: bool = False,
) -> list[Usage]:
    """OpenAI models before GPT-5.6 (§13): automatic prefix caching, no write fee.

    Each request reads the longest common prefix with a live entry on its machine, reported
    by :func:`openai_reported_read`, and stores its whole prompt. ``retention`` is
    ``"in_memory"`` or ``"24h"`` (default: the model's); idle TTLs are pessimistic unless
    ``optimistic``; a hit refreshes the entry up to the hard cap. A machine is the routing
    bucket (first ``routing_prefix_tokens`` tokens + ``routing_key``); with
    ``routing_overflow``, each further ``overflow_requests_per_minute`` requests in the trailing
    60 s of a bucket land on another machine, which starts cold.
    """
    _check_requests(requests)
    ttl_class = retention or facts.default_ttl
    idle_seconds = _ttl_seconds(facts, ttl_class, optimistic)
    lifetime_cap = float(facts.max_lifetime_seconds.get(ttl_class or "", math.inf))
    machines: dict[Any, list[_Entry]] = {}
    bucket_times: dict[Any, list[float]] = {}
    usages: list[Usage] = []
    for request in requests:
        now, tokens = request.time, tuple(request.tokens)
        head = tokens[: facts.routing_prefix_tokens or len(tokens)]
        bucket = (head, request.routing_key)
        machine_index = 0
        if routing_overflow and facts.overflow_requests_per_minute:
            recent = [s for s in bucket_times.get(bucket, []) if s > now - SECONDS_PER_MINUTE]
            machine_index = len(recent) // facts.overflow_requests_per_minute
            bucket_times.setdefault(bucket, []).append(now)
        entries = [e for e in machines.get((bucket, machine_index), []) if e.live(now)]
        best_entry, common = None, 0
        for entry in entries:
            length = lcp(tokens, entry.tokens)
            if length > common:
                best_entry, common = entry, length
        read = openai_reported_read(common, facts)
        if best_entry is not None and read > 0:
            best_entry.refresh(now)
        same = next((e for e in entries if e.tokens == tokens), None)
        if same is not None:
            same.refresh(now)
        else:
            entries.append(
                _Entry(
                    tokens,
                    now,
                    now + facts.visibility_delay_seconds,
                    min(now + idle_seconds, now + lifetime_cap),
                    idle_seconds,
                    now + lifetime_cap,
                )
            )
        machines[(bucket, machine_index)] = entries
        usages.append(Usage(read=read, write=0, uncached=len(tokens) - read, total=len(tokens)))
    return usages


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
    """OpenAI GPT-5.6 and later (§13): exact matches at breakpoints, 1.25× writes.

    ``read`` is the largest lookup candidate boundary (first 2 + latest 50 explicit markers;
    in implicit mode also the implicit breakpoint, 20 earlier eligible message ends and the
    initial developer block end) ≥ ``min_cacheable_tokens`` with a live entry for exactly that
    prefix; no rounding, no fallback to unmarked prefixes. Writes: the implicit breakpoint
    (implicit mode; it takes one of the ``max_writes_per_request`` slots) plus the latest
    writable explicit markers, minus those already live or below the minimum;
    ``write = max(0, max(written) − read)``. Reads and writes set ``expires_at = t + 30 min``.
    Partition: ``routing_key``.
    """
    _check_requests(requests)
    ttl_seconds = _ttl_seconds(facts, None)
    store: dict[tuple[str | None, tuple[int, ...]], _Entry] = {}
    usages: list[Usage] = []
    for number, request in enumerate(requests):
        if request.cache_mode not in ("implicit", "explicit"):
            raise CacheModelError(f"request {number}: cache_mode {request.cache_mode!r}")
        for breakpoint_ in request.breakpoints:
            if breakpoint_.ttl is not None:
                _ttl_seconds(facts, breakpoint_.ttl)  # only "30m" is accepted
        now, tokens, partition = request.time, tuple(request.tokens), request.routing_key
        minimum = facts.min_cacheable_tokens
        read = 0
        for boundary in sorted(_lookup_candidates(request, facts), reverse=True):
            entry = (
                _live(store, (partition, tokens[:boundary]), now) if boundary >= minimum else None
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
                if b >= minimum and _live(store, (partition, tokens[:b]), now) is None
            }
        )
        for boundary in written:
            store[(partition, tokens[:boundary])] = _Entry(
                tokens[:boundary],
                now,
                now + facts.visibility_delay_seconds,
                now + ttl_seconds,
                ttl_seconds,
            )
        write = max(0, max(written, default=0) - read)
        usages.append(
            Usage(read=read, write=write, uncached=len(tokens) - read - write, total=len(tokens))
        )
    return usages


# --------------------------------------------------------------------------------------------
# Anthropic


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
        seconds = _ttl_seconds(facts, marker.ttl)
        if seconds > shortest_ttl_so_far:
            raise CacheModelError(
                f"a {marker.ttl} breakpoint follows a shorter-TTL one; longer TTLs must come first"
            )
        shortest_ttl_so_far = min(shortest_ttl_so_far, seconds)
    return markers


def simulate_anthropic(requests: Sequence[Request], facts: ProviderFacts) -> list[Usage]:
    """Anthropic prompt caching (§13): breakpoints, 20-block lookback, A/B/C billing.

    Blocks are ``Request.segments`` (without them, the breakpoint positions and the end).
    More than ``max_breakpoints`` markers, or a 1 h marker after a 5 m one, raise
    :class:`CacheModelError`. Markers whose prefix is under ``min_cacheable_tokens`` are
    ignored. Each marker scans its block and the ``lookback_blocks − 1`` blocks before it for a
    live entry a previous request wrote; ``A`` is the longest hit. ``B`` = furthest 1 h marker
    after ``A`` (else ``A``), ``C`` = last marker (≥ ``A``): ``write_1h = B − A``,
    ``write_5m = C − B``, ``uncached = total − C``. Entries are stored at every marker; a hit
    refreshes its entry's TTL.
    """
    _check_requests(requests)
    store: dict[tuple[int, ...], _Entry] = {}
    usages: list[Usage] = []
    for request in requests:
        now, tokens = request.time, tuple(request.tokens)
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
                entry = store.get(tokens[: blocks[index]])
                if entry is not None and entry.live(now):
                    if blocks[index] > read:
                        read, hit_entry = blocks[index], entry
                    break
        if hit_entry is not None:
            hit_entry.refresh(now)

        long_ttl = [m.position for m in cacheable if m.ttl == "1h" and m.position > read]
        end_1h = max(long_ttl, default=read)
        end_last = max([read] + [m.position for m in cacheable])
        for marker in cacheable:
            seconds = _ttl_seconds(facts, marker.ttl)
            key = tokens[: marker.position]
            entry = store.get(key)
            if entry is not None and entry.live(now):
                entry.ttl_seconds = max(entry.ttl_seconds, seconds)
                entry.refresh(now)
            else:
                store[key] = _Entry(
                    key, now, now + facts.visibility_delay_seconds, now + seconds, seconds
                )
        write_1h = end_1h - read
        write = write_1h + (end_last - end_1h)
        usages.append(
            Usage(
                read=read,
                write=write,
                write_1h=write_1h,
                uncached=len(tokens) - end_last,
                total=len(tokens),
            )
        )
    return usages


# --------------------------------------------------------------------------------------------
# Gemini


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
    _check_requests(requests)
    probability = facts.hit_probability if hit_probability is None else hit_probability
    window = facts.window_seconds if window_seconds is None else window_seconds
    if probability is None or window is None:
        raise CacheModelError(f"{facts.provider}: hit_probability and window_seconds are needed")
    history: list[tuple[float, tuple[int, ...]]] = []
    usages: list[Usage] = []
    for request in requests:
        now, tokens = request.time, tuple(request.tokens)
        common = max((lcp(tokens, old) for sent, old in history if sent + window > now), default=0)
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
        history.append((now, tokens))
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
    _check_requests(requests)
    lifetime = _ttl_seconds(facts, None) if ttl_seconds is None else ttl_seconds
    usages: list[Usage] = []
    for request in requests:
        total = len(request.tokens)
        alive = created_at <= request.time < created_at + lifetime
        usable = alive and facts.min_cacheable_tokens <= cached_tokens <= total
        read = cached_tokens if usable else 0
        note = None if usable else "cached content expired, too short, or longer than the prompt"
        usages.append(Usage(read=read, write=0, uncached=total - read, total=total, note=note))
    return usages


# --------------------------------------------------------------------------------------------
# DeepSeek


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
    _check_requests(requests)
    use_legacy = facts.legacy_units if legacy is None else legacy
    idle_seconds = _ttl_seconds(facts, None)
    units: dict[tuple[str | None, tuple[int, ...]], _Entry] = {}
    prompts: list[tuple[str | None, tuple[int, ...]]] = []
    usages: list[Usage] = []
    for request in requests:
        now, tokens, partition = request.time, tuple(request.tokens), request.routing_key
        read = 0
        if use_legacy:
            # Legacy mode persists only whole prompts, so every live unit is an earlier prompt.
            common = max(
                (
                    lcp(tokens, entry.tokens)
                    for (unit_partition, _), entry in units.items()
                    if unit_partition == partition and entry.live(now)
                ),
                default=0,
            )
            read = common // facts.legacy_unit_tokens * facts.legacy_unit_tokens
        else:
            hit = None
            for (unit_partition, unit_tokens), entry in units.items():
                if (
                    unit_partition == partition
                    and entry.live(now)
                    and len(unit_tokens) > read
                    and tokens[: len(unit_tokens)] == unit_tokens
                ):
                    read, hit = len(unit_tokens), entry
            if hit is not None:
                hit.refresh(now)
        new_units = [tokens]
        if not use_legacy:
            new_units.append(tokens + tuple(request.output_tokens))
            for old_partition, old in prompts:
                common = lcp(tokens, old)
                if old_partition == partition and common > 0:
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
            existing = _live(units, (partition, unit_tokens), now)
            if existing is not None:
                existing.refresh(now)
            else:
                units[(partition, unit_tokens)] = _Entry(
                    unit_tokens,
                    now,
                    now + facts.visibility_delay_seconds,
                    now + idle_seconds,
                    idle_seconds,
                )
        prompts.append((partition, tokens))
        usages.append(Usage(read=read, write=0, uncached=len(tokens) - read, total=len(tokens)))
    return usages


# --------------------------------------------------------------------------------------------
# vLLM and SGLang (self-hosted)


def simulate_vllm(
    requests: Sequence[Request],
    facts: ProviderFacts,
    *,
    capacity_blocks: int | None = None,
    prefix_caching: bool = True,
) -> list[Usage]:
    """vLLM V1 automatic prefix caching (§13): full ``block_size`` blocks, chained hashes.

    ``read`` = block size × leading consecutive cached blocks, capped at
    ``floor((n − 1) / B) · B`` (the last token is recomputed). After each request every full
    block of prompt + output is cached (the partial last block is not). With
    ``capacity_blocks``, LRU eviction; a request's tail blocks go first. ``routing_key`` is the
    ``cache_salt``.
    """
    _check_requests(requests)
    block = facts.block_size
    pool: OrderedDict[tuple[str | None, tuple[int, ...]], None] = OrderedDict()
    usages: list[Usage] = []
    for request in requests:
        tokens, salt = tuple(request.tokens), request.routing_key
        total = len(tokens)
        cached_blocks = 0
        while (
            prefix_caching
            and (cached_blocks + 1) * block <= total
            and ((salt, tokens[: (cached_blocks + 1) * block]) in pool)
        ):
            cached_blocks += 1
        read = cached_blocks * block
        if facts.cap_last_token:
            read = min(read, max(0, (total - 1) // block * block))
        if prefix_caching:
            sequence = tokens + tuple(request.output_tokens)
            # Touch from the tail to the head so the head is most recent: vLLM frees a finished
            # request's blocks in reverse order, so its tail is evicted first.
            for count in range(len(sequence) // block, 0, -1):
                key = (salt, sequence[: count * block])
                pool[key] = None
                pool.move_to_end(key)
            while capacity_blocks is not None and len(pool) > capacity_blocks:
                pool.popitem(last=False)
        usages.append(Usage(read=read, write=0, uncached=total - read, total=total))
    return usages


def simulate_sglang(
    requests: Sequence[Request], facts: ProviderFacts, *, page_size: int | None = None
) -> list[Usage]:
    """SGLang RadixAttention (§13): token-level longest prefix, capped at ``n − 1``.

    ``read = min(lcp(T, tree), n − 1)``, floored to ``page_size`` when > 1; prompt + output
    (page-aligned) are inserted after each request. No eviction is modelled (unbounded
    memory). ``routing_key`` is the cache salt.
    """
    _check_requests(requests)
    page = page_size or facts.page_size or 1
    tree: list[tuple[str | None, tuple[int, ...]]] = []
    usages: list[Usage] = []
    for request in requests:
        tokens, salt = tuple(request.tokens), request.routing_key
        total = len(tokens)
        common = max((lcp(tokens, seq) for s, seq in tree if s == salt), default=0)
        if facts.cap_last_token:
            common = min(common, max(0, total - 1))
        read = common // page * page
        sequence = tokens + tuple(request.output_tokens)
        tree.append((salt, sequence[: len(sequence) // page * page]))
        usages.append(Usage(read=read, write=0, uncached=total - read, total=total))
    return usages


# --------------------------------------------------------------------------------------------

_SIMULATORS: dict[str, Callable[..., list[Usage]]] = {
    "openai": simulate_openai,
    "openai-5.6": simulate_openai_56,
    "anthropic": simulate_anthropic,
    "gemini-implicit": simulate_gemini_implicit,
    "gemini-explicit": simulate_gemini_explicit,
    "deepseek": simulate_deepseek,
    "vllm": simulate_vllm,
    "sglang": simulate_sglang,
}


def simulate(
    provider: str,
    model: str | None,
    requests: Sequence[Request],
    facts: ProviderFacts | None = None,
    **options: Any,
) -> list[Usage]:
    """Simulate ``requests`` on ``provider``/``model`` with the right cache model.

    ``facts`` defaults to :func:`promptlint.providers.facts` for the provider and model (so
    ``openai`` + ``gpt-5.6-terra`` runs :func:`simulate_openai_56`); ``options`` go to the
    simulator (e.g. ``retention="in_memory"``).
    """
    resolved = facts if facts is not None else provider_facts(provider, model)
    simulator = _SIMULATORS.get(resolved.simulator)
    if simulator is None:
        raise CacheModelError(
            f"{resolved.provider}: no simulator {resolved.simulator!r}; known: {sorted(_SIMULATORS)}"
        )
    return simulator(requests, resolved, **options)
