"""## What it does
Finds per-request values outside the latest turn of a request body: a timestamp or a
request id in the tools, the output schema, the system prompt or developer
instructions (where no breakpoint follows it: PC201 reports those), and, in an array of
requests (one conversation), an earlier message whose text changed between two requests
(history re-rendered instead of resent verbatim).

## Why is this bad?
Everything before the latest turn is the prefix the provider can cache (OpenAI caches
it automatically). A value that changes per request there makes every token after it a
miss, on every call. History that is re-rendered (a refreshed timestamp, a re-serialised
tool result) breaks the cache at that message.

## Example
An OpenAI Chat body whose system message starts with `Current time: 2026-11-30T14:03Z`.

## Use instead
Send the time and ids in the latest user message (or in `metadata`), and resend earlier
messages exactly as they were sent.

## Fix safety
No automatic fix.

## Options
None.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from promptlint import requestbody
from promptlint.requestbody.rules import finding_at, on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Span
from promptlint.core.severity import is_substantial

CODE = "PC208"
NAME = "volatile-outside-latest-turn"
SUMMARY = "Per-request value outside the latest turn of a request"
FIX = None

_PREFIX_SECTIONS = requestbody.PREFIX_SECTIONS


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    views = requestbody.views(request_file, ctx.analysis.encoding)
    for view in views:
        markers = view.request.markers()
        total = view.ends[-1] if view.ends else 0
        for placed in view.values:
            chunk = view.request.chunks[placed.chunk_index]
            if chunk.section not in _PREFIX_SECTIONS:
                continue
            if any(i >= placed.chunk_index for i, _ in markers):
                continue  # PC201: a breakpoint follows it
            # The IR is the last body's: there the file's own count serves, so this finding,
            # the file's summary and `--provider` agree on one figure.
            slot = ctx.slot_at(*placed.span) if view is views[-1] else None
            after = ctx.analysis.stable_tokens_after(slot) if slot is not None else max(0, total - placed.token_offset)
            literal = ctx.template.source[placed.span[0] : placed.span[1]]
            kind = "timestamp" if placed.value.kind == "timestamp" else "session-id"
            yield ctx.finding(
                CODE,
                NAME,
                Span(*placed.span),
                severity="error" if placed.per_request and is_substantial(after, total) else "warning",
                message=(
                    f"{kind} `{literal}` in {chunk.path_text} changes on every request, outside the latest turn: "
                    f"{after:,} tokens after it miss the cache on every call; send it in the latest user message"
                ),
                kind=kind,
                frequency="per-request" if placed.per_request else "per-session",
                tokens_lost=after,
                evidence=slot.expr.evidence if slot is not None else None,
                json_path=chunk.path_text,
            )
    for previous, current in itertools.pairwise(views):
        old = {c.path[1:]: c for c in previous.request.chunks if c.section == "messages"}
        latest = current.request.latest_user_index
        for index, chunk in enumerate(current.request.chunks):
            if chunk.section != "messages" or chunk.message_index == latest:
                continue
            before = old.get(chunk.path[1:])
            if before is None or before.body == chunk.body:
                continue
            yield finding_at(
                ctx, CODE, NAME, request_file, chunk.path,
                severity="error",
                message=(
                    f"{requestbody.format_path(chunk.path[1:])} differs from request {previous.request.index}: "
                    f"history was re-rendered, so ≈{current.ends[-1] - current.start_of(index):,} tokens from here on "
                    "miss the cache; resend earlier messages exactly as they were sent"
                ),
                kind="memory",
                frequency="per-request",
                tokens_lost=current.ends[-1] - current.start_of(index),
                json_path=requestbody.format_path(chunk.path[1:]),
            )
