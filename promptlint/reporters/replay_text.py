"""Terminal output of ``promptlint replay``: one line per request, then the summary. A long
log shows its breaks and disagreements only (a line per request of 100,000 is noise, and
printing it cost more than the replay); ``--format json`` lists every request."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from promptlint.core.findings import one_line


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1%}"


# Logs up to this many requests show every request; longer ones only the eventful ones.
EVERY_ROW_UP_TO = 200


def render(result: dict[str, Any], console: Console) -> None:
    summary = result["summary"]
    approx = "" if summary.get("exact_tokens") else "≈"
    rows = result["requests"]
    every = len(rows) <= EVERY_ROW_UP_TO
    hidden = 0
    for row in rows:
        if not every and not row["divergence"] and not row.get("disagrees"):
            hidden += 1
            continue
        line = Text(f"#{row['index']:<3} ", style="bold")
        line.append(f"{approx}{row['tokens']:,} tokens · cached {approx}{row['predicted_cached_tokens']:,} predicted")
        if row["reported_cached_tokens"] is not None:
            line.append(f", {row['reported_cached_tokens']:,} reported")
        found = row["divergence"]
        if found:
            line.append(f" · break at {found['path']} (char {found['char_offset']:,}, token {found['token_offset']:,}) ",
                        style="yellow")
            line.append(found["cause"], style="bold red")
            if found.get("tokens_lost"):
                line.append(f", {approx}{found['tokens_lost']:,} tokens lost")
        console.print(line)
        if found and "before" in found and found["cause"] not in ("model-change", "ttl-expiry"):
            console.print(Text(f"      before: {found['before']!r}", style="dim"))
            console.print(Text(f"      after:  {found['after']!r}", style="dim"))
        if row.get("disagrees"):
            console.print(Text(
                f"      predicted {row['predicted_cached_tokens']:,} vs reported {row['reported_cached_tokens']:,} "
                "cached tokens: the cache model and the provider disagree", style="magenta"))
    if hidden:
        console.print(Text(f"{hidden:,} requests without a break or a disagreement not shown "
                           "(--format json lists every request)", style="dim"))
    # Model names and notes quote the log: one_line escapes what a terminal cannot take (a lone
    # surrogate from a `\ud800` escape, which has no UTF-8) or should not (control characters).
    models = one_line(", ".join(summary["models"]))
    tail = Text(f"\n{summary['requests']} requests ({models}, {summary['provider']}): ",
                style="bold")
    tail.append(f"predicted hit rate {_rate(summary['predicted_hit_rate'])}, "
                f"reported {_rate(summary['reported_hit_rate'])}; {summary['breaks']} break(s)")
    console.print(tail)
    if summary["tokens_lost_by_cause"]:
        causes = ", ".join(f"{cause} {approx}{tokens:,}" for cause, tokens in summary["tokens_lost_by_cause"].items())
        console.print(f"tokens lost by cause: {causes}")
    if summary["cost_lost"] is not None:
        console.print(f"money lost: ${summary['cost_lost']:,.4f} of ${summary['predicted_cost']:,.4f} predicted input cost "
                      f"(prices as of {summary['prices_as_of'] or 'unknown'})")
    if summary["disagreements"]:
        console.print(Text(f"{summary['disagreements']} request(s) where prediction and report disagree", style="magenta"))
    for note in summary["notes"]:
        console.print(Text(f"note: {one_line(note)}", style="dim"))
