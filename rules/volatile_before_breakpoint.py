"""## What it does
Finds a value that changes on every request -- an ISO timestamp with a time of day,
`Current time: …`, a UUID labelled as a request or session id -- in a request body
*before* a `cache_control` breakpoint (in Anthropic's render order: tools, system,
messages).

## Why is this bad?
Anthropic writes a cache entry keyed by a hash of everything up to the breakpoint and
reads it only when a later request hashes to the same value. A clock before the
breakpoint changes that hash on every call: each request pays the 1.25x write price
for the whole prefix and never reads it back.

## Example
```json
{"system": [{"type": "text", "text": "Current time: 2026-11-30T14:03:27Z\n\n…1,500 tokens of rules…",
             "cache_control": {"type": "ephemeral"}}]}
```

## Use instead
Keep the system prompt identical across calls and send the time in the latest user
message, after the last breakpoint:
```json
{"system": [{"type": "text", "text": "…1,500 tokens of rules…", "cache_control": {"type": "ephemeral"}}],
 "messages": [{"role": "user", "content": "Current time: 2026-11-30T14:03:27Z\n\nWhat changed?"}]}
```

## Fix safety
No automatic fix: the body is produced by code; change the code that builds it.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint import requestbody
from promptlint.requestbody.rules import on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Span
from promptlint.core.severity import is_substantial

CODE = "PC201"
NAME = "volatile-before-breakpoint"
SUMMARY = "Per-request value before a cache_control breakpoint"
FIX = None


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    for view in requestbody.views(request_file, ctx.analysis.encoding):
        markers = view.request.markers()
        if not markers:
            continue
        for placed in view.values:
            after = [(i, m) for i, m in markers if i >= placed.chunk_index]
            if not after:
                continue
            index, marker = max(after, key=lambda pair: pair[0])
            marker_end = view.ends[index]
            lost = max(0, marker_end - placed.token_offset)
            line = ctx.template.position(request_file.span(marker.path)[0]).line
            literal = ctx.template.source[placed.span[0] : placed.span[1]]
            kind = "timestamp" if placed.value.kind == "timestamp" else "session-id"
            how = "changes on every request" if placed.per_request else "differs for every session"
            yield ctx.finding(
                CODE,
                NAME,
                Span(*placed.span),
                severity="error" if placed.per_request and is_substantial(lost, view.ends[-1]) else "warning",
                message=(
                    f"{kind} `{literal}` {how} and sits before the cache_control breakpoint at line {line} "
                    f"({requestbody.format_path(marker.path)}): the prefix up to the breakpoint never repeats, "
                    f"so ≈{lost:,} tokens are written to the cache on every call and never read; "
                    "move the value after the last breakpoint, into the latest user message"
                ),
                kind=kind,
                frequency="per-request" if placed.per_request else "per-session",
                tokens_lost=lost,
                evidence=slot.expr.evidence if (slot := ctx.slot_at(*placed.span)) is not None else None,
                json_path=requestbody.format_path(view.request.chunks[placed.chunk_index].path),
            )
