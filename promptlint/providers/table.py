"""The dated, sourced table in ``data/providers.toml``: loading, overrides, one row's facts.

The table is read once, lazily, and resolved per row and model into a frozen
:class:`ProviderFacts`. User configuration overrides it with a dict shaped like the TOML file
(``{"providers": {"anthropic": {"min_cacheable_tokens": 2048}}}``); see :func:`apply_overrides`.
Which row a provider name and model stand for is the provider modules' knowledge
(:func:`promptlint.providers.registry.facts`).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

TABLE_PATH = Path(__file__).parent.parent / "data" / "providers.toml"

_EMPTY: Mapping[str, Any] = MappingProxyType({})


@dataclass(frozen=True)
class ProviderFacts:
    """Cache facts for one provider row, resolved for one model.

    ``provider`` is the table row (``"openai-5.6"``, ``"gemini-implicit"``), ``simulator`` the
    cache model that runs it (a provider module's). ``source``/``as_of`` are those of the most
    specific fact applied (a model rule's, when one matched). Multipliers are relative to the
    input price; ``None`` means model-dependent (take it from the price data). ``notes`` says
    where a value is a fallback rather than a documented fact for this model.
    """

    provider: str
    model: str | None
    simulator: str
    description: str
    source: str
    as_of: str
    min_cacheable_tokens: int = 0
    granularity: int = 1
    breakpoint_interval: int = 1
    hidden_tokens: int = 0
    routing_prefix_tokens: int | None = None
    overflow_requests_per_minute: int | None = None
    max_breakpoints: int | None = None
    lookback_blocks: int | None = None
    max_writes_per_request: int | None = None
    lookback_first_explicit: int | None = None
    lookback_latest_explicit: int | None = None
    lookback_earlier_eligible: int | None = None
    read_multiplier: float | None = None
    write_multiplier: float | None = None
    write_1h_multiplier: float | None = None
    default_ttl: str | None = None
    ttl_seconds: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    optimistic_ttl_seconds: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    max_lifetime_seconds: Mapping[str, float] = field(default_factory=lambda: _EMPTY)
    window_seconds: float | None = None
    hit_probability: float | None = None
    legacy_units: bool = False
    legacy_unit_tokens: int = 64
    unit_interval_tokens: int = 0
    visibility_delay_seconds: float = 0.0
    block_size: int = 16
    full_blocks_only: bool = True
    page_size: int = 1
    cap_last_token: bool = False
    from_gpt_version: str | None = None
    usage_fields: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    notes: tuple[str, ...] = ()

    def ttl(self, ttl_class: str | None = None, *, optimistic: bool = False) -> float:
        """Idle lifetime in seconds of ``ttl_class`` (default: ``default_ttl``).

        Raises ValueError for a class this provider does not have.
        """
        name = ttl_class or self.default_ttl
        table = self.optimistic_ttl_seconds if optimistic else self.ttl_seconds
        for seconds_by_class in (table, self.ttl_seconds):
            if name is not None and name in seconds_by_class:
                return float(seconds_by_class[name])
        raise ValueError(
            f"{self.provider}: unknown TTL class {name!r}; known: {sorted(self.ttl_seconds)}"
        )


_FIELD_NAMES = frozenset(f.name for f in dataclasses.fields(ProviderFacts))
# Keys of a row that are table structure, not facts.
_STRUCTURE_KEYS = frozenset({"models"})
# Keys of a model rule that select it rather than set a fact.
_RULE_SELECTORS = frozenset({"models", "prefixes"})
_MAPPING_FIELDS = frozenset(
    {"ttl_seconds", "optimistic_ttl_seconds", "max_lifetime_seconds", "usage_fields"}
)


@functools.cache
def bundled_table() -> Mapping[str, Any]:
    """The table as shipped (read once; do not mutate)."""
    with TABLE_PATH.open("rb") as table_file:
        return tomllib.load(table_file)


def load_table(overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The provider table as a dict (a fresh copy), with ``overrides`` applied."""
    return apply_overrides(bundled_table(), overrides or {})


def apply_overrides(table: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Merge user ``overrides`` (shaped like providers.toml) into a copy of ``table``.

    Scalars replace, tables merge key by key, and ``models`` rule lists are put *before* the
    table's rules so a user rule for the same model wins. A new provider row may be added.
    Raises ValueError for a key that is not a known fact, so typos do not pass silently.
    """
    merged = copy.deepcopy(dict(table))
    for section, value in overrides.items():
        if section != "providers":
            merged[section] = _merge_mapping(merged.get(section, {}), value)
            continue
        rows = merged.setdefault("providers", {})
        for row_name, row_overrides in value.items():
            _check_keys(row_name, row_overrides)
            rows[row_name] = _merge_row(rows.get(row_name, {}), row_overrides)
    return merged


def _kind(value: Any) -> str:
    """A TOML value's kind, as a type check of an override compares them (an integer may
    stand where the table has a float)."""
    from promptlint.core.findings import kind_of_value

    return kind_of_value(value, mapping="a table", sequence="a list")


def check_overrides(rows: Any) -> None:
    """Validate the config's ``providers`` table before anything reads it: a table of rows,
    each a table of known facts, each fact within what the cache models can run on
    (:data:`_DOMAINS`: ``min_cacheable_tokens = "many"``, ``block_size = 0`` or
    ``hit_probability = 2`` is refused here, not met as a division by zero deep in a
    simulation), model rules selected by lists of ids or prefixes, and a ``default_ttl`` that
    names one of its row's TTL classes. Raises ValueError with a one-line reason naming the key."""
    if not isinstance(rows, Mapping):
        raise ValueError("`providers` must be a table of provider rows")
    for row_name, row in rows.items():
        if not isinstance(row, Mapping):
            raise ValueError(f"`providers.{row_name}` must be a table, not {_kind(row)}")
        models = row.get("models", [])
        if not isinstance(models, list) or not all(isinstance(rule, Mapping) for rule in models):
            raise ValueError(f"`providers.{row_name}.models` must be a list of tables")
        _check_keys(row_name, row)
        for rule, where in _rules(row_name, row):
            for key, value in rule.items():
                if key in _RULE_SELECTORS:
                    if rule is not row and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
                        raise ValueError(f"`{where}.{key}` must be a list of strings, not {_kind(value)}")
                    continue
                if key in _SET_BY_RUN:
                    raise ValueError(f"`{where}.{key}` cannot be set: the row's name and the model are the run's")
                problem = _out_of_domain(key, value)
                if problem is not None:
                    raise ValueError(f"`{where}.{key}` must be {problem}, not {_shown(value)}")
    _check_ttl_classes(apply_overrides(bundled_table(), {"providers": rows}), rows)


def _rules(row_name: str, row: Mapping[str, Any]) -> list[tuple[Mapping[str, Any], str]]:
    """A row and each of its model rules, with the key path a message names it by."""
    return [(row, f"providers.{row_name}"),
            *((rule, f"providers.{row_name}.models[{i}]") for i, rule in enumerate(row.get("models", ())))]


# Facts the run sets, never the table: the row's name and the model.
_SET_BY_RUN = frozenset({"provider", "model"})
# What a config may set each fact to: (description, test). The cache models divide by block
# sizes, count breakpoints and look-back blocks, and draw with probabilities as given.
_WHOLE = "a whole number"
_DOMAINS: dict[str, tuple[str, Any]] = {
    **dict.fromkeys(
        ("granularity", "breakpoint_interval", "block_size", "page_size", "legacy_unit_tokens", "max_breakpoints",
         "max_writes_per_request", "lookback_blocks", "lookback_first_explicit", "lookback_latest_explicit",
         "lookback_earlier_eligible"),
        (f"{_WHOLE} of at least 1", lambda v: _is_whole(v) and v >= 1)),
    **dict.fromkeys(
        ("min_cacheable_tokens", "hidden_tokens", "routing_prefix_tokens", "overflow_requests_per_minute",
         "unit_interval_tokens"),
        (f"{_WHOLE} of at least 0", lambda v: _is_whole(v) and v >= 0)),
    **dict.fromkeys(
        ("read_multiplier", "write_multiplier", "write_1h_multiplier", "window_seconds", "visibility_delay_seconds"),
        ("a finite number of at least 0", lambda v: _is_number(v) and 0 <= v < math.inf)),
    "hit_probability": ("a number from 0 to 1", lambda v: _is_number(v) and 0 <= v <= 1),
    **dict.fromkeys(
        ("ttl_seconds", "optimistic_ttl_seconds", "max_lifetime_seconds"),
        ("a table of seconds (finite numbers above 0)",
         lambda v: isinstance(v, Mapping) and all(_is_number(s) and 0 < s < math.inf for s in v.values()))),
    "usage_fields": ("a table of strings", lambda v: isinstance(v, Mapping) and all(isinstance(s, str) for s in v.values())),
    **dict.fromkeys(("description", "source", "as_of", "default_ttl", "from_gpt_version"),
                    ("a string", lambda v: isinstance(v, str))),
    "simulator": ("the name of a cache model", lambda v: isinstance(v, str) and v in _simulator_names()),
    **dict.fromkeys(("legacy_units", "full_blocks_only", "cap_last_token"),
                    ("true or false", lambda v: isinstance(v, bool))),
    "notes": ("a list of strings", lambda v: isinstance(v, list) and all(isinstance(s, str) for s in v)),
}


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and value == value  # not NaN


def _simulator_names() -> frozenset[str]:
    from promptlint.providers.registry import simulator_names  # the registry reads this module

    return simulator_names()


def _out_of_domain(key: str, value: Any) -> str | None:
    """What ``value`` should be for the fact ``key`` (one the table may set; None: it may be that)."""
    description, allowed = _DOMAINS[key]
    if key == "simulator" and isinstance(value, str) and not allowed(value):
        return f"one of {', '.join(sorted(_simulator_names()))}"
    return None if allowed(value) else description


def _shown(value: Any) -> str:
    """A refused value as the message shows it: scalars as written, containers by kind."""
    return repr(value) if isinstance(value, str | int | float) else _kind(value)


def _check_ttl_classes(table: Mapping[str, Any], rows: Mapping[str, Any]) -> None:
    """A ``default_ttl`` (a row's, or a model rule's) names a TTL class of what it resolves
    to: the rule's ``ttl_seconds`` where it sets them, else the row's."""
    for row_name in rows:
        row = table["providers"][row_name]
        for rule, where in _rules(row_name, row):
            name = rule.get("default_ttl", row.get("default_ttl"))
            classes = rule.get("ttl_seconds", row.get("ttl_seconds", {}))
            if name is not None and name not in classes:
                known = ", ".join(sorted(classes)) or "none"
                raise ValueError(f"`{where}.default_ttl` names the TTL class {name!r}, which `ttl_seconds` does "
                                 f"not have (it has: {known})")


def _check_keys(row_name: str, row: Mapping[str, Any]) -> None:
    for key in row:
        if key not in _FIELD_NAMES and key not in _STRUCTURE_KEYS:
            raise ValueError(f"provider override {row_name!r}: unknown key {key!r}")
    for rule in row.get("models", ()):
        for key in rule:
            if key not in _FIELD_NAMES and key not in _RULE_SELECTORS:
                raise ValueError(f"provider override {row_name!r} model rule: unknown key {key!r}")


def _merge_row(row: Mapping[str, Any], row_overrides: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(row)
    for key, value in row_overrides.items():
        if key == "models":
            merged["models"] = [dict(rule) for rule in value] + list(row.get("models", []))
        elif isinstance(value, Mapping):
            merged[key] = _merge_mapping(row.get(key, {}), value)
        else:
            merged[key] = value
    return merged


def _merge_mapping(base: Any, extra: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base) if isinstance(base, Mapping) else {}
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge_mapping(merged[key], value)
        else:
            merged[key] = value
    return merged


def normalize_model(model: str) -> str:
    """A model id reduced for table lookup.

    Lower case; no ``vendor/`` prefix; no ``@version`` or date suffix (``-20250929``,
    ``-2024-08-06``); Claude ids with dotted versions (``claude-sonnet-4.5``) in dash form.
    """
    name = model.strip().lower().rsplit("/", 1)[-1].split("@", 1)[0]
    name = re.sub(r"-(\d{8}|\d{4}-\d{2}-\d{2})$", "", name)
    if name.startswith("claude"):
        name = re.sub(r"(\d)\.(\d)", r"\1-\2", name)
    return name


# Model-rule keys that date a model's life rather than describe its cache.
_LIFECYCLE = frozenset({"retired", "retires"})


def _matching_rule(rules: list[Mapping[str, Any]], model: str) -> Mapping[str, Any] | None:
    name = normalize_model(model)
    for rule in rules:
        if name in rule.get("models", ()):
            return rule
    best: Mapping[str, Any] | None = None
    best_length = -1
    for rule in rules:
        for prefix in rule.get("prefixes", ()):
            if name.startswith(prefix) and len(prefix) > best_length:
                best, best_length = rule, len(prefix)
    return best


def row_facts(row_name: str, model: str | None, table: Mapping[str, Any]) -> ProviderFacts:
    """Cache facts of the table row ``row_name``, resolved for ``model`` (optional).

    The model's rule (exact id after :func:`normalize_model`, else longest prefix) replaces
    the row's values; a model the table does not know keeps the row's fallbacks and gets a
    note saying so. Raises ValueError for an unknown key in the row. Which row models a
    provider and model is :func:`promptlint.providers.registry.resolve_row_name`'s answer.
    """
    row = dict(table["providers"][row_name])
    rules = row.pop("models", [])
    notes: list[str] = []
    if model is not None and rules:
        rule = _matching_rule(rules, model)
        minimum_is_per_model = any("min_cacheable_tokens" in r for r in rules)
        if rule is None and minimum_is_per_model:
            notes.append(
                f"{model!r} is not in the {row_name} model table; using the row's fallback "
                f"min_cacheable_tokens={row.get('min_cacheable_tokens')}"
            )
        if rule is not None:
            row.update({k: v for k, v in rule.items() if k not in _RULE_SELECTORS | _LIFECYCLE})
            if "retired" in rule:
                notes.append(f"{model} was retired on {rule['retired']}; its facts are kept so old logs replay")
            elif "retires" in rule:
                notes.append(f"{model} is deprecated and retires on {rule['retires']}")
    _check_keys(row_name, row)
    values: dict[str, Any] = {
        key: MappingProxyType(dict(value)) if key in _MAPPING_FIELDS else value
        for key, value in row.items()
    }
    values["notes"] = tuple(values.get("notes", ())) + tuple(notes)
    return ProviderFacts(provider=row_name, model=model, **values)


def price_data_releases() -> Mapping[str, str]:
    """Release dates (YYYY-MM-DD) of genai-prices versions, keyed by version, plus ``source``."""
    releases = bundled_table().get("price_data", {}).get("genai_prices_releases", {})
    return MappingProxyType(dict(releases))
