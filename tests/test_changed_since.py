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


@pytest.mark.parametrize("name", ["café.j2", "with space.j2", "tab\tname.j2", 'quo"te.j2', "back\\slash.j2",
                                  "日本語.j2"])
def test_a_changed_file_is_found_whatever_its_name(run_cli, repo, long_rules, name):
    # git writes such names quoted with C escapes (non-ASCII as octal bytes) or, with a space,
    # followed by a tab: read as they stood, none matched its file, and the findings on its
    # changed lines were hidden as unchanged.
    (repo / name).write_text(f"Intro.\n{long_rules}\nUser: {{{{ user.name }}}}\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "named")
    (repo / name).write_text(f"Now: {CLOCK}\n{long_rules}\nUser: {{{{ user.name }}}}\n")
    (repo / f"new {name}").write_text(f"Now: {CLOCK}\n")  # untracked: all of it is new
    code, data = _findings(run_cli, repo, ".")
    assert code == 1
    assert sorted((Path(f["path"]).name, f["line"]) for f in data["findings"]) == sorted([(name, 1), (f"new {name}", 1)])


def test_a_changed_line_that_is_no_utf8_is_read(run_cli, repo, long_rules):
    # A Latin-1 file changed since the ref put bytes that are no UTF-8 in git's diff, which was
    # read strictly: an internal UnicodeDecodeError, whatever file was checked.
    (repo / "latin1.txt").write_bytes(b"caf\xe9\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "latin-1")
    (repo / "latin1.txt").write_bytes(b"caf\xe9 cr\xe8me\n")
    (repo / "old.j2").write_text(f"Now: {CLOCK}\nUser: {{{{ user.id }}}}\n{long_rules}\nUser: {{{{ user.name }}}}\n"
                                 f"{long_rules}\n")
    code, data = _findings(run_cli, repo, "old.j2")
    assert code == 1
    assert [(Path(f["path"]).name, f["line"]) for f in data["findings"]] == [("old.j2", 2)]


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


def test_a_ref_with_a_line_break_or_an_escape_is_named_on_one_line(run_cli, repo):
    # `--changed-since "$(printf 'bad\nref')"` printed its error over two lines, and an
    # escape sequence in the ref reached the terminal.
    result = run_cli("check", "--changed-since", "bad\nref\x1b[31m", "old.j2", cwd=repo)
    assert result.exit_code == 2
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: --changed-since bad\\nref\\x1b[31m: ") and "\x1b" not in line


def test_outside_a_repository_is_a_one_line_error(run_cli, tmp_path):
    (tmp_path / "a.md").write_text("static\n")
    result = run_cli("check", "--changed-since", "main", str(tmp_path / "a.md"))
    assert result.exit_code == 2 and "git" in result.stderr
