"""Cache simulator: hand-computed sequences for every provider model (provider-caching.md §13)."""

from __future__ import annotations

import dataclasses

import pytest

from promptlint.providers import facts, simulate
from promptlint.providers.anthropic import simulate_anthropic
from promptlint.providers.base import Breakpoint, CacheModelError, Request, TokenPrices, Usage, cost, lcp
from promptlint.providers.deepseek import simulate_deepseek
from promptlint.providers.gemini import simulate_gemini_explicit, simulate_gemini_implicit
from promptlint.providers.openai import openai_reported_read, simulate_openai, simulate_openai_56
from promptlint.providers.sglang import simulate_sglang
from promptlint.providers.vllm import simulate_vllm

MINUTE = 60.0
# Per-token prices of $1 per million tokens: costs below read as "millionths of a dollar".
ONE_PER_MTOK = 1e-6


def shared_then(shared: int, suffix: int, tag: int) -> list[int]:
    """``shared`` common tokens, then ``suffix`` tokens unique to ``tag``."""
    return list(range(shared)) + [tag * 1_000_000 + i for i in range(suffix)]


def reads(usages: list[Usage]) -> list[int]:
    return [u.read for u in usages]


@pytest.fixture
def openai_1024() -> object:
    # gpt-4o with the pre-Jul-2026 documented minimum of 1,024 (the table holds 2,048).
    return facts("openai", "gpt-4o", {"openai": {"min_cacheable_tokens": 1024}})


# ---------------------------------------------------------------------------------- helpers


def test_lcp_counts_common_leading_tokens() -> None:
    assert lcp([1, 2, 3], [1, 2, 4]) == 2
    assert lcp([1, 2], [1, 2, 3]) == 2
    assert lcp([], [1]) == 0


def test_every_usage_accounts_for_all_tokens() -> None:
    requests = [Request(shared_then(1500, 100, 1)), Request(shared_then(1500, 50, 2))]
    for usage in simulate("openai", "gpt-4o", requests):
        assert usage.read + usage.write + usage.uncached == usage.total


# ---------------------------------------------------------------------- OpenAI before GPT-5.6


def test_openai_read_floors_to_128_and_applies_the_minimum(openai_1024: object) -> None:
    # M = 1,024, I = 128, H = 0: floor(c/128)*128, then 0 if < 1,024.
    assert openai_reported_read(1023, openai_1024) == 0  # 896 < 1,024
    assert openai_reported_read(1024, openai_1024) == 1024
    assert openai_reported_read(1200, openai_1024) == 1152  # 9 * 128
    assert openai_reported_read(1279, openai_1024) == 1152
    assert openai_reported_read(1280, openai_1024) == 1280


def test_openai_table_minimum_is_the_latest_documented_2048() -> None:
    gpt_4o = facts("openai", "gpt-4o")
    assert openai_reported_read(1200, gpt_4o) == 0  # 1,152 < 2,048
    assert openai_reported_read(2100, gpt_4o) == 2048  # 16 * 128


def test_openai_hidden_tokens_shift_the_breakpoints(openai_1024: object) -> None:
    # H = 100, c = 1,040: floor(1,140/128)*128 = 1,024; minus H = 924; floor to 128 = 896;
    # 896 < 1,024 -> 0. Without hidden tokens the same match reads 1,024.
    hidden = dataclasses.replace(openai_1024, hidden_tokens=100)
    assert openai_reported_read(1040, hidden) == 0
    assert openai_reported_read(1040, openai_1024) == 1024


def test_openai_gpt55_breakpoints_every_2048() -> None:
    # gpt-5.5: I = 2,048 -> floor(5,000/2,048)*2,048 = 4,096.
    assert openai_reported_read(5000, facts("openai", "gpt-5.5")) == 4096


@pytest.mark.parametrize(("shared", "expected"), [(1023, 0), (1024, 1024), (1200, 1152)])
def test_openai_second_request_reads_the_shared_prefix(
    openai_1024: object, shared: int, expected: int
) -> None:
    # Request 1 stores its prompt; request 2 shares exactly `shared` tokens with it.
    requests = [Request(shared_then(shared, 300, 1)), Request(shared_then(shared, 300, 2), time=1)]
    first, second = simulate_openai(requests, openai_1024)
    assert (first.read, first.write, first.uncached) == (0, 0, shared + 300)
    assert (second.read, second.write, second.uncached) == (expected, 0, shared + 300 - expected)


