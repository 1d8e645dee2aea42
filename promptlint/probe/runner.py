"""A probe run: plan the requests, estimate their price, send them, measure, predict.

:func:`plan` reads PATH, builds every body, predicts what the provider's cache model says of
them and estimates the price (every request's input at the full price — the input price, or
the cache-write price where a write costs more — plus its output tokens): nothing is sent.
:func:`execute` checks the budget, reads the key, sends the bodies in order through the
adapter and records the provider's own counters, latency and list-price cost of each; a
failed request stops the run and keeps what was measured before it (``Run.error``).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from promptlint.probe import models
from promptlint.probe.adapters import Adapter, Options, ProbeError, Usage, adapter_for
from promptlint.probe.prompt import Prompt, PromptError, build

DEFAULT_BUDGET_USD = 0.50
DEFAULT_CALLS_PER_DAY = 1000


class BudgetError(ProbeError):
    """The estimate is over ``--budget``: nothing was sent."""


@dataclass
class Row:
    """One request: planned, then (when sent) measured."""

    version: str
    variant: int
    warmup: bool
    body: dict[str, Any]
    predicted: models.Predicted | None = None
    usage: Usage | None = None
    latency_s: float | None = None
    sent_at: float | None = None
    cost_usd: float | None = None


@dataclass
class Run:
    """Everything a report prints."""

    prompt: Prompt
    adapter: Adapter
    rows: list[Row]
    facts: models.Facts
    prices: models.Prices | None
    estimate_usd: float | None
    budget_usd: float
    calls_per_day: int
    notes: list[str] = field(default_factory=list)
    error: str | None = None
    dry_run: bool = True
    # The config's provider-table overrides the cache model ran with.
    overrides: dict[str, Any] = field(default_factory=dict)

    @property
    def sent(self) -> list[Row]:
        return [r for r in self.rows if r.usage is not None]

    @property
    def spent_usd(self) -> float | None:
        if self.prices is None:
            return None
        return sum(r.cost_usd or 0.0 for r in self.sent)


@dataclass(frozen=True)
class Settings:
    """What ``promptlint probe`` was asked."""

    path: str
    provider: str
    options: Options = Options()
    variants: int = 4
    warmup: bool = True
    vars_file: str | None = None
    compare_fix: bool = False
    unsafe: bool = False
    config_file: str | None = None
    syntax: str | None = None
    budget_usd: float = DEFAULT_BUDGET_USD
    calls_per_day: int = DEFAULT_CALLS_PER_DAY


def _config_tables(settings: Settings) -> tuple[dict[str, Any], dict[str, Any]]:
    """The config's provider-table and price overrides for PATH."""
    from promptlint.probe.prompt import config_for

    config = config_for(settings.path, settings.config_file)
    return dict(config.providers or {}), dict(config.prices or {})


def plan(settings: Settings) -> Run:
    """Read, render and price every request; send nothing. PromptError / ProbeError."""
    prompt = build(settings.path, variants=settings.variants, warmup=settings.warmup,
                   vars_file=settings.vars_file, compare_fix=settings.compare_fix, unsafe=settings.unsafe,
                   config_file=settings.config_file, syntax=settings.syntax)
    try:
        options = settings.options
        if options.run_id == "run":
            options = Options(**{**options.__dict__, "run_id": secrets.token_hex(4)})
        adapter = adapter_for(settings.provider, options)
    except ValueError as exc:
        raise ProbeError(str(exc), "usage") from None
    overrides, config_prices = _config_tables(settings)
    rows = [Row(v.version, v.variant, v.warmup, adapter.body(v)) for v in prompt.variants]
    try:
        facts = models.facts(adapter.cache_provider, adapter.model, overrides)
        predicted = adapter.predict([r.body for r in rows], [float(i) for i in range(len(rows))], overrides)
    except models.ModelError as exc:
        raise ProbeError(str(exc), "model") from None
    for row, guess in zip(rows, predicted, strict=True):
        row.predicted = guess
    notes = list(prompt.notes) + list(adapter.notes) + list(facts.notes) + _below_minimum(prompt, facts, adapter)
    notes += _over_context_window(rows, adapter)
    prices: models.Prices | None = None
    try:
        prices = models.prices(*adapter.price_target(), config_prices)
    except (LookupError, ValueError) as exc:
        notes.append(f"no price: {exc}")
    else:
        notes.extend(prices.notes if adapter.price_notes else ())
    run = Run(prompt, adapter, rows, facts, prices, None, settings.budget_usd, settings.calls_per_day, notes,
              overrides=overrides)
    run.estimate_usd = estimate(run)
    return run


def _below_minimum(prompt: Prompt, facts: models.Facts, adapter: Adapter) -> list[str]:
    """A note per version whose stable prefix is too short to be cached at all."""
    from promptlint.core import tokens

    notes = []
    for version in prompt.versions:
        first = next(v for v in prompt.variants if v.version == version)
        if first.body is not None or not facts.min_cacheable_tokens:
            continue
        stable = tokens.count(first.stable, "o200k_base")
        if stable < facts.min_cacheable_tokens:
            notes.append(f"{version}: the stable prefix (≈{stable:,} tokens) is under the "
                         f"{facts.min_cacheable_tokens:,}-token minimum of {facts.row} {adapter.model}: "
                         "expect no cache reads")
    return notes


