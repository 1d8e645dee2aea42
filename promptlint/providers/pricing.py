"""Token prices for cache cost estimates, from the maintained ``genai-prices`` library.

Offline only: the library's bundled data snapshot is read, never its auto-update. User config
overrides win (USD per million tokens). Prices the library lacks are derived from the cache
multipliers in ``data/providers.toml`` and each derivation is stated in ``Prices.notes``.
Each provider module names its genai-prices provider id, or says it is self-hosted (no price
unless configured).
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from promptlint.providers import registry
from promptlint.providers.base import Provider, TokenPrices
from promptlint.providers.table import ProviderFacts, price_data_releases

TOKENS_PER_MILLION = 1_000_000
PRICE_KEYS: tuple[str, ...] = ("input", "cache_read", "cache_write", "cache_write_1h", "output")
# genai-prices ModelPrice attribute for each of our price keys.
_LIBRARY_PRICE_KEYS = {
    "input": "input_mtok",
    "cache_read": "cache_read_mtok",
    "cache_write": "cache_write_mtok",
    "cache_write_1h": "cache_write_1h_mtok",
    "output": "output_mtok",
}


class PriceError(LookupError):
    """No price is known for a provider/model and the user gave none."""


@dataclass(frozen=True)
class Prices:
    """USD per **million** tokens for one model, with where the numbers came from.

    ``cache_write`` is the 5 m (or only) write price; providers with no write fee bill written
    tokens as input, so there it equals ``input``. ``as_of`` (YYYY-MM-DD or ``None``) is the
    date of the price data; ``as_of_source`` says how it was found. ``notes`` lists every
    derived or overridden value.
    """

    provider: str
    model: str
    input: float
    cache_read: float
    cache_write: float
    cache_write_1h: float
    output: float
    as_of: str | None
    as_of_source: str
    source: str
    notes: tuple[str, ...] = ()

    def per_token(self) -> TokenPrices:
        """These prices in USD per token, for :func:`promptlint.providers.base.cost`."""
        return TokenPrices(
            input=self.input / TOKENS_PER_MILLION,
            cache_read=self.cache_read / TOKENS_PER_MILLION,
            cache_write=self.cache_write / TOKENS_PER_MILLION,
            cache_write_1h=self.cache_write_1h / TOKENS_PER_MILLION,
        )


def _price_number(value: Any) -> float | None:
    """A library price as a float; a tiered price as its base (lowest-context) tier."""
    if value is None:
        return None
    if isinstance(value, Decimal | int | float):
        return float(value)
    base = getattr(value, "base", None)  # genai_prices.types.TieredPrices
    return None if base is None else float(base)


def _library_prices(
    provider: Provider, model: str, at: datetime | None
) -> tuple[dict[str, float | None], str, str | None, str, list[str]]:
    """Prices from genai-prices' bundled snapshot, its model id, and the data date."""
    import genai_prices
    from genai_prices import data_snapshot

    snapshot = data_snapshot.get_snapshot()
    provider_id = provider.genai_prices_id
    if provider_id is None:
        raise PriceError(f"provider {provider.name!r} has no genai-prices id; set prices in config")
    try:
        _, model_info = snapshot.find_provider_model(model, None, provider_id, None)
    except LookupError as error:
        raise PriceError(
            f"no price for model {model!r} of provider {provider.name!r} in genai-prices "
            f"{genai_prices.__version__} (provider id {provider_id!r}); set prices in config"
        ) from error
    model_price = model_info.get_prices(at or datetime.now(tz=UTC))
    raw = {key: getattr(model_price, name, None) for key, name in _LIBRARY_PRICE_KEYS.items()}
    values = {key: _price_number(value) for key, value in raw.items()}
    tiered = [key for key, value in raw.items() if hasattr(value, "tiers")]
    notes = (
        [f"long-context price tiers exist for {', '.join(tiered)}; the base tier is used"]
        if tiered
        else []
    )
    version = genai_prices.__version__
    if snapshot.from_auto_update:
        as_of: str | None = snapshot.timestamp.date().isoformat()
        as_of_source = f"genai-prices auto-updated snapshot fetched {snapshot.timestamp}"
    else:
        as_of = price_data_releases().get(version)
        as_of_source = (
            f"release date of genai-prices {version} on PyPI, recorded in providers.toml "
            "(the bundled snapshot carries no date)"
            if as_of
            else f"unknown: genai-prices {version} is not in providers.toml's release table"
        )
    source = f"genai-prices {version} bundled data, model {model_info.id!r} ({provider_id})"
    return values, source, as_of, as_of_source, notes


def _derive_missing(
    values: dict[str, float | None], cache_facts: ProviderFacts, notes: list[str]
) -> dict[str, float]:
    """Fill prices the data lacks from the provider's cache multipliers, noting each."""
    base = values["input"]
    if base is None:
        raise PriceError(f"{cache_facts.provider}: no input price")

    def derived(key: str, multiplier: float | None, why: str) -> float:
        value = values[key]
        if value is not None:
            return value
        factor = 1.0 if multiplier is None else multiplier
        notes.append(f"{key} = {factor:g} x input ({why})")
        return base * factor

    read = derived(
        "cache_read",
        cache_facts.read_multiplier,
        "price data has no cached-input price; provider multiplier"
        if cache_facts.read_multiplier is not None
        else "no cache discount known",
    )
    write = derived(
        "cache_write",
        cache_facts.write_multiplier,
        "price data has no cache-write price; provider write multiplier",
    )
    write_1h = values["cache_write_1h"]
    if write_1h is None:
        if cache_facts.write_1h_multiplier is not None:
            write_1h = derived(
                "cache_write_1h",
                cache_facts.write_1h_multiplier,
                "price data has no 1 h write price; documented multiplier",
            )
        else:
            write_1h = write
    output = values["output"]
    return {
        "input": base,
        "cache_read": read,
        "cache_write": write,
        "cache_write_1h": write_1h,
        "output": 0.0 if output is None else output,
    }


