"""SGLang RadixAttention: a token-level radix tree (no eviction modelled).

Self-hosted: no per-token price unless configured. Its usage object is OpenAI Chat's
(``prompt_tokens_details.cached_tokens``, only with ``--enable-cache-report``), read by
:mod:`promptlint.providers.openai`'s usage fields.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from promptlint.providers.base import PrefixIndex, Provider, Request, Usage, check_requests
from promptlint.providers.table import ProviderFacts


def simulate_sglang(
    requests: Sequence[Request], facts: ProviderFacts, *, page_size: int | None = None
) -> list[Usage]:
    """SGLang RadixAttention (§13): token-level longest prefix, capped at ``n − 1``.

    ``read = min(lcp(T, tree), n − 1)``, floored to ``page_size`` when > 1; prompt + output
    (page-aligned) are inserted after each request. No eviction is modelled (unbounded
    memory). ``routing_key`` is the cache salt.
    """
    check_requests(requests)
    page = page_size or facts.page_size or 1
    trees: dict[str | None, PrefixIndex] = {}  # one radix tree per cache salt
    usages: list[Usage] = []
    for request in requests:
        tokens, salt = tuple(request.tokens), request.routing_key
        total = len(tokens)
        tree = trees.setdefault(salt, PrefixIndex())
        common = tree.longest(tokens, 0.0, math.inf)
        if facts.cap_last_token:
            common = min(common, max(0, total - 1))
        read = common // page * page
        sequence = tokens + tuple(request.output_tokens)
        tree.add(sequence[: len(sequence) // page * page], 0.0)
        usages.append(Usage(read=read, write=0, uncached=total - read, total=total))
    return usages


PROVIDER = Provider(
    "sglang", {"sglang": simulate_sglang}, default_model="self-hosted", self_hosted=True
)
