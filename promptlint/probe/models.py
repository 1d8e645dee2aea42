"""The one place the probe touches promptlint's provider modules (cache model, prices, bodies).

The provider modules (``promptlint.providers``: table, simulators, pricing, cost),
``promptlint.requestbody`` and ``promptlint.replay`` are imported here and nowhere else in
``promptlint.probe``. Everything
outside it works with the plain values defined here (:class:`Prices`, :class:`Predicted`,
:class:`Facts`, :class:`LiteralValue`).

The prediction runs the same chain as ``check --provider`` and ``replay``: a body rendered in
its provider's order, tokenised with o200k_base (≈ for Claude), replayed through the
provider's cache simulator with the config's provider overrides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from promptlint import providers, requestbody
from promptlint.providers import cost as cachecost
from promptlint.providers import pricing, registry
from promptlint.providers.base import CacheModelError
from promptlint.replay import analysis as replay_analysis
from promptlint.replay.divergence import Prepared as ReplayPrepared
from promptlint.replay.log import LogEntry

#: Request kinds of the probe -> the renderer kinds of ``requestbody``.
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
ANTHROPIC = "anthropic"
_KINDS = {
    OPENAI_CHAT: requestbody.OPENAI_CHAT,
    OPENAI_RESPONSES: requestbody.OPENAI_RESPONSES,
    ANTHROPIC: requestbody.ANTHROPIC,
}
#: Provider rows a probe can price and predict with.
CACHE_PROVIDERS: tuple[str, ...] = tuple(providers.known_providers())
SELF_HOSTED: frozenset[str] = frozenset(p.name for p in registry.PROVIDERS if p.self_hosted)


class ModelError(ValueError):
    """A body the cache model or the renderer rejects, or an unknown provider (one line)."""


@dataclass(frozen=True)
class Prices:
    """USD per token for one model, and where the numbers came from."""

    input: float
    cache_read: float
    cache_write: float
    cache_write_1h: float
    output: float
    as_of: str | None
    notes: tuple[str, ...] = ()

    def cost(self, *, cached: int, write: int, write_1h: int, uncached: int, output: int = 0) -> float:
        """USD for one request's counts (writes: ``write`` in all, ``write_1h`` of them 1 h)."""
        return (
            cached * self.cache_read
            + (write - write_1h) * self.cache_write
            + write_1h * self.cache_write_1h
            + uncached * self.input
            + output * self.output
        )


@dataclass(frozen=True)
class Facts:
    """What the report needs to know of a provider's cache rules."""

    row: str
    min_cacheable_tokens: int
    granularity: int
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Predicted:
    """The cache model's accounting of one request (o200k_base tokens)."""

    total: int
    read: int
    write: int
    write_1h: int
    uncached: int


@dataclass(frozen=True)
class LiteralValue:
    """A literal per-request value in text (a written timestamp, a labelled id)."""

    start: int
    end: int
    kind: str  # "timestamp" or "id"
    label: str
    precision: str | None


def resolve_model(provider: str, model: str | None) -> tuple[str, list[str]]:
    """The model to price and predict (``check --provider``'s default when none fits)."""
    return cachecost.resolve_model(provider, model)


def facts(provider: str, model: str, overrides: Mapping[str, Any] | None = None) -> Facts:
    try:
        found = providers.facts(provider, model, overrides or None)
    except ValueError as exc:
        raise ModelError(str(exc)) from None
    return Facts(found.provider, int(found.min_cacheable_tokens or 0), int(found.granularity or 1),
                 tuple(found.notes))


def prices(provider: str, model: str, config_prices: Mapping[str, Any] | None = None) -> Prices:
    """List prices per token (config ``prices`` win). LookupError when none is known."""
    overrides = cachecost._price_overrides(config_prices, provider, model)
    found = pricing.prices_for(provider, model, overrides)
    per_million = pricing.TOKENS_PER_MILLION
    return Prices(
        input=found.input / per_million,
        cache_read=found.cache_read / per_million,
        cache_write=found.cache_write / per_million,
        cache_write_1h=found.cache_write_1h / per_million,
        output=found.output / per_million,
        as_of=found.as_of,
        notes=tuple(found.notes),
    )


def predict(
    kind: str,
    provider: str,
    model: str,
    bodies: Sequence[Mapping[str, Any]],
    times: Sequence[float],
    *,
    overrides: Mapping[str, Any] | None = None,
) -> list[Predicted]:
    """The cache model's usage for ``bodies`` sent in order at ``times`` (seconds), cold start.

    ``kind`` is the API the bodies are for (:data:`OPENAI_CHAT` …); ``provider`` the cache
    model's row (``openai``, ``anthropic``, ``vllm`` …). ``prompt_cache_key`` is the routing key.
    """
    tokenizer = requestbody.ChunkTokenizer("o200k_base")
    prepared = []
    try:
        for body, time in zip(bodies, times, strict=True):
            rendered = requestbody.render_as(_KINDS[kind], body)
            ids, ends = tokenizer.request(rendered)
            key = body.get("prompt_cache_key")
            entry = LogEntry(line=0, body=body, rendered=rendered, time=time,
                                    routing_key=str(key) if isinstance(key, str) else None, usage=None,
                                    provider=provider)
            prepared.append(replay_analysis._sim_request(ReplayPrepared(entry, model, ids, ends, time), provider))
        found = providers.facts(provider, model, overrides or None)
        live = [r for r in prepared if r.tokens]
        usages = iter(providers.simulate(provider, model, live, facts=found))
    except (requestbody.RequestError, CacheModelError, ValueError, TypeError) as exc:
        raise ModelError(f"the cache model cannot read the request: {exc}") from None
    out: list[Predicted] = []
    for request in prepared:
        if not request.tokens:
            out.append(Predicted(0, 0, 0, 0, 0))
            continue
        usage = next(usages)
        out.append(Predicted(usage.total, usage.read, usage.write, usage.write_1h, usage.uncached))
    return out


def literal_values(text: str) -> list[LiteralValue]:
    """Literal timestamps and labelled ids in ``text`` (what PC2xx reads in a body)."""
    return [LiteralValue(v.start, v.end, v.kind, v.label, v.precision)
            for v in requestbody.volatile_values(text)]


def body_kind(body: Any) -> str | None:
    """``openai-chat``, ``openai-responses`` or ``anthropic`` for a request body, else None."""
    try:
        kind = requestbody.detect(body)
    except requestbody.RequestError:
        return None
    return {v: k for k, v in _KINDS.items()}.get(kind)


def load_bodies(source: str) -> list[Any]:
    """The bodies of a request-JSON file (one or an array). ModelError if it is not one."""
    try:
        found = requestbody.load_cached(source)
    except requestbody.RequestError as exc:
        raise ModelError(exc.message) from None
    return [found.value_at(r.base) for r in found.requests]


__all__ = [
    "ANTHROPIC", "CACHE_PROVIDERS", "OPENAI_CHAT", "OPENAI_RESPONSES", "SELF_HOSTED", "Facts",
    "LiteralValue", "ModelError", "Predicted", "Prices", "body_kind", "facts", "literal_values",
    "load_bodies", "predict", "prices", "resolve_model",
]
