"""The probe report as Markdown, and the wording every probe reporter shares.

Reads only the JSON contract of ``promptlint probe`` (:func:`promptlint.probe.report.result`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

VERSIONS = ("as-is", "fixed")


def money(value: float | None) -> str:
    if value is None:
        return "–"
    if value == 0 or abs(value) >= 1:
        return f"${value:,.2f}"
    if abs(value) >= 0.01:
        return f"${value:.4f}"
    return f"${value:.6f}"


def pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def count(value: int | None) -> str:
    return "–" if value is None else f"{value:,}"


def headline(data: Mapping[str, Any]) -> str:
    parts = [f"{data['provider']} {data['model']}", data["base_url"], data["api"]]
    if data.get("prices_as_of"):
        parts.append(f"list prices as of {data['prices_as_of']}")
    return " · ".join(parts)


def request_columns(data: Mapping[str, Any]) -> list[str]:
    if data["dry_run"]:
        return ["version", "variant", "input ≈", "predicted cached"]
    return ["version", "variant", "input", "cached read", "cache write", "uncached", "hit %", "predicted",
            "latency", "cost"]


def request_cells(data: Mapping[str, Any], row: Mapping[str, Any]) -> list[str]:
    variant = f"{row['variant']} (warm-up)" if row["warmup"] else str(row["variant"])
    if data["dry_run"]:
        return [row["version"], variant, count(row["predicted_input_tokens"]), count(row["predicted_cached_tokens"])]
    total = row["input_tokens"] or 0
    hit = row["cached_tokens"] / total if total else 0.0
    latency = "–" if row["latency_s"] is None else f"{row['latency_s']:.2f} s"
    return [row["version"], variant, count(row["input_tokens"]), count(row["cached_tokens"]),
            count(row["cache_write_tokens"]), count(row["uncached_tokens"]), pct(hit),
            count(row["predicted_cached_tokens"]), latency, money(row["cost_usd"])]


def version_lines(data: Mapping[str, Any]) -> list[tuple[str, str, list[str]]]:
    """(version, its summary line, explanations) per probed version."""
    out = []
    for version in VERSIONS:
        found = data["summary"].get(version)
        if not found:
            continue
        if data["dry_run"]:
            line = (f"predicted hit rate {pct(found['predicted_hit_rate'])} · "
                    f"{money(found['predicted_cost_per_1k_calls'])} per 1,000 calls (predicted, input side)")
        else:
            agree = {True: "agrees with", False: "differs from", None: "vs"}[found["agrees"]]
            line = (f"{found['requests']} measured requests · hit rate {pct(found['hit_rate'])} "
                    f"({agree} the cache model's {pct(found['predicted_hit_rate'])}) · "
                    f"{money(found['cost_per_1k_calls'])} per 1,000 calls "
                    f"(predicted {money(found['predicted_cost_per_1k_calls'])}, input side)")
        out.append((version, line, list(found.get("explanation") or [])))
    return out


def saving_line(data: Mapping[str, Any]) -> str | None:
    saving = data["summary"].get("saving")
    if not saving:
        return None
    basis = "predicted: " if saving["basis"] == "predicted" else ""
    before, after = (data["summary"].get(v) or {} for v in VERSIONS)
    if not before.get("cost_per_1k_calls" if basis == "" else "predicted_cost_per_1k_calls"):
        # Nothing is priced (the local backend, a self-hosted server): "saves 0.0% of the input
        # cost" read as if the fix did nothing. The cache reads are what it changes.
        rate = "hit_rate" if basis == "" else "predicted_hit_rate"
        how = "" if data.get("provider") == "local" else " (prices in config give the money)"  # local: --price-as
        return (f"{basis}the fixed version reads {pct(after.get(rate))} of its input from the cache, as-is "
                f"{pct(before.get(rate))}; no price is set for these tokens{how}")
    return (f"{basis}the fixed version saves {saving['percent']:.1f}% of the input cost: "
            f"{money(saving['cost_per_1k_calls'])} per 1,000 calls, "
            f"{money(saving['usd_per_month'])} a month at {saving['calls_per_day']:,} calls a day")


def spend_line(data: Mapping[str, Any]) -> str:
    if data["dry_run"]:
        return (f"dry run: {data['planned_requests']} requests would be sent, nothing was; estimated at most "
                f"{money(data['estimate_usd'])} at list price (budget ${data['budget_usd']:.2f})")
    sent = len(data["requests"])
    if data.get("provider") == "local":
        # The local backend bills nothing: `--price-as` prices the counts as another model's.
        if data["spent_usd"] is None or not data.get("priced_as"):
            return (f"nothing billed: {sent} of {data['planned_requests']} requests ran on the local backend "
                    "(`--price-as PROVIDER:MODEL` says what they would cost)")
        priced = f"{data['priced_as']} list price" if data.get("priced_as") else "list price"
        return (f"would cost {money(data['spent_usd'])} at {priced} on {sent} of {data['planned_requests']} "
                "requests (nothing billed: the local backend)")
    return (f"spent {money(data['spent_usd'])} at list price on {sent} of {data['planned_requests']} requests "
            f"(estimate: at most {money(data['estimate_usd'])})")


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows]
    return lines


def render(data: Mapping[str, Any]) -> str:
    lines = [f"# promptlint probe: {data['path']}", "", headline(data), ""]
    lines += _table(request_columns(data), [request_cells(data, r) for r in data["requests"]])
    lines.append("")
    for version, line, why in version_lines(data):
        lines.append(f"- **{version}**: {line}")
        lines += [f"  - {w}" for w in why]
    saving = saving_line(data)
    if saving:
        lines += ["", f"**{saving}**"]
    lines += ["", spend_line(data)]
    if data.get("fix"):
        lines += ["", "Fix probed: " + "; ".join(data["fix"])]
    if data.get("error"):
        lines += ["", f"**The run stopped:** {data['error']}"]
    if data.get("notes"):
        lines += ["", "Notes:", *[f"- {n}" for n in data["notes"]]]
    return "\n".join(lines) + "\n"
