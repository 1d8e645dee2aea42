"""Literal per-request values in text: a clock, a timestamp, a labelled request or session id."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from promptlint.core import literals


@dataclass(frozen=True)
class VolatileValue:
    """A literal value in text that changes per request or session."""

    start: int
    end: int
    kind: str  # "timestamp" or "id"
    label: str  # a variable-like name: "current_time", "request_id", "session_id"
    precision: str | None = None


_ISO = re.compile(
    r"\d(?<=\b\d)\d{3}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:])"
)
# One word of a written date or time: 2026-12-01T10:42:17Z, 10:42, 1/12/2026, Monday, Dec.,
# PM, UTC, CEST. A labelled clock value is a run of these, so it ends where the prose resumes
# ("Current time: 10:42 UTC. Request id: …" is `10:42 UTC`, not the rest of the line).
_TIME_WORD = (
    r"(?:\d{1,4}(?:[-/.:]\d{1,4})*(?:T\d{1,2}(?::\d{2}){1,2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?:st|nd|rd|th)?"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?"
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]{0,6}\.?"
    r"|[AaPp]\.?[Mm](?:\.(?=\S))?(?![A-Za-z])|(?-i:UTC|GMT|[A-Z]{2,4}T)(?![A-Za-z]))"
)


def _starts_with(letters: str) -> str:
    """A look-ahead a word must pass to begin one of the alternatives after it: their first
    letters, either case. Without it the scan tries every alternative at every word (these
    patterns read whole request bodies, and took half of the time spent on them)."""
    return "(?=[" + "".join(sorted(set(letters.lower() + letters.upper()))) + "])"


# The letters (?i) matches an ASCII letter with besides its two cases (as it reads them:
# four non-ASCII ones fold to ASCII ones).
_OTHER_CASES = {"i": "\u0130\u0131", "k": "\u212a", "s": "\u017f"}


def _cased_first(*alternatives: str) -> str:
    """``alternatives`` joined with ``|``, each one's first letter written as the class of the
    letters (?i) matches it with, matched case-sensitively. Where a pattern branches, `re`
    passes over at once an alternative that opens with a case-sensitive class the text's next
    character is not in; one that opens with a (?i) letter it enters, to fail there. A label
    pattern branches at every word of a body its scan stops at (_starts_with)."""
    def cased(alternative: str) -> str:
        letter = alternative[0].lower()
        return f"(?-i:[{letter}{letter.upper()}{_OTHER_CASES.get(letter, '')}])" + alternative[1:]

    return "|".join(map(cased, alternatives))


# The first letters of _CLOCK_LABEL's labels: current, local, time, now, timestamp, clock,
# the, it, generated … checked, status … board (a `wall clock` is found at `clock`). A word
# before `clock` is taken possessively: it ends where the whitespace after it starts, so
# giving a character back could not match, and the scan does not try.
_CLOCK_LABEL_STARTS = _starts_with("cltnigprusqb")
_CLOCK_LABEL = re.compile(
    r"(?im)\b" + _CLOCK_LABEL_STARTS + r"(?:(?:"
    + _cased_first(r"current\s+(?:date\s*(?:and|&|/)\s*)?time(?:\s*(?:and|&|/)\s*date)?", r"local\s+time",
                   r"time\s+now", "now", "timestamp")
    + r"|\w++\s++clock|" + _cased_first("clock") + r")\s*(?:is|:|=)"
    r"|" + _cased_first(r"the\s+time\s+is\s*:?") + r"|(?:^|(?<=[.!?]\s))it(?:\s+is|'s)"
    r"(?=\s+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6},?\s+)?(?:\d{1,2}\s+[a-z]{3,9},?\s+(?:\d{4},?\s+)?)?\d{1,2}:\d{2}\b)"
    r"|(?:" + _cased_first("generated", "prepared", "produced", "rendered", "refreshed", "updated", "checked")
    + r")(?:\s+(?:at|on))?(?=\s+[^\n]{0,40}\d{1,2}:\d{2}\b)"
    r"|(?:" + _cased_first("status", "conditions", "report", "readings?", "state", "queue", "board")
    + r")\s+at(?=\s+\d{1,2}:\d{2}\s*:)"
    r"|" + _cased_first(r"time\s*:") + r"(?=\s*\d{1,2}:\d{2}\b))"
    r"[ \t]*(?P<value>" + _TIME_WORD + r"(?:,?[ \t]+" + _TIME_WORD + r"|,(?=\s*\d))*)"
)
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_LABELLED_ID_STARTS = _starts_with("rstcm")
_LABELLED_ID = re.compile(
    r"(?i)\b" + _LABELLED_ID_STARTS + r"(?P<label>request|session|trace|conversation|correlation|run|thread|chat|message)"
    r"(?:[ _-]?id\b)?[\"']?\s*(?:is|:|=)?\s*[\"']?(?P<value>" + _UUID + r"|[0-9a-fA-F]{16,}|[A-Za-z]+_[A-Za-z0-9]{8,})"
)
_PER_SESSION_IDS = frozenset({"session", "conversation", "thread", "chat"})
# A person's name where the prompt says the assistant is serving them ("You are speaking with
# Gwen Trelawney", "The caller is Dana Okafor"): in a request body, rendered for this user.
_SERVED_PERSON_STARTS = _starts_with("yt" + "".join(
    label[0] for label in literals.SERVED_LABELS.removeprefix("(?:").removesuffix(")").split("|")))
_SERVED_PERSON = re.compile(
    r"\b" + _SERVED_PERSON_STARTS + r"(?:[Yy]ou(?:'re|\s+are)\s+(?:speaking|talking|chatting)\s+(?:with|to)|[Yy]ou(?:'re|\s+are)\s+(?:helping|assisting|serving)"
    r"|[Tt]he\s+(?:caller|customer|user|guest|member|client|patient|visitor|rider)\s+is"
    r"|(?i:" + literals.SERVED_LABELS + r")\s*:)"
    r"[ \t]+(?!(?:The|A|An|Our|Your|This|That|Their|His|Her|Its)\b)(?P<name>[A-Z][a-z'’]+(?:[ \t-]+[A-Z][a-z'’]+){1,2})\b"
)


# What a text must hold for each pattern above to find a value that is kept, each searched
# for quickly (a pattern that opens with a character is scanned for that character; one
# that opens with a word boundary is tried at every position, at a twentieth of the speed):
# without it, that pattern's scan is skipped. A kept clock value holds a time of day (or is
# an ISO timestamp, which does), an id a run of 8 hex digits or an underscore and 8 letters
# or digits (the letters as (?i) reads them: four non-ASCII ones fold to ASCII ones), a
# served person two capitalised words. The time of day is looked for from its colon (a
# pattern that opens with `\d` looks up the Unicode category of every character; one that
# opens with `:` compares them, ten times faster), and its first one tells where an ISO
# timestamp can start.
_CLOCK_NEEDS = re.compile(r":(?<=\d:)\d\d")
_WORD_ID_NEEDS = re.compile("_[0-9A-Za-z" + "".join(_OTHER_CASES.values()) + "]{8}")
_PERSON_NEEDS = re.compile(r"[A-Z][a-z'’]+[ \t-]+[A-Z]")
# Where the colon of its time of day is in an ISO timestamp.
_ISO_COLON = len("2026-12-01T10")
# 1 for the bytes of the hex digits, 0 for every other byte: a run of 8 hex digits is a run
# of 8 ones in a text's UTF-8 bytes mapped with it (a byte of a non-ASCII character is none
# of them), found by a substring search. A pattern for the run is tried at every hex digit,
# and the letters a to f are nearly a third of the letters of English prose.
_HEX_BYTES = bytes(byte in b"0123456789abcdefABCDEF" for byte in range(256))


def _has_hex_run(text: str) -> bool:
    """Whether ``text`` holds a run of 8 hex digits (``[0-9a-fA-F]{8}``)."""
    return b"\1" * 8 in text.encode("utf-8", "surrogatepass").translate(_HEX_BYTES)


# The last character before the whitespace a clock label spans a line break with (`current\n
# time:`, `date &\ntime`, `wall\nclock`, `the time is\n`): a word's, `&` or `/`.
_LABEL_CHAR = re.compile(r"[\w&/]")


def _clock_scan_start(text: str, colon: int) -> int:
    """Where the scan for labelled clocks in ``text`` can start, its first time of day's colon
    at ``colon``: the start of a line at or before that colon's that no label runs into.

    A kept clock value holds a time of day, on one line (its words are apart by spaces and
    tabs), so it starts on the colon's line or a later one. Only a label's whitespace crosses
    a line break, right after one of its words or `&` or `/`: where the text before a line's
    start ends in none of them (after its whitespace), no match runs into that line from
    before it, and a scan from there finds what a scan of the whole text finds from there
    (`\b`, `^` and the look-behinds read the text before it). A clock is most often on a
    body's last lines, and the scan tries the label at every word it passes."""
    start = text.rfind("\n", 0, colon) + 1
    while start:
        # The last character before the line that is not whitespace, read back from it (a
        # copy of the text before each line, stripped, made a body of short lines quadratic).
        end = start
        while end and text[end - 1].isspace():
            end -= 1
        if not end or not _LABEL_CHAR.match(text, end - 1):
            return start
        start = text.rfind("\n", 0, end) + 1
    return 0


