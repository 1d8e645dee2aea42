"""Files worked on in parallel processes: how they are cut into chunks, and that their
results come back in order whatever order the chunks finish in."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.parallel import _chunks, map_in_order


@settings(max_examples=300)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=60), st.integers(min_value=1, max_value=40))
def test_every_item_is_in_one_chunk_heavy_ones_alone_and_first(sizes: list[int], wanted: int) -> None:
    chunks = _chunks(len(sizes), wanted, sizes)
    flat = [i for chunk in chunks for i in chunk]
    assert sorted(flat) == list(range(len(sizes)))
    if not sizes:
        return
    share = max(1, sum(sizes) // max(1, min(wanted, len(sizes))))
    heavy = [i for i in range(len(sizes)) if sizes[i] >= share]
    # The heavy items lead, each alone, heaviest first; the rest follow in their order.
    assert chunks[: len(heavy)] == [[i] for i in sorted(heavy, key=lambda i: -sizes[i])]
    rest = [i for chunk in chunks[len(heavy):] for i in chunk]
    assert rest == sorted(rest) and not set(rest) & set(heavy)


def _pid_and_square(n: int) -> tuple[int, int]:
    return os.getpid(), n * n


def test_results_come_back_in_order_when_heavy_items_are_sent_first() -> None:
    items = list(range(40))
    sizes = [1] * 40
    sizes[30] = sizes[7] = 1000  # sent first, alone
    out = list(map_in_order(_pid_and_square, items, 2, sizes=sizes))
    assert [square for _, square in out] == [n * n for n in items]
    assert {pid for pid, _ in out} - {os.getpid()}  # worked on in other processes
