"""`promptlint fix` as a pre-commit hook or a CI job meets it: the diff of a file with a
BOM applies with `git apply`; a CRLF config's `[assembly] order` is rewritten with its
own endings; one file reached by two names in one run is fixed once and the run passes;
and a file `check` reports nothing in (a latest user turn, a value silenced by a
`promptlint: disable` comment) is left as it is by `fix`, `fix --check` and `check --fix`."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from promptlint.fix import fix_paths
from tests.conftest import LONG_RULES

FIXABLE = f"Time {{{{ now() }}}}\n\n{LONG_RULES}\n"
MOVED_LAST = f"{LONG_RULES}\n\nTime {{{{ now() }}}}\n"
WORKSPACE = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces" / "memory-first"


def _fixed(run_cli: Any, folder: Path, name: str, source: str, *options: str) -> str:
    """``source`` written to ``folder/name``, `promptlint fix` run on it (exit 0), and the
    file's text after it."""
    (folder / name).write_text(source)
    result = run_cli("fix", *options, name, cwd=folder)
    assert result.exit_code == 0, result.output
    assert "not written" not in result.output
    return (folder / name).read_text()


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_diff_of_a_file_with_a_bom_applies_with_git_apply(run_cli: Any, tmp_path: Path) -> None:
    original = b"\xef\xbb\xbf" + FIXABLE.encode()
    (tmp_path / "a.j2").write_bytes(original)
    result = run_cli("fix", "--diff", "a.j2", cwd=tmp_path)
    assert result.exit_code == 1, result.output
    assert (tmp_path / "a.j2").read_bytes() == original
    # Its first line is the file's, BOM and all, as `git diff` writes it.
    assert "-\ufeffTime {{ now() }}\n" in result.output
    patch = tmp_path / "fix.patch"
    patch.write_text(result.output, encoding="utf-8", newline="")
    applied = subprocess.run(["git", "apply", str(patch)], cwd=tmp_path, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert (tmp_path / "a.j2").read_bytes() == b"\xef\xbb\xbf" + MOVED_LAST.encode()


@pytest.mark.parametrize("order", [
    '["MEMORY.md", "SOUL.md", "AGENTS.md", "IDENTITY.md", "TOOLS.md"]',
    '[\n    "MEMORY.md",\n    "SOUL.md",\n    "AGENTS.md",\n]',
])
def test_a_crlf_config_has_its_order_rewritten_with_its_own_line_endings(tmp_path: Path, order: str) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(WORKSPACE, workspace)
    config = workspace / "promptlint.toml"
    config.write_bytes(f"# the order\n[assembly]\norder = {order}\n".replace("\n", "\r\n").encode())
    report = fix_paths([str(workspace)])
    result = next(r for r in report.files if r.path.endswith("promptlint.toml"))
    assert result.written and not result.problems, result.problems
    text = config.read_bytes()
    assert b"\n" not in text.replace(b"\r\n", b"")  # every line still ends in CRLF
    assert text.startswith(b"# the order\r\n[assembly]\r\norder = [")
    assert text.index(b'"SOUL.md"') < text.index(b'"MEMORY.md"')
    # What the diff showed is what was written: its lines end as the file's do.
    assert result.diff.count("\r\n") >= 3


@pytest.mark.parametrize("link", ["symlink", "hard link"])
def test_one_file_under_two_names_in_a_folder_is_fixed_once_and_the_run_passes(
    run_cli: Any, tmp_path: Path, link: str
) -> None:
    folder = tmp_path / "prompts"
    folder.mkdir()
    (folder / "a.j2").write_text(FIXABLE)
    if link == "symlink":
        (folder / "b.j2").symlink_to("a.j2")
    else:
        os.link(folder / "a.j2", folder / "b.j2")
    result = run_cli("fix", "prompts", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    assert "changed on disk" not in result.output
    assert (folder / "a.j2").read_text() == MOVED_LAST
    assert (folder / "b.j2").read_text() == MOVED_LAST
    assert (folder / "b.j2").is_symlink() == (link == "symlink")


def test_a_latest_user_turn_is_not_rewritten(run_cli: Any, tmp_path: Path) -> None:
    (tmp_path / "promptlint.toml").write_text('[role]\n"turn.j2" = "user"\n')
    (tmp_path / "turn.j2").write_text(FIXABLE)
    checked = run_cli("check", "--format", "json", "turn.j2", cwd=tmp_path)
    assert json.loads(checked.output)["findings"] == []
    for args in (("fix", "--check"), ("fix",), ("check", "--fix")):
        result = run_cli(*args, "turn.j2", cwd=tmp_path)
        assert result.exit_code == 0, (args, result.output)
        assert "latest user turn" in result.output
        assert (tmp_path / "turn.j2").read_text() == FIXABLE


@pytest.mark.parametrize("comment", [
    "{# promptlint: disable=PC101 #}\n",
    "{# promptlint: disable-file=PC101 #}\n",
    "{# promptlint: disable #}\n",
])
def test_a_value_check_is_told_to_leave_is_not_moved(run_cli: Any, tmp_path: Path, comment: str) -> None:
    source = f"You are a careful assistant.\n{comment}{FIXABLE}"
    (tmp_path / "a.j2").write_text(source)
    checked = run_cli("check", "--format", "json", "a.j2", cwd=tmp_path)
    assert [f for f in json.loads(checked.output)["findings"] if f["rule"] == "PC101"] == []
    for args in (("fix", "--check"), ("fix",), ("check", "--fix")):
        result = run_cli(*args, "a.j2", cwd=tmp_path)
        assert result.exit_code == 0, (args, result.output)
        assert (tmp_path / "a.j2").read_text() == source
    assert "PC101 is disabled for it" in run_cli("fix", "a.j2", cwd=tmp_path).output


@pytest.mark.parametrize(("config", "options"), [
    ('ignore = ["PC101"]\n', ()),
    ('select = ["PC102", "PC103"]\n', ()),
    ("", ("--ignore", "PC101")),
    ("", ("--select", "PC102")),
])
def test_a_value_whose_rule_is_turned_off_is_not_moved(run_cli: Any, tmp_path: Path, config: str,
                                                       options: tuple[str, ...]) -> None:
    # With PC101 off (config, or check's --select/--ignore), check passed the file and fix
    # --check failed it, and check --fix moved the value anyway.
    (tmp_path / "a.j2").write_text(FIXABLE)
    if config:
        (tmp_path / "promptlint.toml").write_text(config)
    commands = [("check", "--fix", *options), ("check", "--diff", *options)]
    if not options:
        commands += [("fix", "--check"), ("fix",)]
    for args in commands:
        result = run_cli(*args, "a.j2", cwd=tmp_path)
        assert result.exit_code == 0, (args, result.output)
        assert (tmp_path / "a.j2").read_text() == FIXABLE, args
    shown = run_cli(*(("fix",) if not options else ("check", "--fix", *options)), "a.j2", cwd=tmp_path).output
    assert "PC101 is not selected (select/ignore)" in shown


def test_a_workspace_order_is_not_rewritten_when_pc106_is_off(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    shutil.copytree(WORKSPACE, workspace)
    config = workspace / "promptlint.toml"
    before = config.read_text()
    assert fix_paths([str(workspace)], write=False).files, "the workspace must have an order to fix"
    fix_paths([str(workspace)], ignore=("PC106",))
    assert config.read_text() == before
    fix_paths([str(workspace)])
    assert config.read_text() != before


def test_a_silenced_rule_of_another_line_does_not_hold_a_value(run_cli: Any, tmp_path: Path) -> None:
    source = f"You are a careful assistant.\n{{# promptlint: disable=PC105 #}}\n\n{FIXABLE}"
    assert _fixed(run_cli, tmp_path, "a.j2", source).endswith("Time {{ now() }}\n")


@pytest.mark.parametrize(("name", "source"), [
    ("a.j2", f"You are careful.\n{{%- if user -%}}\nUser: {{{{ user.name }}}}\n{{%- endif -%}}\n\n{LONG_RULES}\n"),
    ("b.j2", f"You are careful.\nUser: {{{{ user.name -}}}}\n\n{LONG_RULES}\n"),
    ("c.j2", f"You are careful.\n\n{{{{- user.name }}}}\n\n{LONG_RULES}\n"),
    ("d.gotmpl", f"You are careful.\nNow: {{{{ .Time -}}}}\n\n{LONG_RULES}\n"),
])
def test_a_value_joined_to_its_neighbours_by_whitespace_control_is_not_fixable_in_check_nor_fix(
    run_cli: Any, tmp_path: Path, name: str, source: str
) -> None:
    # Moving it would join other text (the proof refused the move, and `fix` exited 1 on a
    # finding `check` called fixable).
    (tmp_path / name).write_text(source)
    checked = json.loads(run_cli("check", "--format", "json", name, cwd=tmp_path).output)
    pc101 = [f for f in checked["findings"] if f["rule"] == "PC101"]
    assert pc101 and not any(f["fixable"] for f in pc101)
    assert "whitespace control" in pc101[0]["unfixable_reason"]
    assert _fixed(run_cli, tmp_path, name, source) == source


def test_a_block_whose_trimmed_tags_stand_alone_still_moves(run_cli: Any, tmp_path: Path) -> None:
    source = f"You are careful.\n{{%- if user %}}\nUser: {{{{ user.name }}}}\n{{%- endif %}}\n\n{LONG_RULES}\n"
    assert _fixed(run_cli, tmp_path, "a.j2", source).endswith("User: {{ user.name }}\n{%- endif %}\n")


@pytest.mark.parametrize(("comment", "config"), [
    ("{# promptlint: disable=PC103 #}\n", ""),
    ("", 'ignore = ["PC103"]\n'),
    ("", ""),  # the control: coarsened
])
def test_unsafe_fixes_leave_a_clock_whose_precision_finding_is_off(run_cli: Any, tmp_path: Path, comment: str,
                                                                   config: str) -> None:
    # --unsafe-fixes coarsened the clock whatever a disable comment or the config said of PC103;
    # the value still moves (PC101 is on), its format stays.
    if config:
        (tmp_path / "promptlint.toml").write_text(config)
    source = f"Intro.\n{comment}Now: {{{{ now().strftime('%H:%M') }}}}\n\n{LONG_RULES}\n"
    text = _fixed(run_cli, tmp_path, "a.j2", source, "--unsafe-fixes")
    assert text.rstrip().endswith("}}"), "the clock moves to the tail either way"
    kept = "strftime('%H:%M')" in text
    assert kept == bool(comment or config), text[-80:]