def prices_for(
    provider: str,
    model: str,
    overrides: Mapping[str, float] | None = None,
    *,
    at: datetime | None = None,
) -> Prices:
    """Prices in USD per million tokens for ``model`` of ``provider``.

    Library prices (genai-prices' bundled snapshot, as of ``at``, default now) are replaced by
    ``overrides`` (keys ``input``, ``cache_read``, ``cache_write``, ``cache_write_1h``,
    ``output``; per million tokens); missing cache prices are then derived from the
    provider's multipliers (e.g. Anthropic 1 h write = 2 × input). vLLM/SGLang are self-hosted:
    0 unless overridden. Raises :class:`PriceError` for a model with no price data and no
    ``input`` override, and ValueError for an unknown provider or override key.
    """
    name = provider.strip().lower()
    known = registry.find(name)
    if known is None:
        raise ValueError(
            f"unknown provider {provider!r}; known providers: {', '.join(registry.KNOWN_PROVIDERS)}"
        )
    user = dict(overrides or {})
    unknown = sorted(set(user) - set(PRICE_KEYS))
    if unknown:
        raise ValueError(f"unknown price override keys {unknown}; known: {list(PRICE_KEYS)}")
    cache_facts = registry.facts(name, model)
    notes: list[str] = []
    values: dict[str, float | None] = dict.fromkeys(PRICE_KEYS)
    if known.self_hosted:
        values = {key: 0.0 for key in PRICE_KEYS}
        source, as_of, as_of_source = "self-hosted", None, "self-hosted: no price data"
        notes.append(f"{name} is self-hosted: prices are 0 unless set in config")
    else:
        try:
            values, source, as_of, as_of_source, notes = _library_prices(known, model, at)
        except PriceError:
            if "input" not in user:
                raise
            source, as_of, as_of_source = "user config", None, "user config (no library price)"
    if user:
        values.update({key: float(value) for key, value in user.items()})
        notes.append(f"overridden by user config: {', '.join(sorted(user))}")
    resolved = _derive_missing(values, cache_facts, notes)
    return Prices(
        provider=name,
        model=model,
        as_of=as_of,
        as_of_source=as_of_source,
        source=source,
        notes=tuple(notes),
        **resolved,
    )


def context_window(provider: str, model: str) -> int | None:
    """The model's context window in tokens, from the same price data (None if unknown).

    Read from the table ``tools/build_context_windows.py`` made of this data when it names the
    model and was made from the genai-prices installed (loading the library itself costs more
    than checking a large file); from the library otherwise, and always once it is loaded in
    this process (its snapshot may have been replaced there)."""
    known = registry.find(provider)
    if known is None or known.genai_prices_id is None:
        return None
    if "genai_prices" not in sys.modules:
        shipped = _shipped_windows().get(known.genai_prices_id, {})
        if model in shipped:
            return shipped[model]
    return library_context_window(known.genai_prices_id, model)


def library_context_window(provider_id: str, model: str) -> int | None:
    """genai-prices' own answer: the context window of its model ``model`` matches."""
    from genai_prices import data_snapshot

    try:
        _, model_info = data_snapshot.get_snapshot().find_provider_model(model, None, provider_id, None)
    except LookupError:
        return None
    window = getattr(model_info, "context_window", None)
    return window if isinstance(window, int) and window > 0 else None


_WINDOWS_PATH = Path(__file__).parent.parent / "data" / "context_windows.json"


@functools.lru_cache(maxsize=1)
def _shipped_windows() -> Mapping[str, Mapping[str, int | None]]:
    """The shipped table's windows by provider id and model id; empty when it was made from
    another genai-prices than the one installed, or cannot be read."""
    try:
        table = json.loads(_WINDOWS_PATH.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(table, dict) or table.get("genai-prices") != _installed_genai_prices():
        return {}
    windows = table.get("windows")
    if not isinstance(windows, dict):
        return {}
    return {
        provider: {model: w for model, w in models.items() if w is None or (isinstance(w, int) and w > 0)}
        for provider, models in windows.items() if isinstance(models, dict)
    }


def _installed_genai_prices() -> str | None:
    """The installed genai-prices' version, from the name of its ``.dist-info`` folder beside
    the package (found without importing it); None when that is not how it was installed."""
    import importlib.util

    spec = importlib.util.find_spec("genai_prices")
    if spec is None or spec.origin is None:
        return None
    found = list(Path(spec.origin).parent.parent.glob("genai_prices-*.dist-info"))
    if len(found) != 1:
        return None
    return found[0].name.removeprefix("genai_prices-").removesuffix(".dist-info")
