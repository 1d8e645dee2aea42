"""The probe report in the terminal: a rich table per request, then the summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from promptlint.reporters.probe_markdown import (
    headline,
    request_cells,
    request_columns,
    saving_line,
    spend_line,
    version_lines,
)


def render(data: Mapping[str, Any], console: Console) -> None:
    console.print(f"[bold]promptlint probe[/bold] {escape(data['path'])}")
    console.print(escape(headline(data)))
    columns = request_columns(data)
    table = Table(*columns, box=None, pad_edge=False, header_style="bold")
    for index, column in enumerate(table.columns):
        column.no_wrap = True
        if index >= 2:
            column.justify = "right"
    for row in data["requests"]:
        table.add_row(*(escape(c) for c in request_cells(data, row)), style="dim" if row["warmup"] else None)
    console.print(table)
    for version, line, why in version_lines(data):
        console.print(f"[bold]{escape(version)}[/bold]: {escape(line)}")
        for reason in why:
            console.print(f"    {escape(reason)}")
    saving = saving_line(data)
    if saving:
        console.print(f"[bold green]{escape(saving)}[/bold green]")
    console.print(escape(spend_line(data)))
    if data.get("fix"):
        console.print("fix probed: " + escape("; ".join(data["fix"])))
    for note in data.get("notes") or []:
        console.print(f"[dim]note: {escape(note)}[/dim]")
