"""The local KV backend: replays prompts through a real transformer whose KV cache is kept in
a prefix store (as vLLM's automatic prefix caching and SGLang's RadixAttention keep it), and
proves each reuse exact by comparing last-position logits with a full recompute.

torch and transformers (the ``local`` extra) are imported only when a backend is made::

    from promptlint.probe.local import LocalBackend

    backend = LocalBackend("tiny", block_size=16)        # seeded random weights, CPU or CUDA
    for result in backend.run([prompt_a, prompt_b]):      # strings or lists of token ids
        print(result.cached_tokens, result.max_logit_diff)

Without the extra, making a backend raises :class:`LocalBackendUnavailable` whose one-line
message names ``pip install 'promptlint-cache[local]'``.
"""

from promptlint.probe.local.errors import (
    INSTALL_HINT,
    LocalBackendError,
    LocalBackendUnavailable,
    ReuseMismatch,
    UnsupportedModel,
)
from promptlint.probe.local.model import DEVICES, DTYPES, RANDOM_MODELS
from promptlint.probe.local.runner import TOLERANCES, LocalBackend, ReuseResult
from promptlint.probe.local.store import parse_size

__all__ = [
    "DEVICES",
    "DTYPES",
    "INSTALL_HINT",
    "RANDOM_MODELS",
    "TOLERANCES",
    "LocalBackend",
    "LocalBackendError",
    "LocalBackendUnavailable",
    "ReuseMismatch",
    "ReuseResult",
    "UnsupportedModel",
    "parse_size",
]