def test_openai_in_memory_entry_expires_after_5_idle_minutes(openai_1024: object) -> None:
    prompt = shared_then(2000, 0, 0)
    # 4 minutes later: live (300 s idle TTL) -> 2,000 floored to 128 = 1,920.
    later_4 = simulate_openai(
        [Request(prompt), Request(prompt, time=4 * MINUTE)], openai_1024, retention="in_memory"
    )
    assert reads(later_4) == [0, 1920]
    # 6 minutes later: expired -> miss.
    later_6 = simulate_openai(
        [Request(prompt), Request(prompt, time=6 * MINUTE)], openai_1024, retention="in_memory"
    )
    assert reads(later_6) == [0, 0]


def test_openai_hit_refreshes_the_entry_up_to_the_one_hour_cap(openai_1024: object) -> None:
    prompt = shared_then(2000, 0, 0)
    # t=0 write; t=240 hit (expires 540); t=480 hit only because of the refresh.
    refreshed = simulate_openai(
        [Request(prompt), Request(prompt, time=240), Request(prompt, time=480)],
        openai_1024,
        retention="in_memory",
    )
    assert reads(refreshed) == [0, 1920, 1920]
    # Hits every 4 min keep it alive, but the in_memory hard cap ends it at t = 3,600.
    times = [240.0 * k for k in range(16)]  # 0 ... 3,600
    capped = simulate_openai(
        [Request(prompt, time=t) for t in times], openai_1024, retention="in_memory"
    )
    assert reads(capped) == [0] + [1920] * 14 + [0]


def test_openai_routing_key_separates_buckets(openai_1024: object) -> None:
    prompt = shared_then(2000, 0, 0)
    usages = simulate_openai(
        [
            Request(prompt, routing_key="a"),
            Request(prompt, time=1, routing_key="b"),
            Request(prompt, time=2, routing_key="a"),
        ],
        openai_1024,
    )
    assert reads(usages) == [0, 0, 1920]


def test_openai_routing_overflow_sends_the_16th_request_per_minute_cold(
    openai_1024: object,
) -> None:
    # 16 identical requests in one minute: requests 0-14 share machine 0 (first one cold),
    # request 15 sees 15 earlier ones in the window -> machine 1, cold.
    requests = [Request(shared_then(2000, 0, 0), time=float(k)) for k in range(16)]
    assert reads(simulate_openai(requests, openai_1024, routing_overflow=True)) == (
        [0] + [1920] * 14 + [0]
    )
    assert reads(simulate_openai(requests, openai_1024)) == [0] + [1920] * 15


def test_openai_cost_is_cached_plus_uncached_input() -> None:
    # gpt-4o-like: input $2.50/M, cached $1.25/M; read 1,024 of 1,324:
    # 1,024 * 1.25 + 300 * 2.50 = 1,280 + 750 = 2,030 millionths of a dollar.
    prices = TokenPrices(
        input=2.5e-6, cache_read=1.25e-6, cache_write=2.5e-6, cache_write_1h=2.5e-6
    )
    usage = Usage(read=1024, write=0, uncached=300, total=1324)
    assert cost(usage, prices) == pytest.approx(2030e-6)


# ----------------------------------------------------------------------- OpenAI GPT-5.6 and later


def test_gpt56_explicit_breakpoint_exact_and_write_premium() -> None:
    terra = facts("openai", "gpt-5.6-terra")
    requests = [
        Request(shared_then(1500, 200, 1), breakpoints=[Breakpoint(1500)], cache_mode="explicit"),
        Request(
            shared_then(1500, 300, 2),
            breakpoints=[Breakpoint(1500)],
            cache_mode="explicit",
            time=MINUTE,
        ),
    ]
    first, second = simulate_openai_56(requests, terra)
    # Request 1 writes the 1,500-token prefix: write 1,500, uncached 200.
    assert (first.read, first.write, first.uncached) == (0, 1500, 200)
    # Request 2 reads exactly 1,500 (no rounding to 1,408), writes nothing new.
    assert (second.read, second.write, second.uncached) == (1500, 0, 300)
    # $1/M input, 0.1x read, 1.25x write: 200 + 1.25*1,500 = 2,075; 300 + 0.1*1,500 = 450.
    prices = TokenPrices(
        input=ONE_PER_MTOK,
        cache_read=0.1 * ONE_PER_MTOK,
        cache_write=1.25 * ONE_PER_MTOK,
        cache_write_1h=1.25 * ONE_PER_MTOK,
    )
    assert cost(first, prices) == pytest.approx(2075e-6)
    assert cost(second, prices) == pytest.approx(450e-6)


