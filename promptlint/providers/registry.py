"""The providers: found in this package, one module each, and looked up by name.

Every module of ``promptlint/providers/`` that is not one of the shared modules below defines
``PROVIDER`` (a :class:`~promptlint.providers.base.Provider`) and is imported when this module
is. There is no list to edit: a new provider is its module plus its row of
``data/providers.toml``. :func:`known_providers` gives the names in the table's row order.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from promptlint.providers.base import (
    CacheModelError,
    Provider,
    Request,
    Simulator,
    StreamSimulator,
    Usage,
    UsageFields,
)
from promptlint.providers.table import ProviderFacts, bundled_table, load_table, row_facts

#: Modules of this package that are not providers.
SHARED_MODULES = frozenset({"base", "table", "registry", "pricing", "cost"})
_PACKAGE = __name__.rpartition(".")[0]


def _discover() -> tuple[Provider, ...]:
    found: list[Provider] = []
    for module_info in pkgutil.iter_modules(importlib.import_module(_PACKAGE).__path__):
        if module_info.name in SHARED_MODULES or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{_PACKAGE}.{module_info.name}")
        provider = getattr(module, "PROVIDER", None)
        if not isinstance(provider, Provider):
            raise TypeError(f"{module.__name__} defines no PROVIDER (a providers.base.Provider)")
        found.append(provider)
    rows = list(bundled_table().get("providers", {}))
    for provider in found:
        if provider.table_row not in rows:
            raise ImportError(
                f"provider {provider.name!r}: providers.toml has no row {provider.table_row!r}"
            )
    for what, names in (
        ("provider name", [p.name for p in found]),
        ("simulator", [s for p in found for s in p.simulators]),
        ("request kind", [k for p in found for k in p.renderers]),
    ):
        claimed = sorted({n for n in names if names.count(n) > 1})
        if claimed:
            raise ImportError(f"{what} {', '.join(claimed)} declared by more than one provider module")
    return tuple(sorted(found, key=lambda p: rows.index(p.table_row)))


PROVIDERS: tuple[Provider, ...] = _discover()
_BY_NAME: Mapping[str, Provider] = {p.name: p for p in PROVIDERS}
#: Provider names users write; each resolves to one row of the table (see :func:`facts`).
KNOWN_PROVIDERS: tuple[str, ...] = tuple(_BY_NAME)
_SIMULATORS: Mapping[str, Simulator] = {
    simulator: function for p in PROVIDERS for simulator, function in p.simulators.items()
}
_STREAMS: Mapping[str, StreamSimulator] = {
    simulator: function for p in PROVIDERS for simulator, function in p.streams.items()
}
_RENDERERS: Mapping[str, Provider] = {kind: p for p in PROVIDERS for kind in p.renderers}
_USAGE_SHAPES: tuple[UsageFields, ...] = tuple(
    sorted((shape for p in PROVIDERS for shape in p.usage), key=lambda shape: shape.precedence)
)


def known_providers() -> tuple[str, ...]:
    """The provider names :func:`facts` accepts (rows such as ``"openai-5.6"`` also work)."""
    return KNOWN_PROVIDERS


def simulator_names() -> frozenset[str]:
    """The cache models a table row may name as its ``simulator``."""
    return frozenset(_SIMULATORS)


def find(name: str) -> Provider | None:
    """The provider users call ``name`` (case and spaces ignored), or None."""
    return _BY_NAME.get(name.strip().lower())


def resolve_row_name(provider: str, model: str | None, table: Mapping[str, Any]) -> str:
    """The table row that models ``provider`` (and ``model``).

    A provider name maps to its default row (``gemini`` to ``gemini-implicit``), and its module
    may choose another from the model (``openai`` with a GPT model at or after the newer row's
    ``from_gpt_version``, 5.6, maps to ``openai-5.6``); a row name stands for itself. Raises
    ValueError for a name that is neither.
    """
    rows = table.get("providers", {})
    known = find(provider)
    name = known.table_row if known is not None else provider.strip().lower()
    if name not in rows:
        raise ValueError(
            f"unknown provider {provider!r}; known providers: {', '.join(KNOWN_PROVIDERS)}"
            f" (table rows: {', '.join(rows)})"
        )
    if known is not None and known.choose_row is not None and model is not None:
        return known.choose_row(model, rows) or name
    return name


def facts(
    provider: str, model: str | None = None, rows: Mapping[str, Any] | None = None
) -> ProviderFacts:
    """Cache facts for ``provider`` and (optionally) ``model``, with user overrides.

    ``rows`` overrides table rows, keyed by row name: the config's ``providers`` table as
    written (``[tool.promptlint.providers.anthropic] min_cacheable_tokens = 2048``).
    ``provider`` is one of :func:`known_providers` or a table row name; the model's rule
    applies (:func:`~promptlint.providers.table.row_facts`). Raises ValueError for an unknown
    provider or an unknown key in the table/overrides.
    """
    if rows:
        table = load_table({"providers": dict(rows)})
        return row_facts(resolve_row_name(provider, model, table), model, table)
    return _bundled_facts(provider, model)


@cache
def _bundled_facts(provider: str, model: str | None) -> ProviderFacts:
    """:func:`facts` from the bundled table, once per provider and model (every file of a
    run asks, for its minimum cacheable prefix)."""
    table = bundled_table()
    return row_facts(resolve_row_name(provider, model, table), model, table)


_facts = facts  # simulate() has a parameter of that name


def simulate(
    provider: str,
    model: str | None,
    requests: Sequence[Request],
    facts: ProviderFacts | None = None,
    **options: Any,
) -> list[Usage]:
    """Simulate ``requests`` on ``provider``/``model`` with the right cache model.

    ``facts`` defaults to :func:`facts` for the provider and model (so ``openai`` +
    ``gpt-5.6-terra`` runs :func:`~promptlint.providers.openai.simulate_openai_56`);
    ``options`` go to the simulator (e.g. ``retention="in_memory"``).
    """
    resolved = facts if facts is not None else _facts(provider, model)
    simulator = _SIMULATORS.get(resolved.simulator)
    if simulator is None:
        raise CacheModelError(
            f"{resolved.provider}: no simulator {resolved.simulator!r}; known: {sorted(_SIMULATORS)}"
        )
    return simulator(requests, resolved, **options)


def stream(
    provider: str,
    model: str | None,
    requests: Iterable[Request],
    facts: ProviderFacts | None = None,
    **options: Any,
) -> Iterator[Usage] | None:
    """:func:`simulate`, one usage per request as each is drawn from ``requests`` (each checked
    as it comes), so a caller can feed a log through without holding it; None where the
    simulator has no streaming form (then call :func:`simulate` with them all)."""
    resolved = facts if facts is not None else _facts(provider, model)
    function = _STREAMS.get(resolved.simulator)
    return function(requests, resolved, **options) if function is not None else None


def renderer_of(kind: str) -> Provider:
    """The provider whose render order renders request bodies of ``kind``."""
    return _RENDERERS[kind]


def reported(usage: Mapping[str, Any] | None) -> tuple[int | None, int | None]:
    """(cached tokens, total input tokens) a provider's usage object reports (§12).

    The first usage shape (by precedence) that matches reads it; (None, None) when none does.
    ValueError naming the field where a count it reads is no number (``"many"``, an object),
    and where more tokens are read from the cache than the request holds (every provider's
    input total counts its cached tokens: a hit rate over 100 % is a corrupt record).
    """
    if not usage:
        return None, None
    for shape in _USAGE_SHAPES:
        found = shape.read(usage)
        if found is not None:
            cached, total = found
            if cached is not None and total is not None and cached > total:
                raise ValueError(f"usage reports {cached:,} cached tokens (`{shape.cached}`), more than "
                                 f"the request's {total:,} input tokens")
            return found
    return None, None
