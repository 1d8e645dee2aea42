"""## What it does
Finds a clock printed more precisely than a cached prompt can afford: a strftime,
moment, Intl, `isoformat()` or `toISOString()` format that prints minutes, seconds or
fractions of a second. The message names the precision it read from the format.

## Why is this bad?
Prompt caches live for minutes to hours (OpenAI in-memory 5-10 minutes idle, Anthropic
5 minutes or 1 hour, 24 h retention at best). A value that changes every second or
minute is different on every call, so the prompt can never be served from cache from
that point on, wherever the clock stands; even at the end of the system prompt, the
chat history after it is re-billed. A day is usually all the model needs.

## Example
```jinja
Today is {{ now().strftime("%A %d %B %Y, %H:%M:%S") }}.
```

## Use instead
```jinja
Today is {{ now().strftime("%A %d %B %Y") }}.
```
and send the exact time in the latest user message when the task needs it.

## Fix safety
Unsafe: `promptlint fix --unsafe-fixes` rewrites the format string to day precision;
the model then sees less than before, so it is opt-in.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding

CODE = "PC103"
NAME = "timestamp-precision"
SUMMARY = "Clock printed to the minute or finer"
FIX = "unsafe"

_TOO_FINE = {"microsecond": "warning", "millisecond": "warning", "second": "warning", "minute": "info"}


def check(ctx: RuleContext) -> Iterator[Finding]:
    for unit in ctx.analysis.units:
        vol = unit.volatility
        if unit.is_include:
            continue  # reported where the clock is written
        if vol.kind != "timestamp" or vol.precision not in _TOO_FINE or vol.frequency != "per-request":
            continue
        yield ctx.finding(
            CODE,
            NAME,
            ctx.unit_span(unit),
            severity=_TOO_FINE[vol.precision],
            message=(
                f"`{unit.expr.source}` prints the time to the {vol.precision}: no two "
                "calls share it, and caches live minutes to hours; print the date only (day precision) "
                "and send the exact time in the latest user message"
            ),
            kind="timestamp",
            frequency=vol.frequency,
            tokens_lost=ctx.analysis.stable_tokens_after(unit.segment),
            evidence=vol.evidence,
            precision=vol.precision,
        )
