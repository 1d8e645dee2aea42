"""Provider cache-fact table: loading, model resolution, overrides (providers.toml)."""

from __future__ import annotations

import re

import pytest

from promptlint.providers import (
    KNOWN_PROVIDERS,
    apply_overrides,
    facts,
    known_providers,
    load_table,
    normalize_model,
    resolve_row_name,
)

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def test_known_providers_are_the_eight_public_names() -> None:
    assert known_providers() == (
        "openai",
        "anthropic",
        "gemini",
        "deepseek",
        "vllm",
        "sglang",
        "xai",
        "fireworks",
    )


def test_every_row_and_model_rule_is_sourced_and_dated() -> None:
    rows = load_table()["providers"]
    assert set(rows) == {
        "openai",
        "openai-5.6",
        "anthropic",
        "gemini-implicit",
        "gemini-explicit",
        "deepseek",
        "vllm",
        "sglang",
        "xai",
        "fireworks",
    }
    for name, row in rows.items():
        assert row["source"].startswith("https://"), name
        assert DATE.match(row["as_of"]), name
        for rule in row.get("models", []):
            assert rule["source"].startswith("https://"), (name, rule)
            assert DATE.match(rule["as_of"]), (name, rule)


def test_every_known_provider_resolves_to_a_simulator() -> None:
    simulators = {facts(name).simulator for name in KNOWN_PROVIDERS}
    assert simulators == {"openai", "anthropic", "gemini-implicit", "deepseek", "vllm", "sglang"}


@pytest.mark.parametrize(
    ("model", "minimum"),
    [
        ("claude-sonnet-4-5-20250929", 1024),
        ("claude-sonnet-5", 1024),
        ("claude-sonnet-4.6", 1024),  # dotted form
        ("anthropic/claude-opus-4-1", 1024),
        ("claude-sonnet-4-5@20250929", 1024),  # Vertex form
        ("claude-opus-5", 512),
        ("claude-mythos-5", 512),
        ("claude-opus-4-7", 2048),
        ("claude-3-5-haiku-20241022", 2048),
        ("claude-haiku-4-5", 4096),
        ("claude-opus-4-5-20251101", 4096),
    ],
)
def test_anthropic_minimum_per_model(model: str, minimum: int) -> None:
    resolved = facts("anthropic", model)
    assert resolved.min_cacheable_tokens == minimum
    # The model is in the table (no fallback note); retired ones say so (issue 9, item 19).
    assert [n for n in resolved.notes if "retire" not in n] == []


def test_retired_models_keep_their_facts_and_say_so() -> None:
    retired = facts("anthropic", "claude-sonnet-4-5-20250929")
    assert retired.min_cacheable_tokens == 1024
    assert retired.notes == (
        "claude-sonnet-4-5-20250929 was retired on 2026-11-30; its facts are kept so old logs replay",)
    assert facts("anthropic", "claude-opus-4-5").notes == ("claude-opus-4-5 is deprecated and retires on 2027-01-22",)
    assert facts("anthropic", "claude-sonnet-5").notes == ()


def test_the_default_anthropic_model_is_a_current_one() -> None:
    from promptlint.providers.cost import resolve_model

    model, _ = resolve_model("anthropic", None)
    assert model == "claude-sonnet-5" and facts("anthropic", model).notes == ()


def test_anthropic_fixed_facts() -> None:
    anthropic = facts("anthropic", "claude-sonnet-5")
    assert (anthropic.max_breakpoints, anthropic.lookback_blocks) == (4, 20)
    assert (
        anthropic.read_multiplier,
        anthropic.write_multiplier,
        anthropic.write_1h_multiplier,
    ) == (0.1, 1.25, 2.0)
    assert (anthropic.ttl("5m"), anthropic.ttl("1h"), anthropic.ttl()) == (300, 3600, 300)
    assert anthropic.usage_fields["write_1h"] == "usage.cache_creation.ephemeral_1h_input_tokens"
    with pytest.raises(ValueError, match="unknown TTL class"):
        anthropic.ttl("24h")


def test_unknown_anthropic_model_gets_the_fallback_and_a_note() -> None:
    unknown = facts("anthropic", "claude-sonnet-5-5")  # not in the 2026-08-13 table
    assert unknown.min_cacheable_tokens == 1024
    assert len(unknown.notes) == 1 and "claude-sonnet-5-5" in unknown.notes[0]


