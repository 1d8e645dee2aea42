"""check --provider: the cache object (cached tokens and cost, now and after the fix)."""

from __future__ import annotations

import json
from pathlib import Path

import genai_prices

from promptlint.providers import cost as cachecost
from promptlint.providers import price_data_releases
from promptlint.core.analysis import analyze
from promptlint.loaders import load_file

REPO = Path(__file__).resolve().parents[1]
BODY = REPO / "fixtures/requests/anthropic_timestamp.json"
TEMPLATE = REPO / "fixtures/agents/templates/system.j2"
KEYS = {"provider", "model", "cached_tokens_per_call", "cached_tokens_per_call_fixed", "cost_per_1k_calls",
        "cost_per_1k_calls_fixed", "currency", "prices_as_of"}


def test_anthropic_body_reports_the_timestamp_and_the_cache_gain(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--provider", "anthropic", "--model", "claude-sonnet-4-5", "--format", "json", str(BODY))
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert any(f["rule"] == "PC201" and f["kind"] == "timestamp" for f in data["findings"])
    cache = data["files"][0]["cache"]
    assert KEYS <= set(cache)
    assert cache["provider"] == "anthropic" and cache["model"] == "claude-sonnet-4-5"
    assert cache["cached_tokens_per_call"] == 0
    assert cache["cached_tokens_per_call_fixed"] > 1000
    assert cache["cost_per_1k_calls_fixed"] < cache["cost_per_1k_calls"]
    # The release date of the installed genai-prices (None for a release providers.toml does not list).
    assert cache["currency"] == "USD" and cache["prices_as_of"] == price_data_releases().get(genai_prices.__version__)
    assert any("≈" in note for note in cache["notes"])


def test_template_with_openai_gets_a_cache_object(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--provider", "openai", "--format", "json", "--exit-zero", str(TEMPLATE))
    assert result.exit_code == 0, result.output
    cache = json.loads(result.stdout)["files"][0]["cache"]
    assert KEYS <= set(cache)
    assert cache["cached_tokens_per_call_fixed"] >= cache["cached_tokens_per_call"]
    assert cache["cost_per_1k_calls_fixed"] <= cache["cost_per_1k_calls"]


def test_text_output_prints_the_summary(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--provider", "anthropic", "--no-frames", str(BODY))
    assert "tokens cached per call now" in result.stdout and "per 1,000 calls" in result.stdout


def test_without_provider_there_is_no_cache_object(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", "--exit-zero", str(TEMPLATE))
    assert "cache" not in json.loads(result.stdout)["files"][0]


def test_unknown_provider_exits_2_with_one_line(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--provider", "acme", str(TEMPLATE))
    assert result.exit_code == 2
    assert len(result.output.strip().splitlines()) == 1


def test_provider_from_config(run_cli, write) -> None:  # type: ignore[no-untyped-def]
    write("promptlint.toml", 'provider = "vllm"\n')
    prompt = write("p.md", "You are terse.\n" * 50)
    result = run_cli("check", "--format", "json", str(prompt))
    cache = json.loads(result.stdout)["files"][0]["cache"]
    assert cache["provider"] == "vllm" and cache["cost_per_1k_calls"] == 0.0


def test_price_lookup_failure_gives_null_costs_and_a_note() -> None:
    analysis = analyze(load_file(str(TEMPLATE)))
    cache = cachecost.compute(analysis, "openai", "gpt-0-unknown-model")
    assert cache["cost_per_1k_calls"] is None and cache["cost_per_1k_calls_fixed"] is None
    assert any(note.startswith("no price") for note in cache["notes"])


def test_fixed_layout_caches_more_on_a_self_hosted_engine() -> None:
    analysis = analyze(load_file(str(TEMPLATE)))
    cache = cachecost.compute(analysis, "vllm")
    assert cache["cached_tokens_per_call_fixed"] > cache["cached_tokens_per_call"]
