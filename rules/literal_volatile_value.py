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
A file that holds such a value, or several values of this moment under their labels (a
"Current date: 2026-03-14", a "Current time: 14:07", a "Working directory: /home/…", an
"Operating system: linux"; or a plain "Date:" and "Time:" beside one of them), is a render (a
snapshot of what a template sent): each of those
values is rated by where it stands too (a day date, a working directory: *warning* before
stable text). Everything else is low-confidence (the text may be a fixed example) and
reported at *info* severity, and so is everything in a file that says at its top that it is a capture
of one rendering (a gateway log, a trace dump, a snapshot saved for debugging), or that is
a stream of server-sent events (`event:` / `data:` lines, an SDK's recorded response): a
record is not the text that is sent.

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
from functools import lru_cache
from itertools import chain

from promptlint.core import literals
from promptlint.core.context import RuleContext
from promptlint.core.fences import fenced_regions, may_hold_fences
from promptlint.core.findings import Finding
from promptlint.core.ir import Block, Segment, Span, Text
from promptlint.core.severity import (
    is_or_are, is_substantial, only_stable_tokens_follow, rebilled, severity_for, stable_tokens,
)
from promptlint.core.suffixtokens import SuffixTokens
from promptlint.core.volatility import Volatility

CODE = "PC105"
NAME = "literal-volatile-value"
SUMMARY = "Literal text that looks like a value rendered for one request"
FIX = None

_TIME_OF_DAY = r"\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp][Mm])?"
_ISO_DATETIME = re.compile(
    r"\d(?<=\b\d)\d{3}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"
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
_CODE_SPAN = re.compile(r"`[^`\n]+`")
# What every value ``_scan`` finds holds (a time of day, an ISO date, a UUID's version digit).
_DIGIT = re.compile(r"\d")
# What a line needs for either: a digit, or a label's colon or equals sign. A text needs
# that, or an e-mail address's "@" (a signed-in user), for any value.
_CANDIDATE = re.compile(r"[\d:=]")
# A file's characters as bytes, one a character (see ``_marks``): each byte a colon that
# :data:`_CANDIDATE` matches, each line break ``str.splitlines`` breaks at a "\n", each
# ASCII letter in lowercase.
_MARKS = bytes.maketrans(b"=0123456789\r\x0b\x0c\x1c\x1d\x1e" + bytes(range(65, 91)),
                         b":" * 11 + b"\n" * 6 + bytes(range(97, 123)))
# The characters outside ASCII that are a candidate or a line break: other scripts' digits
# (which ``\d`` takes in), and the breaks ``str.splitlines`` breaks at.
_OTHER_MARK = re.compile(r"[\d\x85\u2028\u2029]")
_OTHER_BREAK = re.compile(r"[\x85\u2028\u2029]")
_ASCII = bytes(range(128))


@lru_cache(maxsize=8)  # each prompt of a code file asks of the whole file
def _marks(source: str) -> bytes:
    """``source`` as bytes, a byte a character (the offsets are the source's), in which each
    character :data:`_CANDIDATE` matches is a colon, each line break (as ``str.splitlines``
    breaks lines) a ``"\\n"``, each ASCII letter lowercase and each other character outside
    ASCII a ``"?"``. Made once a file (``bytes.translate``, a table look-up a byte), it is
    read by ``bytes.find`` (memchr) for every text's candidates and lines, and for a
    case-blind word: a copy of each text was translated, the pattern's class read a
    character at a time in text not in ASCII (five times as long), that text split into
    lines, and the whole file lowered again for the word."""
    if source.isascii():
        return source.encode("ascii").translate(_MARKS)
    # Its characters outside ASCII alone (its UTF-8 less the ASCII bytes): in most files none
    # is a digit or a line break, and each is a "?"; elsewhere the patterns mark them first.
    others = source.encode("utf-8", "surrogatepass").translate(None, _ASCII).decode("utf-8", "surrogatepass")
    if _OTHER_MARK.search(others) is not None:
        source = _CANDIDATE.sub(":", _OTHER_BREAK.sub("\n", source))
    return source.encode("ascii", "replace").translate(_MARKS)


def _line_around(marks: bytes, source: str, at: int, start: int, end: int) -> tuple[int, int]:
    """Where the line of ``source`` (as ``str.splitlines`` makes them) that holds offset
    ``at`` (not a line break) starts, and where it ends (after its line break), in its
    text ``[start, end)`` (a line break of the file outside it breaks no line of it);
    ``marks`` is ``_marks(source)``."""
    line_end = marks.find(b"\n", at, end) + 1 or end
    if source.startswith("\r\n", line_end - 1, end):
        line_end += 1  # one line break
    return max(start, marks.rfind(b"\n", start, at) + 1), line_end


def _may_match(text: str, words: tuple[str, ...]) -> bool:
    """False only where a case-blind pattern cannot match: ASCII text that holds none of the
    lowercase ``words`` one of its alternatives needs."""
    if not text.isascii():
        return True
    lowered = text.lower()
    return any(w in lowered for w in words)


def _texts(segments: list[Segment]) -> Iterator[Text]:
    for seg in segments:
        if isinstance(seg, Text):
            yield seg
        elif isinstance(seg, Block) and seg.kind != "raw":
            yield from _texts(seg.body)


# "Examples:", "## Example": the lines after it, to the next heading, show made-up values.
# Lines are the source's, split at "\n" as positions count them. Each pattern matches a
# line from the break before it (a search for "\n" is fast where one for "^" is not).
_EXAMPLES_HEAD = re.compile(
    r"\n[^\w\n]*(?:examples?|sample (?:input|output)s?|for example)[^\S\n]*:?[^\S\n]*(?=\n|\Z)", re.IGNORECASE
)
_HEADING = re.compile(r"\n[^\S\n]*#")


def _line_marks(pattern: re.Pattern[str], source: str, anchor: str) -> list[int]:
    """The 1-based numbers of the lines ``pattern`` matches, in order. ``pattern`` matches
    a line from the break before it, within the line, and only a line that holds
    ``anchor`` (lowercase ASCII letters; no other character matches them case-blind, as "ſ"
    and "K" match "s" and "k"). Only the lines that hold it are tried, found in the file's
    ``_marks`` (its ASCII letters lowercase, in the translation the rule makes of it
    anyway): a pattern's scan of a whole page of docs was a tenth of PC105's time on real
    repositories, and ``str.lower`` of one not in ASCII a fifth of that."""
    haystack = _marks(source)
    needle = anchor.encode("ascii")
    numbers, line, counted = [], 1, 0
    at = haystack.find(needle)
    while at >= 0:
        start = source.rfind("\n", 0, at) + 1
        end = source.find("\n", at)
        end = len(source) if end < 0 else end
        # The line alone, with the break before it (the first line has none: one is put there).
        if pattern.match("\n" + source[start:end]) is not None:
            line += source.count("\n", counted, start)
            counted = start
            numbers.append(line)
        at = haystack.find(needle, end)
    return numbers


def _heading_lines(source: str) -> list[int]:
    """The 1-based numbers of the lines :data:`_HEADING` matches (a "#" after nothing but
    whitespace), in order: each line's first "#" found by ``str.find``, what stands before
    it on its line read (a "#" stands on most lines of a page of code or docs: its line
    was decoded and matched in twice the time of the pattern's scan)."""
    numbers, line, counted = [], 1, 0
    at = source.find("#")
    while at >= 0:
        start = source.rfind("\n", 0, at) + 1
        if start == at or source[start:at].isspace():  # what the pattern's [^\S\n]* takes
            line += source.count("\n", counted, start)
            counted = start
            numbers.append(line)
        end = source.find("\n", at)
        at = -1 if end < 0 else source.find("#", end)
    return numbers


@lru_cache(maxsize=8)  # each prompt of a code file asks of the whole file
def _example_lines(source: str) -> frozenset[int]:
    """Lines under an "Examples:" label or heading, up to the next heading."""
    heads = _line_marks(_EXAMPLES_HEAD, source, "ampl")  # in each alternative
    if not heads:
        return frozenset()
    head_set = set(heads)
    # Each head or heading line, in order (a line that is both is a head).
    marks = sorted(set(heads) | set(_heading_lines(source)))
    lines: set[int] = set()
    ends = marks[1:] + [source.count("\n") + 2]
    for number, next_mark in zip(marks, ends):
        if number in head_set:
            lines.update(range(number + 1, next_mark))
    return frozenset(lines)


@lru_cache(maxsize=8)  # each prompt of a code file asks of the whole file
def _fenced_lines(source: str) -> frozenset[int]:
    """Lines of fenced code blocks, their fences included (to the end when one is left open)."""
    if not may_hold_fences(source):
        return frozenset()
    return frozenset(chain.from_iterable(range(first + 1, last + 2) for first, last, *_ in fenced_regions(source)))


def check(ctx: RuleContext) -> Iterator[Finding]:
    template = ctx.template
    fenced = _fenced_lines(template.source) | _example_lines(template.source)
    tokens_after = _tokens_after(ctx)
    head = template.source[:_HEADER_CHARS]
    # Whether the file is a capture (a capture stays a record, even of a rendered prompt):
    # read from its head once a value is found (most files hold none).
    capture: bool | None = None
    strong: list[tuple[int, str, literals.Rendered]] = []  # (the text's offset, the text, the value in it)
    weak: list[tuple[int, int, str, bool]] = []  # (start, end, what, under a plain label) in the file
    marks = _marks(template.source)
    for text in _texts(template.segments):
        text_start, text_end = text.span.start, text.span.end
        hit = marks.find(b":", text_start, text_end)  # the first candidate
        if hit < 0 and "@" not in text.text:
            continue  # no digit, label or address: nothing here for any pattern to find
        source = template.source[text_start:text_end]
        # Escaped or stripped text differs from the source; only exact copies are read.
        if source != text.text:
            continue
        # A rendered value is a clock to the second (seven digits and colons in a row) or has an
        # e-mail address's "@": most texts have neither, and are not scanned.
        if "@" in source or marks.find(b":::::::", text_start, text_end) >= 0:
            found = [
                r for r in literals.scan(source)
                if template.lines.line_of(text_start + r.start) not in fenced
                and not _EXAMPLE.search(_line_at(source, r.start)) and not _in_code_span(source, r.start, r.end)
            ]
            if found and capture is None:
                capture = _is_capture(head)
            if found and not capture:  # a record of one rendering, not the text that is sent: low confidence
                strong += [(text_start, source, r) for r in found]
        # Every value found has a digit or follows a label: only the lines with one are read,
        # each found by a search from the end of the line before (not every digit's offset).
        while hit >= 0:
            line_start, line_end = _line_around(marks, template.source, hit, text_start, text_end)
            line, offset = template.source[line_start:line_end], line_start
            if fenced and (number := template.lines.line_of(offset)) in fenced:
                # Nothing on a fenced block's or an example's lines counts: read on from the
                # first line after them (a page of docs holds most of its colons in code).
                while number + 1 in fenced:
                    number += 1
                after = template.lines.offset(number + 1, 1) if number < template.lines.line_count else len(template.source)
                hit = marks.find(b":", after, text_end) if after < text_end else -1
                continue
            hit = marks.find(b":", line_end, text_end)
            # Each value _scan finds holds a digit, and a colon (a time) or four hyphens (a UUID).
            scanned = _DIGIT.search(line) is not None and (":" in line or line.count("-") >= 4)
            found_here = [(s, e, w, False) for s, e, w in _scan(line)] if scanned else []
            found_here += _moment(line) if ":" in line or "=" in line else []
            if found_here and not _EXAMPLE.search(line):
                spans = [m.span() for m in _CODE_SPAN.finditer(line)]
                for start, end, what, plain in found_here:
                    if any(a <= start and end <= b for a, b in spans):
                        continue  # `2026-04-07T14:30:00Z` in backticks: an example of a format
                    if not any(base + v.start < offset + end and offset + start < base + v.end
                               for base, _, v in strong):
                        weak.append((offset + start, offset + end, what, plain))
    for base, text_source, value in strong:
        yield _rendered(ctx, base, text_source, value, tokens_after)
    if not weak:
        return  # nothing else to rate: whether the file is a render is not asked
    if capture is None:
        capture = _is_capture(head)
    # A file that holds a value rendered for one request, or several values of this moment
    # under their labels (a date, a time, a working directory), is a render: its values
    # cost what a template's would.
    # Plain labels ("Date:", "Time:") count beside a labelled value of this moment: a "Date:",
    # a "Time:" and a "Working directory:" together are a render's header, not a policy's date.
    whats = {what for _, _, what, plain in weak if not plain}
    rendered_head = _may_match(head, ("rendered",)) and _RENDER_HEADER.search(head) is not None
    render = not capture and (bool(strong) or rendered_head or len(whats) >= 2
                              or (bool(whats) and len(whats | {what for _, _, what, _ in weak}) >= 3))
    seen: set[tuple[int, int]] = set()
    for start, end, what, plain in sorted(weak):
        if plain and not render:
            continue  # "Date: 2026-03-14" alone is a policy's date as well as a render's
        if (start, end) in seen:
            continue
        seen.add((start, end))
        after = tokens_after(end)
        literal = template.source[start:end]
        if render:
            yield _rated(ctx, start, end, what, literal, after)
        elif what in _LOW_CONFIDENCE:
            yield ctx.finding(
                CODE,
                NAME,
                Span(start, end),
                severity="info",
                message=(
                    f"literal {what} in static text looks rendered for one request; if code rewrites "
                    f"this file, the {after:,} tokens after it miss the cache each time it does "
                    "(low confidence: ignore it if the value is fixed)"
                ),
                kind="timestamp" if "time" in what else "session-id",
                frequency="per-request",
                tokens_lost=after,
                evidence=f"literal text {literal.strip()!r}",
                confidence="low",
            )


# What each literal is, once the file is known to be a render (kind, frequency, precision).
_AS_RENDERED = {
    "timestamp with a time of day": ("timestamp", "per-request", "minute"),
    "time of day": ("timestamp", "per-request", "minute"),
    "request or session id": ("session-id", "per-request", None),
    "day date": ("timestamp", "per-day", "day"),
    "working directory": ("environment", "per-session", None),
    "operating system": ("environment", "per-session", None),
    "git status": ("environment", "per-request", None),
}
# Reported on their own (at info) in a file that is not known to be a render.
_LOW_CONFIDENCE = frozenset({"timestamp with a time of day", "time of day", "request or session id"})


def _rated(ctx: RuleContext, start: int, end: int, what: str, literal: str, after: int) -> Finding:
    """A literal of a file that is a render, rated by where it stands like a template slot."""
    kind, frequency, precision = _AS_RENDERED[what]
    vol = Volatility(kind, frequency, f"literal {what} {literal.strip()!r} in a file that holds other values "
                     "rendered for one request", precision=precision, confidence="medium")
    severity = severity_for(vol, after, ctx.analysis.tokens)
    return ctx.finding(
        CODE,
        NAME,
        Span(start, end),
        severity=severity,
        message=(f"{kind} {literal.strip()!r} was rendered into this text ({vol.evidence}): the "
                 f"{stable_tokens(after)} after it {is_or_are(after)} {rebilled(vol)}; render it after the stable text, or "
                 "into the latest user message"),
        kind=kind,
        frequency=frequency,
        tokens_lost=after,
        evidence=vol.evidence,
        confidence="medium",
    )


# Values of this moment under the label a render gives them ("Current date: 2026-03-14",
# "Working directory: /home/ops/logs", "Operating system: linux").
_DAY_DATE = re.compile(
    r"^\W*(?P<qualifier>(?:current|today'?s|local)\s+)?date\s*[:=]\s*(?P<value>[^\n]*?\b\d{4}\b[^\n]*?)\s*\.?\s*$",
    re.IGNORECASE,
)
# "Time: 07:55" says what a render's clock is only in a file known to be a render.
_PLAIN_TIME = re.compile(r"^\W*time\s*[:=]\s*(?P<value>\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?)\b", re.IGNORECASE)
# A file whose head says it is a rendered prompt ("# Rendered system prompt: field desk").
_RENDER_HEADER = re.compile(r"(?i)\brendered\b")
_WORKDIR = re.compile(
    r"^\W*(?:working|current)\s+(?:directory|dir|folder)\s*[:=]\s*(?P<value>(?:/|~/|[A-Za-z]:\\)\S*)", re.IGNORECASE
)
_GIT_STATUS = re.compile(r"^\W*git\s+status\s*[:=]\s*(?P<value>\S[^\n]*?)\s*$", re.IGNORECASE)
_OS = re.compile(
    r"^\W*(?:operating\s+system|os|platform)\s*[:=]\s*(?P<value>(?:linux|darwin|macos|mac\s?os|windows|win32|ubuntu|"
    r"debian|fedora)\b[^\n]*?)\s*$", re.IGNORECASE
)


# The first word of each of those labels: a line that starts with another is passed over
# (five patterns tried on each line with a colon took a tenth of a long page's check).
_FIRST_WORD = re.compile(r"\W*(\w+)")
_MOMENT_WORDS = frozenset({"current", "today", "todays", "local", "date", "working", "operating", "os", "platform",
                           "git", "time"})


_MOMENT_PATTERNS = ((_DAY_DATE, "day date"), (_WORKDIR, "working directory"), (_OS, "operating system"),
                    (_GIT_STATUS, "git status"), (_PLAIN_TIME, "time of day"))


def _may_start_a_label(text: str) -> bool:
    """False only where no pattern of ``_MOMENT_PATTERNS`` can match: each label is the
    line's first word (a non-ASCII word is left to them: a case-blind pattern matches "ſ" as "s")."""
    first = _FIRST_WORD.match(text)
    return first is not None and (not first.group(1).isascii() or first.group(1).lower() in _MOMENT_WORDS)


def _moment(line: str) -> list[tuple[int, int, str, bool]]:
    """(start, end, description, under a plain label) of each labelled value of this moment
    on one line ("Date:" and "Time:" are plain labels; "Current date:" is not)."""
    found_all: list[tuple[int, int, str, bool]] = []
    if not _may_start_a_label(line):  # its first word is the same without the line break
        return found_all
    text = line.rstrip("\r\n")
    for pattern, what in _MOMENT_PATTERNS:
        found = pattern.match(text)
        if found is not None and not _ISO_DATETIME.search(found.group("value")):
            plain = pattern is _PLAIN_TIME or (pattern is _DAY_DATE and not found.group("qualifier"))
            found_all.append((found.start("value"), found.end("value"), what, plain))
    return found_all


# A file that says, at its top, that it is a capture of one rendering (a gateway log, a
# trace dump, a snapshot saved for debugging or by an eval harness) is a record, not the
# prompt that is sent: its values stay low-confidence.
_CAPTURE = re.compile(
    r"(?i)\b(?:captured|capture of|snapshot|dump|saved by|recorded|for debugging|debug log|logged|log of)\b"
)
# A word of each alternative, for ``_may_match``.
_CAPTURE_WORDS = ("captur", "snapshot", "dump", "saved by", "recorded", "debug", "logged", "log of")
_HEADER_CHARS = 400


# A stream of server-sent events (`event: metadata` / `data: {"run_id": …}`), as an SDK's
# test fixture records one response: a record by its shape, whatever its first line says.
_EVENT_STREAM = re.compile(r"(?:(?:event|id|retry): [^\n]*\n)*data: [\[{]")


def _is_capture(source: str) -> bool:
    head = source[:_HEADER_CHARS]
    if _EVENT_STREAM.match(head.lstrip("\ufeff")):
        return True
    return _may_match(head, _CAPTURE_WORDS) and _CAPTURE.search(head) is not None


def _in_code_span(text: str, start: int, end: int) -> bool:
    """Whether ``[start, end)`` of ``text`` lies in a code span of its line: a format or a
    value quoted as an example (`{{.Now.Format "15:04:05"}}`), as for the weaker values."""
    if "`" not in text:
        return False
    line_start = text.rfind("\n", 0, start) + 1
    return any(line_start + a <= start and end <= line_start + b
               for a, b in (m.span() for m in _CODE_SPAN.finditer(_line_at(text, start))))


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
        cost = f"{stable_tokens(after)} after it {is_or_are(after)} {rebilled(vol)}"
    else:
        cost = f"{only_stable_tokens_follow(after)}, but the chat history after the system prompt is {rebilled(vol)}"
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
        if _labelled_id(line, uuid.start()):
            yield uuid.start(), uuid.end(), "request or session id"


# How far before an id its label is looked for: a label (12 characters at most), the
# separators after it, "id" or "uuid" and up to 3 other characters.
_ID_LABEL_REACH = 64
_SEPARATORS = re.compile(r"[\s_-]*")


def _labelled_id(line: str, end: int) -> bool:
    """``_PER_REQUEST_ID_LABEL.search(line[:end])``, read near ``end`` only: read from the
    line's start, a line of 4,400 ids read 4,400 growing prefixes (20 s for 200 KB). A match
    that starts further back than the reach has a run of separators from 12 characters after
    that point to 7 before ``end``; only then is the line read from its start."""
    start = max(0, end - _ID_LABEL_REACH)
    if start and _SEPARATORS.fullmatch(line, start + 12, end - 7):
        start = 0
    return _PER_REQUEST_ID_LABEL.search(line, start, end) is not None


def _tokens_after(ctx: RuleContext) -> Callable[[int], int]:
    """Tokens of the file after a source offset (static files render as they read); the
    file is encoded once, when the first value asks."""
    counter: list[SuffixTokens] = []

    def after(source_offset: int) -> int:
        if not counter:
            counter.append(SuffixTokens(ctx.template.source, ctx.analysis.encoding))
        return counter[0].after(source_offset)

    return after
