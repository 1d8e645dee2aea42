"""Terminal output: ``path:line:col CODE message``, a code frame, a per-file summary."""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from promptlint.core.findings import FileResult, Finding, Report

_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}
_CONTEXT_LINES = 1


def _frame(finding: Finding, lines: list[str]) -> Text:
    """The finding's line with one line of context each side and the value underlined."""
    out = Text()
    first = max(1, finding.line - _CONTEXT_LINES)
    last = min(len(lines), finding.line + _CONTEXT_LINES)
    width = len(str(last))
    for number in range(first, last + 1):
        source = lines[number - 1].rstrip("\r\n").expandtabs(1)
        marker = ">" if number == finding.line else " "
        out.append(f" {marker} {number:>{width}} │ ", style="dim")
        if number == finding.line:
            start = finding.column - 1
            end = finding.end_column - 1 if finding.end_line == finding.line else len(source)
            out.append(source[:start])
            out.append(source[start:end], style=_STYLE[finding.severity].replace("bold ", "") + " underline")
            out.append(source[end:])
            out.append("\n")
            underline = max(1, min(end, len(source)) - start)
            out.append(f"   {'':>{width}} │ " + " " * start, style="dim")
            out.append("^" * underline, style=_STYLE[finding.severity])
        else:
            out.append(source)
        out.append("\n")
    return out


def _summary(result: FileResult) -> Text:
    line = Text(f"{result.path}: ", style="bold")
    if result.error:
        line.append("error: ", style="bold red")
        line.append(result.error)
        return line
    total = result.tokens or 0
    stable = result.stable_prefix_tokens or 0
    share = f"{stable / total:.0%}" if total else "n/a"
    line.append(f"stable prefix {stable:,} of {total:,} tokens ({share})")
    line.append(f" · {result.encoding}", style="dim")
    extra = result.extra.get("cache")
    if isinstance(extra, dict) and extra.get("summary"):
        line.append(f"\n    {extra['summary']}", style="dim")
    return line


def _print_finding(console: Console, finding: Finding, sources: dict[str, list[str]], show_frames: bool) -> None:
    head = Text(f"{finding.path}:{finding.line}:{finding.column}", style="bold")
    head.append(f" {finding.rule} ", style="bold magenta")
    head.append(f"[{finding.severity}] ", style=_STYLE[finding.severity])
    head.append(finding.message)
    console.print(head)
    lines = sources.get(finding.path)
    if show_frames and lines and 0 < finding.line <= len(lines):
        console.print(_frame(finding, lines), end="")


def render(report: Report, console: Console, sources: dict[str, list[str]], show_frames: bool = True) -> None:
    for message in report.errors:
        console.print(Text("error: ", style="bold red") + Text(message))
    for message in report.warnings:
        console.print(Text("warning: ", style="bold yellow") + Text(message))
    for finding in report.extra_findings:
        _print_finding(console, finding, sources, show_frames)
    for result in report.files:
        for finding in result.findings:
            _print_finding(console, finding, sources, show_frames)
        console.print(_summary(result))
        if result.findings:
            console.print()
    counts = {s: sum(1 for f in report.findings if f.severity == s) for s in ("error", "warning", "info")}
    failed = sum(1 for r in report.files if r.error) + len(report.errors)
    tail = Text(f"{len(report.files)} file(s) checked: ")
    tail.append(f"{counts['error']} error(s)", style=_STYLE["error"] if counts["error"] else "")
    tail.append(", ")
    tail.append(f"{counts['warning']} warning(s)", style=_STYLE["warning"] if counts["warning"] else "")
    tail.append(f", {counts['info']} info")
    if failed:
        tail.append(f", {failed} could not be checked", style="bold red")
    console.print(tail)
