"""Issue 9, check and its messages: what a new user meets in the first hour, each item
with the test that would have caught it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
CLOCK = '{{ now().strftime("%H:%M:%S") }}'


# -- 9. unknown rule codes are an error, never a silently empty run --------------------

@pytest.mark.parametrize("option", ["--select", "--ignore"])
@pytest.mark.parametrize("code", ["PC9", "XYZ"])
def test_unknown_rule_code_on_the_command_line_exits_2_with_the_known_codes(run_cli, write, option, code,
                                                                           long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    result = run_cli("check", str(path), option, code)
    assert result.exit_code == 2
    line = result.stderr.strip()
    assert "\n" not in line
    assert code in line and "PC101" in line and "ALL" in line


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_check_fix_with_an_unknown_rule_code_writes_nothing(run_cli, write, option, long_rules):
    """`check --fix --select PC999` wrote the fix, then refused the code (exit 2 with the
    file changed): the codes are read before anything is written."""
    source = f"Now: {CLOCK}\n{long_rules}\n"
    path = write("a.j2", source)
    result = run_cli("check", "--fix", option, "PC999", str(path))
    assert result.exit_code == 2 and "PC999" in result.stderr
    assert path.read_text(encoding="utf-8") == source


def test_a_known_prefix_still_selects(run_cli, write, long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    assert run_cli("check", str(path), "--select", "pc1").exit_code == 1


def test_unknown_rule_code_in_config_is_an_error_naming_the_file_and_key(run_cli, tmp_path, long_rules):
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint]\nignore = ["PC9"]\n')
    (tmp_path / "a.j2").write_text(f"Now: {CLOCK}\n{long_rules}\n")
    result = run_cli("check", str(tmp_path / "a.j2"))
    assert result.exit_code == 2
    assert "pyproject.toml" in result.output and "`ignore`" in result.output and "PC9" in result.output


def test_unknown_rule_code_through_the_api_is_a_file_error(write):
    from promptlint.api import check_paths

    path = write("a.md", "static\n")
    report = check_paths([str(path)], select=("PC9",))
    assert report.exit_code() == 2
    assert "PC9" in (report.files[0].error or "")


# -- 10. a symlink loop under a checked folder is skipped with a warning ---------------

def test_symlink_loop_in_a_folder_is_skipped_with_a_warning_and_the_rest_is_checked(run_cli, tmp_path,
                                                                                  long_rules):
    (tmp_path / "good.j2").write_text(f"Now: {CLOCK}\n{long_rules}\n")
    os.symlink("loop_b.md", tmp_path / "loop_a.md")
    os.symlink("loop_a.md", tmp_path / "loop_b.md")
    os.symlink("self.md", tmp_path / "self.md")
    os.symlink(".", tmp_path / "sub_loop")  # a folder link back to itself
    result = run_cli("check", str(tmp_path), "--format", "json")
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [Path(f["path"]).name for f in data["files"]] == ["good.j2"]
    warned = " ".join(data["warnings"])
    for name in ("loop_a.md", "loop_b.md", "self.md"):
        assert f"{name}: skipped (symlink loop)" in warned
    text = run_cli("check", str(tmp_path))
    assert "warning:" in text.stdout and "symlink loop" in text.stdout
    assert "internal error" not in text.output


def test_dangling_symlink_in_a_folder_is_skipped_with_a_warning(run_cli, tmp_path):
    (tmp_path / "ok.md").write_text("static text\n")
    os.symlink("missing.md", tmp_path / "gone.md")
    result = run_cli("check", str(tmp_path), "--format", "json")
    assert result.exit_code == 0
    assert any("gone.md: skipped (dangling symlink)" in w for w in json.loads(result.stdout)["warnings"])


# -- 11. folder walks pick up request bodies by shape, and skip other JSON quietly -----

def test_folder_walk_picks_up_request_bodies_and_skips_other_json(run_cli, tmp_path):
    shutil.copy(REPO_ROOT / "fixtures/requests/openai_chat.json", tmp_path / "body.json")
    (tmp_path / "package.json").write_text('{"name": "x", "version": "1.0.0"}\n')
    (tmp_path / "schema.json").write_text('{"type": "object", "properties": {"input": {"type": "string"}}}\n')
    (tmp_path / "broken.json").write_text('{"messages": [\n')
    result = run_cli("check", str(tmp_path), "--format", "json")
    data = json.loads(result.stdout)
    assert [Path(f["path"]).name for f in data["files"]] == ["body.json"]
    assert result.exit_code == 1
    assert "errors" not in data and "warnings" not in data


def test_check_on_the_shipped_requests_folder_finds_the_bodies(run_cli):
    result = run_cli("check", str(REPO_ROOT / "fixtures/requests"), "--format", "json")
    names = sorted(Path(f["path"]).name for f in json.loads(result.stdout)["files"])
    assert names == ["anthropic_clean.json", "anthropic_timestamp.json", "openai_chat.json"]
    assert result.exit_code == 1


# -- 12. workspace [assembly]: counted honestly, kept with --config, obeys --ignore ------

WORKSPACE = REPO_ROOT / "fixtures/workspaces/memory-first"


def test_a_finding_in_the_workspace_config_is_counted_as_a_file_drawn_on(run_cli):
    result = run_cli("check", str(WORKSPACE / "SOUL.md"), "--no-frames")
    assert result.exit_code == 1
    tail = result.stdout.strip().splitlines()[-1]
    assert tail.startswith("1 file(s) checked (plus 1 they draw on: ") and "promptlint.toml" in tail


def test_config_file_without_assembly_keeps_the_workspace_assembly_check(run_cli, tmp_path):
    explicit = tmp_path / "promptlint.toml"
    explicit.write_text('fail-on = "error"\n')
    result = run_cli("check", str(WORKSPACE / "SOUL.md"), "--config", str(explicit), "--format", "json")
    assert result.exit_code == 1
    assert [f["rule"] for f in json.loads(result.stdout)["findings"]] == ["PC106"]


def test_ignore_reaches_findings_in_files_the_run_draws_on(run_cli):
    result = run_cli("check", str(WORKSPACE / "SOUL.md"), "--ignore", "PC106", "--format", "json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["findings"] == []


def test_readme_documents_the_assembly_table():
    readme = (REPO_ROOT / "README.md").read_text()
    config_section = readme.split("### Configuration", 1)[1].split("\n## ", 1)[0]
    assert "[tool.promptlint.assembly]" in config_section and "order = [" in config_section


# -- 13. code frames fit the terminal, clipped around the span ---------------------------

def test_a_one_line_json_body_prints_frames_clipped_to_the_terminal(run_cli, tmp_path):
    body = json.loads((REPO_ROOT / "fixtures/requests/openai_chat.json").read_text())
    one_line = tmp_path / "one.json"
    one_line.write_text(json.dumps(body))
    assert len(one_line.read_text()) > 5000
    result = run_cli("check", str(one_line))
    frame_lines = [line for line in result.stdout.splitlines() if "│" in line]
    assert frame_lines, result.stdout
    assert max(len(line) for line in frame_lines) <= 80  # CliRunner's terminal is 80 wide
    marked = [line for line in frame_lines if line.lstrip().startswith(">")]
    assert all("…" in line and "2026-11-30T14:00:00Z" in line for line in marked)
    assert len(result.stdout) < 4000


def test_clip_keeps_the_span_under_its_caret():
    from promptlint.reporters.text import _clip

    source = "x" * 500 + "VALUE" + "y" * 500
    shown, start, end = _clip(source, 500, 505, 60)
    assert len(shown) <= 60 and shown[start:end] == "VALUE"
    assert shown.startswith("…") and shown.endswith("…")
    assert _clip("short line", 0, 5, 60) == ("short line", 0, 5)


def test_escape_sequences_in_a_template_are_not_printed_raw(run_cli, write, long_rules):
    path = write("a.j2", f"Now \x1b[2J{{{{ now().strftime('%H:%M') }}}}\n{long_rules}\n")
    result = run_cli("check", str(path))
    assert "\x1b[2J" not in result.stdout


# -- 14. findings on request JSON: one per value, its own span, advice for that file -----

BODY = {
    "model": "gpt-5.5",
    "messages": [
        {"role": "system", "content": "Current time: 2026-12-01T10:42:17Z. Request id: req_8f3a9c2d71. "
         "You are a helpful assistant for Acme.\n\n" + "\n".join(f"Policy {i}: be polite and cite sources."
                                                                for i in range(40))},
        {"role": "user", "content": "Where is my order?"},
    ],
}


def _body_findings(run_cli, tmp_path, body=BODY):
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body, indent=2))
    result = run_cli("check", str(path), "--format", "json")
    return path, json.loads(result.stdout)


def test_each_value_in_a_body_gets_its_own_span(run_cli, tmp_path):
    path, data = _body_findings(run_cli, tmp_path)
    source = path.read_text().splitlines()
    values = {}
    for f in data["findings"]:
        values.setdefault(f["rule"], []).append(source[f["line"] - 1][f["column"] - 1 : f["end_column"] - 1])
    assert values["PC208"] == ["2026-12-01T10:42:17Z", "req_8f3a9c2d71"]
    assert values["PC103"] == ["2026-12-01T10:42:17Z"]


def test_one_finding_per_value_and_one_token_count(run_cli, tmp_path):
    _, data = _body_findings(run_cli, tmp_path)
    cache_breakers = [f for f in data["findings"] if f["rule"] in ("PC101", "PC201", "PC208")]
    by_value = {}
    for f in cache_breakers:
        by_value.setdefault((f["line"], f["column"]), []).append(f)
    assert all(len(found) == 1 for found in by_value.values()), by_value
    file_entry = data["files"][0]
    first = cache_breakers[0]
    # The same count the file's own summary is made of: not more tokens than the file has.
    assert 0 < first["tokens_lost"] < file_entry["tokens"]


def test_body_findings_name_the_literal_and_advice_that_fits_the_file(run_cli, tmp_path):
    _, data = _body_findings(run_cli, tmp_path)
    for f in data["findings"]:
        assert "current_time" not in f["message"] and "request_id" not in f["message"]
        assert "judged by the name" not in f["message"] and "judged by the name" not in (f.get("evidence") or "")
        assert "after line" not in f["message"]
    pc208 = [f for f in data["findings"] if f["rule"] == "PC208"]
    assert all("messages[0].content" in f["message"] and "latest user message" in f["message"] for f in pc208)
    assert pc208[0]["evidence"].startswith("a literal time of day")


# -- 17. wording fits the value's frequency and the file's syntax ------------------------

def _messages(run_cli, path, *args):
    result = run_cli("check", str(path), "--format", "json", *args)
    return [f["message"] for f in json.loads(result.stdout)["findings"]]


def test_per_user_and_per_session_values_are_not_said_to_cost_every_call(run_cli, write, long_rules):
    path = write("a.j2", f"Hello {{{{ user.name }}}}.\nWork in {{{{ cwd }}}}.\n{long_rules}\n")
    user, cwd = _messages(run_cli, path, "--select", "PC101")
    assert "differs for every user" in user and "re-billed for every user" in user
    assert "re-billed on every call" not in user
    assert "changes from one session to the next" in cwd and "re-billed in every new session" in cwd
    assert "re-billed on every call" not in cwd


def test_counts_are_pluralised(run_cli, write):
    path = write("a.j2", f"Intro.\nNow: {CLOCK}\nEnd\n")
    messages = _messages(run_cli, path, "--select", "PC101")
    assert messages and not any("1 stable tokens" in m for m in messages)
    from promptlint.core.severity import stable_tokens

    assert stable_tokens(1) == "1 stable token" and stable_tokens(1234) == "1,234 stable tokens"


def test_mustache_tool_loop_advice_is_not_a_jinja_filter(run_cli, write, long_rules):
    path = write("a.mustache", "{{#tools}}\n- {{name}}: {{description}}\n{{/tools}}\n" + long_rules + "\n")
    (message,) = _messages(run_cli, path, "--select", "PC102")
    assert "| sort" not in message and "dictsort" not in message
    assert "code that fills the template" in message
    jinja = write("b.j2", "{% for tool in tools %}\n- {{ tool.name }}\n{% endfor %}\n" + long_rules + "\n")
    (jinja_message,) = _messages(run_cli, jinja, "--select", "PC102")
    assert '| sort(attribute="name")' in jinja_message


# -- 18. nothing is accepted silently ------------------------------------------------------

def test_unknown_model_says_which_tokenizer_was_assumed(run_cli, write):
    path = write("a.md", "static\n")
    result = run_cli("check", str(path), "--model", "gpt-99")
    assert result.exit_code == 0
    assert "gpt-99" in result.stdout and "o200k_base" in result.stdout and "warning:" in result.stdout
    quiet = run_cli("check", str(path), "--model", "gpt-4.1")
    assert "warning:" not in quiet.stdout


def test_fix_diff_exits_1_like_check_diff_when_a_fix_is_pending(run_cli, write, long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    before = path.read_bytes()
    assert run_cli("check", "--diff", str(path)).exit_code == 1
    assert run_cli("fix", "--diff", str(path)).exit_code == 1
    assert path.read_bytes() == before


def test_unsafe_fixes_without_fix_or_diff_is_an_error(run_cli, write):
    path = write("a.md", "static\n")
    result = run_cli("check", "--unsafe-fixes", str(path))
    assert result.exit_code == 2 and "--fix" in result.stderr and "--diff" in result.stderr


def test_a_missing_include_is_said(run_cli, write):
    path = write("a.j2", 'Hello.\n{% include "nope.j2" %}\nRules.\n')
    result = run_cli("check", str(path), "--format", "json")
    (warning,) = json.loads(result.stdout)["warnings"]
    assert "a.j2:2:1" in warning and "nope.j2" in warning and "not found" in warning


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_an_include_or_parent_that_cannot_be_read_is_said_with_why(run_cli, tmp_path, jobs):
    # Found but unreadable (binary, not UTF-8, a syntax error): its content goes unchecked
    # as a missing one's does, and was said by nothing.
    (tmp_path / "bin.j2").write_bytes(b"abc\x00def")
    (tmp_path / "latin.mustache").write_bytes(b"caf\xe9 {{ name }}\n")
    (tmp_path / "broken.j2").write_text("{% if x %}never closed\n")
    (tmp_path / "a.j2").write_text('Hello.\n{% include "bin.j2" %}\n{% include "broken.j2" %}\nRules.\n')
    (tmp_path / "b.mustache").write_text("Hello.\n{{> latin}}\nRules.\n")
    (tmp_path / "c.j2").write_text('{% extends "broken.j2" %}\n{% block body %}Rules.{% endblock %}\n')
    names = ["a.j2", "b.mustache", "c.j2"]
    result = run_cli("check", "-j", jobs, "--format", "json", *[str(tmp_path / n) for n in names])
    warnings = json.loads(result.stdout)["warnings"]
    said = {(w.split(": ", 1)[0].rsplit("/", 1)[-1], w.split("`")[1]): w for w in warnings}
    assert set(said) == {("a.j2:2:1", "bin.j2"), ("a.j2:3:1", "broken.j2"), ("b.mustache:2:1", "latin"),
                         ("c.j2:1:1", "broken.j2")}, warnings
    assert "could not be read (binary file (contains NUL bytes), not a prompt)" in said["a.j2:2:1", "bin.j2"]
    assert "could not be read (line 1, column 4: invalid UTF-8 (byte 0xe9))" in said["b.mustache:2:1", "latin"]
    assert all("could not be read (line " in said[k] for k in [("a.j2:3:1", "broken.j2"), ("c.j2:1:1", "broken.j2")])
    assert result.exit_code == 0


def test_a_prompt_over_the_models_context_window_is_said(run_cli, tmp_path):
    (tmp_path / "promptlint.toml").write_text('max-file-size = "20MB"\n')
    path = tmp_path / "huge.md"
    path.write_text("Rule: be polite to the customer and cite sources please.\n" * 110_000)
    result = run_cli("check", str(path), "--format", "json")
    warnings = json.loads(result.stdout)["warnings"]
    assert any("huge.md" in w and "context window of gpt-5.5" in w for w in warnings)


# -- 16. replay: nothing is lost below the provider minimum ---------------------------------

def test_replay_counts_no_loss_for_requests_that_could_never_be_cached(run_cli, tmp_path):
    lines = []
    for minute in range(5):
        body = {"model": "gpt-5.5", "messages": [
            {"role": "system", "content": f"Current time: 2026-12-01T10:4{minute}:17Z. You are helpful."},
            {"role": "user", "content": "hi"}]}
        lines.append(json.dumps({"request": body, "timestamp": f"2026-12-01T10:4{minute}:17Z"}))
    log = tmp_path / "small.jsonl"
    log.write_text("\n".join(lines) + "\n")
    data = json.loads(run_cli("replay", str(log), "--format", "json").stdout)
    assert data["summary"]["tokens_lost"] == 0 and data["summary"]["cost_lost"] == 0
    assert any("below the" in n and "minimum" in n for n in data["summary"]["notes"])
