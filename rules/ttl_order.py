"""## What it does
Finds a `cache_control` breakpoint with `"ttl": "1h"` after one with the default or
`"5m"` TTL in the same request (in render order: tools, system, messages).

## Why is this bad?
Anthropic requires longer TTLs to come before shorter ones; a 1 h entry after a 5 m
one is rejected with a 400. The intent (a long-lived stable prefix, a short-lived
conversation tail) is right, the order is not.

## Example
A 5 m breakpoint on the last tool and a 1 h breakpoint at the end of the system prompt.

## Use instead
Mark the earlier, more stable blocks with `1h` and the later ones with `5m`.

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

CODE = "PC204"
NAME = "ttl-order"
SUMMARY = "A 1h cache_control breakpoint after a 5m one"
FIX = None

_SECONDS = {"5m": 300, "1h": 3600}


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    for request in request_file.requests:
        shortest: requestbody.Marker | None = None
        for _, marker in sorted(request.markers(), key=lambda pair: pair[0]):
            seconds = _SECONDS.get(marker.ttl, 300)
            if shortest is not None and seconds > _SECONDS.get(shortest.ttl, 300):
                yield finding_at(
                    ctx, CODE, NAME, request_file, marker.path,
                    severity="error",
                    message=(
                        f"a {marker.ttl} breakpoint follows a {shortest.ttl} one "
                        f"({requestbody.format_path(shortest.path)}): longer TTLs must come first, and "
                        "Anthropic rejects this request; give the earlier breakpoint the longer TTL"
                    ),
                    kind="breakpoint",
                    frequency="per-deploy",
                )
            if shortest is None or seconds < _SECONDS.get(shortest.ttl, 300):
                shortest = marker