@pytest.mark.parametrize(
    ("boundary", "expected_write", "expected_read"), [(1023, 0, 0), (1024, 1024, 1024)]
)
def test_gpt56_minimum_1024_visible_tokens(
    boundary: int, expected_write: int, expected_read: int
) -> None:
    terra = facts("openai", "gpt-5.6-terra")
    requests = [
        Request(
            shared_then(boundary, 100, k),
            breakpoints=[Breakpoint(boundary)],
            cache_mode="explicit",
            time=float(k),
        )
        for k in (1, 2)
    ]
    first, second = simulate_openai_56(requests, terra)
    assert first.write == expected_write
    assert second.read == expected_read


def test_gpt56_implicit_breakpoint_after_a_varying_suffix_never_reads() -> None:
    terra = facts("openai", "gpt-5.6-terra")
    # The stable 1,800 tokens and the varying 200 are one eligible message ending at 2,000:
    # the implicit breakpoint (2,000) differs every time -> read 0, write 2,000 each time.
    implicit_only = [
        Request(shared_then(1800, 200, k), eligible_ends=[2000], time=float(k)) for k in (1, 2)
    ]
    assert [(u.read, u.write) for u in simulate_openai_56(implicit_only, terra)] == [
        (0, 2000),
        (0, 2000),
    ]
    # An explicit breakpoint after the stable part: request 1 writes {1,800, 2,000}
    # (write = 2,000); request 2 reads 1,800 and writes 2,000 - 1,800 = 200.
    with_marker = [
        Request(
            shared_then(1800, 200, k),
            eligible_ends=[2000],
            breakpoints=[Breakpoint(1800)],
            time=float(k),
        )
        for k in (1, 2)
    ]
    assert [(u.read, u.write, u.uncached) for u in simulate_openai_56(with_marker, terra)] == [
        (0, 2000, 0),
        (1800, 200, 0),
    ]


def test_gpt56_at_most_four_writes_per_request() -> None:
    terra = facts("openai", "gpt-5.6-terra")
    six_markers = [Breakpoint(p) for p in (1100, 1200, 1300, 1400, 1500, 1600)]
    # Explicit mode writes the latest 4 markers (1,300 ... 1,600), not 1,100 or 1,200.
    first = Request(shared_then(1600, 0, 0), breakpoints=six_markers, cache_mode="explicit")
    # Request 2 shares 1,250 tokens and marks 1,100 and 1,200: neither was written -> read 0.
    second = Request(
        shared_then(1250, 100, 2),
        breakpoints=[Breakpoint(1100), Breakpoint(1200)],
        cache_mode="explicit",
        time=1,
    )
    usages = simulate_openai_56([first, second], terra)
    assert [(u.read, u.write) for u in usages] == [(0, 1600), (0, 1200)]
    # Implicit mode: the implicit breakpoint takes a slot, so only 3 explicit are written
    # (1,400, 1,500, 1,600); 1,300 then reads nothing.
    implicit_first = dataclasses.replace(first, cache_mode="implicit", eligible_ends=[1600])
    probe = Request(
        shared_then(1350, 10, 3), breakpoints=[Breakpoint(1300)], cache_mode="explicit", time=1
    )
    assert reads(simulate_openai_56([implicit_first, probe], terra)) == [0, 0]
    probe_1400 = Request(
        shared_then(1450, 10, 3), breakpoints=[Breakpoint(1400)], cache_mode="explicit", time=1
    )
    assert reads(simulate_openai_56([implicit_first, probe_1400], terra)) == [0, 1400]


def test_gpt56_hits_do_not_cross_prompt_cache_keys() -> None:
    terra = facts("openai", "gpt-5.6-terra")
    requests = [
        Request(
            shared_then(2000, 0, 0),
            breakpoints=[Breakpoint(2000)],
            routing_key=key,
            cache_mode="explicit",
            time=float(k),
        )
        for k, key in enumerate(["a", "b", "a"])
    ]
    assert reads(simulate_openai_56(requests, terra)) == [0, 0, 2000]


def test_gpt56_thirty_minute_ttl_refreshed_on_read() -> None:
    terra = facts("openai", "gpt-5.6-terra")
    at = [0.0, 1799.0, 3598.0, 3598.0 + 1800.0]
    requests = [
        Request(
            shared_then(2000, 0, 0), breakpoints=[Breakpoint(2000)], cache_mode="explicit", time=t
        )
        for t in at
    ]
    # 1,799 < 1,800: hit, refresh to 3,599; 3,598: hit, refresh to 5,398; 5,398: expired.
    assert reads(simulate_openai_56(requests, terra)) == [0, 2000, 2000, 0]


