"""## What it does
Counts the `cache_control` breakpoints of an Anthropic request, the top-level
(automatic) one included, and reports more than four.

## Why is this bad?
Anthropic accepts at most 4 breakpoints per request; the automatic breakpoint takes one
of the slots. A fifth makes the API reject the request (400), so the agent fails, or a
client library silently drops markers and the cache layout is not the one you wrote.

## Example
`cache_control` on every tool definition of a 6-tool list.

## Use instead
One breakpoint after the tools (on the last tool), one at the end of the system prompt,
and one or two in the conversation.

## Fix safety
No automatic fix.

## Options
`[providers.anthropic] max_breakpoints = N` overrides the limit.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint import providers, requestbody
from promptlint.requestbody.rules import finding_at, on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding

CODE = "PC203"
NAME = "too-many-breakpoints"
SUMMARY = "More than 4 cache_control breakpoints in one request"
FIX = None


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    limit = providers.facts("anthropic", None, ctx.config.providers or None).max_breakpoints or 4
    for request in request_file.requests:
        markers = sorted(request.markers(), key=lambda pair: pair[0])
        if len(markers) <= limit:
            continue
        extra = markers[limit][1]
        yield finding_at(
            ctx, CODE, NAME, request_file, extra.path,
            severity="error",
            message=(
                f"{len(markers)} cache_control breakpoints in one request (the top-level automatic one counts); "
                f"Anthropic allows at most {limit} and rejects the request: keep the breakpoints after the tools, "
                "at the end of the system prompt and near the end of the conversation"
            ),
            kind="breakpoint",
            frequency="per-deploy",
        )
