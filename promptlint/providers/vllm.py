"""vLLM V1 automatic prefix caching: chained hashes of full KV blocks, LRU eviction.

Self-hosted: no per-token price unless configured. Its usage object is OpenAI Chat's
(``prompt_tokens_details.cached_tokens``, only with ``--enable-prompt-tokens-details``), read
by :mod:`promptlint.providers.openai`'s usage fields.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from promptlint.providers.base import Provider, Request, Usage, check_requests
from promptlint.providers.table import ProviderFacts


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
    check_requests(requests)
    block = facts.block_size
    # A block's key stands for its whole prefix, as vLLM's chained hash does: the number
    # given to (the key of the prefix before it, its own tokens), the first time that pair is
    # seen. Exact, unlike a hash, and each block is hashed once: keying the pool by the
    # prefix itself hashed every prefix whole (quadratic in a request's length).
    numbers: dict[tuple[int, tuple[int, ...]], int] = {}
    pool: OrderedDict[tuple[str | None, int], None] = OrderedDict()
    usages: list[Usage] = []

    def keys(sequence: tuple[int, ...], salt: str | None) -> list[tuple[str | None, int]]:
        """The keys of the sequence's full blocks, head first."""
        found, parent = [], -1
        for start in range(0, len(sequence) // block * block, block):
            pair = (parent, sequence[start : start + block])
            parent = numbers.get(pair, -2)
            if parent == -2:
                parent = numbers[pair] = len(numbers)
            found.append((salt, parent))
        return found

    for request in requests:
        tokens, salt = tuple(request.tokens), request.routing_key
        total = len(tokens)
        sequence = tokens + tuple(request.output_tokens)
        blocks = keys(sequence, salt) if prefix_caching else []
        cached_blocks = 0
        while prefix_caching and (cached_blocks + 1) * block <= total and blocks[cached_blocks] in pool:
            cached_blocks += 1
        read = cached_blocks * block
        if facts.cap_last_token:
            read = min(read, max(0, (total - 1) // block * block))
        if prefix_caching:
            # Touch from the tail to the head so the head is most recent: vLLM frees a finished
            # request's blocks in reverse order, so its tail is evicted first.
            for key in reversed(blocks):
                pool[key] = None
                pool.move_to_end(key)
            while capacity_blocks is not None and len(pool) > capacity_blocks:
                pool.popitem(last=False)
        usages.append(Usage(read=read, write=0, uncached=total - read, total=total))
    return usages


PROVIDER = Provider("vllm", {"vllm": simulate_vllm}, default_model="self-hosted", self_hosted=True)