@pytest.mark.parametrize(
    ("model", "row"),
    [
        ("gpt-4o", "openai"),
        ("gpt-4o-2024-08-06", "openai"),
        ("gpt-5.5-pro", "openai"),
        ("o3", "openai"),
        ("gpt-5.6-terra", "openai-5.6"),
        ("gpt-5.6", "openai-5.6"),
        ("gpt-6", "openai-5.6"),
        ("gpt-6.1-sol", "openai-5.6"),
    ],
)
def test_openai_model_generation_picks_the_row(model: str, row: str) -> None:
    assert facts("openai", model).provider == row


def test_openai_rows_hold_the_documented_numbers() -> None:
    gpt_4o = facts("openai", "gpt-4o")
    assert (gpt_4o.min_cacheable_tokens, gpt_4o.granularity, gpt_4o.breakpoint_interval) == (
        2048,
        128,
        128,
    )
    assert (gpt_4o.routing_prefix_tokens, gpt_4o.overflow_requests_per_minute) == (256, 15)
    assert (gpt_4o.default_ttl, gpt_4o.ttl(), gpt_4o.ttl("in_memory", optimistic=True)) == (
        "in_memory",
        300,
        600,
    )
    assert gpt_4o.max_lifetime_seconds["in_memory"] == 3600
    gpt_55 = facts("openai", "gpt-5.5")
    assert (gpt_55.breakpoint_interval, gpt_55.default_ttl) == (2048, "24h")
    assert facts("openai", "gpt-4.1").default_ttl == "24h"
    terra = facts("openai", "gpt-5.6-terra")
    assert (
        terra.min_cacheable_tokens,
        terra.granularity,
        terra.write_multiplier,
        terra.read_multiplier,
        terra.max_writes_per_request,
        terra.ttl(),
    ) == (1024, 1, 1.25, 0.1, 4, 1800)
    assert (
        terra.lookback_first_explicit,
        terra.lookback_latest_explicit,
        terra.lookback_earlier_eligible,
    ) == (2, 50, 20)
    assert facts("openai", "gpt-6.1-sol").read_multiplier == 0.05


@pytest.mark.parametrize(
    ("model", "minimum"),
    [
        ("gemini-2.5-flash", 2048),
        ("gemini-2.5-pro", 2048),
        ("gemini-3.5-flash", 4096),
        ("gemini-3.1-pro-preview", 4096),
    ],
)
def test_gemini_minimum_per_model(model: str, minimum: int) -> None:
    implicit = facts("gemini", model)
    assert (implicit.provider, implicit.min_cacheable_tokens) == ("gemini-implicit", minimum)
    assert implicit.hit_probability == 0.3
    assert facts("gemini-explicit", model).min_cacheable_tokens == minimum


def test_self_hosted_and_approximated_rows() -> None:
    vllm = facts("vllm")
    assert (vllm.block_size, vllm.full_blocks_only, vllm.cap_last_token) == (16, True, True)
    sglang = facts("sglang")
    assert (sglang.page_size, sglang.cap_last_token) == (1, True)
    deepseek = facts("deepseek")
    assert (deepseek.legacy_units, deepseek.legacy_unit_tokens, deepseek.ttl()) == (
        False,
        64,
        21600,
    )
    assert (facts("xai").simulator, facts("xai").granularity) == ("openai", 128)
    assert (facts("fireworks").simulator, facts("fireworks").granularity) == ("openai", 1)


def test_unknown_provider_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match="unknown provider 'mistral'.*openai, anthropic, gemini"):
        facts("mistral")


def test_overrides_replace_values_and_prepend_model_rules() -> None:
    overrides = {
        "anthropic": {
            "min_cacheable_tokens": 3000,
            "ttl_seconds": {"5m": 360},
            "models": [
                {
                    "models": ["claude-sonnet-4-6"],
                    "min_cacheable_tokens": 2048,
                    "source": "https://github.com/anthropics/anthropic-sdk-python/issues/1194",
                    "as_of": "2026-08-01",
                }
            ],
        }
    }
    sonnet_46 = facts("anthropic", "claude-sonnet-4-6", overrides)
    assert sonnet_46.min_cacheable_tokens == 2048  # the user rule beats the table's 1,024
    assert sonnet_46.as_of == "2026-08-01"
    assert (sonnet_46.ttl("5m"), sonnet_46.ttl("1h")) == (360, 3600)  # merged, not replaced
    assert facts("anthropic", "claude-sonnet-5", overrides).min_cacheable_tokens == 1024
    assert facts("anthropic", "claude-new", overrides).min_cacheable_tokens == 3000
    # The bundled table is untouched.
    assert facts("anthropic", "claude-sonnet-4-6").min_cacheable_tokens == 1024


def test_overrides_reject_unknown_keys() -> None:
    with pytest.raises(ValueError, match="unknown key 'min_tokens'"):
        facts("openai", "gpt-4o", {"openai": {"min_tokens": 1024}})


