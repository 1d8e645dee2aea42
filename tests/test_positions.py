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


from hypothesis import given, settings, strategies as st  # noqa: E402

from promptlint.config import Config  # noqa: E402
from promptlint.core.analysis import analyze  # noqa: E402
from promptlint.core.context import RuleContext  # noqa: E402
from promptlint.core.ir import Span  # noqa: E402
from promptlint.loaders import load_text  # noqa: E402


@settings(deadline=None)  # each example analyses a template: no time limit on a slow runner
@given(st.text(alphabet=st.sampled_from("ab \n\r\t"), min_size=1, max_size=30), st.data())
def test_a_finding_is_placed_where_the_template_puts_its_span(text: str, data: st.DataObject) -> None:
    # A finding reads its lines and columns off the line index; Template.position is the oracle.
    template = load_text("a.md", text, "markdown")
    ctx = RuleContext("a.md", template, analyze(template, "o200k_base"), Config())
    start = data.draw(st.integers(min_value=0, max_value=len(text)))
    end = data.draw(st.integers(min_value=start, max_value=len(text)))
    finding = ctx.finding("PC000", "test", Span(start, end), severity="info", message="")
    first = template.position(start)
    last = end - 1
    while last > start and text[last] in "\r\n":
        last -= 1
    final = template.position(max(start, last))
    assert (finding.line, finding.column, finding.end_line, finding.end_column) == (
        first.line, first.column, final.line, final.column + 1)
