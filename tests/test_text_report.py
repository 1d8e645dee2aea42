"""The text report writes plain characters itself when there is no colour, and they are
the characters rich would print."""

from __future__ import annotations

import io

from rich.console import Console

from promptlint.api import check_text
from promptlint.core.findings import Report
from promptlint.reporters import text


def test_the_plain_report_is_what_rich_prints_without_colour() -> None:
    source = ("You are Atlas.\nCurrent time: {{ now().strftime('%H:%M:%S') }} \x1b[31m\n"
              + "\n".join(f"- rule {i}: keep every diff small and explain each step." for i in range(30)) + "\n")
    result = check_text(source, path="agent.j2", syntax="jinja")
    report = Report(files=[result], notes=["a note"], warnings=["a warning"])
    sources = {"agent.j2": source.split("\n")}
    plain = io.StringIO()
    text.render(report, Console(file=plain, color_system=None, highlight=False, soft_wrap=True, width=80), sources)
    recorded = Console(file=io.StringIO(), color_system=None, highlight=False, soft_wrap=True, width=80, record=True)
    text.render(report, recorded, sources)  # record=True takes rich's own path
    assert plain.getvalue() == recorded.export_text()
    assert "PC101" in plain.getvalue() and "\x1b" not in plain.getvalue()


def _render(report: Report) -> str:
    from promptlint.cli import _source_lines

    out = io.StringIO()
    text.render(report, Console(file=out, color_system=None, highlight=False, soft_wrap=True, width=100),
                _source_lines(report))
    return out.getvalue()


def test_code_frames_show_the_text_as_checked_without_reading_the_file_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from promptlint.api import check_paths

    path = tmp_path / "agent.j2"
    path.write_bytes(b"\xef\xbb\xbfYou are Atlas.\r\nCurrent time: {{ now() }}\r\n"
                     + b"".join(b"- rule %d: keep every diff small and explain each step.\r\n" % i for i in range(30)))
    report = check_paths([str(path)], jobs=1)
    shown = report.files[0].shown_lines
    lines = path.read_bytes().decode("utf-8-sig").split("\n")
    assert shown is not None and len(shown) == len(lines)
    assert shown.lines and all(shown[i] == lines[i] for i in shown.lines)
    before = _render(report)
    path.write_text("changed on disk after the check\n", encoding="utf-8")
    assert _render(report) == before  # the frames come from the checked text
    assert "Current time: {{ now() }}" in before and "changed on disk" not in before


def test_a_finding_the_kept_lines_do_not_cover_is_framed_from_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    from promptlint.api import check_paths

    path = tmp_path / "agent.j2"
    path.write_text("Current time: {{ now() }}\n" + "".join(f"- rule {i}: keep diffs small.\n" for i in range(40)),
                    encoding="utf-8")
    report = check_paths([str(path)], jobs=1)
    result = report.files[0]
    assert result.shown_lines is not None and 30 - 1 not in result.shown_lines.lines
    # As a rule that reads several files adds one after the check.
    result.findings.append(dataclasses.replace(result.findings[0], line=30, column=3, end_line=30, end_column=7,
                                               message="added later"))
    assert not result.shown_lines.covers(result.findings)
    assert " > 30 │ - rule 28: keep diffs small." in _render(report)
