"""Patterns written for speed find what their plain forms find.

Python's `re` scans quickly for a match only when a pattern starts with a character or a
class of characters; a pattern that starts with an assertion (a look-behind, `\\b`) or a
counted repeat (`\\d{1,2}`) is tried at every position of the text, 2 to 20 times slower on
whole prompt files. The patterns below read whole files, so each is written to start with
what it consumes first, its assertions moved after it; here each is checked against its
plain form, on texts built from the characters it reads."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.core import literals
from promptlint.loaders import base, placeholders
from promptlint.requestbody import values
from rules import literal_volatile_value

_BRACES = ["{", "}", "#", '"', "$", "\\", "^", "_", " ", "\n", "a", "x1", "é", ".b", "[0]", "!r", ":>4", "{a}", "{{", "}}"]


@st.composite
def _clock(draw: st.DrawFn) -> str:
    """A date and time, each part well formed four times in five, after a character that
    makes a word boundary before it or not."""
    def one(valid: str, *others: str) -> str:
        return valid if draw(st.integers(0, 4)) else draw(st.sampled_from(others))

    return (draw(st.sampled_from(["", " ", "a", "_", "1", "٣", "\n", "-", ":"]))
            + one("2026", "202", "20261", "٢٠٢٦") + one("-", "/", "") + one("12", "1", "123") + one("-", "")
            + one("06", "6") + one("T", " ", "t", "") + one("07", "7", "٠٧") + one(":", "") + one("42", "4")
            + draw(st.sampled_from(["", ":05", ":05.25", ":5"])) + draw(st.sampled_from(["", "Z", "+01:00", "-0100", "+1"]))
            + draw(st.sampled_from(["", " ", "a", "1", ":", ".", "\n"])))


_CLOCKS = st.lists(st.one_of(_clock(), st.sampled_from([" ", "\n", "a", "9", ":", "07:42:05", "1:02:03"])),
                   max_size=4).map("".join)
_BRACE_TEXTS = st.lists(st.sampled_from(_BRACES), max_size=14).map("".join)
# A body's clock label as first written: the same alternatives, each opening with a (?i)
# letter (values._cased_first), `\w+\s+` before `clock` taken back a character at a time.
_PLAIN_CLOCK_LABEL = (
    r"(?im)\b" + values._CLOCK_LABEL_STARTS + r"(?:(?:current\s+(?:date\s*(?:and|&|/)\s*)?time(?:\s*(?:and|&|/)\s*date)?|local\s+time|time\s+now|now|timestamp|(?:\w+\s+)?clock)"
    r"\s*(?:is|:|=)"
    r"|the\s+time\s+is\s*:?|(?:^|(?<=[.!?]\s))it(?:\s+is|'s)"
    r"(?=\s+(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]{0,6},?\s+)?(?:\d{1,2}\s+[a-z]{3,9},?\s+(?:\d{4},?\s+)?)?\d{1,2}:\d{2}\b)"
    r"|(?:generated|prepared|produced|rendered|refreshed|updated|checked)(?:\s+(?:at|on))?(?=\s+[^\n]{0,40}\d{1,2}:\d{2}\b)"
    r"|\b(?:status|conditions|report|readings?|state|queue|board)\s+at(?=\s+\d{1,2}:\d{2}\s*:)"
    r"|\btime\s*:(?=\s*\d{1,2}:\d{2}\b))"
    r"[ \t]*(?P<value>" + values._TIME_WORD + r"(?:,?[ \t]+" + values._TIME_WORD + r"|,(?=\s*\d))*)"
)
# Its words in three cases, and with a first letter (?i) reads as an ASCII one (İt, ſtatus);
# texts of labels of one to three words, a separator and a value, among the characters
# around labels and values.
_LABEL_WORDS = ["current", "date", "and", "time", "local", "now", "timestamp", "clock", "wall", "the", "is", "it",
                "generated", "checked", "at", "on", "status", "reading", "readings", "state", "queue", "board", "x1_y"]
_LABEL_FORMS = sorted({form for word in _LABEL_WORDS for form in (word, word.capitalize(), word.upper())}
                      | {other + word[1:] for word in _LABEL_WORDS
                         for other in {"i": "\u0130\u0131", "s": "\u017f"}.get(word[0], "")})
_TIMES = ["10:42", "10:42:", "7:05:33", "2026-12-01T10:42:17Z", "1/12/2026", "Monday", "Dec.", "1st", "PM", "a.m.", "UTC",
          "CEST", "\u0663:\u0664\u0665", "12"]
_AROUND = [" ", "  ", "\t", "\n", ":", "=", ".", "!", "?", ",", "'s", "&", "/", "-", "\u00e9", "\u212a", "_"]
_LABELS = ["Current time", "current date & time", "local  time", "time now", "Now", "TIMESTAMP", "wall clock",
           "x1_y\nclock", "The time is", "It", "\u0130t", "Generated at", "updated on", "status at", "\u017ftate at",
           "Readings at", "reading at", "time"]
_LABEL_PHRASES = st.tuples(
    st.one_of(st.sampled_from(_LABELS), st.lists(st.sampled_from(_LABEL_FORMS), min_size=1, max_size=3).map(" ".join)),
    st.sampled_from(["", ":", " :", " is", " is:", " =", "'s", " at", "\n:"]),
    st.sampled_from(["", " ", "\t", "\n"]),
    st.lists(st.sampled_from(_TIMES), min_size=1, max_size=3).map(" ".join),
).map("".join)
_LABEL_TEXTS = st.lists(st.tuples(st.sampled_from(["", *_AROUND]),
                                  st.one_of(_LABEL_PHRASES, st.sampled_from(_AROUND + _LABEL_FORMS + _TIMES))),
                        min_size=1, max_size=8).map(lambda parts: "".join(map("".join, parts)))
# (the pattern as written, its plain form, the texts it is tried on)
_FORMS = {
    "format field": (base._FORMAT_FIELD,
                     r"(?<![{\\$^_}\w])\{([A-Za-z_]\w*(?:\.\w+|\[\w+\])*)(?:![rsa])?(?::[^{}\n]*)?\}(?!\})", _BRACE_TEXTS),
    "JSON object": (base._JSON_OBJECT, r"(?<!\{)\{\s*\"", _BRACE_TEXTS),
    "Jinja comment": (base._JINJA_COMMENT, r"(?<!\{)\{#", _BRACE_TEXTS),
    "{NAME} token": (placeholders.TOKEN, r"(?<![{$\\\w])\{([A-Za-z_][A-Za-z0-9_]*)\}(?!\})", _BRACE_TEXTS),
    "ISO time in a body": (values._ISO,
                           r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:])", _CLOCKS),
    "ISO time on a line": (literal_volatile_value._ISO_DATETIME,
                           r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b", _CLOCKS),
    "clock to the second": (literals._ANY_SECONDS, r"\d{1,2}:\d{2}:\d{2}", _CLOCKS),
    "clock label in a body": (values._CLOCK_LABEL, _PLAIN_CLOCK_LABEL, _LABEL_TEXTS),
}


@pytest.mark.parametrize("name", sorted(_FORMS))
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_each_fast_pattern_finds_what_its_plain_form_finds(name: str, data: st.DataObject) -> None:
    pattern, plain, texts = _FORMS[name]
    text = data.draw(texts)
    reference = re.compile(plain, pattern.flags)
    assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == \
        [(m.span(), m.groups()) for m in reference.finditer(text)], name


def test_the_clock_label_finds_what_its_plain_form_finds_after_every_label() -> None:
    # Each label, separator and value once (the texts drawn above meet a given one rarely).
    plain = re.compile(_PLAIN_CLOCK_LABEL)
    for label in _LABELS + _LABEL_FORMS:
        for separator in ("", ":", " is", " =", "'s", " at", "\n:"):
            for value in _TIMES:
                text = f"Note. {label}{separator} {value}: the rest."
                assert [(m.span(), m.groups()) for m in values._CLOCK_LABEL.finditer(text)] == \
                    [(m.span(), m.groups()) for m in plain.finditer(text)], text


# Lines of labels and values, and of prose ending in each kind of character, joined by
# line breaks with and without whitespace around them.
_CLOCK_LINES = st.lists(
    st.tuples(st.one_of(_LABEL_TEXTS, st.sampled_from(["Plain prose.", "a word", "wall", "date &", "x /", "It",
                                                       "the time is", "Current", "", " ", "\u0130", "10:42"])),
              st.sampled_from(["\n", "\n\n", " \n", "\n\t", "\r\n", "\u2028"])),
    min_size=1, max_size=6).map(lambda parts: "".join(map("".join, parts)))


@settings(max_examples=500, deadline=None)
@given(text=_CLOCK_LINES)
def test_the_clock_label_scan_from_its_start_finds_what_a_whole_scan_keeps(text: str) -> None:
    # The scan starts on a line before the first time of day (values._clock_scan_start): it
    # finds the whole scan's matches from there, and every one the whole scan keeps.
    colon = values._CLOCK_NEEDS.search(text)
    if colon is None:
        return
    start = values._clock_scan_start(text, colon.start())
    whole = [(m.span(), m.groups()) for m in values._CLOCK_LABEL.finditer(text)]
    scanned = [(m.span(), m.groups()) for m in values._CLOCK_LABEL.finditer(text, start)]
    assert scanned == [found for found in whole if found[0][0] >= start], text
    kept = [found for found in whole
            if values._precision(found[1][-1]) != "day" or values._ISO.search(found[1][-1])]
    assert all(found in scanned for found in kept), text


_HEX_TEXTS = st.lists(st.sampled_from(["0", "9", "a", "f", "A", "F", "g", "G", " ", "_", "é", "\u0660", "\ud800",
                                       "\U0001f600", "deadbeef", "0123456"]), max_size=14).map("".join)


@settings(max_examples=300, deadline=None)
@given(clock_text=_CLOCKS, hex_text=_HEX_TEXTS)
def test_the_prefilters_of_a_body_find_what_their_plain_forms_find(clock_text: str, hex_text: str) -> None:
    # A time of day is looked for from its colon, one match (its start tells where an ISO
    # timestamp can start); a run of hex digits in the text's bytes.
    plain = re.search(r"\d:\d\d", clock_text)
    found = values._CLOCK_NEEDS.search(clock_text)
    assert (found.start() if found else None) == (plain.start() + 1 if plain else None), clock_text
    for text in (hex_text, clock_text):
        assert values._has_hex_run(text) == bool(re.search("[0-9a-fA-F]{8}", text)), text


def test_each_pattern_and_its_plain_form_find_a_sample_of_what_they_look_for() -> None:
    # (The test above would compare nothing but empty lists for a pattern that never matches.)
    samples = {"format field": "x {a} y", "JSON object": 'x { "a"', "Jinja comment": "x {# c #}",
               "{NAME} token": "x {a} y", "ISO time in a body": "at 2026-12-06T07:42:05Z now",
               "ISO time on a line": "at 2026-12-06 07:42 now", "clock to the second": "07:42:05",
               "clock label in a body": "Note. Wall clock: 10:42 UTC."}
    for name, (pattern, plain, _) in _FORMS.items():
        text = samples[name]
        assert re.compile(plain).search(text) and pattern.search(text), name
