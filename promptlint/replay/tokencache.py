"""Token ids per block for the replay, remembered within a bounded budget of text.

A growing conversation resends its history on every request, so each block's ids are worth
remembering; but a log of a million distinct system prompts (a clock in each) must not keep
them all. Least recently used blocks go first once the remembered text passes the budget.
Blocks are tokenised one by one (as :class:`~promptlint.requestbody.ChunkTokenizer` does), so
the ids are the same whatever is remembered.
"""

from __future__ import annotations

from collections import OrderedDict
from itertools import chain

from promptlint.core import tokens as tokens_mod
from promptlint.requestbody import ChunkTokenizer, Rendered

#: Characters of block text remembered (with their ids, about 10× that in memory: a token id is
#: an int object of its own).
DEFAULT_BUDGET_CHARS = 4_000_000


class TokenCache(ChunkTokenizer):
    """:class:`ChunkTokenizer` with a least-recently-used cache bounded in characters."""

    def __init__(self, encoding: str = "o200k_base", budget_chars: int = DEFAULT_BUDGET_CHARS) -> None:
        super().__init__(encoding)
        self._lru: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self._budget = budget_chars
        self._chars = 0

    def encode(self, text: str) -> tuple[int, ...]:
        found = self._lru.get(text)
        if found is not None:
            self._lru.move_to_end(text)
            return found
        found = tuple(tokens_mod.encode(text, self.encoding))
        if len(text) <= self._budget:
            self._lru[text] = found
            self._chars += len(text)
            while self._chars > self._budget:
                old, _ = self._lru.popitem(last=False)
                self._chars -= len(old)
        return found

    def ids(self, rendered: Rendered) -> tuple[tuple[int, ...], list[int]]:
        """(token ids of the whole request, end offset of each chunk), as ``request`` gives."""
        parts = [self.encode(chunk.text) for chunk in rendered.chunks]
        ends: list[int] = []
        total = 0
        for part in parts:
            total += len(part)
            ends.append(total)
        return tuple(chain.from_iterable(parts)), ends
