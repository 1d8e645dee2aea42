"""The probe report as one self-contained HTML page: inline CSS, inline SVG charts (cached
vs uncached tokens per request; cost per 1,000 calls before and after the fix), no script,
nothing loaded from anywhere."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from promptlint.reporters.probe_markdown import (
    VERSIONS,
    headline,
    money,
    request_cells,
    request_columns,
    saving_line,
    spend_line,
    version_lines,
)

COLORS = {"cached": "#2e9d5b", "write": "#e0a526", "uncached": "#c8553d", "predicted": "#1f4e79"}
_STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 72rem;
       color: #1d232b; padding: 0 1rem; background: #ffffff; }
h1 { font-size: 1.4rem; margin-bottom: .2rem; } h2 { font-size: 1.1rem; margin-top: 2rem; }
.sub { color: #57606a; margin-top: 0; }
code { font: .9em ui-monospace, SFMono-Regular, Menlo, monospace; background: #f0f2f4; padding: 0 .25em;
       border-radius: 3px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: .3rem .6rem; border-bottom: 1px solid #d8dee4; text-align: right; }
th:nth-child(-n+2), td:nth-child(-n+2) { text-align: left; }
tr.warmup td { color: #6e7781; font-style: italic; }
.saving { font-size: 1.15rem; font-weight: 600; color: #1a7f37; }
.error { color: #b42318; font-weight: 600; }
.legend span { display: inline-block; margin-right: 1.2rem; }
.legend i { display: inline-block; width: .9rem; height: .9rem; margin-right: .3rem; vertical-align: -2px; }
svg text { font: 12px system-ui, sans-serif; fill: #1d232b; }
li { margin: .2rem 0; }
"""


def _bar_value(data: Mapping[str, Any], row: Mapping[str, Any]) -> tuple[int, int, int]:
    """(cached, written, uncached) tokens of one request (predicted ones in a dry run)."""
    if data["dry_run"]:
        total = row["predicted_input_tokens"] or 0
        cached = row["predicted_cached_tokens"] or 0
        written = row["predicted_cache_write_tokens"] or 0
        return cached, written, max(0, total - cached - written)
    return row["cached_tokens"] or 0, row["cache_write_tokens"] or 0, row["uncached_tokens"] or 0


def tokens_chart(data: Mapping[str, Any]) -> str:
    rows: Sequence[Mapping[str, Any]] = data["requests"]
    if not rows:
        return "<p>No request was measured.</p>"
    width, height, left, bottom, top = 860, 300, 64, 56, 16
    values = [_bar_value(data, r) for r in rows]
    peak = max(sum(v) for v in values) or 1
    slot = (width - left - 10) / len(rows)
    bar = max(4.0, slot * 0.62)
    plot = height - bottom - top
    parts = [f'<svg viewBox="0 0 {width} {height}" width="100%" '
             f'role="img" aria-label="cached and uncached input tokens per request">']
    for step in range(5):
        y = top + plot - plot * step / 4
        parts.append(f'<line x1="{left}" x2="{width - 10}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e9ee"/>')
        parts.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{round(peak * step / 4):,}</text>')
    for index, (row, (cached, written, uncached)) in enumerate(zip(rows, values, strict=True)):
        x = left + slot * index + (slot - bar) / 2
        y = top + plot
        for amount, color in ((cached, COLORS["cached"]), (written, COLORS["write"]), (uncached, COLORS["uncached"])):
            h = plot * amount / peak
            if h > 0:
                y -= h
                tip = f'{escape(row["version"])} variant {row["variant"]}: {amount:,} tokens'
                parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar:.1f}" height="{h:.1f}" fill="{color}">'
                             f'<title>{tip}</title></rect>')
        label = f"{'A' if row['version'] == 'as-is' else 'F'}{row['variant']}{'w' if row['warmup'] else ''}"
        parts.append(f'<text x="{x + bar / 2:.1f}" y="{top + plot + 16}" text-anchor="middle">{escape(label)}</text>')
    parts.append(f'<text x="{left}" y="{height - 8}">A = as-is, F = fixed, w = warm-up; '
                 f'{"predicted by the cache model (dry run)" if data["dry_run"] else "as the provider billed"}</text>')
    parts.append("</svg>")
    return "".join(parts)


_CODE = re.compile(r"`([^`\n]+)`")


def _prose(text: str) -> str:
    """A line of the text report as HTML: escaped, its `code` spans set as code (the
    backticks printed as they are read as stray characters on the page)."""
    return _CODE.sub(r"<code>\1</code>", escape(text))


