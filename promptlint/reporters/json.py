"""``--format json``: the output contract of DESIGN.md."""

from __future__ import annotations

import json

from promptlint.core.findings import Report


def render(report: Report) -> str:
    data = report.to_json()
    if report.errors:
        data["errors"] = list(report.errors)
    if report.warnings:
        data["warnings"] = list(report.warnings)
    if report.notes:
        data["notes"] = list(report.notes)
    return json.dumps(data, indent=2, ensure_ascii=False)
