"""What the words a prompt puts before a value say about it.

A value whose name says nothing (``{gps_fix}``, ``${standings}``, ``{{#each openSlots}}``)
is often introduced by a label that does: "Latest GPS fix: {gps_fix}", "## Current
standings", "Dispatcher on shift: {{ d.name }}". The label is read only when the name
gave no judgement, only when it is short (a heading, a line ending in a colon, or the
words before the value on its own line), and only for words that say the value is of
this moment or this person ("current", "live", "so far", "on this route", "on duty").
A judgement read from a label is ``medium`` confidence and says so, with how to correct
it in configuration.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache

from promptlint.core.ir import Expr
from promptlint.core.kinds import Volatility
from promptlint.core.names import _by_name, _is_role, words

# Words that, in a label, say the value is of this request, this moment, this case.
_NOW = frozenset({"current", "currently", "live", "latest", "recent", "recently", "now", "today", "todays",
                  "tonight", "tonights", "realtime", "retrieved", "fetched", "pending", "upcoming", "ongoing",
                  "outstanding", "incoming", "active", "requested", "booked", "received"})
# First words of a label that say the list is of now ("Open jobs:"); as a verb they lead no label.
_OPEN = frozenset({"open", "unread", "unresolved", "unanswered", "queued", "waiting", "free"})
# "… for this claim", "… on this route": the case at hand; not "this prompt", "this rule".
_NOT_THIS = frozenset({"prompt", "file", "section", "document", "page", "assistant", "agent", "tool", "format",
                       "rule", "rules", "list", "way", "guide", "template", "system", "policy", "product", "app",
                       "service", "company", "team", "step", "example", "one", "is", "kind", "type", "role",
                       "point", "channel", "server", "workspace", "repository", "repo", "project", "office",
                       "model", "persona", "skill", "instruction", "instructions", "block", "table", "week",
                       "month", "year", "quarter", "home", "house", "household", "building", "season", "term",
                       "semester", "course", "club", "site", "plant", "studio", "shop", "yard", "farm",
                       "school", "centre", "center", "workshop", "store", "library", "practice", "firm"})
_NOW_PHRASES = re.compile(
    r"\b(?:so far|right now|at the moment|as of|up to date|real[- ]time|on site|in play|on file|on record|"
    r"(?:is|are|was|were) asking about|asked about|asks about|in question|at hand|"
    r"still (?:free|open|available|left|unsold|unbooked)|"
    r"on the (?:ice|water|hill|course|field|lake|river|mountain|trail|slopes?|road|green|board)|"
    r"in the (?:last|past) (?:\w+ )?(?:minutes?|hours?|days?)|in front of you|this (?P<scope>[a-z]+))\b"
)
# A label that names who the assistant is speaking with or working for now.
_PERSON_PHRASES = re.compile(
    r"\b(?:on (?:shift|duty|call|watch|the desk|the line|the gate|the door|the counter|the till|the radio)|at the desk|signed[- ]in|logged[- ]in|checked[- ]in|"
    r"speaking (?:with|to)|talking (?:with|to)|(?:on|in) this (?:chat|conversation|call)|"
    r"chatting with|you are (?:helping|assisting|serving))\b"
)
# Names that are fixed per deploy whatever label they stand under ("Current version: {version}").
_FIXED_NAME_WORDS = frozenset({"version", "release", "build", "model", "product", "brand", "company", "org",
                               "organization", "app", "agent", "assistant", "bot", "persona", "personality",
                               "character", "char", "tone", "style",
                               "instructions", "rules", "guidelines", "schema", "format", "examples", "tools",
                               "tool", "functions", "skills", "policy", "policies", "description",
                               "descriptions", "role", "language", "lang", "locale", "url", "link",
                               "cutoff", "year", "domain", "email", "phone", "website", "homepage"})
# Words of a count that grows during a conversation ("Hints used so far: {n}").
_COUNTERS = frozenset({"count", "counter", "number", "total", "num", "used", "remaining", "left", "tally"})
# Template markup: values and tags (a label is read after the last of them on its line).
_TAGS = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\$\{[^}]*\}|\{[^{}]*\}")
# Template markup inside a label is not words of it.
_MARKUP = re.compile(_TAGS.pattern + r"|<[^>]*>|[*_`#>|]")
_MAX_LABEL_WORDS = 10
# A label (at most ten words, after the last value and sentence break before it) is read
# from this many characters before the value on a long line: a 570 KB line of 20,000 values
# was read whole for each of them (no result in two minutes). Ten words never span so many.
_LABEL_WINDOW = 2000
_NON_SPACE = re.compile(r"\S")


def _has_text_before(source: str, line_start: int, start: int) -> bool:
    """Whether the value's line has anything but whitespace before ``start`` (``strip`` of
    the slice, without copying a long line's prefix for each of its values)."""
    return _NON_SPACE.search(source, line_start, start) is not None


