"""``assert_cache_friendly`` for agent projects' own tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptlint.api import check_paths
from promptlint.pytest_helpers import CacheUnfriendly, assert_cache_friendly

ROOT = Path(__file__).resolve().parents[1] / "fixtures/agents"


def test_a_clean_file_and_folder_pass():
    assert_cache_friendly(ROOT / "SOUL.md")
    assert_cache_friendly(str(ROOT / "templates/tools_sorted.j2"))


def test_a_clock_at_the_top_fails_with_the_finding_in_the_message():
    with pytest.raises(CacheUnfriendly) as caught:
        assert_cache_friendly(ROOT / "templates/system.j2")
    assert "system.j2:3:21 PC101 [error]" in str(caught.value)


def test_prompt_text_is_checked_and_fail_on_is_honoured(long_rules):
    text = f"{long_rules}\nNow: {{{{ now().strftime('%H:%M') }}}}\n"  # a clock at the tail: a warning
    assert_cache_friendly(text)
    with pytest.raises(CacheUnfriendly):
        assert_cache_friendly(text, fail_on="warning")


def test_an_unreadable_path_is_not_a_pass(tmp_path):
    bad = tmp_path / "bad.j2"
    bad.write_bytes(b"\xff\xfe")
    with pytest.raises(AssertionError, match="could not check"):
        assert_cache_friendly(bad)


def test_empty_prompt_text_is_a_prompt_not_the_working_directory(tmp_path, monkeypatch):
    # Path("") is the working directory: "" was checked as a path, and failed as "no such file".
    monkeypatch.chdir(ROOT / "templates")  # a folder with findings: read as a path, it fails
    assert_cache_friendly("")


def test_a_mistyped_severity_is_a_value_error_naming_the_severities():
    # It was `tuple.index(x): x not in tuple`, and check_paths said it after checking every file.
    with pytest.raises(ValueError, match="unknown severity 'fatal': one of error, warning, info"):
        assert_cache_friendly("Hello", fail_on="fatal")
    with pytest.raises(ValueError, match="unknown severity 'fatal': one of error, warning, info"):
        check_paths([str(ROOT / "SOUL.md")], fail_on="fatal")


def test_bytes_are_refused_not_checked_as_their_repr():
    # b"..." was checked as the text "b'...'", and passed whatever it held.
    with pytest.raises(TypeError, match="not bytes"):
        assert_cache_friendly(b"Now: {{ now() }}")  # type: ignore[arg-type]


def test_check_paths_takes_select_as_the_command_line_does_and_names_an_unknown_option(long_rules, tmp_path):
    # select="PC101" was read letter by letter ("unknown rule codes C, 1, 0, 1"); an unknown
    # option was Config.__init__'s TypeError from inside the first file's check.
    path = tmp_path / "a.j2"
    path.write_text(f"Now: {{{{ now() }}}}\nUser: {{{{ user.name }}}}\n{long_rules}\n")
    assert {f.rule for f in check_paths(path, select="PC101").findings} == {"PC101"}
    assert check_paths(path, select="PC101, PC105").files[0].error is None
    assert check_paths(path, ignore="PC101,PC105").findings == check_paths(path, ignore=("PC101", "PC105")).findings
    with pytest.raises(TypeError, match="unknown option.*colour"):
        check_paths(path, colour=True)
