"""## What it does
Finds a value that changes between calls -- a clock, the user's name or profile, a
session or request id, the working directory or git status, retrieved documents,
memory -- placed before stable text in a prompt template.

## Why is this bad?
Providers cache the longest identical token prefix of a prompt and bill it at 10-50 %
of the input price. Every token after the first token that differs is a cache miss,
on every call. A clock on line 3 of a 2,000-token system prompt makes all of it full
price, silently. Per-user values (names, profiles, memory) also stop one user's cache
from ever serving another.

Severity follows how often the value changes and how much stable text it costs:
*error* for a value that differs per request or per user with 100+ stable tokens (or
10 %+ of the prompt) after it; *warning* for session- or day-stable values (cwd, OS,
a date, a session-pinned start time, a list of skills the host registers in a fixed
order) before stable text, and for per-request values at the very end of the system
prompt (the chat history that follows still pays for them); *info* for session- or
day-stable values at the tail (fewer than 30 stable tokens after them), and for a user's
name there (the same on every call of the conversation, whose history is that user's own). A value written more than once (`{{ user_name }}` on lines 1 and 4) is
reported once, where it first breaks the prefix, naming the other lines. Each message
says which evidence decided the frequency (a format string, a call, a name, config),
so a wrong judgement can be corrected in config.

In an OpenAI or Anthropic request body, the literal values it would find are reported by
PC201 (before a `cache_control` breakpoint) and PC208 (outside the latest turn), once per
value, with the value's JSON path.

## Example
```jinja
You are Atlas, a coding assistant.
Current time: {{ now().strftime("%H:%M:%S") }}
User: {{ user.name }}
... 2,000 tokens of rules and tool descriptions ...
```

## Use instead
```jinja
You are Atlas, a coding assistant.
... 2,000 tokens of rules and tool descriptions ...
User: {{ user.name }}
Current time: {{ now().strftime("%Y-%m-%d") }}
```
Better still, send per-request values in the latest user message.

## Fix safety
Safe: `promptlint fix` moves the smallest self-contained unit that carries the value
(the line, paragraph, list item or whole block) to the tail, in order, adding no
words, and proves that no rendered line was lost before writing.

## Options
- `stable = ["name", ...]`: names that are stable whatever they are called.
- `[volatile] name = "kind"`: names that are volatile (kind, or `{kind, frequency}`).
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.severity import (
    at_tail, history_pays, how_often, is_or_are, is_substantial, only_stable_tokens_follow, rebilled, severity_for,
    stable_tokens,
)

CODE = "PC101"
NAME = "volatile-before-stable"
SUMMARY = "Volatile value placed before stable prompt content"
FIX = "safe"


def check(ctx: RuleContext) -> Iterator[Finding]:
    if ctx.template.syntax == "json":
        return  # in a request body PC201/PC208 report each value once, with its JSON path
    analysis = ctx.analysis
    tail_line = ctx.last_stable_line()
    # The first place of each value (its finding, in source order), and the lines it is
    # written on again: everything after its first place is re-billed already, and one
    # finding says where to move it from.
    first: dict[tuple[str, str], Finding] = {}
    again: dict[tuple[str, str], list[int]] = {}
    for unit in analysis.units:
        vol = unit.volatility
        is_loop = unit.is_loop
        if is_loop and vol.kind == "tool-order":
            continue  # PC102 reports loops over tool lists
        if unit.is_include:
            continue  # PC104 reports volatile includes
        span = ctx.unit_span(unit)
        # A loop over the same list again (`devices`, then `devices | groupby(...)`) is the
        # same value; a slot is the same value when it is written the same way.
        key = ((vol.kind, repr(sorted(unit.expr.paths))) if is_loop and unit.expr.paths
               else (vol.kind, " ".join(unit.expr.source.split())))
        if key in first:
            again.setdefault(key, []).append(ctx.template.lines.line_of(span.start))
            continue
        after = analysis.stable_tokens_after(unit.segment)
        severity = severity_for(vol, after, analysis.tokens)
        what = f"`{unit.expr.source}`" if len(unit.expr.source) <= 60 else f"`{unit.expr.name}`"
        per_request_or_user = vol.varies_per_request_or_user
        worth_moving = is_substantial(after, analysis.tokens) if per_request_or_user else not at_tail(after)
        if worth_moving:
            cost = f"{stable_tokens(after)} after it {is_or_are(after)} {rebilled(vol)}"
            advice = f"move it after line {tail_line}"
            if per_request_or_user:
                advice += ", or into the latest user message"
        elif per_request_or_user and history_pays(vol):
            cost = (f"{only_stable_tokens_follow(after)}, but the chat history after the "
                    f"system prompt is {rebilled(vol)}")
            advice = "move it into the latest user message"
        elif per_request_or_user and at_tail(after):
            cost = (f"{only_stable_tokens_follow(after)}, and the chat history after it is the "
                    "user's own (it is the same on every call of the conversation)")
            advice = "keep it at the tail"
        else:
            cost = only_stable_tokens_follow(after)
            advice = "move it into the latest user message" if per_request_or_user else "keep it at the tail"
        rests_on = vol.evidence + (f"; assumes {vol.assumed}" if vol.assumed else "")
        if vol.confidence != "high":
            rests_on += f"; if it is fixed, add `{unit.expr.name}` to `stable` in config"
        message = f"{vol.kind} {what} {how_often(vol)} ({rests_on}); {cost}; {advice}"
        fixable, why_not = ctx.fix_status(unit)
        first[key] = ctx.finding(
            CODE,
            NAME,
            span,
            severity=severity,
            message=message,
            kind=vol.kind,
            frequency=vol.frequency,
            tokens_lost=after,
            fixable=fixable,
            unfixable_reason=why_not,
            evidence=vol.evidence,
            confidence=vol.confidence,
            precision=vol.precision,
        )
    for key, finding in first.items():
        lines = sorted(set(again[key]) - {finding.line}) if key in again else None
        if lines:
            where = ", ".join(map(str, lines[:-1])) + (" and " if len(lines) > 1 else "") + str(lines[-1])
            finding.message += f" (it is also written on line{'s' if len(lines) > 1 else ''} {where})"
        yield finding