@lru_cache(maxsize=8)
def _first_words(source: str, line_start: int) -> int:
    """Where the first word outside markup stands on the line at ``line_start`` (its end
    when there is none): found once per long line."""
    end = source.find("\n", line_start)
    end = len(source) if end < 0 else end
    at = line_start
    for markup in _MARKUP.finditer(source, line_start, end):
        if _NON_SPACE.search(source, at, markup.start()):
            return at
        at = markup.end()
    return at if _NON_SPACE.search(source, at, end) else end


_WORD_RUN = re.compile(r"\S+")


class _LineScan:
    """A long line's markup, its tags and its words (runs of non-space outside markup), as
    the scans of the whole line find them, each as sorted starts and ends."""

    __slots__ = ("markup", "tags", "words")

    def __init__(self, markup: tuple[list[int], list[int]], tags: tuple[list[int], list[int]],
                 words: tuple[list[int], list[int]]) -> None:
        self.markup, self.tags, self.words = markup, tags, words

    def window(self, source: str, lo: int, start: int) -> tuple[int | None, bool] | None:
        """For the window ``source[lo:start]``: where its last tag ends (None: it has none), and
        whether it has a word outside markup, as the window's own scans find them; None when
        a match of the line's scans holds ``start`` inside it (the window's may differ there).

        The window's scan of a pattern is run from ``lo`` only until it meets the line's: at
        the first position it tries a match at that no match of the line's holds inside (a
        tag cut at the window's edge is read as words). From there the two try the same
        positions, and each alternative of both patterns ends at the first of its closing
        characters, so an attempt gives the same match in both unless that match runs past
        ``start``, which none does."""
        if _holds(self.markup, start) or _holds(self.tags, start):
            return None
        met, own = _meet(_MARKUP, self.markup, source, lo, start)
        at = lo
        has_words = False
        for a, b in [*own, (met, met)]:  # words between the window's own markup, up to the meeting
            if _NON_SPACE.search(source, at, a):
                has_words = True
                break
            at = b
        if not has_words and met < start:
            word_starts, word_ends = self.words
            first = bisect_right(word_ends, met)
            has_words = first < len(word_starts) and word_starts[first] < start
        met, own = _meet(_TAGS, self.tags, source, lo, start)
        tag_ends = self.tags[1]
        last = bisect_right(tag_ends, start) - 1
        if last >= 0 and tag_ends[last] > met:
            return tag_ends[last], has_words
        return (own[-1][1] if own else None), has_words


def _holds(spans: tuple[list[int], list[int]], at: int) -> bool:
    """Whether one of ``spans`` (sorted, not overlapping) holds ``at`` strictly inside it."""
    return _free_from(spans, at) != at


def _meet(pattern: re.Pattern[str], spans: tuple[list[int], list[int]], source: str, lo: int,
          start: int) -> tuple[int, list[tuple[int, int]]]:
    """Where the window's scan of ``pattern`` from ``lo`` meets the line's (``spans``): the
    first position, up to ``start``, it tries a match at that no span holds inside; and the
    matches it found before that position."""
    own: list[tuple[int, int]] = []
    at = lo
    for match in pattern.finditer(source, lo, start):
        free = _free_from(spans, at)
        if free <= match.start():  # the scan tries every position from ``at`` to the match
            return free, own
        own.append(match.span())
        at = match.end()
    return min(_free_from(spans, at), start), own


def _free_from(spans: tuple[list[int], list[int]], at: int) -> int:
    """The first position from ``at`` on that no span (sorted, not overlapping) holds inside."""
    starts, ends = spans
    i = bisect_right(starts, at) - 1
    return ends[i] if i >= 0 and starts[i] < at < ends[i] else at


@lru_cache(maxsize=8)
def _line_scan(source: str, line_start: int) -> _LineScan:
    """The scans of the line at ``line_start``, made once: each value of a long line read a
    window of 2,000 characters anew (66,000 values on one 200 KB line: 11 s)."""
    end = source.find("\n", line_start)
    end = len(source) if end < 0 else end

    def spans(pattern: re.Pattern[str]) -> tuple[list[int], list[int]]:
        found = [m.span() for m in pattern.finditer(source, line_start, end)]
        return [a for a, _ in found], [b for _, b in found]

    markup = spans(_MARKUP)
    word_spans: list[tuple[int, int]] = []
    at = line_start
    for gap_end, after in [*zip(*markup), (end, end)]:
        word_spans += (m.span() for m in _WORD_RUN.finditer(source, at, gap_end))
        at = after
    return _LineScan(markup, spans(_TAGS), ([a for a, _ in word_spans], [b for _, b in word_spans]))


