"""``probe --provider local``: the variants through a real transformer KV cache.

The adapter sends each variant's system prompt to :class:`~promptlint.probe.local.LocalBackend`
(a prefix store of real KV caches, reuse verified against a full recompute) and reports its
counts in the probe's terms: ``cached_tokens`` is what was reused, ``uncached_tokens`` what was
recomputed, and each request also carries ``verified``, ``max_logit_diff``, ``prefill_s`` and
``prefill_full_s``. Its prediction is exact by construction: the longest token prefix shared
with an earlier request, floored to the block size and never the whole request, which is
what the store must reuse (a difference is a bug, and the report says so).

Prices: none (self-hosted), or those of ``--price-as PROVIDER:MODEL`` to show what the same
reuse would save on a provider. torch and transformers are imported in :meth:`connect` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from promptlint.probe import models
from promptlint.probe.adapters import USER_MESSAGE, Adapter, Options, ProbeError, Usage
from promptlint.probe.prompt import Variant

#: What a random-weight model appends to every prompt (the same for every variant).
_RANDOM_SUFFIX = "\n\nUser: Hello.\nAssistant:"
_RANDOM_MODELS = ("tiny", "llama-8b-random")


class LocalAdapter(Adapter):
    name = "local"
    key_variables = ()
    billed = False

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        self.model = options.model or "tiny"
        self.base_url = "local"
        self.cache_provider = "vllm"  # the cache model whose facts (block granularity) it follows
        self.output_tokens = 0
        self._backend: Any = None
        self.priced_as = options.price_as  # said in the report: what the figures would cost
        if options.price_as:
            provider, _, model = options.price_as.partition(":")
            self.price_provider, self.price_model = provider.strip().lower(), model.strip()
        else:
            self.price_provider, self.price_model = "vllm", "self-hosted"
            self.price_notes = False  # its spend line says nothing is billed, and how to price it
        self.notes.append(
            f"local KV cache: model {self.model}, block {options.block_size}"
            + (", a random-weight model: it checks the cache, not answers" if self.model in _RANDOM_MODELS else "")
        )

    def body(self, variant: Variant) -> dict[str, Any]:
        text = variant.text if variant.body is None else _body_text(variant.body)
        return {"model": self.model, "messages": [{"role": "system", "content": text},
                                                  {"role": "user", "content": USER_MESSAGE}]}

    def connect(self) -> None:
        from promptlint.probe.local import LocalBackend, LocalBackendError

        try:
            self._backend = LocalBackend(self.model, device=self.options.device, dtype=self.options.dtype,
                                         block_size=self.options.block_size, kv_budget=self.options.kv_budget,
                                         verify=self.options.verify)
        except LocalBackendError as exc:
            raise ProbeError(f"local: {exc}", "local") from None
        self.notes.append(self._backend.summary())

    def send(self, body: Mapping[str, Any]) -> Usage:
        from promptlint.probe.local import LocalBackendError

        try:
            (result,) = self._backend.run([_system(body)])
        except LocalBackendError as exc:
            raise ProbeError(f"local: {exc}", "local") from None
        return Usage(input_tokens=result.input_tokens, cached_tokens=result.cached_tokens, cache_write_tokens=0,
                     cache_write_1h_tokens=0, uncached_tokens=result.recomputed_tokens, output_tokens=0,
                     raw=result.to_dict())

    def close(self) -> None:
        self._backend = None

    def price_target(self) -> tuple[str, str]:
        return self.price_provider, self.price_model

    def predict(self, bodies: Sequence[Mapping[str, Any]], times: Sequence[float],
                overrides: Mapping[str, Any] | None = None) -> list[models.Predicted]:
        """The reuse the store must give: longest shared prefix, block-floored, not the last token."""
        from promptlint.core import tokens

        block = max(1, self.options.block_size)
        seen: list[list[int]] = []
        predicted = []
        for body in bodies:
            ids = tokens.encode(_system(body)) + tokens.encode(_RANDOM_SUFFIX)
            shared = max((_common(ids, earlier) for earlier in seen), default=0)
            reused = (min(shared, len(ids) - 1) // block) * block
            predicted.append(models.Predicted(total=len(ids), read=reused, write=0, write_1h=0,
                                              uncached=len(ids) - reused))
            seen.append(ids)
        if self.model not in _RANDOM_MODELS:
            self.notes.append("predicted counts use o200k_base ids; the model folder's own tokenizer decides")
        return predicted


def _common(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _system(body: Mapping[str, Any]) -> str:
    return str(body["messages"][0]["content"])


def _body_text(body: Mapping[str, Any]) -> str:
    """A request body's prompt as the cache sees it: its blocks in render order."""
    from promptlint import requestbody

    try:
        rendered = requestbody.render(body)
    except requestbody.RequestError as exc:
        raise ProbeError(f"local: {exc.message}", "usage") from None
    return "".join(chunk.header + chunk.body for chunk in rendered.chunks)
