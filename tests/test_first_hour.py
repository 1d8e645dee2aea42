"""What a new user meets first: the fix-then-commit loop as the README prints it, what
the pre-commit hook is given (prompt files, request bodies, workspace config), and how
`check` reads a config file or a JSON file that is not a prompt."""

from __future__ import annotations

import json
import re
import shlex
import shutil
from pathlib import Path

import pytest
import yaml
from readme_blocks import blocks

from promptlint.config import DEFAULT_INCLUDE

REPO_ROOT = Path(__file__).resolve().parents[1]
MANIFEST = REPO_ROOT / ".pre-commit-hooks.yaml"
CLOCK = '{{ now().strftime("%H:%M:%S") }}'


# ------------------------------------------------------------------------------------------
# check --fix, then commit


def _fix_loop() -> list[list[str]]:
    """The README's fix-then-commit loop: the commands of the sh block that runs check --fix."""
    (block,) = [b for b in blocks("sh") if "check --fix" in b.text]
    commands = []
    for line in block.text.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            assert words[0] == "promptlint", line
            commands.append(words[1:])
    return commands


def test_the_readme_fix_loop_ends_at_exit_0(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("prompts/system.j2", f"You are Atlas.\nThe time is {CLOCK}.\n{long_rules}\n")
    write("prompts/AGENTS.md", f"# Agents\n{long_rules}\n")
    fix, *rest = _fix_loop()
    fixed = run_cli(*fix, cwd=tmp_path)
    # What a safe fix leaves: a per-request value at the tail, a warning by design.
    assert fixed.exit_code == 1, fixed.output
    assert "prompts/system.j2: fixed" in fixed.stdout
    assert "[error]" not in fixed.stdout
    note = fixed.stdout[fixed.stdout.index("remain after the fix") :]
    assert "chat history" in note and "latest user message" in note
    assert "--fail-on error" in note and "args: [--fail-on, error]" in note
    assert rest, "the README's loop has no step after the fix"
    for command in rest:
        result = run_cli(*command, cwd=tmp_path)
        assert result.exit_code == 0, (command, result.output)


def test_fix_alone_says_what_the_move_leaves(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("system.j2", f"The time is {CLOCK}.\n{long_rules}\n")
    result = run_cli("fix", "system.j2", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "still a warning there" in result.stdout
    assert "latest user message" in result.stdout and "args: [--fail-on, error]" in result.stdout
    # Nothing moved, nothing to say.
    again = run_cli("fix", "system.j2", cwd=tmp_path)
    assert "nothing to move" in again.stdout and "still a warning" not in again.stdout


def test_no_tail_note_after_an_assembly_order_fix(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Rewriting `order` moves whole files last: PC106 has nothing left to report."""
    shutil.copytree(REPO_ROOT / "fixtures" / "workspaces" / "memory-first", tmp_path / "agent")
    result = run_cli("fix", "agent/promptlint.toml", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "moved MEMORY.md after the stable files" in result.stdout
    assert "still a warning" not in result.stdout
    assert run_cli("check", "agent/promptlint.toml", cwd=tmp_path).exit_code == 0


def test_no_tail_note_when_errors_remain(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """An unfixable error is the story; --fail-on error would not help, so it is not offered."""
    write("system.j2", f"```\n{{{{ request_id }}}}\n```\n{long_rules}\n")
    result = run_cli("check", "--fix", "system.j2", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert "[error]" in result.stdout
    assert "remain after the fix" not in result.stdout


# ------------------------------------------------------------------------------------------
# The hook's manifest covers what check covers


def _hook() -> dict[str, object]:
    (hook,) = yaml.safe_load(MANIFEST.read_text())
    return hook  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "name",
    [f"prompts/x{glob[1:]}" for glob in DEFAULT_INCLUDE]
    + ["body.json", "requests/anthropic.json", "promptlint.toml", "agent/.promptlint.toml",
       "pyproject.toml", "agent/pyproject.toml"],
)
def test_the_hook_is_given_what_check_reads(name: str) -> None:
    assert re.search(str(_hook()["files"]), name), f"the hook's files pattern skips {name}"


# Code (.py, .ts, .js…) is given to the hook: it may build prompts (DEFAULT_INCLUDE).
@pytest.mark.parametrize("name", ["notes.toml", "ruff.toml", "mypyproject.toml", "setup.cfg", "style.css"])
def test_the_hook_is_not_given_other_config(name: str) -> None:
    assert not re.search(str(_hook()["files"]), name)


def test_the_hook_skips_what_is_not_a_prompt() -> None:
    assert "--hook" in str(_hook()["entry"]).split()


def test_the_readme_local_hook_is_the_manifests() -> None:
    """The `repo: local` variant in the README runs the same command on the same files."""
    local = [yaml.safe_load(b.text) for b in blocks("yaml", section="pre-commit") if "repo: local" in b.text]
    assert local, "the README shows no `repo: local` variant"
    (hook,) = local[0]["repos"][0]["hooks"]
    manifest = _hook()
    for key in ("id", "name", "entry", "types", "files"):
        assert hook[key] == manifest[key], key
    assert hook["language"] == "system"


# ------------------------------------------------------------------------------------------
# A config file named as a path is the workspace it describes


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    shutil.copytree(REPO_ROOT / "fixtures" / "workspaces" / "memory-first", tmp_path / "agent")
    return tmp_path / "agent"


def test_promptlint_toml_is_checked_as_its_workspace(run_cli, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", "agent/promptlint.toml", cwd=workspace.parent)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == [
        f"agent/{name}" for name in ("MEMORY.md", "SOUL.md", "AGENTS.md", "IDENTITY.md", "TOOLS.md")
    ]
    assert [(f["path"], f["line"], f["rule"]) for f in data["findings"]] == [("agent/promptlint.toml", 3, "PC106")]
    good = run_cli("check", str(REPO_ROOT / "fixtures" / "workspaces" / "memory-last" / "promptlint.toml"))
    assert good.exit_code == 0, good.output


def test_pyproject_assembly_table_is_checked(run_cli, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    order = (workspace / "promptlint.toml").read_text().split("[assembly]\n", 1)[1]
    (workspace / "promptlint.toml").unlink()
    (workspace / "pyproject.toml").write_text(f'[project]\nname = "agent"\n\n[tool.promptlint.assembly]\n{order}')
    result = run_cli("check", "--hook", "--no-frames", "agent/pyproject.toml", cwd=workspace.parent)
    assert result.exit_code == 1, result.output
    assert "agent/pyproject.toml:5:1 PC106 [error] MEMORY.md" in result.stdout


def test_a_config_with_an_unknown_key_fails_the_run(run_cli, workspace: Path) -> None:  # type: ignore[no-untyped-def]
    (workspace / "promptlint.toml").write_text('[assembly]\norder = ["SOUL.md"]\nordr = 1\n')
    result = run_cli("check", "--hook", "agent/promptlint.toml", cwd=workspace.parent)
    assert result.exit_code == 2
    assert "unknown key `assembly.ordr`" in result.output


def test_a_config_without_a_workspace_is_only_validated(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "promptlint.toml").write_text('fail-on = "error"\n')
    result = run_cli("check", "promptlint.toml", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "0 file(s) checked" in result.stdout


def test_a_pyproject_without_promptlint(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """From a hook, any pyproject.toml change is passed: not promptlint's, skipped quietly.
    Named by hand, it is a mistake worth one line."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "app"\n')
    quiet = run_cli("check", "--hook", "pyproject.toml", cwd=tmp_path)
    assert quiet.exit_code == 0, quiet.output
    assert "error" not in quiet.output.replace("0 error(s)", "")
    named = run_cli("check", "pyproject.toml", cwd=tmp_path)
    assert named.exit_code == 2
    assert "pyproject.toml: no [tool.promptlint] table" in named.output


# ------------------------------------------------------------------------------------------
# JSON that is not a request body


def test_hook_skips_json_that_is_not_a_request_body(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}\n')
    (tmp_path / "tsconfig.json").write_text('// comments are allowed here\n{"compilerOptions": {}}\n')
    shutil.copy(REPO_ROOT / "fixtures" / "requests" / "anthropic_timestamp.json", tmp_path / "body.json")
    result = run_cli("check", "--hook", "--format", "json", "package.json", "tsconfig.json", "body.json", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == ["body.json"]
    assert {f["rule"] for f in data["findings"] if f["severity"] == "error"} >= {"PC201"}  # PC201 owns values in bodies
    named = run_cli("check", "package.json", cwd=tmp_path)
    assert named.exit_code == 2
    assert "not an OpenAI or Anthropic request body" in named.output


def test_folder_walk_skips_json_that_is_not_a_request_body(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "promptlint.toml").write_text('include = ["*.json"]\n')
    (tmp_path / "requests").mkdir()
    (tmp_path / "requests" / "package.json").write_text('{"name": "app"}\n')
    shutil.copy(REPO_ROOT / "fixtures" / "requests" / "anthropic_clean.json", tmp_path / "requests" / "body.json")
    result = run_cli("check", "--format", "json", "requests", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == ["requests/body.json"], result.output
    assert all(f["error"] is None for f in data["files"])


def test_json_templated_under_an_ambiguous_suffix_is_json_that_is_not_a_request_body(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # `realm.json.tmpl` (a Keycloak realm with ${role_…} values, in OpenHands) is read as JSON
    # by its inner suffix: a folder walk and a hook refused it, exit 2, as "not an OpenAI or
    # Anthropic request body". A `.json.j2` stays a Jinja template.
    (tmp_path / "realm.json.tmpl").write_text('{"realm": "x", "roles": [{"name": "${role_admin}"}]}\n')
    (tmp_path / "request.json.j2").write_text('{"messages": [{"role": "system", "content": "Now {{ now() }}. Be kind."}]}\n')
    (tmp_path / "a.md").write_text("You are kind.\n")
    walked = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    data = json.loads(walked.stdout)
    assert sorted(f["path"] for f in data["files"]) == ["a.md", "request.json.j2"], walked.output
    assert walked.exit_code == 1 and [f["rule"] for f in data["findings"]] == ["PC101"]
    hooked = run_cli("check", "--hook", "realm.json.tmpl", "a.md", cwd=tmp_path)
    assert hooked.exit_code == 0, hooked.output
    assert run_cli("check", "realm.json.tmpl", cwd=tmp_path).exit_code == 2  # named: said


def test_an_order_of_files_in_subfolders(run_cli, tmp_path: Path, long_rules: str) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "rules.md").write_text(f"# Rules\n{long_rules}\n")
    (tmp_path / "parts" / "MEMORY.md").write_text("# Memory\n- the user prefers short answers\n")
    (tmp_path / "promptlint.toml").write_text('[assembly]\norder = ["parts/MEMORY.md", "parts/rules.md"]\n')
    result = run_cli("check", "--format", "json", "promptlint.toml", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == ["parts/MEMORY.md", "parts/rules.md"]
    assert [(f["path"], f["rule"]) for f in data["findings"]] == [("promptlint.toml", "PC106")]


def test_a_config_without_order_stands_for_the_conventional_workspace(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Without `order`, PC106 reads the workspace files by the known convention: so does
    checking the config (its `[assembly] volatile`/`stable` change that judgement)."""
    for name in ("SOUL.md", "AGENTS.md", "notes.md"):
        shutil.copy(REPO_ROOT / "fixtures" / "agents" / ("SOUL.md" if name == "notes.md" else name), tmp_path / name)
    (tmp_path / "promptlint.toml").write_text('[assembly]\nvolatile = ["SOUL.md"]\n')
    result = run_cli("check", "--format", "json", "promptlint.toml", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == ["AGENTS.md", "SOUL.md"]
