"""``probe --provider local``: the same contract as the provider APIs, through a real KV cache."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the local extra (torch) is not installed")
pytest.importorskip("transformers", reason="the local extra (transformers) is not installed")

DEMO = Path(__file__).resolve().parents[1] / "fixtures/agents/templates/system.j2"


def _probe(run_cli, *args: str) -> dict:
    result = run_cli("probe", str(DEMO), "--provider", "local", "--model", "tiny", "--format", "json", *args)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_local_probe_shows_the_fix_multiplying_reused_tokens_every_request_verified(run_cli):
    data = _probe(run_cli, "--block-size", "1", "--compare-fix", "--variants", "2")
    requests = data["requests"]
    assert [r["version"] for r in requests] == ["as-is"] * 3 + ["fixed"] * 3
    assert all(r["verified"] is True and r["max_logit_diff"] <= 1e-5 for r in requests)
    for r in requests:  # reused = the exact prefix the store must reuse, as predicted
        assert r["cached_tokens"] == r["predicted_cached_tokens"]
        assert r["cached_tokens"] + r["uncached_tokens"] == r["input_tokens"]
        assert r["recomputed_tokens"] == r["uncached_tokens"] and r["prefill_full_s"] is not None
    measured = {v: sum(r["cached_tokens"] for r in requests if r["version"] == v and not r["warmup"])
                for v in ("as-is", "fixed")}
    assert measured["fixed"] > 10 * measured["as-is"] > 0
    summary = data["summary"]
    assert summary["fixed"]["hit_rate"] > 0.9 > 0.1 > summary["as-is"]["hit_rate"]


def test_an_unpriced_comparison_says_the_cache_reads_not_a_zero_saving(run_cli):
    # The demo: nothing is priced on the local backend, and "the fixed version saves 0.0% of
    # the input cost" read as if the fix did nothing while its hit rate went 4% -> 95%.
    result = run_cli("probe", str(DEMO), "--provider", "local", "--model", "tiny", "--block-size", "1",
                     "--compare-fix", "--variants", "2")
    assert result.exit_code == 0, result.output
    assert "saves 0.0%" not in result.stdout
    line = next(line for line in result.stdout.splitlines() if line.startswith("the fixed version"))
    assert line.startswith("the fixed version reads 95.") and "as-is 4." in line and "no price is set" in line
    priced = run_cli("probe", str(DEMO), "--provider", "local", "--model", "tiny", "--compare-fix", "--variants", "1",
                     "--price-as", "openai:gpt-4.1")
    assert "the fixed version saves " in priced.stdout


def test_an_unpriced_html_report_draws_no_zero_cost_chart(run_cli, tmp_path):
    # Bars of $0.00 under a legend of predictions that drew nothing, "vllm is self-hosted"
    # under a run that used no vllm, and `--price-as` printed with its backticks.
    report = tmp_path / "report.html"
    result = run_cli("probe", str(DEMO), "--provider", "local", "--model", "tiny", "--compare-fix", "--variants", "1",
                     "--report", str(report))
    assert result.exit_code == 0, result.output
    page = report.read_text()
    assert "Nothing is priced on this run" in page and "prediction for the same requests" not in page
    assert "<code>--price-as PROVIDER:MODEL</code>" in page and "`" not in page
    assert "self-hosted" not in page and "self-hosted" not in result.stdout


def test_block_size_floors_the_reuse(run_cli):
    data = _probe(run_cli, "--block-size", "16", "--compare-fix", "--variants", "1")
    assert all(r["cached_tokens"] % 16 == 0 for r in data["requests"])


def test_price_as_prices_the_counts_as_a_providers_model(run_cli):
    data = _probe(run_cli, "--compare-fix", "--variants", "1", "--price-as", "openai:gpt-4.1")
    import genai_prices

    from promptlint.providers import price_data_releases

    assert data["prices_as_of"] == price_data_releases().get(genai_prices.__version__)
    assert data["summary"]["fixed"]["cost_per_1k_calls"] < data["summary"]["as-is"]["cost_per_1k_calls"]


def test_a_missing_local_extra_is_one_line_naming_the_install(run_cli, monkeypatch):
    import promptlint.probe.local as local

    def unavailable(*args, **kwargs):
        raise local.LocalBackendUnavailable("the local backend needs torch: pip install 'promptlint-cache[local]'")

    monkeypatch.setattr(local, "LocalBackend", unavailable)
    result = run_cli("probe", str(DEMO), "--provider", "local")
    assert result.exit_code == 2
    assert "pip install 'promptlint-cache[local]'" in result.stderr and "Traceback" not in result.output


def test_the_local_backend_says_what_it_would_cost_never_that_it_spent() -> None:
    from promptlint.reporters.probe_markdown import spend_line

    base = {"dry_run": False, "provider": "local", "requests": [{}] * 5, "planned_requests": 5,
            "estimate_usd": 0.01, "budget_usd": 1.0}
    priced = spend_line({**base, "spent_usd": 0.00458, "priced_as": "openai:gpt-4.1"})
    assert priced.startswith("would cost $0.004580 at openai:gpt-4.1 list price") and "spent" not in priced
    assert spend_line({**base, "spent_usd": 0.0, "priced_as": None}).startswith("nothing billed: 5 of 5 requests")
    remote = spend_line({**base, "provider": "openai", "spent_usd": 0.00458})
    assert remote.startswith("spent $0.004580 at list price")
