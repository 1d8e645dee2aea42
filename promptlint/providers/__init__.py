"""Providers: one module per provider, with the dated facts table and prices beside them.

What this package owns:

* ``table.py``: the dated, sourced table ``data/providers.toml`` (one row per cache model),
  user overrides, and :class:`ProviderFacts`, one row resolved for one model.
* ``base.py``: the interface a provider module declares (:class:`~.base.Provider`: name, table
  row, cache simulators, request render order, usage fields, model and price defaults; the
  future probe adapter goes there too) and the simulator data types they share (``Request``,
  ``Usage``, ``Breakpoint``, ``TokenPrices``, ``cost``, ``lcp``, the TTL store).
* one module per provider, each defining ``PROVIDER``: ``openai.py`` (before and from GPT-5.6),
  ``anthropic.py``, ``gemini.py``, ``deepseek.py``, ``vllm.py``, ``sglang.py``, ``xai.py``,
  ``fireworks.py``. ``registry.py`` finds them (no list to edit) and answers by name:
  :func:`known_providers`, :func:`facts`, :func:`simulate`, :func:`reported` (the cached
  and input tokens a logged usage object reports, read by the provider modules' usage fields).
* ``pricing.py`` (token prices from genai-prices' bundled data, with config overrides) and
  ``cost.py`` (what a prompt's layout costs per 1,000 calls, now and after the fix).

Adding a provider: one module here defining ``PROVIDER`` and one row in ``providers.toml``.

What it may import: the standard library, :mod:`promptlint.core` and
:mod:`promptlint.requestbody` (the provider-independent request-body model whose render orders
the provider modules supply), and genai-prices lazily in ``pricing.py``. Never
:mod:`promptlint.fix`, click or rich; a provider SDK (openai, anthropic) only lazily, on a
future probe path.
"""

from __future__ import annotations

from promptlint.providers.registry import (
    KNOWN_PROVIDERS,
    facts,
    find,
    known_providers,
    reported,
    resolve_row_name,
    simulate,
)
from promptlint.providers.table import (
    ProviderFacts,
    apply_overrides,
    load_table,
    normalize_model,
    price_data_releases,
)

__all__ = [
    "KNOWN_PROVIDERS",
    "ProviderFacts",
    "apply_overrides",
    "facts",
    "find",
    "known_providers",
    "load_table",
    "normalize_model",
    "price_data_releases",
    "reported",
    "resolve_row_name",
    "simulate",
]
