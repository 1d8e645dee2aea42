"""## What it does
Finds literal text that looks like a value rendered for one request and saved into a
static prompt file: an ISO timestamp with a time of day, a "Current time: 14:03" or
"Last synced: …" line, a request or session id written out as a UUID, a signed-in user's
name and e-mail address.

## Why is this bad?
A static agent file (SOUL.md, USER.md, a prompt snapshot) that carries a rendered clock
or id was probably produced by code that rewrites it, on every call or every sync. Each
rewrite changes the prompt at that line and every token after it misses the cache.

Strong evidence is rated by where the value stands, like a template slot: a clock printed
to the second under a label that says it is the time now or when the text was produced
("Current time: 2025-11-03T16:42:09Z", "Generated on 2025-11-03 at 07:12:44Z") is a
per-request value (*error* before 100+ stable tokens), and a signed-in user's name and
e-mail ("You are helping Dana Whitfield (dana@…)") differs per user (*error* likewise).
Everything else is low-confidence (the text may be a fixed example) and reported at
*info* severity, and so is everything in a file that says at its top that it is a capture
of one rendering (a gateway log, a trace dump, a snapshot saved for debugging): a record
is not the text that is sent.

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
from collections.abc import Callable, Iterator

from promptlint.core import literals
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Block, Segment, Span, Text
from promptlint.core.severity import is_substantial, rebilled, severity_for, stable_tokens
from promptlint.core.suffixtokens import SuffixTokens
from promptlint.core.volatility import Volatility

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
_EXAMPLE = re.compile(r"(?<!\w)e\.g\.|(?<![.@/\w-])(?:example|for instance|such as|format)\b", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
# What every value ``_scan`` finds holds (a time of day, an ISO date, a UUID's version digit).
_DIGIT = re.compile(r"\d")


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
    tokens_after = _tokens_after(ctx)
    capture = _is_capture(template.source)
    for text in _texts(template.segments):
        source = template.source[text.span.start : text.span.end]
        # Escaped or stripped text differs from the source; only exact copies are read.
        if source != text.text:
            continue
        strong = [
            r for r in literals.scan(source)
            if template.position(text.span.start + r.start).line not in fenced
            and not _EXAMPLE.search(_line_at(source, r.start))
        ]
        if capture:
            strong = []  # a record of one rendering, not the text that is sent: low confidence
        for value in strong:
            yield _rendered(ctx, text.span.start, source, value, tokens_after)
        if not _DIGIT.search(source):
            continue  # every value ``_scan`` finds has a digit: most texts have none to read
        offset = text.span.start
        for line in source.splitlines(keepends=True):
            if not _DIGIT.search(line):
                offset += len(line)
                continue
            number = template.position(offset).line
            if number in fenced or _EXAMPLE.search(line):
                offset += len(line)
                continue
            for start, end, what in _scan(line):
                if any(v.start < offset - text.span.start + end and offset - text.span.start + start < v.end
                       for v in strong):
                    continue  # already reported as rendered, at its level
                after = tokens_after(offset + end)
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


# A file that says, at its top, that it is a capture of one rendering (a gateway log, a
# trace dump, a snapshot saved for debugging or by an eval harness) is a record, not the
# prompt that is sent: its values stay low-confidence.
_CAPTURE = re.compile(
    r"(?i)\b(?:captured|capture of|snapshot|dump|saved by|recorded|for debugging|debug log|logged|log of)\b"
)
_HEADER_CHARS = 400


def _is_capture(source: str) -> bool:
    return bool(_CAPTURE.search(source[:_HEADER_CHARS]))


def _line_at(text: str, offset: int) -> str:
    start = text.rfind("\n", 0, offset) + 1
    end = text.find("\n", offset)
    return text[start : end if end >= 0 else len(text)]


def _rendered(
    ctx: RuleContext, base: int, source: str, value: literals.Rendered, tokens_after: Callable[[int], int]
) -> Finding:
    """A value rendered for one request (a clock to the second under a "now" label, a
    signed-in user's name and e-mail), rated by where it stands like a template slot."""
    after = tokens_after(base + value.end)
    literal = source[value.start : value.end]
    if value.kind == "identity":
        vol = Volatility("identity", "per-session", f"literal {value.what} {literal!r}", confidence="medium")
    else:
        vol = Volatility("timestamp", "per-request", f"literal {value.what} {literal!r} under a label that says "
                         "it is the time now", precision="second", confidence="medium")
    severity = severity_for(vol, after, ctx.analysis.tokens)
    if is_substantial(after, ctx.analysis.tokens):
        cost = f"{stable_tokens(after)} after it are {rebilled(vol)}"
    else:
        cost = f"only {stable_tokens(after)} follow it, but the chat history after the system prompt is {rebilled(vol)}"
    return ctx.finding(
        CODE,
        NAME,
        Span(base + value.start, base + value.end),
        severity=severity,
        message=(
            f"{vol.kind} {literal!r} was rendered into this text for one "
            f"{'user' if vol.kind == 'identity' else 'request'} ({vol.evidence}): {cost}; render it into the "
            "latest user message instead, or after the stable text"
        ),
        kind=vol.kind,
        frequency=vol.frequency,
        tokens_lost=after,
        evidence=vol.evidence,
        confidence="medium",
    )


def _scan(line: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, description) of each literal volatile value on one line."""
    iso = _ISO_DATETIME.search(line)
    if iso and iso.group().startswith("1970-01-01"):
        iso = None  # the Unix epoch: a zero value or a placeholder, never a clock rendered per request
    label = _CLOCK_LABEL.match(line)
    if iso:
        yield iso.start(), iso.end(), "timestamp with a time of day"
    elif label and (clock := re.search(_TIME_OF_DAY, label.group("value"))):
        yield label.start("value") + clock.start(), label.start("value") + clock.end(), "time of day"
    for uuid in _UUID.finditer(line):
        if _PER_REQUEST_ID_LABEL.search(line[: uuid.start()]):
            yield uuid.start(), uuid.end(), "request or session id"


def _tokens_after(ctx: RuleContext) -> Callable[[int], int]:
    """Tokens of the file after a source offset (static files render as they read); the
    file is encoded once, when the first value asks."""
    counter: list[SuffixTokens] = []

    def after(source_offset: int) -> int:
        if not counter:
            counter.append(SuffixTokens(ctx.template.source, ctx.analysis.encoding))
        return counter[0].after(source_offset)

    return after
