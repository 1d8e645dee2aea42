"""`promptlint fix` on an assembled workspace rewrites `[assembly] order` (PC106)."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from promptlint.api import check_paths
from promptlint.fix import fix_paths

WORKSPACE = Path(__file__).resolve().parent.parent / "fixtures" / "workspaces" / "memory-first"


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    target = tmp_path / "ws"
    shutil.copytree(WORKSPACE, target)
    return target


def _pc106(folder: Path) -> list[str]:
    return [f.message for f in check_paths([str(folder)]).findings if f.rule == "PC106"]


def test_fix_moves_memory_after_the_stable_files_and_check_goes_quiet(workspace: Path) -> None:
    assert _pc106(workspace), "the fixture must start with the order problem"
    report = fix_paths([str(workspace)])
    config = next(r for r in report.files if r.path.endswith("promptlint.toml"))
    assert config.written and config.changed
    assert config.stable_before == 0 and config.stable_after > 2000
    order = tomllib.loads((workspace / "promptlint.toml").read_text())["assembly"]["order"]
    assert order == ["SOUL.md", "AGENTS.md", "IDENTITY.md", "TOOLS.md", "MEMORY.md"]
    assert _pc106(workspace) == []
    # A second run changes nothing.
    again = fix_paths([str(workspace)])
    assert not any(r.changed for r in again.files)


def test_fix_keeps_a_multiline_array_and_the_rest_of_the_file(workspace: Path) -> None:
    config = workspace / "promptlint.toml"
    config.write_text(
        '# assembled in this order\nfail-on = "error"\n\n[assembly]\norder = [\n'
        '    "MEMORY.md",\n    "SOUL.md",\n    "AGENTS.md",\n]\nstable = ["IDENTITY.md"]\n'
    )
    fix_paths([str(workspace)])
    text = config.read_text()
    assert text == (
        '# assembled in this order\nfail-on = "error"\n\n[assembly]\norder = [\n'
        '    "SOUL.md",\n    "AGENTS.md",\n    "MEMORY.md",\n]\nstable = ["IDENTITY.md"]\n'
    )


def test_an_array_with_comments_is_not_rewritten(workspace: Path) -> None:
    config = workspace / "promptlint.toml"
    original = '[assembly]\norder = [\n    "MEMORY.md",  # learned facts\n    "SOUL.md",\n]\n'
    config.write_text(original)
    report = fix_paths([str(workspace)])
    result = next(r for r in report.files if r.path.endswith("promptlint.toml"))
    assert not result.written
    assert any("comments" in reason for reason in result.not_fixable)
    assert config.read_text() == original


def test_diff_writes_nothing(workspace: Path) -> None:
    before = (workspace / "promptlint.toml").read_text()
    report = fix_paths([str(workspace)], write=False)
    result = next(r for r in report.files if r.path.endswith("promptlint.toml"))
    assert result.changed and not result.written
    assert '-order = ["MEMORY.md"' in result.diff
    assert (workspace / "promptlint.toml").read_text() == before


def test_pyproject_order_is_rewritten_in_place(workspace: Path) -> None:
    (workspace / "promptlint.toml").unlink()
    (workspace / "pyproject.toml").write_text(
        '[project]\nname = "agent"\n\n[tool.promptlint.assembly]\norder = ["MEMORY.md", "SOUL.md"]\n'
    )
    fix_paths([str(workspace)])
    data = tomllib.loads((workspace / "pyproject.toml").read_text())
    assert data["tool"]["promptlint"]["assembly"]["order"] == ["SOUL.md", "MEMORY.md"]
    assert data["project"] == {"name": "agent"}


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\x85"])
def test_the_order_line_is_numbered_as_findings_number_lines(workspace: Path, separator: str) -> None:
    # A comment holding U+2028 (or U+2029, or NEL) is one line to TOML and to every finding; the
    # key's line was counted by splitlines(), two lines past `order` (past the file's end).
    config = workspace / "promptlint.toml"
    config.write_text(f'# the agent{separator}loads these{separator}in order\n[assembly]\n'
                      'order = ["MEMORY.md", "SOUL.md", "AGENTS.md"]\n', encoding="utf-8")
    found = [f for f in check_paths([str(workspace)]).findings if f.rule == "PC106"]
    assert [(f.path, f.line, f.column, f.end_column) for f in found] == [
        (str(config), 3, 1, len('order = ["MEMORY.md", "SOUL.md", "AGENTS.md"]') + 1)]
    fix_paths([str(workspace)])
    assert config.read_text(encoding="utf-8") == (f'# the agent{separator}loads these{separator}in order\n'
                                                  '[assembly]\norder = ["SOUL.md", "AGENTS.md", "MEMORY.md"]\n')