def label_before(source: str, start: int) -> str | None:
    """The label a value at ``start`` stands under: the words before it on its line (from
    the last sentence break), or, when it starts its line, the heading or colon-ended line
    just above it (one blank line may stand between). None when there is none."""
    line_start = source.rfind("\n", 0, start) + 1
    lo = max(line_start, start - _LABEL_WINDOW)
    # On a long line, the window is read from the line's scans when they give its own.
    found = _line_scan(source, line_start).window(source, lo, start) if lo > line_start else None
    if found is not None:
        last_end, has_words = found
        before = _words_of(source[lo if last_end is None else last_end : start])
    else:
        prefix = source[lo:start]
        # Only the words after the last value on the line label this one.
        tags = list(_TAGS.finditer(prefix))
        before = _words_of(prefix[tags[-1].end():] if tags else prefix)
        has_words = bool(_words_of(prefix))
    words_before = has_words or (lo > line_start and _first_words(source, line_start) < lo)
    if words_before:
        if not before:
            return None  # words only before another value on the line: they are its label
        # A label ends in a colon ("Latest GPS fix:"); words that run on into the value
        # are a sentence ("The current list is {x}"), read only for who is being helped.
        clause = re.split(r"[.!?;]\s+", before)[-1]
        if not 0 < len(clause.split()) <= _MAX_LABEL_WORDS:
            return None
        return clause if clause.endswith((":", "=", "-", "\u2014")) or _ends_with_person(clause.lower()) else None
    end = line_start - 1
    for _ in range(2):
        if end <= 0:
            return None
        above_start = source.rfind("\n", 0, end) + 1
        raw = source[above_start:end].rstrip("\r")
        if raw.strip():
            if _TAGS.search(raw):
                return None  # a line with a value of its own labels that value
            heading = raw.lstrip().startswith("#")
            text = _words_of(raw)
            if (heading or text.endswith(":")) and 0 < len(text.split()) <= _MAX_LABEL_WORDS:
                return text
            return None
        end = above_start - 1
    return None


def _ends_with_person(label: str) -> bool:
    """Whether the label ends with words that name who is being helped ("… on shift:")."""
    found = None
    for found in _PERSON_PHRASES.finditer(label):
        pass
    # "Foreman on call today:": a word of the day after the phrase still ends it.
    rest = re.sub(r"\b(?:today|tonight|now|this (?:morning|afternoon|evening|shift|week))\b", " ",
                  label[found.end():]) if found is not None else ""
    return found is not None and not rest.strip(" :-\u2014,")


def _words_of(text: str) -> str:
    return " ".join(_MARKUP.sub(" ", text).split())


def judge_by_label(source: str, start: int, expr: Expr) -> Volatility | None:
    """The volatility a label before the value says, for a value whose name said nothing."""
    if not expr.paths and not expr.calls:
        return None  # a literal (`for s in ["inspect", "clean"]`) is what it says
    if _fixed_name(expr):
        return None
    return _by_label(source, start, expr) or _refreshed_above(source, start)


def _fixed_name(expr: Expr) -> bool:
    """Whether the value's name is one fixed per deploy whatever label it stands under
    (`version`, `tools`, `trade_email`); a count of fixed things still counts
    (`ToolCallCount` under "Tool calls so far:")."""
    return _fixed_paths(expr.paths)


@lru_cache(maxsize=4096)
def _fixed_paths(paths: tuple[tuple[str, ...], ...]) -> bool:
    """:func:`_fixed_name` of the names ``paths``, once per set of names (the same few are
    asked of every slot whose name said nothing)."""
    named = [w for p in paths for part in p for w in words(part)]
    return any(w in _FIXED_NAME_WORDS for w in named) and not (named and named[-1] in _COUNTERS)


# "Readings refreshed {{ now() }}", "Stock updated at {time}": the lines below were fetched then.
_REFRESHED_AT = re.compile(r"\b(?:refreshed|updated|fetched|synced|polled|pulled|taken|as of)(?: at| on)?:?$")
# "Conditions at {report_time:%H:%M}:": the data below is of that time, when the value is a clock.
_AT_A_TIME = re.compile(r"\b\w+ at$")
_CLOCK_TEXT = re.compile(r"(?i)time|now|%H|clock|hour|timestamp")


def record_of_person_above(source: str, start: int, expr: Expr) -> Volatility | None:
    """A "Label: value" line right under a line that names the user ("Buyer: {name}" then
    "Standing order: {order}"): the value is a record of that person, looked up for them.
    The caller has found the person on the line above; a fixed name is never judged."""
    if not expr.paths or _fixed_name(expr):
        return None
    label = label_before(source, start)
    line_start = source.rfind("\n", 0, start) + 1
    if label is None or not label.endswith(":") or not _has_text_before(source, line_start, start):
        return None  # only a label on the value's own line
    return Volatility("retrieval", "per-request", f"judged by the label before it ({label!r}) under the line that "
                      "names the user: a record of theirs, looked up for them", assumed="the line describes the user")


