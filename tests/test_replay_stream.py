"""The streaming replay: identical results to the pre-streaming one, and bad lines refused.

Identical on two counts: against goldens made with the pre-streaming implementation (the
fixtures and seeded generated logs), and against that implementation itself, kept in
``replay_reference.py``, on further seeded logs in and out of time order.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from promptlint import replay

sys.path.insert(0, str(Path(__file__).parent))
import pinned_prices  # noqa: E402
import replay_logs  # noqa: E402
import replay_reference  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests/data/replay_golden"


def _same(value: dict[str, Any]) -> Any:
    return json.loads(json.dumps(value, sort_keys=True))


def _write(tmp_path: Path, lines: list[str], name: str = "log.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def pinned(monkeypatch: pytest.MonkeyPatch) -> None:
    """The goldens' prices, from the recording (see pinned_prices.py), not the installed library."""
    pinned_prices.pin(monkeypatch)


@pytest.mark.parametrize("name", ["agent_clock", "agent_clock_fixed"])
@pytest.mark.usefixtures("pinned")
def test_fixtures_match_the_pre_streaming_goldens(name: str) -> None:
    path = str(REPO / f"fixtures/replay/{name}.jsonl")
    result = replay.replay(lambda: replay.iter_log(path))
    assert _same(result) == json.loads((GOLDEN / f"{name}.json").read_text())


@pytest.mark.parametrize("seed", replay_logs.GOLDEN_SEEDS)
@pytest.mark.usefixtures("pinned")
def test_generated_logs_match_the_pre_streaming_goldens(tmp_path: Path, seed: int) -> None:
    path = str(_write(tmp_path, replay_logs.build(seed)))
    result = replay.replay(lambda: replay.iter_log(path))
    assert _same(result) == json.loads((GOLDEN / f"seed{seed}.json").read_text())


def test_the_pinned_prices_are_the_librarys_while_its_recorded_release_is_installed() -> None:
    import genai_prices

    data = pinned_prices.recorded()
    if data["genai-prices"] != genai_prices.__version__:
        # Another release is installed (genai-prices is not pinned): the goldens keep the
        # recorded data; `python tests/pinned_prices.py` records the installed one.
        return
    assert data == json.loads(json.dumps(pinned_prices.record()))


@pytest.mark.parametrize(("seed", "disorder"), [(s, d) for s in range(7, 13) for d in (0.0, 0.3)])
def test_streaming_equals_the_reference_computation(tmp_path: Path, seed: int, disorder: float) -> None:
    path = str(_write(tmp_path, replay_logs.build(seed, requests=40, disorder=disorder)))
    expected = replay_reference.replay(replay.read_log(path))
    assert _same(replay.replay(lambda: replay.iter_log(path))) == _same(expected)
    # Given as a list, or as a one-shot iterator, the answer is the same.
    assert _same(replay.replay(replay.read_log(path))) == _same(expected)
    assert _same(replay.replay(iter(replay.read_log(path)))) == _same(expected)


def test_text_report_is_unchanged(run_cli) -> None:  # type: ignore[no-untyped-def]
    path = REPO / "fixtures/replay/agent_clock.jsonl"
    expected = replay_reference.replay(replay.read_log(str(path)))
    from io import StringIO

    from rich.console import Console

    from promptlint.reporters import replay_text

    buffer = StringIO()
    replay_text.render(expected, Console(file=buffer, highlight=False, soft_wrap=True, width=200))
    result = run_cli("replay", str(path))
    assert result.exit_code == 0
    assert result.stdout.split() == buffer.getvalue().split()
    as_json = run_cli("replay", str(path), "--format", "json")
    assert json.loads(as_json.stdout) == _same(expected)


GOOD = json.dumps({"request": {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}})


@pytest.mark.parametrize(
    ("lines", "line", "says"),
    [
        ([GOOD, "{not json", GOOD], 2, "malformed JSON"),
        ([GOOD, '{"request": {"model": "gpt-4o", "messages": [1, 2]}}'], 2, "not an OpenAI or Anthropic"),
        ([GOOD, json.dumps({"request": json.loads(GOOD)["request"], "timestamp": True})], 2, "timestamp"),
        ([GOOD, "[" * 100_000 + "]" * 100_000], 2, "nested too deeply"),
        ([GOOD, "5"], 2, "not an OpenAI or Anthropic"),
    ],
)
def test_bad_line_is_one_line_error_naming_file_and_line(
    run_cli, tmp_path: Path, lines: list[str], line: int, says: str  # type: ignore[no-untyped-def]
) -> None:
    path = _write(tmp_path, lines)
    result = run_cli("replay", str(path))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip().splitlines()
    assert len(message) == 1 and f"{path}:{line}:" in message[0] and says in message[0], message
    assert "Traceback" not in result.output


def _refused_in_one_line(run_cli, path: Path, line: int, says: str) -> None:  # type: ignore[no-untyped-def]
    for command in (["replay", str(path)], ["replay", "--format", "json", str(path)]):
        result = run_cli(*command)
        assert result.exit_code == 2, result.output
        message = result.stderr.strip().splitlines()
        assert len(message) == 1 and f"{path}:{line}:" in message[0] and says in message[0], message
        assert "internal error" not in result.output