def test_apply_overrides_is_pure() -> None:
    table = {"providers": {"vllm": {"block_size": 16, "models": [{"prefixes": ["a"]}]}}}
    merged = apply_overrides(table, {"providers": {"vllm": {"block_size": 32}}})
    assert merged["providers"]["vllm"]["block_size"] == 32
    assert table["providers"]["vllm"]["block_size"] == 16


def test_normalize_model_and_row_resolution() -> None:
    assert normalize_model("Anthropic/Claude-Sonnet-4.5-20250929") == "claude-sonnet-4-5"
    assert normalize_model("gpt-4o-2024-08-06") == "gpt-4o"
    assert normalize_model("gpt-5.1-chat-latest") == "gpt-5.1-chat-latest"
    assert resolve_row_name("Gemini", None, load_table()) == "gemini-implicit"
    assert resolve_row_name("openai", None, load_table()) == "openai"


# Values of every TOML kind, and the edges of numbers a cache model divides or counts by.
_EDGE_VALUES = [0, -1, 1, 2, 0.5, -0.5, 1e308, float("nan"), float("inf"), 2**63 - 1, True, "x", "", "5m", [],
                [1], ["a"], {}, {"a": 1}, {"a": "b"}, {"5m": -1}, {"5m": float("nan")}, {"5m": 0}, {"5m": "x"}]
# A row of each cache model a config can name (the provider that runs it).
_ROW_OF = {"openai": "openai", "anthropic": "anthropic", "vllm": "vllm", "gemini": "gemini-implicit"}


def _overrides_of(row: str, key: str, value: object, in_rule: bool) -> dict[str, object]:
    return {row: {"models": [{"prefixes": [""], key: value}]}} if in_rule else {row: {key: value}}


def test_every_fact_override_is_refused_in_one_line_or_runs_in_every_cache_model() -> None:
    """Each fact, in a row and in a model rule, set to each kind of value: the config reader
    refuses it in one line naming the key, or a check runs its cache model on it (the cost line).
    On 618a6d2, 343 of these were accepted and then raised where the cost line is computed (an
    internal error of the CLI): `model`/`provider` (TypeError in ProviderFacts), `notes = 0`,
    `block_size = 0`/`-1`/`0.5`, `lookback_blocks = 0.5`, `simulator = "x"`, `default_ttl = "x"`,
    `max_breakpoints = 0`, `hit_probability = nan`, `ttl_seconds = {"5m" = "x"}`."""
    from promptlint.core.analysis import analyze
    from promptlint.loaders import load_text
    from promptlint.providers import cost, table

    prompt = "You are Atlas.\nCurrent time: {{ now }}\n" + "Answer in plain words and cite the policy.\n" * 300
    analysis = analyze(load_text("p.j2", prompt))  # what the check gives the cost line
    accepted = refused = 0
    for provider, row in _ROW_OF.items():
        for key in sorted(table._FIELD_NAMES):
            for value in _EDGE_VALUES:
                for in_rule in (False, True):
                    rows = _overrides_of(row, key, value, in_rule)
                    try:
                        table.check_overrides(rows)
                    except ValueError as exc:
                        refused += 1
                        assert "\n" not in str(exc) and (key in str(exc) or "TTL class" in str(exc)), str(exc)
                        continue
                    accepted += 1
                    assert cost.compute(analysis, provider, None, provider_overrides=rows)["summary"], rows
    assert accepted > 300 and refused > 1500, (accepted, refused)


@pytest.mark.parametrize(
    ("rows", "said"),
    [
        ({"openai": {"models": 3}}, "`providers.openai.models` must be a list of tables"),
        ({"openai": {"models": [{"models": 3}]}}, "`providers.openai.models[0].models` must be a list of strings"),
        ({"openai": {"models": [{"prefixes": "gpt"}]}}, "`providers.openai.models[0].prefixes` must be a list of strings"),
        ({"anthropic": {"models": [{"models": ["claude-x"], "default_ttl": "2h"}]}},
         "`providers.anthropic.models[0].default_ttl` names the TTL class '2h'"),
    ],
)
def test_model_rules_are_checked_as_the_table_reads_them(rows: dict[str, object], said: str) -> None:
    """A rule list, a rule's selectors and a rule's TTL class are what row_facts reads:
    `models = 3` was iterated before it was checked (TypeError), `models = [{models = 3}]`
    reached `in` (TypeError)."""
    from promptlint.providers.table import check_overrides

    with pytest.raises(ValueError) as refused:
        check_overrides(rows)
    assert str(refused.value).startswith(said)
