"""A prefix store of KV caches, as vLLM's automatic prefix caching and SGLang's RadixAttention
keep them: a tree over token ids whose edges are blocks of ``block_size`` tokens, each block
holding the keys and values of its tokens for every layer.

- Only full blocks are held (vLLM caches full blocks only); ``block_size=1`` reuses every
  token, 16 is vLLM's default. A block is keyed by its parent and its exact tokens, so two
  prefixes share a block only when every token before and in it is the same.
- A request reuses the longest held prefix, block-floored, and never its own last token:
  the model must run at least that token to produce logits.
- Reuse hands out a new copy of the held tensors (one ``torch.cat`` over the blocks), so
  nothing a request does to its cache reaches the store.
- Under a byte budget, the least recently used blocks go first, leaves before their parents:
  every use touches a chain from its leaf up to the root, so a parent is always more recent
  than its children and the oldest block is always a leaf.
"""

from __future__ import annotations

import math
import re
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from promptlint.probe.local import compat
from promptlint.probe.local.compat import LayerKV
from promptlint.probe.local.errors import LocalBackendError

if TYPE_CHECKING:
    from torch import Tensor

DEFAULT_BLOCK_SIZE = 16

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*")


def parse_size(size: int | str) -> int:
    """Bytes in ``size``: an int, or ``"2GB"``, ``"512MiB"``, ``"1.5 GiB"``, ``"4096"``
    (KB/MB/GB/TB are powers of 1000, KiB/MiB/GiB/TiB powers of 1024)."""
    if isinstance(size, bool) or not isinstance(size, int | str):
        raise ValueError(f"size {size!r}: give a number of bytes (int) or a string such as 2GB")
    if isinstance(size, int):
        if size < 0:
            raise ValueError(f"size {size}: a byte count is not negative")
        return size
    match = _SIZE.fullmatch(size)
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(f"size {size!r}: write a number of bytes with an optional unit "
                         "(B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), e.g. 2GB or 512MiB")
    number = float(match.group(1)) * _UNITS[unit]
    if not math.isfinite(number):  # 400 digits are infinite as a float: int() overflows
        raise ValueError(f"size {size!r}: too large to be a byte count")
    return int(number)


@dataclass(eq=False)
class Block:
    """``block_size`` tokens after the prefix its parent ends, and their KV in every layer:
    ``kv`` is ``[layers, 2 (keys, values), kv_heads, block_size, head_dim]``."""

    tokens: tuple[int, ...]
    parent: Block | None
    kv: Tensor
    nbytes: int
    children: dict[tuple[int, ...], Block] = field(default_factory=dict)


@dataclass(frozen=True)
class Match:
    """The held blocks a request reuses, root first; ``length`` tokens in all."""

    blocks: tuple[Block, ...]
    block_size: int

    @property
    def length(self) -> int:
        return len(self.blocks) * self.block_size

    @property
    def nbytes(self) -> int:
        return sum(block.nbytes for block in self.blocks)