def _refreshed_above(source: str, start: int) -> Volatility | None:
    """A value that starts its line, in a paragraph whose first lines say when the data below
    was refreshed, with the time as a value of its own: the data of this request."""
    line_start = source.rfind("\n", 0, start) + 1
    if _has_text_before(source, line_start, start):
        return None
    end = line_start - 1
    for _ in range(2):
        if end <= 0:
            return None
        above_start = source.rfind("\n", 0, end) + 1
        raw = source[above_start:end]
        if not raw.strip():
            return None  # the paragraph ends
        tag = _TAGS.search(raw)
        if tag is not None:
            said = _words_of(raw[: tag.start()]).lower()
            if _REFRESHED_AT.search(said) or (_AT_A_TIME.search(said) and _CLOCK_TEXT.search(tag.group())
                                              and raw[tag.end():].strip() in (":", "")):
                return Volatility("retrieval", "per-request", f"judged by the line above it ({said!r} and a time): "
                                  "what follows was refreshed for this request", assumed="the line dates the data below")
            return None
        end = above_start - 1
    return None


def _by_label(source: str, start: int, expr: Expr) -> Volatility | None:
    label = label_before(source, start)
    if label is None:
        return None
    lower = label.lower().replace("'", "").replace("\u2019", "")
    person = _PERSON_PHRASES.search(lower) if _ends_with_person(lower) else None
    now = next((w for w in words(lower) if w in _NOW), None)
    if now is None and lower.split()[0] in _OPEN:
        now = lower.split()[0]  # "Open jobs:", "Unread messages:"
    phrase = _NOW_PHRASES.search(lower)
    if phrase is not None and phrase.group("scope") is not None and phrase.group("scope") in _NOT_THIS:
        phrase = None
    correct = "the label describes the value"
    if person is not None:
        return Volatility("identity", "per-session",
                          f"judged by the label before it ({label!r}): who the assistant works with now",
                          assumed=correct)
    # The head of the label names the value ("Adventurers in this session": adventurers).
    # An aside in parentheses says more about the value, not what it is.
    head = re.split(r"\b(?:in|on|for|of|from|at|during|to|with|by|since)\b", re.sub(r"\([^)]*\)", " ", lower),
                    maxsplit=1)[0]
    content = [w for w in words(head) if w not in _NOW]
    found = _by_name(("_".join(content),)) if content else None  # one name: phrases join ("working directory")
    marker = now or (phrase.group() if phrase else None)
    if marker is None:
        # No word of the moment: the label's own nouns may still name what changes
        # ("Search results:", "## Working directory"), as a variable's name would.
        if found is None and _is_role_label(label):
            return Volatility("identity", "per-session", f"judged by the label before it ({label!r}): "
                              "a person, named by their role", assumed=correct)
        if found is None or found[0] not in _NAMED_BY_LABEL:
            return None
        kind, frequency, word = found
        return Volatility(kind, frequency, f"judged by the label before it ({label!r}): {_KIND_WORDS[kind]} "
                          f"({word!r})", assumed=correct)
    because = f"judged by the label before it ({label!r}): {marker!r} says it is of this request"
    named = {w for p in expr.paths for part in p for w in words(part)}
    if _COUNTERS.intersection(content) or _COUNTERS.intersection(named):
        return Volatility("session-id", "per-request", f"{because}, and it counts", assumed=correct)
    if found is not None:
        kind, frequency, word = found
        if kind == "timestamp":
            precision = "day" if frequency == "per-day" else None
            return Volatility("timestamp", frequency, f"{because}, and {word!r} that it is a clock"
                              if frequency != "per-day" else f"{because}, and {word!r} that it is a date",
                              precision=precision, assumed=correct)
        if kind in ("identity", "environment", "memory", "session-id"):
            return Volatility(kind, frequency, f"{because} ({word!r})", assumed=correct)
    return Volatility("retrieval", "per-request", because, assumed=correct)


def _is_role_label(label: str) -> bool:
    """A short "Role:" label on the value's own line ("Adjuster:", "Officer on the case:")."""
    if not label.endswith(":"):
        return False
    head = re.split(r"\b(?:in|on|for|of|from|at|during|to|with|by)\b", label.lower(), maxsplit=1)[0].split()
    return 0 < len(head) <= 2 and _is_role(head[-1].rstrip(":"))


# Kinds a label's nouns may give without a word of the moment (not a clock or a tool list:
# "## Date format", "## Tools" name what a stable block is about).
_NAMED_BY_LABEL = frozenset({"retrieval", "memory", "identity", "environment"})
_KIND_WORDS = {
    "identity": "it names who the user is",
    "environment": "it names the environment of the run",
    "retrieval": "it names retrieved or per-request content",
    "memory": "it names memory that changes during a conversation",
}
