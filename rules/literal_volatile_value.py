"""## What it does
Finds literal text that looks like a value rendered for one request and saved into a
static prompt file: an ISO timestamp with a time of day, a "Current time: 14:03" or
"Last synced: …" line, a request or session id written out as a UUID.

## Why is this bad?
A static agent file (SOUL.md, USER.md, a prompt snapshot) that carries a rendered clock
or id was probably produced by code that rewrites it, on every call or every sync. Each
rewrite changes the prompt at that line and every token after it misses the cache.
This is low-confidence evidence (the text may be a fixed example), so it is reported at
*info* severity.

Quiet on what only looks volatile: dates without a time of day (policy dates,
knowledge-cutoff sentences), git SHAs, product numbers, a tenant's fixed UUID in a tool
description, timestamps inside `{% raw %}` blocks, code fences or example lines.

## Example
```markdown
# USER.md
Last synced: 2026-11-30T09:14:22Z
```

## Use instead
Keep the sync time out of the prompt (in the file's metadata, or the latest user message).

## Fix safety
None: promptlint cannot know what writes the value.

## Options
None.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Block, Segment, Span, Text

CODE = "PC105"
NAME = "literal-volatile-value"
SUMMARY = "Literal text that looks like a value rendered for one request"
FIX = None

_TIME_OF_DAY = r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp][Mm])?"
_ISO_DATETIME = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"
)
_CLOCK_LABEL = re.compile(
    r"^\W*(?:(?:current|local|server|system)\s+(?:date\s*(?:and|&)\s*)?time|(?:date\s*(?:and|&)\s*)?time\s+now|"
    r"now|timestamp|last\s+(?:synced|sync|updated|refreshed|run|seen|active)|generated\s+(?:at|on)|"
    r"snapshot\s+(?:taken|at)|as\s+of|rendered\s+at|request\s+time)\b[^:\n]{0,20}:\s*(?P<value>.*)$",
    re.IGNORECASE,
)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\b", re.IGNORECASE)
_PER_REQUEST_ID_LABEL = re.compile(
    r"\b(?:request|trace|session|conversation|run|correlation|message|turn)(?:[\s_-]*(?:id|uuid))?\b\W{0,3}$",
    re.IGNORECASE,
)
_EXAMPLE = re.compile(r"(?<!\w)e\.g\.|\b(?:example|for instance|such as|format)\b", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")


def _texts(segments: list[Segment]) -> Iterator[Text]:
    for seg in segments:
        if isinstance(seg, Text):
            yield seg
        elif isinstance(seg, Block) and seg.kind != "raw":
            yield from _texts(seg.body)


def _fenced_lines(source: str) -> set[int]:
    inside, fenced = False, set()
    for number, line in enumerate(source.splitlines(), 1):
        if _FENCE.match(line):
            inside = not inside
            fenced.add(number)
        elif inside:
            fenced.add(number)
    return fenced


def check(ctx: RuleContext) -> Iterator[Finding]:
    template = ctx.template
    fenced = _fenced_lines(template.source)
    for text in _texts(template.segments):
        source = template.source[text.span.start : text.span.end]
        # Escaped or stripped text differs from the source; only exact copies are read.
        if source != text.text:
            continue
        offset = text.span.start
        for line in source.splitlines(keepends=True):
            number = template.position(offset).line
            if number in fenced or _EXAMPLE.search(line):
                offset += len(line)
                continue
            for start, end, what in _scan(line):
                after = _tokens_after(ctx, offset + end)
                yield ctx.finding(
                    CODE,
                    NAME,
                    Span(offset + start, offset + end),
                    severity="info",
                    message=(
                        f"literal {what} in static text looks rendered for one request; if code rewrites "
                        f"this file, the {after:,} tokens after it miss the cache each time it does "
                        "(low confidence: ignore it if the value is fixed)"
                    ),
                    kind="timestamp" if "time" in what else "session-id",
                    frequency="per-request",
                    tokens_lost=after,
                    evidence=f"literal text {line[start:end].strip()!r}",
                    confidence="low",
                )
            offset += len(line)


def _scan(line: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, description) of each literal volatile value on one line."""
    iso = _ISO_DATETIME.search(line)
    label = _CLOCK_LABEL.match(line)
    if iso:
        yield iso.start(), iso.end(), "timestamp with a time of day"
    elif label and (clock := re.search(_TIME_OF_DAY, label.group("value"))):
        yield label.start("value") + clock.start(), label.start("value") + clock.end(), "time of day"
    for uuid in _UUID.finditer(line):
        if _PER_REQUEST_ID_LABEL.search(line[: uuid.start()]):
            yield uuid.start(), uuid.end(), "request or session id"


def _tokens_after(ctx: RuleContext, source_offset: int) -> int:
    """Tokens of the file after a source offset (static files render as they read)."""
    from promptlint.core import tokens

    return tokens.count(ctx.template.source[source_offset:], ctx.analysis.encoding)