def _over_context_window(rows: list[Row], adapter: Adapter) -> list[str]:
    """A note when requests hold more input tokens than the model's context window (the
    price data's): the provider refuses them (``check`` says the same of the prompt)."""
    largest = max((r.predicted.total for r in rows if r.predicted is not None), default=0)
    if not largest:
        return []
    from promptlint.providers.pricing import context_window

    provider, model = adapter.price_target()
    window = context_window(provider, model)
    if window is None or largest <= window:
        return []
    over = sum(1 for r in rows if r.predicted is not None and r.predicted.total > window)
    return [f"{over} of {len(rows)} requests hold up to ≈{largest:,} input tokens, over the {window:,}-token "
            f"context window of {model}: the provider will refuse them"]


def estimate(run: Run) -> float | None:
    """The most the planned requests can cost at list price (None without a price)."""
    if run.prices is None:
        return None
    prices = run.prices
    one_hour = run.adapter.options.ttl == "1h" and run.adapter.cache_provider == "anthropic"
    full = max(prices.input, prices.cache_write_1h if one_hour else prices.cache_write)
    output = run.adapter.output_tokens
    return sum((r.predicted.total if r.predicted else 0) * full + output * prices.output for r in run.rows)


def check_budget(run: Run) -> None:
    """BudgetError when the estimate exceeds the budget (before any request)."""
    # "not <=": a nan budget or estimate (a Settings made in Python) refuses, never sends.
    if run.adapter.billed and run.estimate_usd is not None and not run.estimate_usd <= run.budget_usd:
        tokens = sum(r.predicted.total if r.predicted else 0 for r in run.rows)
        output = run.adapter.output_tokens
        output_usd = len(run.rows) * output * run.prices.output if run.prices is not None else 0.0
        # Mostly output (`--max-output-tokens 100000000`): fewer variants would hardly help.
        remedy = (f"lower --max-output-tokens ({output:,} per request, {_usd(output_usd)} of the estimate), raise "
                  "--budget or send fewer --variants" if output_usd > run.estimate_usd / 2
                  else "raise --budget or send fewer --variants")
        raise BudgetError(
            f"refusing to send: the estimate {_usd(run.estimate_usd)} for {len(run.rows)} requests "
            f"({tokens:,} input tokens) exceeds the budget {_usd(run.budget_usd)}; {remedy}", "budget")


def _usd(amount: float) -> str:
    """Dollars to four places; a smaller amount to two significant digits (a budget of
    $0.000001 read "$0.0000", as if it were none)."""
    if amount == 0 or abs(amount) >= 0.0001:
        return f"${amount:.4f}"
    digits = f"{float(f'{amount:.2g}'):.12f}".rstrip("0")
    return f"${digits}0" if digits.endswith(".") else f"${digits}"


def cost(usage: Usage, prices: models.Prices) -> float:
    return prices.cost(cached=usage.cached_tokens, write=usage.cache_write_tokens,
                       write_1h=usage.cache_write_1h_tokens, uncached=usage.uncached_tokens,
                       output=usage.output_tokens)


def execute(run: Run, progress: Callable[[int, int], None] | None = None) -> Run:
    """Send every planned request in order; stop at the first failure and keep the rest."""
    check_budget(run)
    adapter = run.adapter
    adapter.connect()
    run.dry_run = False
    started = time.monotonic()
    try:
        for number, row in enumerate(run.rows):
            if progress is not None:
                progress(number, len(run.rows))
            row.sent_at = time.monotonic() - started
            before = time.perf_counter()
            try:
                row.usage = adapter.send(row.body)
            except ProbeError as exc:
                run.error = f"request {number + 1} of {len(run.rows)} ({row.version}, variant {row.variant}): " \
                            f"{exc.message}"
                break
            row.latency_s = time.perf_counter() - before
            if run.prices is not None:
                row.cost_usd = cost(row.usage, run.prices)
        if progress is not None:
            progress(len(run.sent), len(run.rows))
    finally:
        adapter.close()
    _repredict(run)
    return run


def _repredict(run: Run) -> None:
    """The cache model's view of the requests as actually sent (their real spacing in time)."""
    sent = run.sent
    if not sent:
        return
    try:
        predicted = run.adapter.predict([r.body for r in sent], [r.sent_at or 0.0 for r in sent], run.overrides)
    except models.ModelError:
        return
    for row, guess in zip(sent, predicted, strict=True):
        row.predicted = guess


def probe(settings: Settings, progress: Callable[[int, int], None] | None = None,
          dry_run: bool = False) -> Run:
    """:func:`plan` and, unless ``dry_run``, :func:`execute`."""
    run = plan(settings)
    if dry_run:
        return run
    return execute(run, progress)


__all__ = ["BudgetError", "PromptError", "ProbeError", "Row", "Run", "Settings", "check_budget", "estimate",
           "execute", "plan", "probe"]