def _precision(value: str) -> str:
    if re.search(r"\d{1,2}:\d{2}:\d{2}\.\d", value):
        return "millisecond"
    if re.search(r"\d{1,2}:\d{2}:\d{2}", value):
        return "second"
    if re.search(r"\d{1,2}:\d{2}", value):
        return "minute"
    return "day"


def volatile_values(text: str) -> list[VolatileValue]:
    """Literal per-request values in ``text``, in order, not overlapping."""
    return list(_volatile_values(text))


@lru_cache(maxsize=256)
def _volatile_values(text: str) -> tuple[VolatileValue, ...]:
    """:func:`volatile_values`, found once per text: a body's loader and its rules ask alike."""
    found: list[VolatileValue] = []
    clock = _CLOCK_NEEDS.search(text)
    for match in _CLOCK_LABEL.finditer(text, _clock_scan_start(text, clock.start())) if clock else ():
        value = match.group("value")
        if not re.search(r"\d", value):
            continue
        if _precision(value) != "day" or _ISO.search(value):
            found.append(VolatileValue(match.start("value"), match.end("value"), "timestamp", "current_time", _precision(value)))
    # An ISO timestamp holds a time of day: none starts before the first one's place in it.
    for match in _ISO.finditer(text, max(0, clock.start() - _ISO_COLON)) if clock else ():
        found.append(VolatileValue(match.start(), match.end(), "timestamp", "current_time", _precision(match.group())))
    may_hold_id = _has_hex_run(text) or ("_" in text and _WORD_ID_NEEDS.search(text))
    for match in _LABELLED_ID.finditer(text) if may_hold_id else ():
        label = match.group("label").lower()
        name = "session_id" if label in _PER_SESSION_IDS else "request_id"
        found.append(VolatileValue(match.start("value"), match.end("value"), "id", name))
    for match in _SERVED_PERSON.finditer(text) if _PERSON_NEEDS.search(text) else ():
        found.append(VolatileValue(match.start("name"), match.end("name"), "identity", "signed_in_user"))
    # Rendered for one request or user (core/literals.py): "Generated … at 07:12:44Z", a
    # signed-in user's name and e-mail.
    for value in literals.scan(text):
        if value.kind == "identity":
            found.append(VolatileValue(value.start, value.end, "identity", "signed_in_user"))
        else:
            found.append(VolatileValue(value.start, value.end, "timestamp", "current_time",
                                       _precision(text[value.start : value.end])))
    found.sort(key=lambda v: (v.start, -(v.end - v.start)))
    kept: list[VolatileValue] = []
    for value in found:
        if kept and value.start < kept[-1].end:
            continue
        kept.append(value)
    return tuple(kept)