def cost_chart(data: Mapping[str, Any]) -> str:
    key = "predicted_cost_per_1k_calls" if data["dry_run"] else "cost_per_1k_calls"
    bars = [(v, data["summary"][v].get(key), data["summary"][v].get("predicted_cost_per_1k_calls"))
            for v in VERSIONS if data["summary"].get(v)]
    bars = [b for b in bars if b[1] is not None]
    if not bars:
        return "<p>No cost is known (no price for this model).</p>"
    if not any(value or predicted for _, value, predicted in bars):
        # The local backend, a self-hosted server: bars of $0.00 against a legend of
        # predictions that draw nothing. The token chart above shows what the fix changes.
        return "<p>Nothing is priced on this run: every request costs $0.00.</p>"
    width, row_height, left = 860, 46, 110
    height = row_height * len(bars) + 30
    peak = max(max(b[1] or 0, b[2] or 0) for b in bars) or 1
    span = width - left - 150
    parts = [f'<svg viewBox="0 0 {width} {height}" width="100%" '
             f'role="img" aria-label="cost per 1,000 calls before and after the fix">']
    for index, (version, value, predicted) in enumerate(bars):
        y = 10 + index * row_height
        w = span * (value or 0) / peak
        color = COLORS["uncached"] if version == "as-is" else COLORS["cached"]
        parts.append(f'<text x="{left - 8}" y="{y + 22}" text-anchor="end">{escape(version)}</text>')
        parts.append(f'<rect x="{left}" y="{y + 6}" width="{max(w, 1):.1f}" height="24" fill="{color}"/>')
        if predicted is not None and not data["dry_run"]:
            px = left + span * predicted / peak
            parts.append(f'<line x1="{px:.1f}" x2="{px:.1f}" y1="{y + 2}" y2="{y + 34}" stroke="{COLORS["predicted"]}" '
                         f'stroke-width="3"><title>predicted {escape(money(predicted))}</title></line>')
        parts.append(f'<text x="{left + max(w, 1) + 8:.1f}" y="{y + 22}">{escape(money(value))} per 1,000 calls</text>')
    parts.append("</svg>")
    return "".join(parts)


def render(data: Mapping[str, Any]) -> str:
    head = [f"<th>{escape(c)}</th>" for c in request_columns(data)]
    body = []
    for row in data["requests"]:
        cells = "".join(f"<td>{escape(c)}</td>" for c in request_cells(data, row))
        body.append(f'<tr class="{"warmup" if row["warmup"] else ""}">{cells}</tr>')
    summary = []
    for version, line, why in version_lines(data):
        reasons = "".join(f"<li>{_prose(w)}</li>" for w in why)
        summary.append(f"<li><b>{escape(version)}</b>: {_prose(line)}{f'<ul>{reasons}</ul>' if reasons else ''}</li>")
    saving = saving_line(data)
    legend = "".join(f'<span><i style="background:{COLORS[k]}"></i>{label}</span>' for k, label in
                     (("cached", "cached read"), ("write", "cache write"), ("uncached", "uncached")))
    notes = "".join(f"<li>{_prose(n)}</li>" for n in data.get("notes") or [])
    chart = cost_chart(data)
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>promptlint probe: {escape(data['path'])}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>promptlint probe: {escape(data['path'])}</h1>",
        f'<p class="sub">{escape(headline(data))}</p>',
        f'<p class="saving">{_prose(saving)}</p>' if saving else "",
        f"<p>{_prose(spend_line(data))}</p>",
        f'<p class="error">The run stopped: {_prose(data["error"])}</p>' if data.get("error") else "",
        "<h2>Input tokens per request</h2>",
        f'<p class="legend">{legend}</p>',
        tokens_chart(data),
        "<h2>Cost per 1,000 calls, before and after the fix</h2>",
        chart,
        "" if data["dry_run"] or not chart.startswith("<svg") else
        f'<p class="legend"><span><i style="background:{COLORS["predicted"]}"></i>'
        "the cache model's prediction for the same requests</span></p>",
        "<h2>Summary</h2>",
        f"<ul>{''.join(summary)}</ul>",
        "<h2>Requests</h2>",
        f"<table><thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(body)}</tbody></table>",
        f"<p>Fix probed: {_prose('; '.join(data['fix']))}</p>" if data.get("fix") else "",
        f"<h2>Notes</h2><ul>{notes}</ul>" if notes else "",
        "</body></html>",
    ]) + "\n"