def _with_usage(usage: Any) -> str:
    return json.dumps({"request": json.loads(GOOD)["request"], "usage": usage})


# Found by tools/fuzz_replay.py: each was an internal error (TypeError, ValueError or
# OverflowError from int(), or a sum of an int and a list), not a line of the log refused.
@pytest.mark.parametrize(
    ("usage", "says"),
    [
        ({"prompt_tokens": 90, "prompt_tokens_details": {"cached_tokens": "many"}},
         "`prompt_tokens_details.cached_tokens` must be a token count, not 'many'"),
        ({"prompt_tokens": [90]}, "`prompt_tokens` must be a token count, not an array"),
        ({"input_tokens": 90, "input_tokens_details": {"cached_tokens": {"n": 1}}}, "not an object"),
        ({"input_tokens": 5, "cache_read_input_tokens": {"n": 1}}, "`cache_read_input_tokens` must be a token count"),
        ({"cache_creation_input_tokens": float("nan")}, "`cache_creation_input_tokens` must be a token count, not nan"),
        ({"cached_content_token_count": 5, "prompt_token_count": [90]}, "`prompt_token_count` must be a token count"),
        ({"prompt_cache_hit_tokens": float("inf")}, "`prompt_cache_hit_tokens` must be a token count, not inf"),
    ],
)
def test_a_usage_count_that_is_no_number_is_one_line_naming_file_and_line(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, usage: dict[str, Any], says: str
) -> None:
    _refused_in_one_line(run_cli, _write(tmp_path, [GOOD, _with_usage(usage)]), 2, says)


@pytest.mark.parametrize(
    ("usage", "says"),
    [
        ({"prompt_tokens": 20, "prompt_tokens_details": {"cached_tokens": 900}},
         "usage reports 900 cached tokens (`prompt_tokens_details.cached_tokens`), more than the request's 20 "
         "input tokens"),
        ({"input_tokens": 20, "input_tokens_details": {"cached_tokens": 21}}, "21 cached tokens"),
        ({"prompt_token_count": 1, "cached_content_token_count": 4096}, "4,096 cached tokens"),
    ],
)
def test_a_usage_that_reads_more_from_the_cache_than_it_sent_is_one_line_naming_file_and_line(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, usage: dict[str, Any], says: str
) -> None:
    # Every provider's input total counts its cached tokens. Read as reported, such a line
    # printed "reported 4500.0%" as the log's hit rate.
    _refused_in_one_line(run_cli, _write(tmp_path, [GOOD, _with_usage(usage)]), 2, says)


