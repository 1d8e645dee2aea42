"""## What it does
Counts the tokens of the prefix that ends at each `cache_control` breakpoint of an
Anthropic request and reports a breakpoint whose prefix is shorter than the model's
minimum cacheable length (512 to 4,096 tokens by model; the model is the body's
`model` field, else `model` in config).

## Why is this bad?
Below the minimum, nothing is cached and nothing says so: both cache counters are 0 and
no error is returned. The breakpoint looks like it works and never does.

## Example
A 600-token system prompt marked with `cache_control` on `claude-sonnet-5` (minimum
1,024 tokens).

## Use instead
Move the breakpoint later (after the tools *and* the system prompt), or drop it.

## Fix safety
No automatic fix.

## Options
`[providers.anthropic] min_cacheable_tokens = N` (or a model rule) overrides the minimum.
Token counts are ≈ (o200k_base; Claude's tokenizer is not public).
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint import requestbody
from promptlint.requestbody.rules import finding_at, on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.providers import anthropic

CODE = "PC205"
NAME = "breakpoint-below-minimum"
SUMMARY = "cache_control breakpoint whose prefix is below the model's minimum cacheable length"
FIX = None


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    for view in requestbody.views(request_file, ctx.analysis.encoding):
        if view.request.kind != requestbody.ANTHROPIC:
            continue
        minimum, model = anthropic.minimum(
            view.request.model or ctx.config.target_model, ctx.config.providers or None
        )
        for index, marker in view.request.markers():
            prefix = view.ends[index]
            if prefix >= minimum:
                continue
            yield finding_at(
                ctx, CODE, NAME, request_file, marker.path,
                severity="warning",
                message=(
                    f"the prefix up to this breakpoint is ≈{prefix:,} tokens, below the {minimum:,}-token minimum "
                    f"of {model}: it is never cached (both cache counters stay 0, no error); move the breakpoint "
                    "later or drop it"
                ),
                kind="threshold",
                frequency="per-deploy",
                tokens_lost=prefix,
                minimum=minimum,
            )
