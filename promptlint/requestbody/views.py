"""Tokens per block, and the per-request views the PC2xx rules read."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from promptlint.core import tokens as tokens_mod
from promptlint.core.suffixtokens import SuffixTokens
from promptlint.requestbody.blocks import PREFIX_SECTIONS, Rendered
from promptlint.requestbody.files import RequestFile, load_cached
from promptlint.requestbody.jsonspans import string_offsets
from promptlint.requestbody.values import VolatileValue, volatile_values


class ChunkTokenizer:
    """Token ids of each chunk, remembered by text (a growing conversation repeats them)."""

    def __init__(self, encoding: str = "o200k_base", limit: int = 200_000) -> None:
        self.encoding = encoding
        self._cache: dict[str, tuple[int, ...]] = {}
        self._limit = limit

    def encode(self, text: str) -> tuple[int, ...]:
        found = self._cache.get(text)
        if found is None:
            found = tuple(tokens_mod.encode(text, self.encoding))
            if len(self._cache) >= self._limit:
                self._cache.clear()
            self._cache[text] = found
        return found

    def request(self, rendered: Rendered) -> tuple[list[int], list[int]]:
        """(token ids of the whole request, end offset of each chunk)."""
        ids: list[int] = []
        ends: list[int] = []
        for chunk in rendered.chunks:
            ids.extend(self.encode(chunk.text))
            ends.append(len(ids))
        return ids, ends


def chunk_ends(rendered: Rendered, encoding: str = "o200k_base") -> list[int]:
    """The token offset at which each chunk ends (chunks tokenised one by one)."""
    return ChunkTokenizer(encoding).request(rendered)[1]


def strictly_increasing_ends(ends: Sequence[int]) -> list[int]:
    """Block ends for the simulator: empty blocks (no tokens) merged into the previous one."""
    out: list[int] = []
    for end in ends:
        if end > 0 and (not out or end > out[-1]):
            out.append(end)
    return out

@dataclass(frozen=True)
class PlacedValue:
    """A volatile value of a request: its chunk, its source span, its token offset."""

    chunk_index: int
    value: VolatileValue
    span: tuple[int, int]
    token_offset: int

    @property
    def per_request(self) -> bool:
        return self.value.label not in ("session_id", "signed_in_user")


@dataclass
class RequestView:
    """One request of a file, with token ends per chunk and its placed volatile values."""

    file: RequestFile
    request: Rendered
    ends: list[int]
    values: list[PlacedValue]

    def start_of(self, chunk_index: int) -> int:
        return self.ends[chunk_index - 1] if chunk_index > 0 else 0


def views(request_file: RequestFile, encoding: str = "o200k_base") -> list[RequestView]:
    """Every request of a file, ready for the rules."""
    return _views_cached(request_file.source, encoding)


@lru_cache(maxsize=16)
def _views_cached(source: str, encoding: str) -> list[RequestView]:
    request_file = load_cached(source)
    tokenizer = ChunkTokenizer(encoding)
    out = []
    for request in request_file.requests:
        _, ends = tokenizer.request(request)
        placed: list[PlacedValue] = []
        for index, chunk in enumerate(request.chunks):
            if not chunk.is_string or chunk.section not in PREFIX_SECTIONS:
                continue
            found = volatile_values(chunk.body)
            if not found:
                continue
            start, _ = request_file.span(chunk.path)
            offsets = string_offsets(source, start)
            before = ends[index - 1] if index > 0 else 0
            # Each value's offset is the count of the chunk's text before it encoded alone,
            # read from the chunk's one encoding (encoding every prefix made a one-line body
            # of 2,400 values take 28 s and 4.5 GB).
            prefixes = SuffixTokens(chunk.text, encoding, list(tokenizer.encode(chunk.text)))
            for value in found:
                token_offset = before + prefixes.before(len(chunk.header) + value.start)
                placed.append(PlacedValue(index, value, (offsets[value.start], offsets[value.end]), token_offset))
        out.append(RequestView(request_file, request, ends, placed))
    return out
