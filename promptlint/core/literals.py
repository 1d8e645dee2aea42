"""Literal values that were rendered into a prompt for one request: strong evidence.

A static prompt file or a request body is literal text, static unless strong evidence says
otherwise (DESIGN.md). Two kinds of literal are that evidence:

* a clock printed to the second under a label that says it is the time now or the time the
  text was produced ("Current time: 2025-11-03T16:42:09Z", "Generated on 2025-11-03 at
  07:12:44Z"): nobody types seconds into a prompt by hand, and a label says what they are;
* a signed-in user's name and e-mail address in the text ("You are helping Dana Whitfield
  (dana@northwind.example)", "Signed in as: dana@northwind.example").

Dates without a time, minute-precision examples ("Current time: 14:03"), knowledge-cutoff
sentences, version strings, SHAs and a support address are not evidence of anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

_EMAIL = r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+"
_NAME = r"[A-Z][\w'’-]+(?:[ \t]+[A-Z][\w'’.-]+){0,3}"
# "Dana Whitfield (dana@…)", "Dana Whitfield <dana@…>", "Dana Whitfield, dana@…"
_NAME_AND_EMAIL = re.compile(rf"(?P<name>{_NAME})[ \t]*(?:\(|<|\[|,[ \t]*)(?P<email>{_EMAIL})[)>\]]?")
# "Signed in as: dana@…", "User: dana@…", "Logged in user = dana@…"; not a URI's user and
# password ("mongodb+srv://user:password@cluster.example.net", "https://user:pw@host/…").
_LABELLED_EMAIL = re.compile(
    rf"(?i:(?<![/\w])(?:signed[- ]in(?:[ \t]+user)?(?:[ \t]+as)?|logged[- ]in(?:[ \t]+user)?(?:[ \t]+as)?|current[ \t]+user|"
    rf"user(?:[ \t]+e-?mail)?|customer(?:[ \t]+e-?mail)?)[ \t]*[:=]?[ \t]*)(?P<email>{_EMAIL})"
)
# Labels of the person an assistant serves ("Buyer:", "Learner:", "Signed in:"), as a pattern.
SERVED_LABELS = (r"(?:caller|customer|user|guest|member|client|patient|visitor|rider|learner|student|buyer|farmer|"
                 r"tenant|passenger|applicant|hirer|borrower|subscriber|travell?er|booker|attendee|signed[- ]in|"
                 r"logged[- ]in)")
# "Buyer: Morwenna Tate, Tate & Gill Kitchen, morwenna@…": a served person's line, with the
# address later on it.
_SERVED_LINE = re.compile(
    rf"(?im)^[ \t\W]*{SERVED_LABELS}[ \t]*:[ \t]*(?P<name>{_NAME}),[^\n@]*?(?P<email>{_EMAIL})"
)
# What says the person named is the one the assistant is serving.
_USER_CONTEXT = re.compile(
    r"(?i)\b(?:you\s+are\s+(?:helping|talking\s+(?:to|with)|chatting\s+with|assisting|speaking\s+(?:to|with)|"
    r"serving|working\s+(?:for|with))|signed[- ]in|logged[- ]in|current\s+user|the\s+user\s+is|"
    r"on\s+behalf\s+of|on\s+(?:duty|shift|call|the\s+desk)\s*:|"
    r"(?:user|customer|member|patient|client|student|guest|caller|employee|requester|operator|dispatcher|"
    r"account\s+holder)\s*:)"
)

_SECONDS = r"\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?"
_ZONE = r"(?:[ \t]?(?:Z|UTC|GMT|[+-]\d{2}:?\d{2}))?"
_CLOCK = re.compile(rf"(?:\d{{4}}-\d{{2}}-\d{{2}}[T ])?{_SECONDS}{_ZONE}")
# Labels that say a clock is the time now, or when the text was produced.
_NOW_LABEL = re.compile(
    r"(?i)\b(?:current\s+(?:date\s*(?:and|&|/)\s*)?time|time\s+now|local\s+time|server\s+time|system\s+time|"
    r"the\s+time\s+is|now|timestamp|generated|rendered|produced|requested)\b"
)


@dataclass(frozen=True)
class Rendered:
    """A literal value rendered for one request, at ``[start, end)`` of the text given."""

    start: int
    end: int
    kind: str  # "timestamp" or "identity"
    what: str  # said in messages


def signed_in_users(text: str) -> Iterator[Rendered]:
    """A person's name and e-mail address (or a labelled address) where the text says
    the assistant is serving them."""
    if "@" not in text:
        return  # the patterns need an address (most texts have none: three scans saved)
    # No pattern reads across a line break but _SERVED_LINE's leading `[ \t\W]*`, and what it
    # yields (from the name to the address) is on one line: each is searched for on the lines
    # that hold an "@" (a long page searched whole, at every capital letter, took a tenth of
    # its check).
    lines = _address_lines(text)
    for line_start, line_end in lines:
        for match in _NAME_AND_EMAIL.finditer(text, line_start, line_end):
            start = text.rfind("\n\n", 0, match.start())
            before = text[max(start, match.start() - 160, 0) : match.start()]
            if _USER_CONTEXT.search(before) or _USER_CONTEXT.search(text[match.end() : match.end() + 80]):
                yield Rendered(match.start("name"), match.end(), "identity", "signed-in user's name and e-mail")
    for line_start, line_end in lines:
        for match in _LABELLED_EMAIL.finditer(text, line_start, line_end):
            yield Rendered(match.start("email"), match.end("email"), "identity", "signed-in user's e-mail")
    for line_start, line_end in lines:
        for match in _SERVED_LINE.finditer(text, line_start, line_end):
            yield Rendered(match.start("name"), match.end("email"), "identity", "served person's name and e-mail")


def _address_lines(text: str) -> list[tuple[int, int]]:
    """``[start, end)`` of each line of ``text`` (split at ``"\n"``, which ``end`` is before)
    that holds an "@"."""
    lines = []
    at = text.find("@")
    while at >= 0:
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        lines.append((text.rfind("\n", 0, at) + 1, end))
        at = text.find("@", end)
    return lines


def rendered_clocks(line: str) -> Iterator[Rendered]:
    """A clock printed to the second after a label that says it is the time now or the time
    the text was produced, on one line."""
    for label in _NOW_LABEL.finditer(line):
        clock = _CLOCK.search(line, label.end())
        if clock is not None and clock.start() - label.end() <= 40:
            yield Rendered(clock.start(), clock.end(), "timestamp", "clock to the second")
            return


# A clock's seconds: without them on a line, ``rendered_clocks`` finds nothing there.
_ANY_SECONDS = re.compile(r"\d\d?:\d{2}:\d{2}")
# Its minutes and seconds, searched first: a pattern that starts with a literal character is
# found by a fast scan for it, where one that starts with a digit is tried at every position.
_SECONDS_TAIL = re.compile(r":\d{2}:\d{2}")


def scan(text: str) -> list[Rendered]:
    """Every rendered value of a text, in order, not overlapping."""
    # Digits and colons break no line, so a text without seconds has no line with them:
    # most texts skip the line-by-line label search, and with no address, all of it.
    seconds = _SECONDS_TAIL.search(text) is not None and _ANY_SECONDS.search(text) is not None
    if not seconds and "@" not in text:
        return []
    found: list[Rendered] = list(signed_in_users(text))
    if seconds:
        offset = 0
        for line in text.splitlines(keepends=True):
            if _ANY_SECONDS.search(line):
                found.extend(Rendered(r.start + offset, r.end + offset, r.kind, r.what)
                             for r in rendered_clocks(line))
            offset += len(line)
    found.sort(key=lambda r: (r.start, -(r.end - r.start)))
    kept: list[Rendered] = []
    for value in found:
        if not kept or value.start >= kept[-1].end:
            kept.append(value)
    return kept
