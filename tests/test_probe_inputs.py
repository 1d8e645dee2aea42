"""``promptlint probe``: odd inputs a new user or a CI job gives, each a one-line error (exit 2)
that names the file or option, never a traceback, an internal error, a spend past the budget
or an overwritten input; and a server's impossible usage counts refused, not reported.

The servers here are local: the fake provider (tests/support) or, for a response no real
provider sends, a canned one that answers every POST with the same body.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from support.fake_provider import FakeProvider
from support.fixtures import DEMO, MakeServer, make_fake_provider, provider_environment

__all__ = ["make_fake_provider", "provider_environment"]

pytestmark = pytest.mark.usefixtures("provider_environment")  # every test runs in it


def one_error(result: Any) -> str:
    """The run failed with exit 2 and one line on stderr, which it returns."""
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "internal error" not in lines[0] and "Traceback" not in result.output
    return lines[0]


# ------------------------------------------------------------------------------------------
# --report never overwrites an input, and is refused before anything is sent


def test_a_report_named_as_the_probed_file_is_refused_and_the_file_kept(
        run_cli: Callable[..., Any], tmp_path: Path) -> None:
    body = tmp_path / "request.json"
    text = json.dumps({"model": "gpt-4.1-mini", "messages": [
        {"role": "system", "content": "Now: 2026-11-30T14:03:27Z. Be brief."}, {"role": "user", "content": "hi"}]})
    body.write_text(text, encoding="utf-8")
    line = one_error(run_cli("probe", str(body), "--provider", "openai", "--dry-run", "--report", str(body)))
    assert line.startswith(f"error: --report {body}:") and "overwrite" in line
    assert body.read_text(encoding="utf-8") == text
    # Another spelling of the same file, and the --vars file, are refused too.
    prompt = tmp_path / "system.md"
    prompt.write_text("You are {{ name }}.\n", encoding="utf-8")
    vars_file = tmp_path / "vars.json"
    vars_file.write_text('[{"name": "Ada"}, {"name": "Bo"}]', encoding="utf-8")
    for report, extra in ((f"{tmp_path}/./system.md", []), (str(vars_file), ["--vars", str(vars_file)])):
        line = one_error(run_cli("probe", str(prompt), "--provider", "openai", "--dry-run", *extra,
                                 "--report", report))
        assert "overwrite" in line
    assert prompt.read_text(encoding="utf-8") == "You are {{ name }}.\n"
    assert vars_file.read_text(encoding="utf-8") == '[{"name": "Ada"}, {"name": "Bo"}]'


def test_a_report_over_a_workspace_file_is_refused(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("# Soul\nBe kind.\n", encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("# Agents\nNow {{ time }}\n", encoding="utf-8")
    line = one_error(run_cli("probe", str(tmp_path), "--provider", "openai", "--dry-run",
                             "--report", str(tmp_path / "SOUL.md")))
    assert "overwrite" in line
    assert (tmp_path / "SOUL.md").read_text(encoding="utf-8") == "# Soul\nBe kind.\n"


def test_a_report_in_a_missing_folder_is_refused_before_any_request(
        run_cli: Callable[..., Any], make_fake_provider: MakeServer, tmp_path: Path) -> None:
    server = make_fake_provider()
    report = tmp_path / "missing" / "probe.md"
    line = one_error(run_cli("probe", DEMO, "--provider", "openai", "--base-url", server.openai_base_url,
                             "--timeout", "2", "--max-retries", "0", "--report", str(report)))
    assert line == f"error: --report {report}: the folder {report.parent} does not exist"
    assert server.requests == []  # nothing spent on a report that cannot be written


# ------------------------------------------------------------------------------------------
# --vars: what YAML makes besides JSON's values


def _vars_error(run_cli: Callable[..., Any], folder: Path, template: tuple[str, str],
                vars_file: tuple[str, str]) -> tuple[str, Path, Path]:
    """The one error line of a dry-run probe of a template (name, text) with a --vars file
    (name, text) written in ``folder``; and the two paths."""
    paths = []
    for name, text in (template, vars_file):
        paths.append(folder / name)
        paths[-1].write_text(text, encoding="utf-8")
    line = one_error(run_cli("probe", str(paths[0]), "--provider", "openai", "--dry-run", "--vars", str(paths[1])))
    return line, paths[0], paths[1]


@pytest.mark.parametrize(("text", "said"), [
    ("- &a {name: x, self: *a}\n- {name: y}\n", "nested more than"),  # an alias holding itself
    ("- name: " + "[" * 5000 + "]" * 5000 + "\n- name: y\n", "nested too deeply"),
    ("- {name: x, now: 2026-13-45T99:99:99}\n- {name: y}\n", "malformed YAML"),  # not a date
    ("- {name: !!binary aGVsbG8=}\n- {name: y}\n", "bytes value"),
    ("- {name: !!set {a, b}}\n- {name: y}\n", "set value"),
])
def test_vars_yaml_that_no_renderer_prints_is_one_line(run_cli: Callable[..., Any], tmp_path: Path,
                                                       text: str, said: str) -> None:
    line, _, vars_file = _vars_error(run_cli, tmp_path, ("p.hbs", "Hello {{name}}\n"), ("vars.yaml", text))
    assert line.startswith(f"error: --vars {vars_file}:") and said in line


def test_vars_deeply_nested_json_is_one_line(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    vars_file = tmp_path / "vars.json"
    vars_file.write_text('[{"name": ' + "[" * 100_000 + "]" * 100_000 + '}, {"name": 1}]', encoding="utf-8")
    line = one_error(run_cli("probe", DEMO, "--provider", "openai", "--dry-run", "--vars", str(vars_file)))
    assert line == f"error: --vars {vars_file}: malformed JSON: nested too deeply"


def test_vars_yaml_dates_render_as_written(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    template = tmp_path / "p.hbs"
    template.write_text("Hello {{name}}, today is {{day}}.\n", encoding="utf-8")
    vars_file = tmp_path / "vars.yaml"
    vars_file.write_text("- {name: Ada, day: 2026-11-30}\n- {name: Bo, day: 2026-12-01}\n", encoding="utf-8")
    result = run_cli("probe", str(template), "--provider", "openai", "--dry-run", "--format", "json",
                     "--vars", str(vars_file))
    assert result.exit_code == 0, result.stderr


# ------------------------------------------------------------------------------------------
# --budget and --timeout


@pytest.mark.parametrize("budget", ["nan", "NaN"])
def test_a_nan_budget_is_refused_and_sends_nothing(run_cli: Callable[..., Any], make_fake_provider: MakeServer,
                                                   budget: str) -> None:
    server = make_fake_provider()
    result = run_cli("probe", DEMO, "--provider", "openai", "--base-url", server.openai_base_url, "--timeout", "2",
                     "--max-retries", "0", "--budget", budget)
    assert result.exit_code == 2 and "--budget" in result.stderr and "not a number" in result.stderr
    assert server.requests == []


def test_a_nan_budget_in_settings_refuses_too(make_fake_provider: MakeServer) -> None:
    from promptlint.probe.runner import BudgetError, Options, Settings, plan
    from promptlint.probe.runner import execute as send

    server = make_fake_provider()
    run = plan(Settings(DEMO, "openai", Options(base_url=server.openai_base_url, timeout=2), variants=1,
                        budget_usd=float("nan")))
    with pytest.raises(BudgetError):
        send(run)
    assert server.requests == []


@pytest.mark.parametrize("timeout", ["nan", "inf", "1e10"])
def test_a_timeout_that_is_no_time_is_refused(run_cli: Callable[..., Any], timeout: str) -> None:
    result = run_cli("probe", DEMO, "--provider", "openai", "--dry-run", "--timeout", timeout)
    assert result.exit_code == 2 and "--timeout" in result.stderr
    assert "internal error" not in result.output


def test_retries_that_would_never_end_are_refused(run_cli: Callable[..., Any]) -> None:
    # The SDKs back off up to 8 s before each retry: a million retries of a failing request
    # never ended (10 already take over a minute).
    result = run_cli("probe", DEMO, "--provider", "openai", "--dry-run", "--max-retries", "1000000")
    assert result.exit_code == 2 and "--max-retries" in result.stderr and "0<=x<=10" in result.stderr
    assert run_cli("probe", DEMO, "--provider", "openai", "--dry-run", "--max-retries", "10").exit_code == 0


# ------------------------------------------------------------------------------------------
# --base-url


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("url", "said"), [
    ("", "not an http(s) URL"),
    ("127.0.0.1:8000/v1", "not an http(s) URL"),
    ("ftp://example.invalid/v1", "not an http(s) URL"),
    ("http://[::1", "Invalid IPv6 URL"),
    ("http://localhost:99999/v1", "Port out of range"),
    ("http://user:hunter2@[::1", "Invalid IPv6 URL"),
])
def test_a_malformed_base_url_names_the_option(run_cli: Callable[..., Any], provider: str, url: str,
                                               said: str) -> None:
    line = one_error(run_cli("probe", DEMO, "--provider", provider, "--dry-run", "--base-url", url))
    assert line.startswith("error: --base-url ") and said in line
    assert DEMO not in line and "hunter2" not in line


@pytest.mark.parametrize("url", ["http://localhost:8000/v1", "https://user:hunter2@proxy.invalid/anthropic/v1/"])
def test_an_anthropic_base_url_with_v1_is_refused_before_sending(run_cli: Callable[..., Any], url: str) -> None:
    # The SDK appends /v1/messages: an OpenAI-style base URL was a 404 at /v1/v1/messages.
    line = one_error(run_cli("probe", DEMO, "--provider", "anthropic", "--dry-run", "--base-url", url))
    assert line.startswith("error: --base-url ") and "adds /v1 itself" in line and "hunter2" not in line
    assert run_cli("probe", DEMO, "--provider", "openai", "--dry-run", "--base-url", url).exit_code == 0


# ------------------------------------------------------------------------------------------
# What a server answers: impossible usage counts, a body that is not JSON


class _Canned:
    """A server answering every POST with ``body`` (bytes) and status 200."""

    def __init__(self, body: bytes) -> None:
        canned = body

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(canned)))
                self.end_headers()
                self.wfile.write(canned)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)
        self.thread.start()

    def url(self, provider: str) -> str:
        root = f"http://127.0.0.1:{self.server.server_address[1]}"
        return f"{root}/v1" if provider == "openai" else root

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def canned() -> Iterator[Callable[[bytes], _Canned]]:
    started: list[_Canned] = []

    def make(body: bytes) -> _Canned:
        started.append(_Canned(body))
        return started[-1]

    yield make
    for server in started:
        server.stop()


def _chat(usage: str) -> bytes:
    return ('{"id": "c", "object": "chat.completion", "created": 1, "model": "gpt-4.1-mini", "choices": '
            '[{"index": 0, "message": {"role": "assistant", "content": "OK"}, "finish_reason": "length"}], '
            f'"usage": {usage}}}').encode()


def _message(usage: str) -> bytes:
    return ('{"id": "m", "type": "message", "role": "assistant", "model": "claude-sonnet-5", "content": '
            '[{"type": "text", "text": "OK"}], "stop_reason": "max_tokens", '
            f'"usage": {usage}}}').encode()


USAGES = [
    ("openai", '{"prompt_tokens": 100, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": 500}}',
     "500 cached"),  # a hit rate of 500 %
    ("openai", '{"prompt_tokens": -100, "completion_tokens": 1, "prompt_tokens_details": {"cached_tokens": -50}}',
     "prompt_tokens is -100"),  # a negative cost
    ("openai", '{"prompt_tokens": "100", "completion_tokens": 1}', "prompt_tokens is '100'"),  # counted as 0
    ("openai", '{"prompt_tokens": 1e400, "completion_tokens": 1}', "prompt_tokens is inf"),
    ("openai", '{"prompt_tokens": NaN, "completion_tokens": 1}', "prompt_tokens is nan"),
    ("openai", '{"prompt_tokens": 100000000000000000000000000000, "completion_tokens": 1}', "not a token count"),
    ("openai", ('{"prompt_tokens": 100, "completion_tokens": 1, "prompt_tokens_details": '
                '{"cached_tokens": 60, "cache_write_tokens": 60}}'), "60 written"),
    ("openai", '"x"', "usage is str, not an object"),
    ("openai", "[1, 2]", "usage is list, not an object"),
    ("anthropic", '{"input_tokens": -5, "output_tokens": 1, "cache_read_input_tokens": -100}', "is -5"),
    ("anthropic", ('{"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 0, '
                   '"cache_creation_input_tokens": 50, "cache_creation": {"ephemeral_1h_input_tokens": 500}}'),
     "500 one-hour tokens"),
    ("anthropic", '{"input_tokens": 1e400, "output_tokens": 1}', "input_tokens is inf"),
    ("anthropic", '"x"', "usage is str, not an object"),
]


@pytest.mark.parametrize(("provider", "usage", "said"), USAGES)
def test_impossible_usage_counts_stop_the_run_in_one_line(
        run_cli: Callable[..., Any], canned: Callable[[bytes], _Canned], provider: str, usage: str,
        said: str) -> None:
    server = canned((_chat if provider == "openai" else _message)(usage))
    result = run_cli("probe", DEMO, "--provider", provider, "--base-url", server.url(provider), "--timeout", "2",
                     "--max-retries", "0", "--variants", "1", "--format", "json")
    line = one_error(result)
    assert line.startswith(f"error: request 1 of 2 (as-is, variant 0): {provider}: ") and said in line
    data = json.loads(result.stdout)
    assert data["requests"] == [] and data["spent_usd"] == 0


def test_a_missing_usage_field_still_counts_zero(run_cli: Callable[..., Any],
                                                 canned: Callable[[bytes], _Canned]) -> None:
    server = canned(_chat('{"prompt_tokens": 100, "completion_tokens": 1}'))
    result = run_cli("probe", DEMO, "--provider", "openai", "--base-url", server.url("openai"), "--timeout", "2",
                     "--max-retries", "0", "--variants", "1", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""  # no serializer warnings
    rows = json.loads(result.stdout)["requests"]
    assert [(r["input_tokens"], r["cached_tokens"], r["cached_field_missing"]) for r in rows] == [(100, 0, True)] * 2


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("body", [b"<html>a proxy's page</html>", b""])
def test_a_response_that_is_not_json_is_one_line(run_cli: Callable[..., Any], canned: Callable[[bytes], _Canned],
                                                 provider: str, body: bytes) -> None:
    server = canned(body)
    line = one_error(run_cli("probe", DEMO, "--provider", provider, "--base-url", server.url(provider),
                             "--timeout", "2", "--max-retries", "0", "--variants", "1"))
    assert "not JSON" in line and line.startswith("error: request 1 of 2")


# ------------------------------------------------------------------------------------------
# An empty prompt, an empty or unknown option value: refused before anything is sent


def _base_url(server: FakeProvider, provider: str) -> str:
    return server.openai_base_url if provider == "openai" else server.anthropic_base_url


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize(("name", "text", "said"), [
    ("empty.md", "", "the file is empty"),
    ("blank.md", " \n\t\n\n", "the file holds only whitespace"),
    ("comment.j2", "{# the rules go here #}\n  \n", "renders to an empty prompt"),
])
def test_an_empty_prompt_is_refused_before_anything_is_sent(
        run_cli: Callable[..., Any], make_fake_provider: MakeServer, tmp_path: Path, provider: str, name: str,
        text: str, said: str) -> None:
    server = make_fake_provider()
    template = tmp_path / name
    template.write_text(text, encoding="utf-8")
    line = one_error(run_cli("probe", str(template), "--provider", provider, "--base-url",
                             _base_url(server, provider), "--timeout", "2", "--max-retries", "0"))
    assert line.startswith(f"error: {template}: ") and said in line
    assert server.requests == []
    assert template.read_text(encoding="utf-8") == text


@pytest.mark.parametrize(("values", "said"), [
    ('[{"rules": "Be brief."}, {"rules": "Be kind."}, {"rules": " "}]', "object 3"),
    ('[{"rules": ""}, {"rules": ""}]', "object 1"),  # every branch off: nothing renders at all
])
def test_a_vars_object_that_renders_an_empty_prompt_is_named(run_cli: Callable[..., Any], tmp_path: Path,
                                                             values: str, said: str) -> None:
    line, template, vars_file = _vars_error(run_cli, tmp_path, ("p.j2", "{% if rules %}{{ rules }}{% endif %}\n"),
                                            ("vars.json", values))
    assert line.startswith(f"error: --vars {vars_file}: {said} renders {template} to an empty prompt")


def test_a_workspace_of_empty_files_is_refused(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    (tmp_path / "SOUL.md").write_text("", encoding="utf-8")
    (tmp_path / "AGENTS.md").write_text("\n\n", encoding="utf-8")
    line = one_error(run_cli("probe", str(tmp_path), "--provider", "openai", "--dry-run"))
    assert line.startswith(f"error: {tmp_path}: ") and "every workspace file is empty" in line


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
@pytest.mark.parametrize("model", ["", "  ", "\t"])
def test_an_empty_model_is_refused_naming_the_option(run_cli: Callable[..., Any], make_fake_provider: MakeServer,
                                                     provider: str, model: str) -> None:
    server = make_fake_provider()
    line = one_error(run_cli("probe", DEMO, "--provider", provider, "--base-url", _base_url(server, provider),
                             "--timeout", "2", "--max-retries", "0", "--model", model))
    assert line.startswith(f"error: --model {model!r}: ") and "empty" in line
    assert server.requests == []


@pytest.mark.parametrize("model", [" gpt-4.1-mini", "gpt-4.1-mini\n"])
def test_a_model_name_with_white_space_around_it_is_refused(run_cli: Callable[..., Any],
                                                            make_fake_provider: MakeServer, model: str) -> None:
    server = make_fake_provider()
    line = one_error(run_cli("probe", DEMO, "--provider", "openai", "--base-url", server.openai_base_url,
                             "--timeout", "2", "--max-retries", "0", "--model", model))
    assert line == f"error: --model {model!r}: white space around the model name"
    assert server.requests == []


def test_an_empty_model_is_refused_for_the_local_backend(run_cli: Callable[..., Any]) -> None:
    line = one_error(run_cli("probe", DEMO, "--provider", "local", "--dry-run", "--model", ""))
    assert line.startswith("error: --model '': ") and "tiny" not in line


@pytest.mark.parametrize("provider", ["", "  ", "gemini"])
def test_an_unknown_provider_names_the_option_not_the_prompt(run_cli: Callable[..., Any], provider: str) -> None:
    line = one_error(run_cli("probe", DEMO, "--provider", provider, "--dry-run"))
    assert line.startswith(f"error: --provider {provider.strip()!r}: ") and DEMO not in line


@pytest.mark.parametrize("name", ["", "  "])
@pytest.mark.parametrize("option", ["--vars", "--config", "--report"])
def test_a_blank_file_name_is_refused_naming_the_option(run_cli: Callable[..., Any], tmp_path: Path, option: str,
                                                        name: str) -> None:
    line = one_error(run_cli("probe", DEMO, "--provider", "openai", "--dry-run", option, name, cwd=tmp_path))
    assert line == f"error: {option} {name!r}: a blank file name" and DEMO not in line


@pytest.mark.parametrize("name", ["", "  "])
def test_a_blank_path_is_refused_in_one_readable_line(run_cli: Callable[..., Any], tmp_path: Path, name: str) -> None:
    line = one_error(run_cli("probe", name, "--provider", "openai", "--dry-run", cwd=tmp_path))
    assert line.startswith(f"error: PATH {name!r}: a blank path")


@pytest.mark.parametrize(("text", "values", "said"), [
    ("Be brief.\n", None, "no volatile part found; every variant is the same prompt"),
    ("You are {name}.\n", '[{"name": "Ada"}, {"name": "Bo"}]', "every object renders the same prompt"),  # text
    ("You are {{ name }}.\n", '[{"name": "Ada"}, {"name": "Ada"}]', "every object renders the same prompt"),
])
def test_a_prompt_that_never_changes_says_so(run_cli: Callable[..., Any], tmp_path: Path, text: str,
                                             values: str | None, said: str) -> None:
    template = tmp_path / ("p.md" if "{{" not in text else "p.j2")
    template.write_text(text, encoding="utf-8")
    extra = []
    if values is not None:
        (tmp_path / "vars.json").write_text(values, encoding="utf-8")
        extra = ["--vars", str(tmp_path / "vars.json")]
    result = run_cli("probe", str(template), "--provider", "openai", "--dry-run", "--format", "json", *extra)
    assert result.exit_code == 0, result.stderr
    notes = json.loads(result.stdout)["notes"]
    assert any(said in note for note in notes), notes
    # A prompt whose variants differ has no such note.
    result = run_cli("probe", DEMO, "--provider", "openai", "--dry-run", "--format", "json")
    assert not any("the same prompt" in note for note in json.loads(result.stdout)["notes"])


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_vars_that_is_no_regular_file_is_refused_not_read(run_cli: Callable[..., Any], tmp_path: Path,
                                                          kind: str) -> None:
    import os

    if kind == "fifo" and not hasattr(os, "mkfifo") or kind == "device" and not os.path.exists("/dev/null"):
        pytest.skip(f"no {kind} here")
    # A FIFO blocks the reader until a writer comes (never); /dev/zero would never end, and
    # /dev/null stands for it here, as a device that reading it finds no end of in memory.
    vars_path = str(tmp_path / "vars.json") if kind == "fifo" else "/dev/null"
    if kind == "fifo":
        os.mkfifo(vars_path)
    result: list[Any] = []
    worker = threading.Thread(target=lambda: result.append(run_cli("probe", DEMO, "--provider", "openai",
                                                                   "--dry-run", "--vars", vars_path)), daemon=True)
    worker.start()
    worker.join(timeout=20)
    hung = worker.is_alive()
    if hung and kind == "fifo":  # let the blocked reader go: it reads nothing
        os.close(os.open(vars_path, os.O_WRONLY | os.O_NONBLOCK))
        worker.join(timeout=5)
    assert not hung, "the probe hung reading --vars"
    line = one_error(result[0])
    assert line.startswith(f"error: --vars {vars_path}: not a regular file")
