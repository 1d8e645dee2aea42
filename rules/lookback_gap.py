"""## What it does
Finds breakpoints more than 20 blocks apart in a growing conversation. In a single
body it compares consecutive breakpoints; in an array of requests (one conversation)
it compares each request's last breakpoint with the previous request's.

## Why is this bad?
Anthropic reads a cache entry only if it finds one within 20 block positions of a
breakpoint (the marked block counts as the first). An agent turn that appends many
blocks (tool calls and results) pushes the previous turn's entry out of that window:
the whole conversation is written again at 1.25x instead of read at 0.1x.

## Example
A conversation whose only breakpoint moves to the last block, with 25 tool_use and
tool_result blocks added per turn.

## Use instead
Add a second breakpoint closer to the previous turn's end (at most 19 blocks before the
last one), or a breakpoint at the end of each turn's first block.

## Fix safety
No automatic fix.

## Options
`[providers.anthropic] lookback_blocks = N` overrides the window.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from promptlint import providers, requestbody
from promptlint.requestbody.rules import finding_at, on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding

CODE = "PC206"
NAME = "lookback-gap"
SUMMARY = "More than 20 blocks between breakpoints in a growing conversation"
FIX = None


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    window = providers.facts("anthropic", None, ctx.config.providers or None).lookback_blocks or 20
    requests = [r for r in request_file.requests if r.kind == requestbody.ANTHROPIC]
    for request in requests:
        markers = sorted(request.markers(), key=lambda pair: pair[0])
        has_history = any(c.role == "assistant" for c in request.chunks)
        for (before, _), (after, marker) in itertools.pairwise(markers):
            gap = after - before
            if has_history and gap >= window and request.chunks[after].section == "messages":
                yield finding_at(
                    ctx, CODE, NAME, request_file, marker.path,
                    severity="warning",
                    message=(
                        f"{gap} blocks between this breakpoint and the previous one; Anthropic looks back at most "
                        f"{window} blocks from a breakpoint, so a turn that adds this many blocks misses the entry "
                        "the previous turn wrote; add a breakpoint in between"
                    ),
                    kind="breakpoint",
                    frequency="per-request",
                )
    for previous, current in itertools.pairwise(requests):
        old, new = previous.markers(), current.markers()
        if not old or not new:
            continue
        last_old, last_new = max(i for i, _ in old), max(i for i, _ in new)
        gap = last_new - last_old
        if gap >= window:
            marker = max(new, key=lambda pair: pair[0])[1]
            yield finding_at(
                ctx, CODE, NAME, request_file, marker.path,
                severity="error",
                message=(
                    f"request {current.index} adds {gap} blocks after request {previous.index}'s last breakpoint; "
                    f"the {window}-block lookback cannot reach the entry request {previous.index} wrote, so the "
                    "whole prefix is written again; add a breakpoint nearer the previous turn's end"
                ),
                kind="breakpoint",
                frequency="per-request",
            )
