"""``check --changed-since REF``: findings on changed lines, and all of new files."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

CLOCK = '{{ now().strftime("%H:%M:%S") }}'


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
                        "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
                        "HOME": str(repo), "PATH": "/usr/bin:/bin"})


@pytest.fixture
def repo(tmp_path: Path, long_rules: str) -> Path:
    _git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "old.j2").write_text(f"Now: {CLOCK}\n{long_rules}\nUser: {{{{ user.name }}}}\n{long_rules}\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-q", "-m", "base")
    return tmp_path


def _findings(run_cli, repo: Path, *paths: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", "--select", "PC101", "--changed-since", "main", *paths, cwd=repo)
    return result.exit_code, json.loads(result.stdout) if result.stdout.strip() else {}


def test_only_findings_on_changed_lines_and_in_new_files(run_cli, repo, long_rules):
    text = (repo / "old.j2").read_text().splitlines()
    user_line = next(i for i, line in enumerate(text) if "user.name" in line)
    text[user_line] = "User: {{ user.email }}"  # change only this line
    (repo / "old.j2").write_text("\n".join(text) + "\n")
    (repo / "new.j2").write_text(f"Now: {CLOCK}\n{long_rules}\n")  # untracked: a new file
    code, data = _findings(run_cli, repo, ".")
    assert code == 1
    found = sorted((Path(f["path"]).name, f["line"]) for f in data["findings"])
    assert found == [("new.j2", 1), ("old.j2", user_line + 1)]
    assert data["notes"] == ["1 finding(s) on lines unchanged since main not shown"]


def test_no_change_means_no_finding(run_cli, repo):
    code, data = _findings(run_cli, repo, "old.j2")
    assert code == 0 and data["findings"] == []


def test_unknown_ref_is_a_one_line_error_before_any_file_is_checked(run_cli, repo, monkeypatch):
    import promptlint.api

    def never(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("checked before the ref was known to be a commit")

    monkeypatch.setattr(promptlint.api, "check_paths", never)
    result = run_cli("check", "--changed-since", "no-such-ref", "old.j2", cwd=repo)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: --changed-since no-such-ref: not a commit in the repository at {repo.resolve()}"]


def test_outside_a_repository_is_a_one_line_error(run_cli, tmp_path):
    (tmp_path / "a.md").write_text("static\n")
    result = run_cli("check", "--changed-since", "main", str(tmp_path / "a.md"))
    assert result.exit_code == 2 and "git" in result.stderr
