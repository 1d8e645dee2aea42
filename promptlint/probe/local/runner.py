"""Replay requests through a real transformer KV cache with prefix reuse, and prove the reuse
exact: each request runs only the tokens after its longest held prefix, and its last-position
logits are compared with a full recompute.

Verification tolerances (the largest absolute difference of last-position logits allowed):

- float32: 1e-5. On the CPU the reuse path is usually bit-identical (difference 0.0);
- bfloat16: 5e-2 × max(1, largest |logit|), about six bf16 rounding steps at that scale;
- float16: 1e-2 × max(1, largest |logit|).

Low precision tolerates kernel-order rounding, so it proves less: a wrong single token deep in
a long prefix may stay under it. float32 is the dtype that proves reuse exact.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

from promptlint.probe.local import compat
from promptlint.probe.local.errors import LocalBackendError, ReuseMismatch, UnsupportedModel
from promptlint.probe.local.model import TINY, LoadedModel, load_model
from promptlint.probe.local.store import DEFAULT_BLOCK_SIZE, PrefixStore

#: dtype → (absolute tolerance, tolerance relative to max(1, largest |logit|)).
TOLERANCES: dict[str, tuple[float, float]] = {
    "float32": (1e-5, 0.0),
    "bfloat16": (0.0, 5e-2),
    "float16": (0.0, 1e-2),
}

Request = str | Sequence[int]


@dataclass(frozen=True)
class ReuseResult:
    """What one request reused and cost. ``verified`` is False only when verification is
    off (a failed verification raises :class:`ReuseMismatch`); then ``prefill_full_s`` and
    ``max_logit_diff`` are None."""

    index: int
    name: str | None
    input_tokens: int
    cached_tokens: int
    recomputed_tokens: int
    prefill_s: float
    prefill_full_s: float | None
    verified: bool
    max_logit_diff: float | None
    kv_bytes_per_token: int
    prefix_bytes: int

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def logit_tolerance(dtype: str, largest_logit: float) -> float:
    """The largest last-position logit difference that still counts as exact reuse."""
    absolute, relative = TOLERANCES[dtype]
    return absolute + relative * max(1.0, largest_logit)


class LocalBackend:
    """A transformer and a prefix store of its KV caches.

    ``model``: ``"tiny"`` (a seeded random-weight Llama on o200k ids: it checks the cache,
    not answers), ``"llama-8b-random"`` (the same at Llama-3-8B's size, for CUDA), or the
    path of a local Hugging Face model folder (never downloaded). ``device``: auto, cpu or
    cuda (auto is cuda when torch sees a GPU). ``dtype``: float32, bfloat16 or float16.
    ``block_size``: the reuse granularity in tokens (16 as vLLM; 1 reuses every token).
    ``kv_budget``: the store's byte budget (``"2GB"``, ``"512MiB"``, an int; None: unbounded),
    kept by evicting least recently used blocks. ``verify``: compare every request's
    last-position logits with a full recompute (and time that recompute).

    Raises :class:`LocalBackendUnavailable` when torch or transformers is missing.
    """

    def __init__(self, model: str = TINY, device: str = "auto", dtype: str = "float32",
                 block_size: int = DEFAULT_BLOCK_SIZE, kv_budget: int | str | None = None,
                 verify: bool = True, seed: int = 0) -> None:
        self.store = PrefixStore(block_size, kv_budget)
        self.verify = verify
        self._loaded: LoadedModel = load_model(model, device=device, dtype=dtype, seed=seed)
        self._warm_up()

    @property
    def device(self) -> str:
        return self._loaded.device

    @property
    def dtype(self) -> str:
        return self._loaded.dtype

    @property
    def random_weights(self) -> bool:
        return self._loaded.random_weights

    @property
    def kv_bytes_per_token(self) -> int:
        return self._loaded.kv_bytes_per_token

    def summary(self) -> str:
        """One line: the model, what it is good for, its KV size, and the store's settings."""
        budget = "unbounded" if self.store.kv_budget is None else f"{self.store.kv_budget:,} B"
        return (f"{self._loaded.summary()}; block {self.store.block_size}, KV budget {budget}"
                f"{'' if self.verify else '; verification off'}")

    def encode(self, request: Request) -> list[int]:
        """Token ids as the model sees them: a list of ids as given; a prompt string as the
        system turn (o200k ids plus a constant suffix for the random models; the chat
        template with a fixed user turn for a model folder)."""
        if isinstance(request, str):
            return self._loaded.encode_prompt(request)
        return [int(token) for token in request]

    def run(self, requests: Sequence[Request],
            names: Sequence[str] | None = None) -> list[ReuseResult]:
        """Run the requests in order, each reusing what earlier ones (in this call or an
        earlier one) left in the store; one result per request.

        Raises :class:`ReuseMismatch`, naming the request, when verification finds that
        reuse changed the logits; :class:`LocalBackendError` for a request the model cannot
        take (empty, a token id outside its vocabulary, longer than its positions).
        """
        if names is not None and len(names) != len(requests):
            raise LocalBackendError(f"{len(names)} names for {len(requests)} requests")
        torch, _ = compat.require()
        results = []
        with torch.inference_mode():
            for index, request in enumerate(requests):
                name = names[index] if names is not None else None
                results.append(self._run_one(self.encode(request), index, name))
        return results

    def reset(self) -> None:
        """Forget every held prefix."""
        self.store.clear()

    def _run_one(self, ids: list[int], index: int, name: str | None) -> ReuseResult:
        label = f"request {index}" + (f" ({name!r})" if name else "")
        self._check_request(ids, label)
        model, device = self._loaded.model, self._loaded.device
        match = self.store.lookup(ids)
        reused = match.length

        compat.synchronize(device)
        started = time.perf_counter()
        kv_cache = compat.new_cache(self.store.prefix_kv(match))
        logits = compat.last_logits(model, ids[reused:], start=reused, kv_cache=kv_cache)
        compat.synchronize(device)
        prefill_s = time.perf_counter() - started

        prefill_full_s = max_diff = None
        if self.verify:
            started = time.perf_counter()
            reference = compat.last_logits(model, ids)
            compat.synchronize(device)
            prefill_full_s = time.perf_counter() - started
            max_diff = float((logits - reference).abs().max())
            tolerance = logit_tolerance(self.dtype, float(reference.abs().max()))
            if not max_diff <= tolerance:  # also catches NaN
                raise ReuseMismatch(
                    f"{label}: last-position logits with {reused} reused of {len(ids)} tokens "
                    f"differ from a full recompute by {max_diff:.3g} (tolerance {tolerance:.3g}, "
                    f"{self.dtype}): the reused KV cache is not the cache of this prefix"
                )

        layers = compat.cache_layers(kv_cache)
        if compat.layers_nbytes(layers) != len(ids) * self.kv_bytes_per_token:
            raise UnsupportedModel(
                f"{label}: the model's cache holds {compat.layers_nbytes(layers):,} bytes for "
                f"{len(ids)} tokens, not {self.kv_bytes_per_token:,} per token: not a plain KV cache"
            )
        self.store.insert(ids, layers)
        return ReuseResult(
            index=index, name=name, input_tokens=len(ids), cached_tokens=reused,
            recomputed_tokens=len(ids) - reused, prefill_s=prefill_s,
            prefill_full_s=prefill_full_s, verified=self.verify, max_logit_diff=max_diff,
            kv_bytes_per_token=self.kv_bytes_per_token, prefix_bytes=match.nbytes,
        )

    def _check_request(self, ids: list[int], label: str) -> None:
        loaded = self._loaded
        if not ids:
            raise LocalBackendError(f"{label}: no tokens")
        bad = next((token for token in ids if not 0 <= token < loaded.vocab_size), None)
        if bad is not None:
            raise LocalBackendError(
                f"{label}: token id {bad} is outside the model's vocabulary (0–{loaded.vocab_size - 1})"
            )
        if loaded.max_positions is not None and len(ids) > loaded.max_positions:
            raise LocalBackendError(
                f"{label}: {len(ids):,} tokens, over the model's {loaded.max_positions:,} positions"
            )

    def _warm_up(self) -> None:
        # First calls pay one-off costs (kernel selection, allocator growth) that would
        # otherwise land in the first request's timing.
        torch, _ = compat.require()
        ids = list(range(1, 33))
        with torch.inference_mode():
            kv_cache = compat.new_cache([])
            compat.last_logits(self._loaded.model, ids[:16], kv_cache=kv_cache)
            compat.last_logits(self._loaded.model, ids[16:], start=16, kv_cache=kv_cache)
            compat.last_logits(self._loaded.model, ids)
        compat.synchronize(self._loaded.device)
