"""Where the prompt ends up: a template that renders the latest user turn (by its file name,
or `[role]` in config) has no cached content after it, so its volatile values are not
reported; config validates the table, and the output says what decided the role."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptlint.api import check_paths
from promptlint.config import Config, ConfigError, parse, role_for

from conftest import LONG_RULES

USER_TURN = (
    "Context the support tool attached:\n{% for note in ticket.notes %}- {{ note.body }}\n{% endfor %}\n"
    + LONG_RULES
    + "\nCustomer: {{ customer.first_name }}\nCurrent time: {{ now().strftime('%H:%M:%S') }}\n"
    "Question:\n{{ question }}\n"
)


@pytest.mark.parametrize(
    ("name", "role"),
    [
        ("answer_user.j2", "user"),
        ("prompts/turn_user.j2", "user"),
        ("qa.user.txt", "user"),
        ("user_prompt.md", "user"),
        ("user-message.hbs", "user"),
        ("human_turn.j2", "user"),
        ("user.j2", "system"),  # a bare name is too often a template about the user
        ("USER.md", "system"),  # the OpenClaw workspace file about the user
        ("user_profile.md", "system"),
        ("signed_in_user.j2", "system"),
        ("current_user.mustache", "system"),
        ("answer_user.md", "system"),
        ("system.j2", "system"),
    ],
)
def test_role_from_the_file_name(name: str, role: str) -> None:
    assert role_for(name, Config())[0] == role


@pytest.mark.parametrize(
    ("text", "role"),
    [
        ("You are the hire assistant at Curtain Call Wigs.\n{{#if customer}}…", "system"),
        ("{{!-- about the guest --}}\nYou help guests book hovercraft days.\n", "system"),
        ("Act as the taproom's loyalty assistant.\n", "system"),
        ("[{{ now() }}] {{ user.first_name }} asks:\n{{ question }}\n", "user"),
        ("{# Latest user turn #}\n{{ question }}\n", "user"),
    ],
)
def test_a_user_named_file_that_addresses_the_assistant_is_a_system_prompt(text: str, role: str) -> None:
    # `*_user` names the user turn, unless the text opens by telling the assistant what it is.
    assert role_for("prompts/wig_user.hbs", Config(), text)[0] == role
    assert role_for("prompts/user_message.hbs", Config(), text)[0] == "user"  # said outright


def test_role_from_config_wins(tmp_path: Path) -> None:
    config = parse(tmp_path / "promptlint.toml", {"role": {"prompts/followup*.j2": "user", "answer_user.j2": "system"}})
    assert role_for(str(tmp_path / "prompts/followup_1.j2"), config) == (
        "user", "config [role] 'prompts/followup*.j2' in promptlint.toml")
    assert role_for(str(tmp_path / "answer_user.j2"), config)[0] == "system"


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"role": {"*.j2": "assistant"}}, "unknown role 'assistant'"),
        ({"role": "user"}, "`role` maps globs"),
        ({"role": {"*.j2": 3}}, "unknown role 3"),
    ],
)
def test_role_table_is_validated(tmp_path: Path, table: dict, problem: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(ConfigError, match=problem):
        parse(tmp_path / "promptlint.toml", table)


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_user_turn_template_reports_nothing(tmp_path: Path) -> None:
    path = _write(tmp_path, "prompts/answer_user.j2", USER_TURN)
    report = check_paths([str(path)])
    (result,) = report.files
    assert result.findings == [] and not result.error
    assert (result.extra["role"], result.extra["role_evidence"]) == ("user", "file name 'answer_user.j2'")
    # The same text as a system prompt: the clock at its end is still a finding.
    system = _write(tmp_path, "prompts/answer.j2", USER_TURN)
    assert any(f.rule == "PC101" for f in check_paths([str(system)]).findings)


def test_config_role_and_the_output(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("prompts/followup.j2", USER_TURN)
    write("promptlint.toml", '[role]\n"prompts/followup*.j2" = "user"\n')
    result = run_cli("check", "prompts/followup.j2", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "read as the latest user turn (config [role] 'prompts/followup*.j2' in promptlint.toml)" in result.stdout
    data = json.loads(run_cli("check", "--format", "json", "prompts/followup.j2", cwd=tmp_path).stdout)
    assert data["findings"] == []
    assert data["files"][0]["role"] == "user"


def test_bad_role_in_config_exits_2(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("a.j2", "Hello")
    write("promptlint.toml", '[role]\n"*.j2" = "assistant"\n')
    result = run_cli("check", "a.j2", cwd=tmp_path)
    assert result.exit_code == 2 and "unknown role 'assistant'" in result.output


def test_include_in_a_user_turn_is_not_reported(tmp_path: Path) -> None:
    _write(tmp_path, "now.j2", "Time: {{ now().strftime('%H:%M') }}\n")
    path = _write(tmp_path, "question_user.j2", '{% include "now.j2" %}\n' + LONG_RULES)
    assert [f for f in check_paths([str(path)]).findings if f.rule == "PC104"] == []


def test_system_files_keep_no_role_field(tmp_path: Path) -> None:
    path = _write(tmp_path, "system.j2", "Hello {{ user.name }}\n" + LONG_RULES)
    (result,) = check_paths([str(path)]).files
    assert "role" not in result.to_json()


def test_readme_documents_the_role_table() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    config_section = readme.split("### Configuration", 1)[1].split("\n## ", 1)[0]
    assert "[tool.promptlint.role]" in config_section and '"prompts/*_user.j2" = "user"' in config_section
