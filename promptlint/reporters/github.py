"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::error file=…,line=…,col=…,endLine=…,endColumn=…,title=PC101 volatile-before-stable::message``;
info findings are notices. Values are escaped as the runner expects (``%``, CR, LF, and
in properties also ``:`` and ``,``).
"""

from __future__ import annotations

from promptlint.core.findings import Report

_COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = [f"::error::{_data(message)}" for message in report.errors]
    lines += [f"::error file={_property(r.path)}::{_data(r.error)}" for r in report.files if r.error]
    lines += [f"::warning::{_data(message)}" for message in report.warnings]
    for f in report.findings:
        props = (f"file={_property(f.path)},line={f.line},col={f.column},endLine={f.end_line},"
                 f"endColumn={f.end_column},title={_property(f'{f.rule} {f.name}')}")
        lines.append(f"::{_COMMAND[f.severity]} {props}::{_data(f.message)}")
    return "\n".join(lines)