# ----------------------------------------------------------------------------------- Anthropic


def sonnet() -> object:
    return facts("anthropic", "claude-sonnet-4-5-20250929")  # minimum 1,024


def test_anthropic_write_then_read_costs_125_and_01() -> None:
    # Blocks: tools 0-1,000, system 1,000-2,000, user message; breakpoint on the system block.
    first = Request(
        shared_then(2000, 100, 1), segments=[1000, 2000, 2100], breakpoints=[Breakpoint(2000)]
    )
    second = Request(
        shared_then(2000, 150, 2),
        segments=[1000, 2000, 2150],
        breakpoints=[Breakpoint(2000)],
        time=MINUTE,
    )
    one, two = simulate_anthropic([first, second], sonnet())
    # A=0, B=0, C=2,000: write_5m 2,000, uncached 100.
    assert (one.read, one.write, one.write_1h, one.uncached) == (0, 2000, 0, 100)
    # A=2,000: read 2,000, no write, uncached 150.
    assert (two.read, two.write, two.write_1h, two.uncached) == (2000, 0, 0, 150)
    # Sonnet 4.5 at $3/M: 2,000*3.75 + 100*3 = 7,800 and 2,000*0.30 + 150*3 = 1,050 (x1e-6).
    prices = TokenPrices(input=3e-6, cache_read=0.3e-6, cache_write=3.75e-6, cache_write_1h=6e-6)
    assert cost(one, prices) == pytest.approx(7800e-6)
    assert cost(two, prices) == pytest.approx(1050e-6)


def forty_blocks() -> tuple[list[int], list[int]]:
    """A 4,000-token prompt in 40 blocks of 100 tokens (ends 100, 200, ..., 4,000)."""
    return list(range(4000)), [100 * (i + 1) for i in range(40)]


@pytest.mark.parametrize(
    ("later_block", "expected"),
    [
        # Block 29 scans 29, 28, ..., 10 (exactly 20 positions): finds the entry at block 10
        # (1,100 tokens). read 1,100, write 3,000 - 1,100 = 1,900, uncached 1,000.
        (29, (1100, 1900, 1000)),
        # Block 30 scans 30 ... 11 (20 positions): block 10 is the 21st -> miss.
        # read 0, write 3,100, uncached 900.
        (30, (0, 3100, 900)),
    ],
)
def test_anthropic_lookback_is_exactly_20_blocks(
    later_block: int, expected: tuple[int, int, int]
) -> None:
    tokens, blocks = forty_blocks()
    first = Request(tokens, segments=blocks, breakpoints=[Breakpoint(1100, block_index=10)])
    second = Request(
        tokens,
        segments=blocks,
        time=1,
        breakpoints=[Breakpoint(blocks[later_block], block_index=later_block)],
    )
    _, usage = simulate_anthropic([first, second], sonnet())
    assert (usage.read, usage.write, usage.uncached) == expected


def test_anthropic_more_than_four_breakpoints_is_rejected() -> None:
    tokens, blocks = forty_blocks()
    five = Request(
        tokens, segments=blocks, breakpoints=[Breakpoint(blocks[i]) for i in (10, 15, 20, 25, 30)]
    )
    with pytest.raises(CacheModelError, match="at most 4"):
        simulate_anthropic([five], sonnet())
    # Four explicit markers plus top-level automatic caching is five as well.
    four_and_auto = Request(
        tokens,
        segments=blocks,
        auto_breakpoint_ttl="5m",
        breakpoints=[Breakpoint(blocks[i]) for i in (10, 15, 20, 25)],
    )
    with pytest.raises(CacheModelError):
        simulate_anthropic([four_and_auto], sonnet())


def test_anthropic_1h_breakpoint_after_5m_is_rejected() -> None:
    tokens, blocks = forty_blocks()
    request = Request(
        tokens,
        segments=blocks,
        breakpoints=[Breakpoint(1500, ttl="5m"), Breakpoint(3000, ttl="1h")],
    )
    with pytest.raises(CacheModelError, match="longer TTLs must come first"):
        simulate_anthropic([request], sonnet())


