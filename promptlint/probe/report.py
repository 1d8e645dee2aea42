"""The probe's result as data: the JSON contract, the summary per version, and why the measured
hits differ from the cache model's prediction when they do.

:func:`result` turns a :class:`~promptlint.probe.runner.Run` into the dict that
``--format json`` prints and every reporter reads; :func:`write` writes it as Markdown, JSON
or HTML by the file's extension.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from promptlint.probe import models
from promptlint.probe.prompt import AS_IS, FIXED
from promptlint.probe.runner import Row, Run

#: Measured and predicted reads may differ by the provider's granularity or this share of a
#: request's input (our rendering is not the provider's exact template) before they disagree.
TOKEN_SLACK = 0.05
DAYS_PER_MONTH = 30
REPORT_FORMATS = {".md": "markdown", ".markdown": "markdown", ".json": "json", ".html": "html", ".htm": "html"}


def _round(value: float | None, digits: int = 6) -> float | None:
    return None if value is None else round(value, digits)


def _input_cost(row: Row, prices: models.Prices | None, measured: bool) -> float | None:
    if prices is None:
        return None
    if measured:
        u = row.usage
        if u is None:
            return None
        return prices.cost(cached=u.cached_tokens, write=u.cache_write_tokens, write_1h=u.cache_write_1h_tokens,
                           uncached=u.uncached_tokens)
    p = row.predicted
    if p is None:
        return None
    return prices.cost(cached=p.read, write=p.write, write_1h=p.write_1h, uncached=p.uncached)


_LOCAL_FIELDS = ("verified", "max_logit_diff", "prefill_s", "prefill_full_s", "recomputed_tokens",
                 "kv_bytes_per_token", "prefix_bytes")


def request_json(row: Row) -> dict[str, Any]:
    u, p = row.usage, row.predicted
    return {
        "version": row.version,
        "variant": row.variant,
        "warmup": row.warmup,
        "input_tokens": u.input_tokens if u else None,
        "cached_tokens": u.cached_tokens if u else None,
        "cache_write_tokens": u.cache_write_tokens if u else None,
        "uncached_tokens": u.uncached_tokens if u else None,
        "predicted_cached_tokens": p.read if p else None,
        "latency_s": _round(row.latency_s, 3),
        "cost_usd": _round(row.cost_usd, 8),
        "cache_write_1h_tokens": u.cache_write_1h_tokens if u else None,
        "output_tokens": u.output_tokens if u else None,
        "predicted_input_tokens": p.total if p else None,
        "predicted_cache_write_tokens": p.write if p else None,
        "cached_field_missing": u.details_missing if u else None,
        # The local KV backend's proof and timings (absent for provider APIs).
        **{key: u.raw[key] for key in _LOCAL_FIELDS if u is not None and key in u.raw},
    }


def _version_summary(run: Run, version: str) -> dict[str, Any] | None:
    rows = [r for r in run.rows if r.version == version]
    if not rows:
        return None
    measured = [r for r in rows if not r.warmup and r.usage is not None]
    planned = [r for r in rows if not r.warmup]
    basis = measured if not run.dry_run else planned
    predicted_total = sum(r.predicted.total for r in basis if r.predicted)
    predicted_read = sum(r.predicted.read for r in basis if r.predicted)
    def total(name: str) -> int | None:
        return None if run.dry_run else sum(getattr(r.usage, name) for r in measured if r.usage)

    out: dict[str, Any] = {
        "requests": len(planned) if run.dry_run else len(measured),
        "input_tokens": total("input_tokens"),
        "cached_tokens": total("cached_tokens"),
        "cache_write_tokens": total("cache_write_tokens"),
        "hit_rate": None,
        "predicted_hit_rate": round(predicted_read / predicted_total, 4) if predicted_total
        else (0.0 if basis else None),
        "cost_per_1k_calls": None,
        "predicted_cost_per_1k_calls": None,
        "agrees": None,
        "explanation": [],
    }
    if measured:
        out["hit_rate"] = round(out["cached_tokens"] / out["input_tokens"], 4) if out["input_tokens"] else 0.0
        costs = [_input_cost(r, run.prices, True) for r in measured]
        if all(c is not None for c in costs):
            out["cost_per_1k_calls"] = round(1000 * sum(costs) / len(costs), 4)  # type: ignore[arg-type]
    guesses = [_input_cost(r, run.prices, False) for r in basis]
    if basis and all(g is not None for g in guesses):
        out["predicted_cost_per_1k_calls"] = round(1000 * sum(guesses) / len(guesses), 4)  # type: ignore[arg-type]
    if measured:
        out["agrees"], out["explanation"] = explain(run, rows)
    return out


def _saving(run: Run, summary: Mapping[str, Any]) -> dict[str, Any] | None:
    before, after = summary.get(AS_IS), summary.get(FIXED)
    if not before or not after:
        return None
    key = "cost_per_1k_calls" if not run.dry_run else "predicted_cost_per_1k_calls"
    now, fixed = before.get(key), after.get(key)
    if now is None or fixed is None:
        return None
    per_1k = now - fixed
    return {
        "basis": "predicted" if run.dry_run else "measured",
        "cost_per_1k_calls": round(per_1k, 4),
        "percent": round(100 * per_1k / now, 1) if now else 0.0,
        "usd_per_month": round(per_1k / 1000 * run.calls_per_day * DAYS_PER_MONTH, 2),
        "calls_per_day": run.calls_per_day,
    }


def explain(run: Run, rows: Sequence[Row]) -> tuple[bool, list[str]]:
    """(measured agrees with the prediction, why not / what else to know)."""
    facts, adapter = run.facts, run.adapter
    why: list[str] = []
    over: list[Row] = []
    under: list[Row] = []
    for row in rows:
        if row.usage is None or row.predicted is None:
            continue
        slack = max(facts.granularity, math.ceil(TOKEN_SLACK * row.usage.input_tokens))
        gap = row.usage.cached_tokens - row.predicted.read
        if row.warmup:
            if row.usage.cached_tokens > slack:
                why.append(f"the {row.version} warm-up already read {row.usage.cached_tokens:,} tokens: an earlier "
                           "run or other traffic had filled the cache")
            continue
        if gap > slack:
            over.append(row)
        elif gap < -slack:
            under.append(row)
    if over:
        small = [r for r in over if r.usage and 0 < r.usage.cached_tokens < facts.min_cacheable_tokens]
        if small:
            why.append(
                f"the provider read prefixes shorter than the {facts.min_cacheable_tokens:,}-token minimum that "
                f"promptlint's table gives for {facts.row} {adapter.model}; if that holds, set "
                f"[tool.promptlint.providers.{facts.row}] min_cacheable_tokens in config")
        else:
            why.append(f"{len(over)} request(s) read more than the cache model expects: a cache warmed by "
                       "earlier traffic, or a finer granularity than the table's "
                       f"{facts.granularity} token(s)")
    if under:
        if all(r.usage and r.usage.details_missing for r in under):
            why.append("the server sent no cached-token field (counted as 0): vLLM reports it only with "
                       "--enable-prompt-tokens-details, SGLang only with --enable-cache-report")
        elif adapter.cache_provider == "anthropic":
            why.append(f"{len(under)} request(s) read less than expected: token counts here are ≈ (Claude's "
                       f"tokenizer is not public), so a prefix near the {facts.min_cacheable_tokens:,}-token "
                       "minimum may fall short of it; an entry is readable only once the response that "
                       "wrote it has begun")
        elif facts.row.startswith("openai"):
            why.append(f"{len(under)} request(s) read less than expected: OpenAI caching is best effort and "
                       "routed by a hash of the first ~256 tokens and prompt_cache_key; a request that lands "
                       "on another machine misses (also past ~15 requests a minute per prefix and key)")
        else:
            why.append(f"{len(under)} request(s) read less than expected: the entry was evicted or not yet "
                       f"stored, or the server's minimum is above the table's {facts.min_cacheable_tokens:,}")
    measured = [r for r in rows if r.usage and r.predicted and r.predicted.total]
    if measured:
        counted = sum(r.usage.input_tokens for r in measured if r.usage)
        expected = sum(r.predicted.total for r in measured if r.predicted)
        if expected and abs(counted - expected) > 0.1 * expected:
            why.append(f"the provider counted {counted:,} input tokens where promptlint counts {expected:,} "
                       "(message formatting, hidden system tokens, another tokenizer)")
    return not over and not under, why


def result(run: Run) -> dict[str, Any]:
    """The JSON contract of ``promptlint probe`` (README, "probe")."""
    adapter = run.adapter
    summary: dict[str, Any] = {}
    for version in run.prompt.versions:
        found = _version_summary(run, version)
        if found is not None:
            summary[version] = found
    saving = _saving(run, summary)
    if saving is not None:
        summary["saving"] = saving
    rows = run.rows if run.dry_run else run.sent
    spent = run.spent_usd
    return {
        "version": 1,
        "provider": adapter.name,
        "model": adapter.model,
        "base_url": adapter.base_url,
        "api": {models.OPENAI_CHAT: "chat", models.OPENAI_RESPONSES: "responses"}.get(adapter.kind, "messages"),
        "cache_model": run.facts.row,
        "path": run.prompt.path,
        "source": run.prompt.source,
        "prices_as_of": run.prices.as_of if run.prices else None,
        "priced_as": getattr(adapter, "priced_as", None),
        "dry_run": run.dry_run,
        "requests": [request_json(r) for r in rows],
        "summary": summary,
        "spent_usd": None if run.dry_run else (_round(spent, 8) if spent is not None else None),
        "estimate_usd": _round(run.estimate_usd, 8),
        "budget_usd": run.budget_usd,
        "planned_requests": len(run.rows),
        "fix": run.prompt.fix_summary,
        "notes": list(dict.fromkeys(n for n in run.notes if n)),
        "error": run.error,
    }


def write(path: str, data: Mapping[str, Any]) -> None:
    """Write ``data`` as Markdown, JSON or a self-contained HTML page, by extension."""
    kind = REPORT_FORMATS.get(Path(path).suffix.lower())
    if kind == "json":
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    elif kind == "markdown":
        from promptlint.reporters import probe_markdown

        text = probe_markdown.render(data)
    elif kind == "html":
        from promptlint.reporters import probe_html

        text = probe_html.render(data)
    else:
        raise ValueError(f"--report {path}: the extension picks the format: .md, .json or .html")
    Path(path).write_text(text, encoding="utf-8")
