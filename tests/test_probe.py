"""``promptlint probe`` (issue 11) against the fake provider, through the real SDK clients.

Every request goes to 127.0.0.1. The fake server bills from the project's cache simulators
with the minimum cacheable prefix lowered to 256 tokens (the demo template is 470 tokens,
under every real minimum), and the probe reads the same rule from a config file, so its
prediction and the server's bill follow one rule.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from http import HTTPStatus
from pathlib import Path
from typing import Any

import pytest
from support.fake_provider import FakeProvider
from support.fixtures import (
    DEMO,
    REPO,
    TEST_KEY,
    MakeServer,
    make_fake_provider,
    provider_environment,
)
from support.serve_fake_provider import config_text, overrides

from promptlint.probe import models

__all__ = ["make_fake_provider", "provider_environment"]

pytestmark = pytest.mark.usefixtures("provider_environment")  # every test runs in it


@pytest.fixture
def config(tmp_path: Path) -> str:
    path = tmp_path / "promptlint.toml"
    path.write_text(config_text(256), encoding="utf-8")
    return str(path)


@pytest.fixture
def server(make_fake_provider: MakeServer) -> FakeProvider:
    return make_fake_provider(facts_overrides=overrides(256))


def no_key(*texts: str) -> None:
    """Neither the key nor its tail appears anywhere."""
    for text in texts:
        assert TEST_KEY not in text
        assert TEST_KEY[-6:] not in text


def base(server: FakeProvider, provider: str) -> str:
    return server.openai_base_url if provider == "openai" else server.anthropic_base_url


def probe(run_cli: Callable[..., Any], server: FakeProvider | None, provider: str, *args: str,
          path: str = DEMO) -> Any:
    extra = ["--base-url", base(server, provider)] if server is not None else []
    result = run_cli("probe", path, "--provider", provider, *extra, "--timeout", "2", "--max-retries", "0", *args)
    no_key(result.stdout, result.stderr)
    return result


def probe_json(run_cli: Callable[..., Any], server: FakeProvider, provider: str, *args: str,
               path: str = DEMO) -> dict[str, Any]:
    result = probe(run_cli, server, provider, "--format", "json", *args, path=path)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def assert_counts_are_the_bill(data: dict[str, Any], server: FakeProvider) -> None:
    bills = server.bills
    assert len(data["requests"]) == len(bills) == len(server.requests)
    for row, bill in zip(data["requests"], bills, strict=True):
        assert (row["input_tokens"], row["cached_tokens"], row["cache_write_tokens"], row["uncached_tokens"]) == (
            bill.input_tokens, bill.cached_tokens, bill.cache_write_tokens, bill.uncached_tokens)
        assert row["output_tokens"] == bill.output_tokens
        assert row["cache_write_1h_tokens"] == bill.cache_write_1h_tokens


# ------------------------------------------------------------------------------------------
# Measured hits equal what the server billed; the fix raises them


def test_openai_chat_compare_fix_counts_are_what_the_server_billed(
        run_cli: Callable[..., Any], server: FakeProvider, config: str) -> None:
    data = probe_json(run_cli, server, "openai", "--compare-fix", "--config", config)
    assert_counts_are_the_bill(data, server)
    assert [r["version"] for r in data["requests"]] == ["as-is"] * 5 + ["fixed"] * 5
    assert [r["warmup"] for r in data["requests"]] == [True, False, False, False, False] * 2
    summary = data["summary"]
    assert summary["as-is"]["requests"] == summary["fixed"]["requests"] == 4
    assert summary["as-is"]["hit_rate"] == 0.0
    assert summary["fixed"]["hit_rate"] > 0.75
    for version in ("as-is", "fixed"):
        assert summary[version]["hit_rate"] == summary[version]["predicted_hit_rate"]
        assert summary[version]["agrees"] is True
    assert [r["predicted_cached_tokens"] for r in data["requests"]] == [b.cached_tokens for b in server.bills]
    assert data["provider"] == "openai" and data["api"] == "chat" and data["model"] == "gpt-4.1-mini"
    assert data["base_url"] == server.openai_base_url and data["prices_as_of"]
    bodies = [r.body for r in server.requests]
    keys = [b["prompt_cache_key"] for b in bodies]
    assert len(set(keys[:5])) == len(set(keys[5:])) == 1 and keys[0] != keys[5]
    assert all(b["max_tokens"] == 1 and b["messages"][0]["role"] == "system" for b in bodies)
    # Volatile parts differ between variants, stable parts do not.
    systems = [b["messages"][0]["content"] for b in bodies]
    assert len(set(systems[:5])) == 5 and len(set(systems[5:])) == 5
    assert len({s.split("The current time is")[0] for s in systems[:5]}) == 1


def test_openai_responses_asks_for_sixteen_output_tokens(
        run_cli: Callable[..., Any], server: FakeProvider, config: str) -> None:
    data = probe_json(run_cli, server, "openai", "--api", "responses", "--compare-fix", "--config", config)
    assert_counts_are_the_bill(data, server)
    assert data["api"] == "responses"
    body = server.requests[0].body
    assert body["max_output_tokens"] == 16 and body["instructions"] and body["store"] is False
    assert data["summary"]["fixed"]["hit_rate"] > 0.75 > data["summary"]["as-is"]["hit_rate"]
    assert any("16" in note for note in data["notes"])


def test_anthropic_compare_fix_splits_the_system_prompt_at_the_stable_prefix(
        run_cli: Callable[..., Any], server: FakeProvider, config: str) -> None:
    data = probe_json(run_cli, server, "anthropic", "--compare-fix", "--config", config)
    assert_counts_are_the_bill(data, server)
    fixed_body = server.requests[5].body
    stable, volatile = fixed_body["system"]
    assert stable["cache_control"] == {"type": "ephemeral"} and "cache_control" not in volatile
    assert stable["text"].endswith("The current time is ") and volatile["text"].startswith("14:03:27; use it")
    assert fixed_body["max_tokens"] == 1
    rows = data["requests"]
    assert rows[5]["cache_write_tokens"] > 0 and rows[5]["cached_tokens"] == 0  # the warm-up writes
    assert all(r["cached_tokens"] == rows[5]["cache_write_tokens"] for r in rows[6:])
    assert data["summary"]["as-is"]["hit_rate"] == 0.0
    assert data["summary"]["fixed"]["hit_rate"] > 0.9
    assert data["summary"]["fixed"]["agrees"] is True
    assert data["api"] == "messages" and data["model"] == "claude-sonnet-5"


def test_anthropic_one_hour_ttl_and_the_automatic_marker(
        run_cli: Callable[..., Any], server: FakeProvider, config: str) -> None:
    data = probe_json(run_cli, server, "anthropic", "--compare-fix", "--ttl", "1h", "--config", config)
    assert_counts_are_the_bill(data, server)
    assert server.requests[5].body["system"][0]["cache_control"] == {"type": "ephemeral", "ttl": "1h"}
    assert data["requests"][5]["cache_write_1h_tokens"] == data["requests"][5]["cache_write_tokens"] > 0
    server.reset()
    data = probe_json(run_cli, server, "anthropic", "--compare-fix", "--breakpoint", "auto", "--config", config)
    assert_counts_are_the_bill(data, server)
    body = server.requests[0].body
    assert body["cache_control"] == {"type": "ephemeral"}
    assert all("cache_control" not in block for block in body["system"])
    # The automatic marker sits on the last block, after the changing tail: it never reads.
    assert data["summary"]["fixed"]["hit_rate"] == data["summary"]["fixed"]["predicted_hit_rate"] == 0.0


# ------------------------------------------------------------------------------------------
# Cost math


def test_costs_are_list_prices_of_the_billed_counts(
        run_cli: Callable[..., Any], server: FakeProvider, config: str, tmp_path: Path) -> None:
    data = probe_json(run_cli, server, "anthropic", "--compare-fix", "--config", config, "--calls-per-day", "5000")
    prices = models.prices("anthropic", "claude-sonnet-5")
    costs = []
    for row, bill in zip(data["requests"], server.bills, strict=True):
        expected = (bill.cached_tokens * prices.cache_read + (bill.cache_write_tokens - bill.cache_write_1h_tokens)
                    * prices.cache_write + bill.uncached_tokens * prices.input + bill.output_tokens * prices.output)
        assert row["cost_usd"] == pytest.approx(expected, abs=1e-8)
        costs.append(expected)
    assert data["spent_usd"] == pytest.approx(sum(costs), abs=1e-7)
    per_1k = {}
    for version, rows in (("as-is", server.bills[1:5]), ("fixed", server.bills[6:10])):
        inputs = [b.cached_tokens * prices.cache_read + b.cache_write_tokens * prices.cache_write
                  + b.uncached_tokens * prices.input for b in rows]
        per_1k[version] = 1000 * sum(inputs) / len(inputs)
        assert data["summary"][version]["cost_per_1k_calls"] == pytest.approx(per_1k[version], abs=1e-4)
        assert data["summary"][version]["hit_rate"] == pytest.approx(
            sum(b.cached_tokens for b in rows) / sum(b.input_tokens for b in rows), abs=1e-4)
    saving = data["summary"]["saving"]
    diff = per_1k["as-is"] - per_1k["fixed"]
    assert saving["cost_per_1k_calls"] == pytest.approx(diff, abs=1e-4)
    assert saving["percent"] == pytest.approx(100 * diff / per_1k["as-is"], abs=0.1)
    assert saving["usd_per_month"] == pytest.approx(diff / 1000 * 5000 * 30, abs=0.01)
    assert saving["calls_per_day"] == 5000 and saving["basis"] == "measured"
    assert data["estimate_usd"] >= data["spent_usd"]


# ------------------------------------------------------------------------------------------
# Spending safety


def test_dry_run_sends_nothing_and_prints_the_estimate(run_cli: Callable[..., Any], server: FakeProvider) -> None:
    result = probe(run_cli, server, "openai", "--compare-fix", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert server.requests == []
    assert "nothing was" in result.stdout and "estimated at most $" in result.stdout
    data = json.loads(probe(run_cli, server, "openai", "--compare-fix", "--dry-run", "--format", "json").stdout)
    assert server.requests == []
    prices = models.prices("openai", "gpt-4.1-mini")
    tokens = sum(r["predicted_input_tokens"] for r in data["requests"])
    assert data["dry_run"] is True and data["spent_usd"] is None and len(data["requests"]) == 10
    assert data["estimate_usd"] == pytest.approx(tokens * prices.input + 10 * prices.output, rel=1e-6)


def test_dry_run_needs_no_key(run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    result = probe(run_cli, None, "openai", "--dry-run")
    assert result.exit_code == 0 and "dry run" in result.stdout


def test_budget_refuses_before_the_first_request(run_cli: Callable[..., Any], server: FakeProvider) -> None:
    result = probe(run_cli, server, "anthropic", "--compare-fix", "--budget", "0.001")
    assert result.exit_code == 2
    assert "budget" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "exceeds the budget $0.0010;" in result.stderr  # not "$0.00", below the estimate it refuses
    assert server.requests == []


def test_a_refused_budget_names_what_makes_the_estimate(run_cli: Callable[..., Any], server: FakeProvider) -> None:
    # An estimate that is mostly output tokens: fewer variants would hardly lower it.
    result = probe(run_cli, server, "openai", "--max-output-tokens", "100000000")
    assert result.exit_code == 2 and "lower --max-output-tokens (100,000,000 per request" in result.stderr
    # A budget under $0.0001 is said as given, not as "$0.0000".
    tiny = probe(run_cli, server, "openai", "--budget", "0.000001")
    assert tiny.exit_code == 2 and "exceeds the budget $0.000001;" in tiny.stderr
    assert "--max-output-tokens" not in tiny.stderr and server.requests == []


@pytest.mark.parametrize(("provider", "variable"), [("openai", "OPENAI_API_KEY"),
                                                    ("anthropic", "ANTHROPIC_API_KEY")])
def test_a_missing_key_is_one_line_naming_the_variable(
        run_cli: Callable[..., Any], server: FakeProvider, monkeypatch: pytest.MonkeyPatch,
        provider: str, variable: str) -> None:
    monkeypatch.delenv(variable)
    result = probe(run_cli, server, provider)
    assert result.exit_code == 2
    assert variable in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert server.requests == []


# ------------------------------------------------------------------------------------------
# Errors: one line, exit 2, never the key

ERRORS = [
    ("forbidden", "403"),
    ("not_found", "404"),
    ("rate_limit", "429 rate limited after 1 retry"),
    ("server_error", "500 server error after 1 retry"),
    ("unavailable", "503 server error after 1 retry"),
    ("drop", "connection refused or dropped"),
    # Named by their status, not all "bad request" (a 413 from Anthropic, a 422 from a
    # validating OpenAI-compatible server)
    ("too_large", f"413 {HTTPStatus(413).phrase.lower()}: "),
    ("unprocessable", f"422 {HTTPStatus(422).phrase.lower()}: "),
]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("fault", "said"), ERRORS)
def test_provider_errors_are_one_line_after_the_sdk_retries(
        run_cli: Callable[..., Any], server: FakeProvider, provider: str, fault: str, said: str) -> None:
    server.fail(fault, retry_after=0)
    result = run_cli("probe", DEMO, "--provider", provider, "--base-url", base(server, provider),
                     "--timeout", "2", "--max-retries", "1")
    no_key(result.stdout, result.stderr)
    assert result.exit_code == 2
    line = result.stderr.strip().splitlines()[-1]
    assert said in line and line.startswith("error: request 1 of 5")
    retried = fault in ("rate_limit", "server_error", "unavailable", "drop")
    assert len(server.requests) == (2 if retried else 1)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_wrong_key_is_401_without_the_key(run_cli: Callable[..., Any], make_fake_provider: MakeServer,
                                           provider: str) -> None:
    server = make_fake_provider(api_key="sk-the-other-key-9876543210")
    result = probe(run_cli, server, provider)
    assert result.exit_code == 2 and "401 unauthorized" in result.stderr
    assert "9876543210" not in result.output


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_unknown_model_is_404(run_cli: Callable[..., Any], make_fake_provider: MakeServer, provider: str) -> None:
    server = make_fake_provider(known_models={"gpt-4.1-mini", "claude-sonnet-5"})
    result = probe(run_cli, server, provider, "--model", "nope-1")
    assert result.exit_code == 2 and "404 not found: unknown model 'nope-1'" in result.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_hanging_server_times_out(run_cli: Callable[..., Any], make_fake_provider: MakeServer,
                                    provider: str) -> None:
    server = make_fake_provider(hang_seconds=3)
    server.fail("hang")
    result = run_cli("probe", DEMO, "--provider", provider, "--base-url", base(server, provider),
                     "--timeout", "0.3", "--max-retries", "0")
    assert result.exit_code == 2 and "no response within 0.3 s" in result.stderr


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_a_refused_connection(run_cli: Callable[..., Any], make_fake_provider: MakeServer, provider: str) -> None:
    server = make_fake_provider()
    url = base(server, provider)
    server.stop()
    result = run_cli("probe", DEMO, "--provider", provider, "--base-url", url, "--timeout", "1",
                     "--max-retries", "0")
    assert result.exit_code == 2 and f"cannot reach {url}" in result.stderr


def test_a_late_failure_keeps_what_was_measured(run_cli: Callable[..., Any], server: FakeProvider,
                                                config: str, tmp_path: Path) -> None:
    server.fail("server_error", start=4)
    reports = [tmp_path / name for name in ("r.json", "r.md", "r.html")]
    for report in reports:
        server.reset()
        server.fail("server_error", start=4)
        result = probe(run_cli, server, "openai", "--compare-fix", "--config", config, "--report", str(report))
        assert result.exit_code == 2
        assert "request 4 of 10" in result.stderr.strip().splitlines()[-1]
        assert "as-is" in result.stdout and "spent $" in result.stdout  # the table was printed
    data = json.loads(reports[0].read_text(encoding="utf-8"))
    assert len(data["requests"]) == 3 and data["error"].startswith("request 4 of 10")
    assert [r["input_tokens"] for r in data["requests"]] == [b.input_tokens for b in server.bills]
    assert "The run stopped" in reports[1].read_text(encoding="utf-8")
    assert "The run stopped" in reports[2].read_text(encoding="utf-8")


def test_no_output_or_report_holds_the_key(run_cli: Callable[..., Any], server: FakeProvider, config: str,
                                           tmp_path: Path) -> None:
    texts = []
    for provider in ("openai", "anthropic"):
        for suffix in ("json", "md", "html"):
            report = tmp_path / f"{provider}.{suffix}"
            result = probe(run_cli, server, provider, "--compare-fix", "--config", config, "--report", str(report))
            texts += [result.stdout, result.stderr, report.read_text(encoding="utf-8")]
        server.fail("unauthorized", times=1)
        texts.append(probe(run_cli, server, provider).output)
        server.fail("forbidden", times=1, message=f"key {TEST_KEY} is not allowed")
        texts.append(probe(run_cli, server, provider).output)
    no_key(*texts)
    assert any("403 forbidden" in t for t in texts)


# ------------------------------------------------------------------------------------------
# OpenAI-compatible servers


def test_a_server_without_prompt_tokens_details_counts_zero(
        run_cli: Callable[..., Any], make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(chat_dialect="no-details")
    data = probe_json(run_cli, server, "openai", "--compatible", "vllm", "--model", "qwen3-8b", "--compare-fix")
    assert all(r["cached_tokens"] == 0 and r["cached_field_missing"] for r in data["requests"])
    fixed = data["summary"]["fixed"]
    assert fixed["hit_rate"] == 0.0 < fixed["predicted_hit_rate"] and fixed["agrees"] is False
    assert any("--enable-prompt-tokens-details" in why for why in fixed["explanation"])
    assert "prompt_cache_key" not in server.requests[0].body
    assert data["cache_model"] == "vllm"


def test_vllm_and_deepseek_report_what_they_billed(run_cli: Callable[..., Any], make_fake_provider: MakeServer) -> None:
    for dialect, compatible in (("vllm", "vllm"), ("deepseek", "deepseek")):
        server = make_fake_provider(chat_dialect=dialect)
        data = probe_json(run_cli, server, "openai", "--compatible", compatible, "--model", "deepseek-chat",
                          "--compare-fix")
        assert [r["cached_tokens"] for r in data["requests"]] == [b.cached_tokens for b in server.bills]
        assert data["summary"]["fixed"]["hit_rate"] > 0.5 > data["summary"]["as-is"]["hit_rate"]
        assert data["summary"]["fixed"]["agrees"] is True


def test_a_disagreement_with_the_table_is_explained(run_cli: Callable[..., Any], server: FakeProvider) -> None:
    # The server caches from 256 tokens; promptlint's table says 2,048 for gpt-4.1-mini.
    data = probe_json(run_cli, server, "openai", "--compare-fix")
    fixed = data["summary"]["fixed"]
    assert fixed["hit_rate"] > 0.75 and fixed["predicted_hit_rate"] == 0.0 and fixed["agrees"] is False
    assert any("min_cacheable_tokens" in why and "2,048" in why for why in fixed["explanation"])


# ------------------------------------------------------------------------------------------
# Inputs: --vars, generated variants, request bodies, workspaces, the unsafe fix


def test_vars_render_jinja_in_the_sandbox_for_both_versions(
        run_cli: Callable[..., Any], server: FakeProvider, config: str, tmp_path: Path) -> None:
    sets = [{"agent_name": "Ada", "now": f"2026-11-30T14:{m:02d}:00"} for m in range(0, 25, 5)]
    for name, text in (("vars.json", json.dumps(sets)),
                       ("vars.yaml", "\n".join(f"- agent_name: Ada\n  now: '{s['now']}'" for s in sets))):
        server.reset()
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        data = probe_json(run_cli, server, "openai", "--compare-fix", "--vars", str(path), "--config", config)
        systems = [r.body["messages"][0]["content"] for r in server.requests]
        assert len(systems) == 10 and all(s.startswith("You are Ada,") for s in systems)
        assert [s.count("14:05:00") for s in systems] == [0, 1, 0, 0, 0] * 2
        assert sorted(systems[1].splitlines()) == sorted(systems[6].splitlines())  # same values, moved
        assert data["summary"]["fixed"]["hit_rate"] > 0.75


def test_vars_errors_are_one_line(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "vars.json"
    path.write_text(json.dumps([{"agent_name": "Ada"}, {"agent_name": "Bo"}]), encoding="utf-8")
    result = probe(run_cli, None, "openai", "--vars", str(path), "--dry-run")
    assert result.exit_code == 2 and "object 1" in result.stderr and "now" in result.stderr
    path.write_text("{}", encoding="utf-8")
    assert "list of objects" in probe(run_cli, None, "openai", "--vars", str(path), "--dry-run").stderr


def test_a_vars_file_that_cannot_be_read_is_one_line(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    result = probe(run_cli, None, "openai", "--vars", str(tmp_path / "missing.json"), "--dry-run")
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [f"error: --vars {tmp_path / 'missing.json'}: No such file or directory"]


def test_a_body_for_the_other_provider_is_refused_naming_the_file(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    body = tmp_path / "request.json"
    body.write_text(json.dumps({"model": "claude-sonnet-4-5", "system": [{"type": "text", "text": "Be brief."}],
                                "messages": [{"role": "user", "content": "hi"}]}), encoding="utf-8")
    result = probe(run_cli, None, "openai", "--dry-run", path=str(body))
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        f"error: {body}: the request body is an Anthropic Messages body: probe it with --provider anthropic"]


def test_generated_variants_differ_where_volatile_only() -> None:
    from promptlint.probe.prompt import build

    prompt = build(str(REPO / "fixtures/agents/templates/support.mustache"), variants=6)
    texts = [v.text for v in prompt.variants]
    assert len(set(texts)) == 7
    cut = prompt.variants[0].stable_end
    assert len({t[:cut] for t in texts}) == 1 and all(t[cut:] for t in texts)
    from promptlint.probe.variants import clock, sample, tool_order

    assert (clock(3) - clock(2)).total_seconds() == 420
    assert len({sample("timestamp", i, precision="day") for i in range(6)}) == 1  # minutes apart, one day
    assert len({sample("identity", i) for i in range(12)}) == 12
    assert len({sample("session-id", i) for i in range(8)}) == 8
    assert len({tuple(tool_order(i, ["a", "b", "c"])) for i in range(6)}) == 6


def test_deeply_nested_loops_render_a_bounded_prompt(tmp_path: Path) -> None:
    # 20 nested loops of two items each rendered 2^20 bodies (over 60 s and 2.7 GB for a
    # dry run): loops deeper than LOOP_ITEMS_DEPTH render their first item only.
    from promptlint.core.ir import LOOP_ITEMS_DEPTH
    from promptlint.probe.prompt import build

    opens = "".join(f"{{% for item{i} in group{i}.items %}}\n" for i in range(20))
    path = tmp_path / "nested.j2"
    path.write_text("Now: {{ current_time }}\n" + opens + "Body {{ item19.name }}.\n" + "{% endfor %}\n" * 20
                    + "Always answer politely and cite the handbook.\n" * 20)
    prompt = build(str(path), variants=2)
    assert all(v.text.count("Body ") == 2 ** LOOP_ITEMS_DEPTH for v in prompt.variants)


def test_a_request_body_varies_its_literal_values(run_cli: Callable[..., Any], server: FakeProvider,
                                                  config: str, tmp_path: Path) -> None:
    rules = "\n".join(f"Rule {i}: answer politely and cite the handbook section." for i in range(60))
    body = {"model": "gpt-4.1-mini", "temperature": 0,
            "messages": [{"role": "system", "content": f"{rules}\nCurrent time: 2026-11-30T14:03:27Z"},
                         {"role": "user", "content": "Where is my order?"}]}
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body), encoding="utf-8")
    data = probe_json(run_cli, server, "openai", "--config", config, path=str(path))
    sent = [r.body for r in server.requests]
    assert len({b["messages"][0]["content"] for b in sent}) == 5
    assert all(b["temperature"] == 0 and b["messages"][1]["content"] == "Where is my order?" for b in sent)
    assert data["source"] == "body" and data["summary"]["as-is"]["hit_rate"] > 0.8
    result = probe(run_cli, server, "anthropic", "--dry-run", path=str(path))
    assert result.exit_code == 2 and "--provider openai" in result.stderr


def test_a_workspace_is_assembled_in_order(run_cli: Callable[..., Any], server: FakeProvider, tmp_path: Path,
                                           config: str) -> None:
    rules = "\n".join(f"- Rule {i}: keep answers short and cite sources." for i in range(80))
    (tmp_path / "MEMORY.md").write_text("# Memory\n- The user likes tea.\n", encoding="utf-8")
    (tmp_path / "SOUL.md").write_text(f"# Soul\n{rules}\n", encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("# Agents\nBe careful.\n", encoding="utf-8")
    (tmp_path / "promptlint.toml").write_text(
        '[assembly]\norder = ["MEMORY.md", "SOUL.md", "AGENTS.md"]\n' + config_text(256), encoding="utf-8")
    data = probe_json(run_cli, server, "openai", "--compare-fix", path=str(tmp_path))
    assert data["source"] == "workspace"
    first = server.requests[0].body["messages"][0]["content"]
    fixed = server.requests[5].body["messages"][0]["content"]
    assert first.index("# Memory") < first.index("# Soul") and fixed.index("# Soul") < fixed.index("# Memory")
    assert data["summary"]["as-is"]["hit_rate"] == 0.0 and data["summary"]["fixed"]["hit_rate"] > 0.8
    assert "order" in " ".join(data["fix"])


def test_the_unsafe_fix_coarsens_the_clock(run_cli: Callable[..., Any], server: FakeProvider, config: str) -> None:
    data = probe_json(run_cli, server, "openai", "--compare-fix", "--unsafe-fixes", "--config", config)
    fixed = [r.body["messages"][0]["content"] for r in server.requests[5:]]
    assert all("2026-11-30" in s and "14:" not in s for s in fixed)
    assert len(set(fixed)) == 1  # one day: every variant is the same prompt
    # All of it is read, in OpenAI's 128-token steps.
    assert all(r["cached_tokens"] == r["input_tokens"] // 128 * 128 > 0 for r in data["requests"][6:])


def test_usage_errors(run_cli: Callable[..., Any]) -> None:
    assert "unknown provider" in probe(run_cli, None, "gemini", "--dry-run").stderr
    assert "--compare-fix" in probe(run_cli, None, "openai", "--unsafe-fixes", "--dry-run").stderr
    assert "no such file" in probe(run_cli, None, "openai", "--dry-run", path="nope.j2").stderr
    assert ".md, .json or .html" in probe(run_cli, None, "openai", "--dry-run", "--report", "x.txt").stderr
    assert "--model" in probe(run_cli, None, "openai", "--compatible", "vllm", "--dry-run").stderr


# ------------------------------------------------------------------------------------------
# Reports, progress, imports


def test_reports_by_extension(run_cli: Callable[..., Any], server: FakeProvider, config: str,
                              tmp_path: Path) -> None:
    for suffix in ("md", "json", "html"):
        report = tmp_path / f"report.{suffix}"
        probe(run_cli, server, "openai", "--compare-fix", "--config", config, "--report", str(report))
        text = report.read_text(encoding="utf-8")
        assert "fixed" in text and "as-is" in text
    html = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert html.count("<svg") == 2 and "<script" not in html and "<link" not in html
    assert " src=" not in html and "url(" not in html and "@import" not in html
    assert "| version | variant |" in (tmp_path / "report.md").read_text(encoding="utf-8")


def test_progress_bar_on_a_terminal(server: FakeProvider, config: str) -> None:
    import io

    from rich.console import Console

    from promptlint.probe import command
    from promptlint.probe.adapters import Options
    from promptlint.probe.runner import Settings

    err = io.StringIO()
    settings = Settings(DEMO, "openai", Options(base_url=server.openai_base_url, timeout=2), variants=2,
                        config_file=config)
    code = command.main(settings, out=Console(file=io.StringIO()),
                        err=Console(file=err, force_terminal=True, width=100))
    assert code == 0 and "probing" in err.getvalue()


def test_check_never_imports_an_sdk() -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "promptlint", "check", DEMO, "--no-cache"],
                          capture_output=True, text=True, timeout=120, check=False)
    imported = {line.split("|")[-1].strip().split(".")[0] for line in proc.stderr.splitlines() if "|" in line}
    assert "promptlint" in imported
    assert not imported & {"openai", "anthropic", "httpx"}
    assert "promptlint.probe" not in proc.stderr


def _png_colours(data: bytes) -> tuple[int, int, set[bytes]]:
    """(width, height, distinct pixel values) of an 8-bit RGB/RGBA PNG."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, width, height, channels = 8, b"", 0, 0, 3
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at : at + 8])
        chunk = data[at + 8 : at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour = struct.unpack(">IIBB", chunk[:10])
            assert depth == 8 and colour in (2, 6)
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + length
    raw, stride, seen = zlib.decompress(idat), width * channels, set()
    previous = bytearray(stride)
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1 : (y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b, c = previous[x], previous[x - channels] if x >= channels else 0
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            seen.update(bytes(line[x : x + 3]) for x in range(0, stride, channels * 4))
        previous = line
    return width, height, seen


def _chromium() -> str | None:
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.fixture
def shot_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("probe-screenshot")


def test_html_report_renders_in_headless_chromium(run_cli: Callable[..., Any], server: FakeProvider, config: str,
                                                  shot_folder: Path) -> None:
    browser = _chromium()
    if browser is None:
        pytest.skip("no chromium on this machine (.ci/run installs Debian's `chromium`)")
    report = shot_folder / "report.html"
    probe(run_cli, server, "openai", "--compare-fix", "--config", config, "--report", str(report))
    shot = shot_folder / "report.png"
    proc = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
         "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={shot_folder / 'profile'}",
         f"--screenshot={shot}", "--window-size=1200,1400", report.as_uri()],
        capture_output=True, text=True, timeout=120, check=False)
    assert shot.exists(), proc.stderr[-2000:]
    width, height, colours = _png_colours(shot.read_bytes())
    assert (width, height) == (1200, 1400)
    greens = {c for c in colours if c[1] > c[0] + 40 and c[1] > c[2] + 40}
    assert len(colours) > 20 and greens, "the screenshot is blank or has no chart"


def test_a_dry_run_says_when_the_requests_exceed_the_context_window(
        run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    # The provider refuses a prompt over its model's context window: the plan says so before
    # anything is sent (the window is the price data's; made small here to be crossed).
    from promptlint.providers import pricing

    assert "context window" not in probe(run_cli, None, "openai", "--dry-run").stdout
    asked: list[tuple[str, str]] = []

    def small_window(provider: str, model: str) -> int:
        asked.append((provider, model))
        return 50

    monkeypatch.setattr(pricing, "context_window", small_window)
    result = probe(run_cli, None, "openai", "--dry-run")
    assert result.exit_code == 0, result.stderr
    assert asked == [("openai", "gpt-4.1-mini")]
    assert "5 of 5 requests hold up to ≈" in result.stdout
    assert "over the 50-token context window of gpt-4.1-mini: the provider will refuse them" in result.stdout