def test_a_usage_that_reads_all_of_its_input_from_the_cache_is_read(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    usage = {"prompt_tokens": 20, "prompt_tokens_details": {"cached_tokens": 20}}
    result = run_cli("replay", "--format", "json", str(_write(tmp_path, [GOOD, _with_usage(usage)])))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["requests"][1]["reported_cached_tokens"] == 20


def test_a_logged_provider_is_read_as_the_provider_option_reads_it(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # `--provider OpenAI` was openai, a line's "provider": "OpenAI" an unknown provider.
    def line(provider: str) -> str:
        return json.dumps({**json.loads(GOOD), "provider": provider})

    ours = run_cli("replay", "--format", "json", str(_write(tmp_path, [line(" OpenAI "), line("OPENAI")])))
    assert ours.exit_code == 0, ours.output
    plain = run_cli("replay", "--format", "json", str(_write(tmp_path, [line("openai")] * 2, "plain.jsonl")))
    assert json.loads(ours.stdout)["summary"] == json.loads(plain.stdout)["summary"]
    assert json.loads(ours.stdout)["summary"]["provider"] == "openai"
    _refused_in_one_line(run_cli, _write(tmp_path, [GOOD, line("Azure")], "azure.jsonl"), 2,
                         "unknown provider 'azure'; known: openai, anthropic")


@pytest.mark.parametrize("stamp", ["NaN", "Infinity", "-Infinity", "1e400", "1" + "0" * 400])
def test_a_timestamp_no_clock_can_hold_is_one_line_naming_file_and_line(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, stamp: str
) -> None:
    # Python's JSON reader takes NaN and Infinity: they made a gap of Infinity seconds, which
    # --format json printed as no JSON reads it; a 401-digit integer was an OverflowError.
    line = GOOD.replace('{"request"', f'{{"timestamp": {stamp}, "request"')
    _refused_in_one_line(run_cli, _write(tmp_path, [json.dumps({**json.loads(GOOD), "timestamp": 0}), line]), 2,
                         "is not an ISO string or epoch seconds")


def test_a_body_too_deep_to_walk_is_one_line_naming_file_and_line(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # JSON's reader takes 600 levels; the walk that looks for a cache_control (a body whose
    # messages show no OpenAI sign) raised a RecursionError.
    deep = '{"request": {"messages": [{"role": "user", "content": ' + "[" * 600 + '"x"' + "]" * 600 + "}]}}"
    _refused_in_one_line(run_cli, _write(tmp_path, [GOOD, deep]), 2, "JSON nested too deeply")


def test_a_request_the_cache_model_rejects_is_one_line_naming_file_and_line(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path
) -> None:
    blocks = [{"type": "text", "text": f"part {i}", "cache_control": {"type": "ephemeral"}} for i in range(6)]
    rejected = json.dumps({"model": "claude-sonnet-4-5", "system": blocks, "messages": [{"role": "user", "content": "hi"}]})
    path = _write(tmp_path, [GOOD, rejected])
    result = run_cli("replay", "--provider", "anthropic", str(path))
    assert result.exit_code == 2, result.output
    message = result.stderr.strip().splitlines()
    assert message == [f"error: {path}:2: the cache model rejects a request: 6 cache breakpoints; "
                       "Anthropic allows at most 4"], message


@pytest.mark.parametrize("make", ["folder", "empty"])
def test_a_log_that_is_a_folder_or_holds_no_request_is_one_line_naming_it(  # type: ignore[no-untyped-def]
    run_cli, tmp_path: Path, make: str
) -> None:
    path = tmp_path / "logs"
    if make == "folder":
        path.mkdir()
    else:
        path.write_text("\n")
    result = run_cli("replay", str(path))
    assert result.exit_code == 2, result.output
    assert result.stderr.strip().splitlines() == [
        f"error: {path}: {'not a regular file' if make == 'folder' else 'no requests'}"], result.output


def test_truncated_last_line_says_it_was_cut_short(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "log.jsonl"
    path.write_text(GOOD + "\n" + GOOD[: len(GOOD) // 2])
    result = run_cli("replay", str(path))
    assert result.exit_code == 2
    assert f"{path}:2:" in result.stderr and "cut short" in result.stderr


def test_huge_line_is_refused_at_the_limit_without_reading_it_whole(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "log.jsonl"
    with path.open("w") as handle:
        handle.write(GOOD + "\n" + '{"request": "' + "x" * 5_000_000 + '"}\n')
    result = run_cli("replay", str(path), "--max-line-bytes", "100000")
    assert result.exit_code == 2
    assert f"{path}:2: line longer than 100,000 bytes" in result.stderr
    with pytest.raises(replay.ReplayError, match="line longer"):
        list(replay.iter_log(str(path), max_line_bytes=1000))


def test_a_line_limit_past_what_a_read_can_take_is_no_limit(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """`--max-line-bytes 99999999999999999999` was an internal error (OverflowError in readline)."""
    path = tmp_path / "log.jsonl"
    path.write_text(GOOD + "\n", encoding="utf-8")
    result = run_cli("replay", str(path), "--max-line-bytes", "99999999999999999999")
    assert result.exit_code in (0, 1) and "internal error" not in result.output


def test_invalid_utf8_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(GOOD.encode() + b"\n" + b'{"x": "\xff"}\n')
    with pytest.raises(replay.ReplayError, match=r"log.jsonl:2: not UTF-8"):
        list(replay.iter_log(str(path)))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    path = tmp_path / "log.fifo"
    os.mkfifo(path)
    with pytest.raises(replay.ReplayError, match="not a regular file"):
        list(replay.iter_log(str(path)))


def test_blank_lines_and_bom_are_fine_and_lines_are_numbered(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.encode() + b"\r\n\n   \n" + GOOD.encode())
    entries = list(replay.iter_log(str(path)))
    assert [e.line for e in entries] == [1, 4]


def test_empty_log_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "log.jsonl"
    path.write_text("\n\n")
    with pytest.raises(replay.ReplayError, match="no requests"):
        replay.replay(lambda: replay.iter_log(str(path)))


@pytest.mark.parametrize("seed", [3, 4, 5])  # Anthropic, OpenAI before 5.6, OpenAI 5.6+
def test_dropping_expired_cache_entries_changes_no_result(tmp_path: Path, monkeypatch, seed: int) -> None:  # type: ignore[no-untyped-def]
    from promptlint.providers import base

    path = str(_write(tmp_path, replay_logs.build(seed, requests=50, disorder=0.0)))
    monkeypatch.setattr(base.Pruner, "MIN_SWEEP", 10**9)  # never sweep
    kept = replay.replay(lambda: replay.iter_log(path))
    monkeypatch.setattr(base.Pruner, "MIN_SWEEP", 1)  # sweep all the time
    dropped: list[int] = []
    sweep = base.Pruner.__call__

    def counting(self: base.Pruner, store: dict[Any, base.Entry], now: float) -> None:
        before = len(store)
        sweep(self, store, now)
        dropped.append(before - len(store))

    monkeypatch.setattr(base.Pruner, "__call__", counting)
    swept = replay.replay(lambda: replay.iter_log(path))
    assert _same(swept) == _same(kept)
    if seed != 4:  # OpenAI before 5.6 sweeps its machines, not a Pruner's store
        assert sum(dropped) > 0  # the log's long gaps did expire entries, and they were dropped
