"""Every finding of every fixture points inside its file: a line that exists, columns on it
(an end column at most one past the line's last character, its line break not counted)."""

from __future__ import annotations

from pathlib import Path

from promptlint.api import check_paths, check_text

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _outside(findings: list, text_of) -> list:  # type: ignore[no-untyped-def,type-arg]
    bad = []
    for finding in findings:
        lines = text_of(finding.path).split("\n")
        for line, column in ((finding.line, finding.column), (finding.end_line, finding.end_column)):
            if not 1 <= line <= len(lines) or not 1 <= column <= len(lines[line - 1].removesuffix("\r")) + 1:
                bad.append((finding.path, finding.rule, line, column))
    return bad


def test_a_standalone_section_tag_ends_on_its_last_character_not_past_its_line() -> None:
    # The tag's span takes in its line break (which does not render): end_column was 21 on a
    # 19-character line, and so in 145 findings of fixtures/ (Handlebars and Mustache).
    text = "Hi.\n{{#each interests}}\n- {{ this }}\n{{/each}}\n"
    for newline in ("\n", "\r\n"):
        result = check_text(text.replace("\n", newline), path="a.md")
        (finding,) = result.findings
        assert (finding.line, finding.column, finding.end_line, finding.end_column) == (2, 1, 2, 20)


def test_every_finding_of_the_fixtures_is_inside_its_file() -> None:
    report = check_paths(FIXTURES)
    assert len(report.findings) > 3000
    texts: dict[str, str] = {}

    def text_of(path: str) -> str:
        if path not in texts:
            texts[path] = Path(path).read_bytes().decode("utf-8-sig", errors="replace")
        return texts[path]

    assert _outside(report.findings, text_of) == []
