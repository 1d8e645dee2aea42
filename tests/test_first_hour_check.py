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
