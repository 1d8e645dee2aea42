"""## What it does
Finds a `cache_control` breakpoint on a block that is different on every call: the
marked block holds a per-request value (a timestamp, a request id), or, in an array of
requests (one conversation or trace), no later request repeats the prefix up to it.

## Why is this bad?
A breakpoint writes one cache entry for the prefix that ends at its block; a later
request reads it only if its own prefix up to that block is identical. A breakpoint
on a block that changes every call writes every time (1.25x the input price) and never
reads: the cache costs more than no cache.

## Example
A breakpoint on a system block that starts with `Current time: …`, or on a final user
message in single-shot calls that differ only in that message.

## Use instead
Put the breakpoint on the last block that is identical across requests (the end of the
stable system prompt); in a growing conversation the final block works because the
next turn resends it.

## Fix safety
No automatic fix.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint import requestbody
from promptlint.requestbody.rules import finding_at, on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding

CODE = "PC202"
NAME = "breakpoint-on-changing-block"
SUMMARY = "cache_control breakpoint on a block that changes every call (writes, never reads)"
FIX = None


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    views = requestbody.views(request_file, ctx.analysis.encoding)
    texts = [v.request.text for v in views]
    for number, view in enumerate(views):
        chunks = view.request.chunks
        for index, marker in view.request.markers():
            prefix = "".join(c.text for c in chunks[: index + 1])
            changing = [p for p in view.values if p.chunk_index == index and p.per_request]
            later = texts[number + 1 :]
            never_read = bool(later) and not any(t.startswith(prefix) for t in later)
            if not changing and not never_read:
                continue
            why = (
                f"its block holds `{ctx.template.source[changing[0].span[0]:changing[0].span[1]]}`, "
                "which changes on every request"
                if changing
                else f"no later request in this file repeats the prefix up to it (request {number})"
            )
            yield finding_at(
                ctx, CODE, NAME, request_file, marker.path,
                severity="error",
                message=(
                    f"this breakpoint ({requestbody.format_path(marker.path)}) writes ≈{view.ends[index]:,} tokens "
                    f"on every call and never reads them: {why}; put it on the last block that is identical "
                    "across requests"
                ),
                kind="breakpoint",
                frequency="per-request",
                tokens_lost=view.ends[index],
            )