def test_anthropic_mixed_ttl_billing_a_b_c() -> None:
    tokens = list(range(3500))
    markers = [Breakpoint(1500, ttl="1h"), Breakpoint(3000, ttl="5m")]
    first = Request(tokens, segments=[1500, 3000, 3500], breakpoints=markers)
    # 10 minutes later the 5 m entry is gone, the 1 h entry lives.
    second = dataclasses.replace(first, time=10 * MINUTE)
    one, two = simulate_anthropic([first, second], sonnet())
    # A=0, B=1,500 (1 h marker), C=3,000: write_1h 1,500, write_5m 1,500, uncached 500.
    assert (one.read, one.write_1h, one.write_5m, one.uncached) == (0, 1500, 1500, 500)
    # A=1,500 (lookback from block 1 to block 0), B=A, C=3,000: write_5m 1,500.
    assert (two.read, two.write_1h, two.write_5m, two.uncached) == (1500, 0, 1500, 500)
    # $1/M: 1,500*2 + 1,500*1.25 + 500 = 5,375; 1,500*0.1 + 1,500*1.25 + 500 = 2,525.
    prices = TokenPrices(
        input=ONE_PER_MTOK,
        cache_read=0.1 * ONE_PER_MTOK,
        cache_write=1.25 * ONE_PER_MTOK,
        cache_write_1h=2 * ONE_PER_MTOK,
    )
    assert cost(one, prices) == pytest.approx(5375e-6)
    assert cost(two, prices) == pytest.approx(2525e-6)


def test_anthropic_breakpoint_below_model_minimum_is_ignored() -> None:
    # Haiku 4.5 needs 4,096: a 3,000-token prefix is silently not cached (both counters 0).
    haiku = facts("anthropic", "claude-haiku-4-5")
    request = Request(list(range(3500)), segments=[3000, 3500], breakpoints=[Breakpoint(3000)])
    usages = simulate_anthropic([request, dataclasses.replace(request, time=1)], haiku)
    assert [(u.read, u.write, u.uncached) for u in usages] == [(0, 0, 3500), (0, 0, 3500)]
    # Sonnet 4.5 (1,024) caches the same request: write 3,000, then read 3,000.
    usages = simulate_anthropic([request, dataclasses.replace(request, time=1)], sonnet())
    assert [(u.read, u.write, u.uncached) for u in usages] == [(0, 3000, 500), (3000, 0, 500)]


def test_anthropic_5m_ttl_expires_and_is_refreshed_by_hits() -> None:
    request = Request(list(range(2100)), segments=[2000, 2100], breakpoints=[Breakpoint(2000)])
    at = [0.0, 4 * MINUTE, 8 * MINUTE, 14 * MINUTE]
    usages = simulate_anthropic([dataclasses.replace(request, time=t) for t in at], sonnet())
    # t=4m hit (refresh to 9m); t=8m hit only thanks to the refresh (refresh to 13m);
    # t=14m: expired, written again.
    assert [(u.read, u.write) for u in usages] == [(0, 2000), (2000, 0), (2000, 0), (0, 2000)]


def test_anthropic_automatic_caching_marks_the_last_block() -> None:
    first = Request(list(range(2100)), segments=[2000, 2100], auto_breakpoint_ttl="5m")
    grown = Request(
        list(range(2300)), segments=[2000, 2100, 2300], auto_breakpoint_ttl="5m", time=1
    )
    usages = simulate_anthropic([first, grown], sonnet())
    # Request 1 writes 2,100. Request 2's marker (block 2) looks back to block 1: read 2,100,
    # write 200.
    assert [(u.read, u.write, u.uncached) for u in usages] == [(0, 2100, 0), (2100, 200, 0)]


# --------------------------------------------------------------------------------------- vLLM


def test_vllm_repeated_32_token_prompt_reads_16_not_32() -> None:
    vllm = facts("vllm")
    prompt = list(range(32))
    # Both 16-token blocks are cached, but the cap floor((32-1)/16)*16 = 16 applies.
    assert reads(simulate_vllm([Request(prompt), Request(prompt)], vllm)) == [0, 16]


@pytest.mark.parametrize(
    ("first_len", "second", "expected"),
    [
        # 40-token prompt: 2 full blocks cached (the 8-token tail is not); cap floor(39/16)*16=32.
        (40, list(range(40)), 32),
        # Shares 20 tokens: only block 0 matches -> 16.
        (40, list(range(20)) + [999] * 20, 16),
        # Shares 15 tokens: no full block -> 0.
        (40, list(range(15)) + [999] * 25, 0),
    ],
)
def test_vllm_counts_only_full_leading_blocks(
    first_len: int, second: list[int], expected: int
) -> None:
    usages = simulate_vllm([Request(list(range(first_len))), Request(second)], facts("vllm"))
    assert usages[1].read == expected


