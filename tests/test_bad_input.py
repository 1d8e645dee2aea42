"""Every bad input, through the command line: exit 2, one line naming the file and the
problem, never a traceback, and good files in the same run still reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CORE = ("--select", "PC101,PC102")
CLOCK = '{{ now().strftime("%H:%M:%S") }}'

# name, content, what the one line must say (fragments, in order)
BAD_FILES: list[tuple[str, bytes, tuple[str, ...]]] = [
    ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00", ("binary",)),
    ("latin1.md", "Line one\nCaf\xe9 au lait\n".encode("latin-1"), ("line 2, column 4", "UTF-8")),
    ("unclosed-if.j2", b"Intro\nMore\n{% if premium %}\nPremium text\n", ("line 3", "Jinja")),
    ("bad-expr.j2", b"Intro\n{{ user.name( }}\n", ("line 2", "Jinja")),
    ("unbalanced.mustache", b"Hello\n{{#items}}\n- {{name}}\n", ("line 2", "unclosed", "items")),
    ("unclosed-tag.hbs", b"Hello\nWorld {{name\n", ("line 2", "unclosed")),
    ("unbalanced.fmt", b"Hello {name}\nJSON: {\"a\": 1\nmore\n", ("line 2", "format")),
    ("lone-brace.fmt", b"Hello\nworld }\n", ("line 2", "format")),
    ("unclosed.tmpl", b"Hello\n${user.name\n", ("line 2",)),
]


def one_line_about(output: str, name: str) -> str:
    lines = [line for line in output.splitlines() if name in line]
    assert len(lines) == 1, f"expected one line naming {name}, got {lines!r}\n{output}"
    return lines[0]


@pytest.mark.parametrize(("name", "content", "fragments"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_exits_2_with_one_line(run_cli, write, tmp_path: Path, name: str, content: bytes, fragments) -> None:  # type: ignore[no-untyped-def]
    write(name, content)
    result = run_cli("check", *CORE, name, cwd=tmp_path)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    line = one_line_about(result.output, name)
    assert line.startswith(f"{name}: error: ")
    position = 0
    for fragment in fragments:
        found = line.find(fragment, position)
        assert found >= 0, f"{fragment!r} not in {line!r}"
        position = found


@pytest.mark.parametrize(("name", "content", "fragments"), BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_file_in_json(run_cli, write, tmp_path: Path, name: str, content: bytes, fragments) -> None:  # type: ignore[no-untyped-def]
    write(name, content)
    result = run_cli("check", "--format", "json", *CORE, name, cwd=tmp_path)
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    [entry] = data["files"]
    assert entry["path"] == name
    assert isinstance(entry["error"], str) and "\n" not in entry["error"]
    assert entry["tokens"] is None
    assert data["findings"] == []


def test_bad_and_good_files_in_one_real_run(run_process, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """One real process: every bad file gets its line, good files are still checked."""
    for name, content, _ in BAD_FILES:
        write(name, content)
    write("good.j2", f"You are Atlas.\nTime: {CLOCK}\n{long_rules}\n")
    write("clean.md", f"# Atlas\n{long_rules}\n")
    names = [b[0] for b in BAD_FILES]
    result = run_process("check", *CORE, *names, "good.j2", "clean.md", "does-not-exist.md", cwd=tmp_path)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    for name in names:
        assert one_line_about(result.output, name).startswith(f"{name}: error: ")
    assert "does-not-exist.md" in one_line_about(result.output, "does-not-exist.md")
    assert "good.j2:2:7 PC101 [error]" in result.stdout
    assert "clean.md: stable prefix" in result.stdout
    assert f"{len(names) + 2} file(s) checked" in result.stdout


def test_missing_path(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "nope/prompt.md", cwd=tmp_path)
    assert result.exit_code == 2
    line = one_line_about(result.output, "nope/prompt.md")
    assert "no such file" in line
    assert "Traceback" not in result.output


def test_folder_with_no_prompt_files(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("src/main.py", "print('hello')\n")
    write("src/data.csv", "a,b\n")
    result = run_cli("check", "src", cwd=tmp_path)
    assert result.exit_code == 2
    assert "no prompt files" in one_line_about(result.output, "src")


def test_bom_file_works_with_correct_positions(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("bom.j2", b"\xef\xbb\xbfYou are Atlas.\nTime: " + CLOCK.encode() + b"\n" + long_rules.encode())
    result = run_cli("check", "--format", "json", *CORE, "bom.j2", cwd=tmp_path)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["files"][0]["error"] is None
    [finding] = data["findings"]
    assert (finding["line"], finding["column"], finding["end_column"]) == (2, 7, 7 + len(CLOCK))
    # The BOM is not text: the same file without it gives the same figures.
    write("nobom.j2", b"You are Atlas.\nTime: " + CLOCK.encode() + b"\n" + long_rules.encode())
    plain = json.loads(run_cli("check", "--format", "json", *CORE, "nobom.j2", cwd=tmp_path).stdout)
    assert plain["files"][0]["tokens"] == data["files"][0]["tokens"]
    assert plain["files"][0]["stable_prefix_tokens"] == data["files"][0]["stable_prefix_tokens"]


@pytest.mark.parametrize(
    ("name", "slot", "column"),
    [
        ("crlf.j2", CLOCK, 7),
        ("crlf.mustache", "{{now}}", 7),
        ("crlf.fmt", "{now:%H:%M}", 7),
        ("crlf.tmpl", "${new Date().toISOString()}", 7),
    ],
)
def test_crlf_file_works_with_correct_positions(run_cli, write, long_rules: str, tmp_path: Path, name: str, slot: str, column: int) -> None:  # type: ignore[no-untyped-def]
    body = long_rules.replace("\n", "\r\n")
    write(name, f"You are Atlas.\r\nTime: {slot}\r\n{body}\r\nBye.\r\n")
    result = run_cli("check", "--format", "json", *CORE, name, cwd=tmp_path)
    assert "Traceback" not in result.output
    assert result.exit_code == 1, result.output
    data = json.loads(result.stdout)
    assert data["files"][0]["error"] is None
    [finding] = data["findings"]
    assert (finding["line"], finding["column"]) == (2, column)
    assert (finding["end_line"], finding["end_column"]) == (2, column + len(slot))
    assert finding["severity"] == "error"


def test_crlf_text_frame_has_no_carriage_returns(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("crlf.j2", f"You are Atlas.\r\nTime: {CLOCK}\r\n" + long_rules.replace("\n", "\r\n"))
    result = run_cli("check", *CORE, "crlf.j2", cwd=tmp_path)
    assert result.exit_code == 1
    assert "crlf.j2:2:7 PC101" in result.stdout
    assert "\r" not in result.stdout


@pytest.mark.parametrize("name", ["empty.md", "empty.j2", "empty.mustache", "empty.fmt", "empty.tmpl"])
def test_empty_file(run_cli, write, tmp_path: Path, name: str) -> None:  # type: ignore[no-untyped-def]
    write(name, b"")
    result = run_cli("check", "--format", "json", *CORE, name, cwd=tmp_path)
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["files"][0]["error"] is None
    assert data["files"][0]["tokens"] == 0
    assert data["files"][0]["stable_prefix_tokens"] == 0
    assert data["findings"] == []


def test_whitespace_only_file(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("blank.j2", "\n\n   \n")
    result = run_cli("check", *CORE, "blank.j2", cwd=tmp_path)
    assert result.exit_code == 0
    assert "Traceback" not in result.output


def test_directory_named_like_a_prompt(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("odd.md/inner.md", "Hello\n")
    result = run_cli("check", "--format", "json", *CORE, "odd.md", cwd=tmp_path)
    assert result.exit_code == 0
    assert [f["path"] for f in json.loads(result.stdout)["files"]] == ["odd.md/inner.md"]


def test_unreadable_file(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import os

    path = write("secret.md", "Hello\n")
    path.chmod(0)
    try:
        if os.access(path, os.R_OK):
            pytest.skip("running as a user who can read any file")
        result = run_cli("check", "secret.md", cwd=tmp_path)
        assert result.exit_code == 2
        assert "permission denied" in one_line_about(result.output, "secret.md")
    finally:
        path.chmod(0o644)


def test_invalid_utf8_later_in_the_file(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("late.md", b"ok\n" * 40 + "naïve ".encode() + b"\xc3\x28 rest\n")
    result = run_cli("check", "late.md", cwd=tmp_path)
    assert result.exit_code == 2
    # The column counts characters like every position: "naïve " is 6 characters (7 bytes).
    assert "line 41, column 7" in one_line_about(result.output, "late.md")
