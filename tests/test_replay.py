"""promptlint replay: breaks pinpointed per request, causes, summary, JSON schema, bad lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptlint import replay

REPO = Path(__file__).resolve().parents[1]
CLOCK = REPO / "fixtures/replay/agent_clock.jsonl"
FIXED = REPO / "fixtures/replay/agent_clock_fixed.jsonl"


def _run(path: Path) -> dict:  # type: ignore[type-arg]
    return replay.replay(replay.read_log(str(path)))


def test_clock_log_breaks_at_the_system_prompt_every_turn_after_the_first() -> None:
    result = _run(CLOCK)
    rows = result["requests"]
    assert len(rows) == 20
    assert rows[0]["divergence"] is None
    for row in rows[1:]:
        found = row["divergence"]
        assert found is not None
        assert found["path"] == "system[0].text"
        assert found["cause"] == "timestamp"
        assert found["token_offset"] < 200 and found["char_offset"] > 0
        assert row["predicted_cached_tokens"] == 0
    summary = result["summary"]
    assert summary["breaks"] == 19
    assert summary["tokens_lost_by_cause"]["timestamp"] == sum(r["divergence"]["tokens_lost"] for r in rows[1:])
    assert summary["tokens_lost_by_cause"]["timestamp"] > 19 * 1000
    assert summary["cost_lost"] > 0
    assert summary["reported_hit_rate"] == 0.0


def test_fixed_log_reads_the_system_prompt_and_breaks_nowhere_in_it() -> None:
    clock, fixed = _run(CLOCK), _run(FIXED)
    assert fixed["summary"]["predicted_hit_rate"] > clock["summary"]["predicted_hit_rate"] + 0.5
    assert not [r for r in fixed["requests"] if r["divergence"] and r["divergence"]["path"].startswith("system")]
    assert all(r["predicted_cached_tokens"] > 1000 for r in fixed["requests"][1:])
    assert fixed["summary"]["reported_hit_rate"] > 0.5
    assert fixed["summary"]["disagreements"] == 0


def _log(tmp_path: Path, lines: list[dict]) -> Path:  # type: ignore[type-arg]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    return path


RULES = "\n".join(f"Rule {i}: keep answers short and cite the handbook." for i in range(300))


def _chat(system: str, tools: list | None = None, model: str = "gpt-5.5") -> dict:  # type: ignore[type-arg]
    body = {"model": model, "messages": [{"role": "system", "content": system}, {"role": "user", "content": "hi"}]}
    if tools is not None:
        body["tools"] = tools
    return body


def _tool(name: str, params: dict) -> dict:  # type: ignore[type-arg]
    return {"type": "function", "function": {"name": name, "parameters": params}}


@pytest.mark.parametrize(
    ("first", "second", "cause"),
    [
        (_chat("id 3f2b9c1e-8d4a-4f6b-9a7e-2c5d1b0e7f43\n" + RULES), _chat("id a9d04c77-1e52-4b8f-b3a6-f0c2e8d91b25\n" + RULES), "id"),
        (_chat(RULES, [_tool("a", {}), _tool("b", {})]), _chat(RULES, [_tool("b", {}), _tool("a", {})]), "tool-order"),
        (_chat(RULES, [_tool("a", {"x": 1, "y": 2})]), _chat(RULES, [_tool("a", {"y": 2, "x": 1})]), "key-order"),
        (_chat("Be brief.\n" + RULES), _chat("Be brief. \n" + RULES), "whitespace"),
        (_chat(RULES), _chat(RULES, model="gpt-4.1"), "model-change"),
    ],
)
def test_causes(tmp_path: Path, first: dict, second: dict, cause: str) -> None:  # type: ignore[type-arg]
    result = replay.replay(replay.read_log(str(_log(tmp_path, [first, second]))))
    assert result["requests"][1]["divergence"]["cause"] == cause


def test_ttl_expiry(tmp_path: Path) -> None:
    body = _chat(RULES)
    lines = [{"request": body, "timestamp": 0}, {"request": body, "timestamp": 3600 * 2}]
    result = replay.replay(replay.read_log(str(_log(tmp_path, lines))), model="gpt-4o")
    assert result["requests"][1]["divergence"]["cause"] == "ttl-expiry"
    assert result["requests"][1]["predicted_cached_tokens"] == 0


def test_openai_reported_usage_and_default_spacing(tmp_path: Path) -> None:
    body = _chat(RULES)
    usage = {"prompt_tokens": 3000, "prompt_tokens_details": {"cached_tokens": 2048}}
    result = replay.replay(replay.read_log(str(_log(tmp_path, [{"request": body}, {"request": body, "usage": usage}]))))
    assert result["requests"][1]["reported_cached_tokens"] == 2048
    assert result["requests"][1]["predicted_cached_tokens"] > 0
    assert result["summary"]["reported_hit_rate"] == pytest.approx(2048 / 3000, abs=1e-3)


def test_json_output_schema(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("replay", str(CLOCK), "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert set(data) == {"requests", "summary"}
    row = data["requests"][1]
    assert {"index", "tokens", "predicted_cached_tokens", "reported_cached_tokens", "divergence"} <= set(row)
    assert isinstance(row["index"], int) and isinstance(row["tokens"], int)
    assert {"path", "char_offset", "token_offset", "cause"} <= set(row["divergence"])
    summary = data["summary"]
    assert {"requests", "predicted_hit_rate", "reported_hit_rate", "tokens_lost_by_cause", "cost_lost"} <= set(summary)
    assert isinstance(summary["predicted_hit_rate"], float) and isinstance(summary["tokens_lost_by_cause"], dict)


def test_text_output_has_a_line_per_request_and_the_summary(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("replay", str(CLOCK))
    assert result.exit_code == 0
    assert result.stdout.count("#") >= 20
    assert "predicted hit rate" in result.stdout and "timestamp" in result.stdout


def test_bad_line_exits_2_naming_file_and_line(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(_chat(RULES)) + "\n{not json\n")
    result = run_cli("replay", str(path))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:2:" in lines[0]
    path.write_text('{"hello": "world"}\n')
    result = run_cli("replay", str(path))
    assert result.exit_code == 2 and f"{path}:1:" in result.stderr


def test_unknown_provider_exits_2(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("replay", str(CLOCK), "--provider", "nope")
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_a_long_log_shows_only_its_eventful_requests(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from promptlint.reporters.replay_text import EVERY_ROW_UP_TO

    quiet = {"model": "gpt-4o", "messages": [{"role": "system", "content": "You are Atlas."},
                                             {"role": "user", "content": "hi"}]}
    broken = {**quiet, "messages": [{"role": "system", "content": "You are Atlas. Now: 12:00:01"},
                                    {"role": "user", "content": "hi"}]}
    count = EVERY_ROW_UP_TO + 50
    lines = [json.dumps(broken if i == 7 else quiet) for i in range(count)]
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n")
    text = run_cli("replay", "log.jsonl", cwd=tmp_path).stdout
    shown = [line for line in text.splitlines() if line.startswith("#")]
    assert [line.split()[0] for line in shown] == ["#7", "#8"]  # the break, and the request back to normal
    assert f"{count - 2:,} requests without a break or a disagreement not shown" in text
    full = json.loads(run_cli("replay", "--format", "json", "log.jsonl", cwd=tmp_path).stdout)
    assert len(full["requests"]) == count


def test_a_negative_reported_count_is_refused_naming_the_line(tmp_path: Path) -> None:
    # Found by tools/fuzz_replay.py: logged totals are the client's record, and a negative one
    # cancelling a positive one was a ZeroDivisionError (an internal error); a negative one
    # alone, a reported hit rate below zero. No count is negative.
    body = _chat(RULES)
    lines = [{"request": body, "usage": {"prompt_tokens": 3000, "prompt_tokens_details": {"cached_tokens": 0}}},
             {"request": body, "usage": {"prompt_tokens": -3000, "prompt_tokens_details": {"cached_tokens": 0}}}]
    with pytest.raises(replay.ReplayError, match=r"log.jsonl:2: usage field `prompt_tokens` must be a token count, "
                                                 r"not -3,000"):
        replay.replay(replay.read_log(str(_log(tmp_path, lines))))


def test_a_lone_surrogate_in_the_log_is_written_as_its_escape(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # Found by tools/fuzz_replay.py: a `\ud800` escape in a body (valid JSON) is a string with
    # no UTF-8; quoted in an excerpt or a model name it was a UnicodeEncodeError (an internal
    # error) in --format json, and in the text report's model list.
    path = tmp_path / "log.jsonl"
    path.write_text(json.dumps(_chat("Now: 10:00 \ud800\n" + RULES, model="gpt-4o\ud800")) + "\n"
                    + json.dumps(_chat("Now: 10:01 \ud800\n" + RULES, model="gpt-4o\ud800")) + "\n")
    result = run_cli("replay", "--format", "json", str(path))
    assert result.exit_code == 0, result.output
    assert "\\ud800" in result.stdout
    data = json.loads(result.stdout)
    assert data["summary"]["models"] == ["gpt-4o\ud800"]
    assert "\ud800" in data["requests"][1]["divergence"]["after"]
    result = run_cli("replay", str(path))
    assert result.exit_code == 0, result.output
    assert "(gpt-4o\\ud800, openai)" in result.stdout