def test_vllm_caches_generated_tokens_and_evicts_lru() -> None:
    vllm = facts("vllm")
    prompt, output = list(range(20)), list(range(20, 32))
    follow_up = prompt + output + [500 + i for i in range(10)]  # 42 tokens
    # Prompt + output = 32 tokens = 2 full blocks; next turn reads 32 (cap floor(41/16)*16=32).
    usages = simulate_vllm([Request(prompt, output_tokens=output), Request(follow_up)], vllm)
    assert reads(usages) == [0, 32]
    # With room for one block the request's tail block is evicted first: only block 0 stays.
    usages = simulate_vllm(
        [Request(list(range(48))), Request(list(range(48)))], vllm, capacity_blocks=1
    )
    assert reads(usages) == [0, 16]


def _vllm_by_prefix(requests: list[Request], block: int, capacity: int | None, cap_last: bool) -> list[int]:
    """vLLM's reads with the pool keyed by each block's whole prefix (the reference)."""
    from collections import OrderedDict

    pool: OrderedDict[tuple[object, tuple[int, ...]], None] = OrderedDict()
    found = []
    for request in requests:
        tokens, salt = tuple(request.tokens), request.routing_key
        cached = 0
        while (cached + 1) * block <= len(tokens) and (salt, tokens[: (cached + 1) * block]) in pool:
            cached += 1
        read = cached * block
        if cap_last:
            read = min(read, max(0, (len(tokens) - 1) // block * block))
        sequence = tokens + tuple(request.output_tokens)
        for count in range(len(sequence) // block, 0, -1):
            pool[(salt, sequence[: count * block])] = None
            pool.move_to_end((salt, sequence[: count * block]))
        while capacity is not None and len(pool) > capacity:
            pool.popitem(last=False)
        found.append(read)
    return found


def test_vllm_reads_as_a_pool_keyed_by_whole_prefixes_would() -> None:
    # Its pool is keyed by a number per (prefix before, block): the same reads as keying it by
    # the prefix itself, for shared, diverging and salted prompts, with and without eviction.
    import random

    vllm = facts("vllm")
    y, z = [1] * vllm.block_size, [2] * vllm.block_size
    swapped = [Request(y + z + [3]), Request(z + y + [3]), Request(y + z + [4])]
    assert reads(simulate_vllm(swapped, vllm)) == _vllm_by_prefix(swapped, vllm.block_size, None, vllm.cap_last_token) \
        == [0, 0, 2 * vllm.block_size]  # a block is cached with the prefix before it, not alone
    rng = random.Random(7)
    for _ in range(60):
        requests, history = [], [rng.randrange(5) for _ in range(rng.randrange(40))]
        for _ in range(rng.randrange(1, 8)):
            if rng.random() < 0.3:
                history = history[: rng.randrange(len(history) + 1)]
            history = history + [rng.randrange(5) for _ in range(rng.randrange(30))]
            requests.append(Request(list(history), output_tokens=[rng.randrange(5) for _ in range(rng.randrange(20))],
                                    routing_key=rng.choice([None, "a", "b"])))
        capacity = rng.choice([None, 1, 3, 10])
        assert reads(simulate_vllm(requests, vllm, capacity_blocks=capacity)) == \
            _vllm_by_prefix(requests, vllm.block_size, capacity, vllm.cap_last_token)


# ------------------------------------------------------------------------------------- SGLang


def test_sglang_radix_match_capped_at_n_minus_1() -> None:
    sglang = facts("sglang")
    prompt = list(range(32))
    # Whole prompt matches (32) but the cap is n - 1 = 31.
    assert reads(simulate_sglang([Request(prompt), Request(prompt)], sglang)) == [0, 31]
    # Token-level: 20 shared tokens read 20.
    other = list(range(20)) + [999] * 12
    assert reads(simulate_sglang([Request(prompt), Request(other)], sglang)) == [0, 20]
    # page_size 16: min(32, 31) = 31 floored to 16.
    assert reads(simulate_sglang([Request(prompt), Request(prompt)], sglang, page_size=16)) == [
        0,
        16,
    ]


# ----------------------------------------------------------------------------------- DeepSeek


A, B, C, D = (list(range(100)), list(range(100, 150)), list(range(150, 170)), list(range(170, 190)))
A_PRIME = [900 + i for i in range(30)]  # a different continuation after A


def test_deepseek_units_follow_the_guide_example() -> None:
    deepseek = facts("deepseek")
    # A+B then A+B+C: the unit A+B (end of request 1's input) is a prefix -> read 150.
    assert reads(simulate_deepseek([Request(A + B), Request(A + B + C, time=1)], deepseek)) == [
        0,
        150,
    ]
    # A+B, then A+C' misses (no unit is a prefix of it) but persists A (common prefix);
    # then A+D reads A = 100.
    usages = simulate_deepseek(
        [Request(A + B), Request(A + A_PRIME, time=1), Request(A + D, time=2)], deepseek
    )
    assert reads(usages) == [0, 0, 100]
    # The end of the output is a unit too: A+B+output, then a prompt extending it, reads 170.
    usages = simulate_deepseek(
        [Request(A + B, output_tokens=C), Request(A + B + C + D, time=1)], deepseek
    )
    assert reads(usages) == [0, 170]


def test_deepseek_legacy_64_token_units() -> None:
    deepseek = facts("deepseek")
    base = list(range(200))
    # lcp 130 -> floor(130/64)*64 = 128; lcp 63 -> 0 (under one unit).
    share_130 = list(range(130)) + [999] * 70
    share_63 = list(range(63)) + [999] * 70
    assert reads(
        simulate_deepseek([Request(base), Request(share_130, time=1)], deepseek, legacy=True)
    ) == [0, 128]
    assert reads(
        simulate_deepseek([Request(base), Request(share_63, time=1)], deepseek, legacy=True)
    ) == [0, 0]
    # The current rule on the same pair: no unit is a prefix of share_130 -> 0.
    assert reads(simulate_deepseek([Request(base), Request(share_130, time=1)], deepseek)) == [0, 0]


def test_deepseek_units_expire_after_6_idle_hours() -> None:
    deepseek = facts("deepseek")
    hour = 3600.0
    usages = simulate_deepseek(
        [Request(A + B), Request(A + B + C, time=5 * hour), Request(A + B + D, time=11.5 * hour)],
        deepseek,
    )
    # 5 h: hit (refresh to 11 h); 11.5 h: A+B expired -> 0.
    assert reads(usages) == [0, 150, 0]


# ------------------------------------------------------------------------------------- Gemini


def test_gemini_implicit_is_a_range_with_an_expected_read() -> None:
    flash = facts("gemini", "gemini-2.5-flash")  # minimum 2,048, p_hit 0.3, window 300 s
    first = Request(shared_then(2500, 500, 1))
    second = Request(shared_then(2500, 100, 2), time=MINUTE)
    _, usage = simulate_gemini_implicit([first, second], flash)
    # c = 2,500 >= 2,048: read in [0, 2,500], expected 2,500 * 0.3 = 750.
    assert (usage.read_min, usage.read_max, usage.read_expected) == (0, 2500, 750.0)
    assert (usage.read, usage.uncached, usage.total) == (750, 1850, 2600)
    assert usage.note is not None and "best-effort" in usage.note
    # Cost at $0.30/M input, $0.03/M cached: 750*0.03 + 1,850*0.30 = 22.5 + 555 = 577.5.
    prices = TokenPrices(
        input=0.3e-6, cache_read=0.03e-6, cache_write=0.3e-6, cache_write_1h=0.3e-6
    )
    assert cost(usage, prices) == pytest.approx(577.5e-6)


def test_gemini_implicit_needs_the_minimum_and_the_window() -> None:
    flash = facts("gemini", "gemini-2.5-flash")
    below = simulate_gemini_implicit(
        [Request(shared_then(2047, 500, 1)), Request(shared_then(2047, 500, 2), time=1)], flash
    )[1]
    assert (below.read_max, below.read_expected, below.note) == (0, 0.0, None)
    too_late = simulate_gemini_implicit(
        [Request(shared_then(3000, 0, 0)), Request(shared_then(3000, 0, 0), time=301)], flash
    )[1]
    assert too_late.read_max == 0
    # p_hit is configurable: 1.0 gives the optimistic read.
    optimistic = simulate_gemini_implicit(
        [Request(shared_then(3000, 0, 0)), Request(shared_then(3000, 0, 0), time=1)],
        flash,
        hit_probability=1.0,
    )[1]
    assert optimistic.read == 3000


def test_gemini_explicit_reads_the_cached_content_while_it_lives() -> None:
    flash_35 = facts("gemini-explicit", "gemini-3.5-flash")  # minimum 4,096, TTL 1 h
    requests = [Request(list(range(5000)), time=t) for t in (10.0, 3599.0, 3600.0)]
    usages = simulate_gemini_explicit(requests, flash_35, cached_tokens=4096)
    assert reads(usages) == [4096, 4096, 0]


# ---------------------------------------------------------------------------------- dispatcher


def test_simulate_picks_the_model_generation() -> None:
    marker = [Breakpoint(2100)]
    requests = [
        Request(shared_then(2100, 100, k), breakpoints=marker, cache_mode="explicit", time=float(k))
        for k in (1, 2)
    ]
    # gpt-4o ignores markers: 2,100 floored to 128 = 2,048 (>= 2,048 minimum).
    assert reads(simulate("openai", "gpt-4o", requests)) == [0, 2048]
    # gpt-5.6-terra: exact boundary 2,100.
    assert reads(simulate("openai", "gpt-5.6-terra", requests)) == [0, 2100]
    # xAI approximation: 128 granularity, no minimum: 2,048.
    assert reads(simulate("xai", "grok-4", requests)) == [0, 2048]
    # Fireworks approximation: token-level, optimistic: 2,100.
    assert reads(simulate("fireworks", None, requests)) == [0, 2100]


def test_requests_out_of_time_order_are_rejected() -> None:
    with pytest.raises(CacheModelError, match="backwards"):
        simulate("vllm", None, [Request([1, 2], time=5), Request([1, 2], time=1)])


def test_the_longest_shared_prefix_is_the_max_of_every_candidates() -> None:
    # Candidates no longer than the best so far are skipped, newest first: the answer must be
    # the plain maximum, for growing, diverging, empty and equal candidates.
    import random

    from promptlint.providers.base import longest_shared_prefix

    rng = random.Random(11)
    for _ in range(400):
        tokens = [rng.randrange(3) for _ in range(rng.randrange(12))]
        candidates = [[rng.randrange(3) for _ in range(rng.randrange(14))] for _ in range(rng.randrange(6))]
        candidates += [tokens[: rng.randrange(len(tokens) + 1)] for _ in range(rng.randrange(3))]
        rng.shuffle(candidates)
        assert longest_shared_prefix(tokens, candidates) == max((lcp(tokens, c) for c in candidates), default=0)


def test_the_prefix_index_finds_what_comparing_with_every_live_sequence_finds() -> None:
    # Sequences that share, part, end inside one another and repeat, sent at rising times,
    # asked with windows that leave some of them out: the longest prefix shared with a live
    # one, as the plain maximum over them says.
    import random

    from promptlint.providers.base import PrefixIndex

    rng = random.Random(13)
    for _ in range(200):
        index, sent = PrefixIndex(), []
        stem = tuple(rng.randrange(3) for _ in range(rng.randrange(8)))
        for step in range(rng.randrange(1, 12)):
            tokens = stem[: rng.randrange(len(stem) + 1)] + tuple(rng.randrange(3) for _ in range(rng.randrange(8)))
            now, window = float(step), rng.choice([0.5, 2.0, 5.0, float("inf")])
            live = [old for old, at in sent if at + window > now]
            assert index.longest(tokens, now, window) == max((lcp(tokens, old) for old in live), default=0)
            index.add(tokens, now)
            sent.append((tokens, now))


def test_many_conversations_sharing_a_system_prompt_read_it_on_every_model() -> None:
    # 300 conversations interleaved: each request shares the system prompt with all the
    # others, and its own history with its conversation's earlier turns only.
    system = list(range(5000))  # over Gemini's 4,096-token minimum
    requests = []
    for turn in range(3):
        for conversation in range(300):
            tokens = system + [10_000 + conversation] + [20_000 + turn * 1000 + t for t in range(turn * 50)]
            requests.append(Request(tokens, time=turn * 60.0 + conversation * 0.1, routing_key=f"c{conversation}"))
    gemini = simulate("gemini", None, requests)  # any earlier request within its window
    assert gemini[0].read_max == 0 and all(u.read_max is not None and u.read_max >= 5000 for u in gemini[1:])
    assert [u.read_max for u in gemini[300:303]] == [5001, 5001, 5001]
    for provider in ("sglang", "deepseek"):  # a salt, a partition per conversation: its own turns only
        usages = simulate(provider, None, requests)
        assert all(u.read == 0 for u in usages[:300]) and all(u.read == 5001 for u in usages[300:600])
