"""Hostile input: each gives one clear line naming the file and the problem (or a finding),
with the contract's exit code, and never an internal error or a hang.

Single inputs with an expected outcome live in the corpus (tests/bad_inputs/manifest.toml,
run by test_bad_inputs_corpus.py in a real process); these are the cases that need more
than one run or a look at the JSON."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


def _one_line_error(result, name: str) -> str:
    assert result.exit_code == 2, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    line = next(line for line in result.output.splitlines() if "error" in line)
    assert name in line
    return line


def test_nesting_within_the_bound_is_read(run_cli, write):
    path = write("ok.j2", "{% if a %}" * 50 + "x" + "{% endif %}" * 50)
    assert run_cli("check", str(path)).exit_code == 0


def test_deeply_nested_stable_loops_render_in_linear_time(run_cli, write):
    # 2 items per loop at every level would be 2^28 renderings of the body.
    path = write("loops.j2", "{% for a in b %}" * 28 + "x" + "{% endfor %}" * 28)
    assert run_cli("check", str(path)).exit_code == 0


def test_fifo_and_device_in_a_folder_are_skipped_with_warnings(run_cli, tmp_path):
    os.mkfifo(tmp_path / "pipe.md")
    os.symlink("/dev/urandom", tmp_path / "random.md")
    (tmp_path / "ok.md").write_text("static\n")
    result = run_cli("check", str(tmp_path), "--format", "json")
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert [os.path.basename(f["path"]) for f in data["files"]] == ["ok.md"]
    assert sum("not a regular file" in w for w in data["warnings"]) == 2


def test_files_over_the_size_limit_are_skipped_with_a_warning(run_cli, tmp_path):
    (tmp_path / "big.md").write_text("x" * 3_000_000)
    result = run_cli("check", str(tmp_path / "big.md"), "--format", "json")
    assert result.exit_code == 0
    (warning,) = json.loads(result.stdout)["warnings"]
    assert "big.md" in warning and "max-file-size" in warning
    (tmp_path / "promptlint.toml").write_text('max-file-size = "4MB"\n')
    result = run_cli("check", str(tmp_path / "big.md"), "--format", "json")
    assert json.loads(result.stdout)["files"][0]["tokens"] > 0


def test_fix_reads_a_file_under_the_configured_size_limit_as_check_does(run_cli, tmp_path):
    rules = "\n".join(f"Rule {i}: answer politely and cite the handbook." for i in range(40))
    (tmp_path / "a.j2").write_text(f"Now: {{{{ now() }}}}\n\n{rules}\n")
    (tmp_path / "promptlint.toml").write_text('max-file-size = "1KB"\n')
    refused = run_cli("fix", "--diff", str(tmp_path / "a.j2"))
    # The config's limit, not the 2 MB default; skipped with a warning, as check skips it.
    assert "over the 1,000-byte limit" in refused.stdout + refused.stderr and refused.exit_code == 0
    (tmp_path / "promptlint.toml").write_text('max-file-size = "4KB"\n')
    assert "would change" in run_cli("fix", "--diff", str(tmp_path / "a.j2")).stdout


@pytest.mark.parametrize("value", ['"lots"', "-1", "true", "[1]"])
def test_a_badly_typed_size_limit_is_a_config_error(run_cli, tmp_path, value):
    (tmp_path / "promptlint.toml").write_text(f"max-file-size = {value}\n")
    (tmp_path / "a.md").write_text("static\n")
    line = _one_line_error(run_cli("check", str(tmp_path / "a.md")), "promptlint.toml")
    assert "max-file-size" in line


def test_a_link_to_elsewhere_in_the_project_is_read_one_out_of_it_is_not(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "shared").mkdir()
    (project / "agents").mkdir()
    (project / "shared" / "real.j2").write_text("Now: {{ now() }}\n" + "Rule: be brief and exact.\n" * 40)
    (project / "agents" / "inside.j2").symlink_to("../shared/real.j2")
    (tmp_path / "secret.j2").write_text("not a prompt of this project")
    (project / "agents" / "outside.j2").symlink_to(tmp_path / "secret.j2")
    result = run_cli("check", str(project / "agents"))
    assert result.exit_code == 1, result.output
    assert "inside.j2:1" in result.output
    warning = [line for line in result.output.splitlines() if "outside.j2" in line]
    assert len(warning) == 1 and "outside the checked folder's project: not read" in warning[0]


def test_a_link_to_a_folder_is_not_followed_and_said_only_when_its_folder_is_not_walked(run_cli, tmp_path):
    # Skill folders linked from .agents/skills/ to .cline/skills/ (cline, pydantic-ai): each
    # link was a warning "skipped (not a regular file)", though its files are checked where
    # they are. A link out of the walked folder is said, as not followed.
    (tmp_path / ".cline" / "skills" / "publish").mkdir(parents=True)
    (tmp_path / ".cline" / "skills" / "publish" / "SKILL.md").write_text("You publish releases.\n")
    (tmp_path / ".agents" / "skills").mkdir(parents=True)
    os.symlink("../../.cline/skills/publish", tmp_path / ".agents" / "skills" / "publish")
    outside = tmp_path.parent / f"{tmp_path.name}-outside"
    outside.mkdir()
    (outside / "x.md").write_text("Elsewhere.\n")
    os.symlink(outside, tmp_path / "elsewhere")
    result = run_cli("check", "--format", "json", ".", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [f["path"] for f in data["files"]] == [".cline/skills/publish/SKILL.md"]
    assert data["warnings"] == [f"./elsewhere: skipped (a link to the folder {outside}, outside the walked folder: "
                                "not followed)"]
