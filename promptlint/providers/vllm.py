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


PROVIDER = Provider("vllm", {"vllm": simulate_vllm}, default_model="self-hosted", self_hosted=True)