class PrefixStore:
    """Held KV blocks of earlier requests, looked up by token prefix, evicted LRU."""

    def __init__(self, block_size: int = DEFAULT_BLOCK_SIZE,
                 kv_budget: int | str | None = None) -> None:
        if isinstance(block_size, bool) or not isinstance(block_size, int) or block_size < 1:
            raise LocalBackendError(f"block_size {block_size!r}: a block holds a whole number of "
                                    "tokens, at least one")
        self.block_size = block_size
        try:
            self.kv_budget = None if kv_budget is None else parse_size(kv_budget)
        except ValueError as exc:
            raise LocalBackendError(f"kv_budget: {exc}") from None
        self.nbytes = 0
        self.evicted_blocks = 0
        self._root: dict[tuple[int, ...], Block] = {}
        # Least recently used first; see the module docstring for why the front is a leaf.
        self._lru: OrderedDict[int, Block] = OrderedDict()

    def __len__(self) -> int:
        """The number of blocks held."""
        return len(self._lru)

    @property
    def cached_tokens(self) -> int:
        return len(self._lru) * self.block_size

    def reusable_limit(self, request_length: int) -> int:
        """The most tokens a request of this length may reuse: block-floored, never its last."""
        return (max(request_length - 1, 0) // self.block_size) * self.block_size

    def lookup(self, tokens: Sequence[int]) -> Match:
        """The longest held prefix of ``tokens`` that the request may reuse; touched as used."""
        chain: list[Block] = []
        children = self._root
        size = self.block_size
        for start in range(0, self.reusable_limit(len(tokens)), size):
            block = children.get(tuple(tokens[start:start + size]))
            if block is None:
                break
            chain.append(block)
            children = block.children
        self._touch(chain)
        return Match(tuple(chain), size)

    def prefix_kv(self, match: Match) -> list[LayerKV]:
        """A new copy of the matched prefix's KV, ``[1, kv_heads, match.length, head_dim]``
        per layer (empty list when nothing matched)."""
        if not match.blocks:
            return []
        return compat.unstack_blocks([block.kv for block in match.blocks])

    def insert(self, tokens: Sequence[int], layers: Sequence[LayerKV]) -> None:
        """Hold every full block of ``tokens`` not held yet, copying it out of ``layers`` (the
        request's whole KV, one entry per token), then evict down to the budget."""
        for keys, _ in layers:
            if keys.shape[2] != len(tokens):
                raise LocalBackendError(
                    f"the model's cache holds {keys.shape[2]} positions for {len(tokens)} tokens: "
                    "not a per-token KV cache (sliding window?)"
                )
        chain: list[Block] = []
        parent: Block | None = None
        children = self._root
        size = self.block_size
        # The budget is a bound, not a hint: room is made before a block is copied, and no
        # more of the request is held than fits (copied first and evicted after, the store
        # held the whole request beyond the budget, gigabytes on a long prompt).
        block_nbytes = _block_nbytes(layers, size)
        most = None if self.kv_budget is None else self.kv_budget // max(block_nbytes, 1)
        for start in range(0, len(tokens) - size + 1, size):
            key = tuple(tokens[start:start + size])
            block = children.get(key)
            if block is None:
                if most is not None and len(chain) >= most:
                    break
                self._evict(block_nbytes)
                kv = compat.stack_block(layers, start, start + size)
                block = Block(key, parent, kv, kv.nbytes)
                children[key] = block
                self.nbytes += block.nbytes
            # Held as most recent while the chain grows, so eviction takes other blocks, never
            # this request's parents; _touch below puts the chain in leaf-first order.
            self._lru[id(block)] = block
            self._lru.move_to_end(id(block))
            chain.append(block)
            parent, children = block, block.children
        self._touch(chain)
        self._evict()

    def clear(self) -> None:
        self._root.clear()
        self._lru.clear()
        self.nbytes = 0

    def _touch(self, chain: Sequence[Block]) -> None:
        # Leaf first, root last: the root end of every chain is the most recently used.
        for block in reversed(chain):
            self._lru.move_to_end(id(block))

    def _evict(self, room: int = 0) -> None:
        """Evict least recently used blocks until ``room`` more bytes fit in the budget."""
        if self.kv_budget is None:
            return
        while self.nbytes + room > self.kv_budget and self._lru:
            _, block = self._lru.popitem(last=False)
            assert not block.children, "LRU order broken: a parent is older than its child"
            siblings = block.parent.children if block.parent is not None else self._root
            del siblings[block.tokens]
            self.nbytes -= block.nbytes
            self.evicted_blocks += 1


def _block_nbytes(layers: Sequence[LayerKV], block_size: int) -> int:
    """The bytes of one block of ``block_size`` tokens cut from ``layers`` (keys and values of
    every layer), known before it is copied."""
    return sum((keys.nbytes // max(keys.shape[2], 1) + values.nbytes // max(values.shape[2], 1)) * block_size
               for keys, values in layers)
