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
