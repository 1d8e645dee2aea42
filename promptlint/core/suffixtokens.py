"""Token counts of the suffixes of one text, from one encoding of it.

The rules ask, for every volatile unit, how many stable tokens follow it: the count of
``text[offset:]`` encoded on its own (:func:`promptlint.core.tokens.count`). Encoding each
suffix again makes a file with n units cost n encodings of the file. Here the text is
encoded once, and each suffix's count is read from it, exactly.

Why it is exact: tiktoken splits text into pieces with its encoding's regex (no
look-behind, so a scan that starts at a position depends only on the text from there on)
and byte-pair encodes each piece alone. The scan of ``text[offset:]`` therefore meets the
scan of the whole text at the first piece start they share, and from there on yields the
same pieces, whose tokens are the whole text's tokens from that position. Before it, the
few pieces of the suffix's own scan are encoded one by one, as tiktoken would.

The whole text's scan is not run from its start for each question. A piece of either
shipped pattern holds a line break only among whitespace or at the end of a run of
punctuation, followed by nothing but more breaks (and, in o200k, `/`). So a visible
character other than `/` just after a line break starts a piece in every scan that covers
it, and the scan from the last such position before an offset is the whole text's scan
from there on.

Such a position (a sync point) also ends what comes before it: a piece is matched reading
at most one character past its end. So a suffix's count is its stretch up to the next sync
point, encoded with that point's own character (whose token is dropped), plus the whole
text's tokens from the point on; only where no sync point is within reach (a long line) is
the suffix's own scan run until it meets the whole text's. The same reasoning lets two
renderings that differ in a few places share their tokens outside windows between sync
points (:func:`spliced_encoding`, :func:`shared_prefix_tokens`).

A long run of whitespace has no sync point in it (10,000 lines that each held only a
volatile slot leave 10,000 line breaks), and each suffix that starts in it begins with a
piece that runs to the end of the run: encoding that piece for each of n suffixes cost n²
(a run of 10,000: 9.5 s). Such pieces are counted from what earlier encodings of the same
run showed. Byte-pair encoding merges, again and again, the adjacent pair of parts whose
join is the token of lowest rank. If the tokens of a piece ``P`` part at a point ``p``, no
merge ever joined a part left of ``p`` with one right of it, so the merges on each side
were the ones that side makes alone, in the same order (each was the lowest-ranked pair on
its side when it was made, and nothing made on the other side changed its side): the
tokens of ``P[p:]`` are the tokens of ``P`` after ``p``. One encoding of a run's suffix
thereby counts every suffix that starts at one of its token boundaries (in a run of line
breaks, every sixteenth), and a few encodings count them all.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator
from functools import cache
from itertools import accumulate
from typing import Any, TypeAlias

from promptlint.core import tokens

# Byte offsets, in order (see token_starts).
Starts: TypeAlias = "list[int] | array[int]"

# A position every scan starts a piece at: a visible ASCII character other than `/` just
# after a line break (see the module's docstring).
_SYNC = re.compile(r"[\r\n](?=[!-.0-~])")
# The last one in a stretch: ``(?s:.*)`` takes the stretch whole, then gives it back a
# character at a time until a break with a sync point after it (before the stretch's end).
_LAST_SYNC = re.compile(r"(?s:.*)[\r\n](?=[!-.0-~])")
# How far back from an offset a sync point is looked for; past that (a long line), the
# whole text's piece starts are computed once.
_SYNC_REACH = 4096

# How far before a prefix's end the whole text's piece starts are the prefix's own (see
# ``SuffixTokens.before``).
_PREFIX_MARGIN = 8

# Characters between two known byte offsets of a non-ASCII text (see ``_byte_offset``).
_CHECKPOINT = 4096

# A suffix that starts with this much whitespace starts with a long piece, counted from
# earlier encodings of the same piece's suffixes (see the module's docstring).
_LONG_RUN = 256
_LONG_WHITESPACE = re.compile(r"[ \t\r\n\f\v]{%d}" % _LONG_RUN)
# At most this many suffix counts are kept per text (each encoding of a run's suffix adds
# one per token of it); past that, a long piece is encoded as any other.
_MAX_KNOWN_SUFFIXES = 1 << 20


@cache
def _pattern(source: str) -> Any:
    """tiktoken's split pattern, compiled with ``regex`` (the module tiktoken itself
    depends on, and whose syntax its patterns are written in)."""
    import regex  # type: ignore[import-untyped]  # no stubs; tiktoken depends on it

    return regex.compile(source)


# Suffixes counted by encoding them, before the table is built: most files ask a few times,
# and one encoding of a suffix costs less than the table. Not for a long text, where the
# encoding a suffix costs nearly what the table's costs, and the table answers the rest.
_DIRECT_QUERIES = 1
_DIRECT_TEXT_CHARS = 64 * 1024


class SuffixTokens:
    """``after(offset)``: ``tokens.count(text[offset:], encoding)``, without re-encoding."""

    def __init__(self, text: str, encoding: str, ids: list[int] | None = None,
                 before: dict[int, int] | None = None, following: dict[int, int] | None = None) -> None:
        """``ids``: the text's own encoding, when the caller has it (not encoded again);
        ``before``: how many of ``ids`` stand before some of its sync points (the token
        starts of the whole text are computed only when a count is asked from another point);
        ``following``: the first sync point at or after some offsets, within ``_SYNC_REACH``
        (not looked for again)."""
        self.text = text
        self.encoding = encoding
        self._ids = ids
        self._before = before or {}
        self._following = following or {}
        self._asked = 0 if ids is None and len(text) <= _DIRECT_TEXT_CHARS else _DIRECT_QUERIES
        self._built = False
        # Long whitespace pieces, by where they end: the token count from each known start.
        self._run_suffixes: dict[int, dict[int, int]] = {}
        # The last long whitespace piece the split pattern matched: (start, end).
        self._long_match: tuple[int, int] | None = None
        self._known_suffixes = 0

    def _build(self) -> None:
        self._built = True
        text, encoding = self.text, self.encoding
        from promptlint.core.smallbpe import has_unknown_characters

        self._exact = False
        self._counted = False  # whether ``total`` holds the whole text's count
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates: tiktoken replaces them before encoding, so byte offsets
            # would not line up; such a text is counted suffix by suffix.
            return
        ids = self._ids if self._ids is not None else tokens.encode(text, encoding)
        self._ids = None
        self.total = len(ids)
        self._counted = True
        # The byte offset where each token starts, computed when first needed.
        self._whole_ids: list[int] | None = ids
        self._token_starts: Starts | None = None
        # Byte offsets of every _CHECKPOINT-th character (non-ASCII text only).
        self._checkpoints: list[int] | None = None
        if len(data) != len(text):
            self._checkpoints = list(accumulate(
                (len(text[i : i + _CHECKPOINT].encode("utf-8")) for i in range(0, len(text), _CHECKPOINT)),
                initial=0,
            ))
        # Where no sync point is within reach (a long line), the suffix's own scan is run
        # until it meets the whole text's, which needs the `regex` module's scan.
        self._exact = not has_unknown_characters(text)
        # Every piece start of the whole scan, computed only when an offset has no sync
        # point within reach (see the module's docstring).
        self._piece_starts: Starts | None = None

    @property
    def _regex(self) -> Any:
        return _pattern(tokens.split_pattern(self.encoding))

    def after(self, offset: int) -> int:
        """Tokens of ``text[offset:]`` encoded on its own."""
        text = self.text
        if offset >= len(text):
            return 0
        offset = max(0, offset)
        if offset == 0:  # the whole text: its encoding's length, when that is at hand
            if self._ids is not None:
                return len(self._ids)
            if self._built and self._counted:
                return self.total
        self._asked += 1
        if self._asked <= _DIRECT_QUERIES:
            return tokens.count(text[offset:], self.encoding)
        if not self._built:
            self._build()
        sync = self._following.get(offset)
        if sync is not None and sync - offset < _LONG_RUN and self._counted:
            # The next sync point is known (a unit's offset, see spliced_encoding), and near
            # enough that no long run of whitespace starts at the offset.
            return self._through(offset, sync)
        if self._exact and _LONG_WHITESPACE.match(text, offset):
            head, end = self._long_pieces(offset)
            if end > offset:
                return head + self.after(end)
        if self._counted:
            sync = _next_sync(text, offset, _SYNC_REACH)
            if sync is not None:
                return self._through(offset, sync)
            if len(text) - offset <= _SYNC_REACH:  # none within reach, and the end is: none at all
                return tokens.count(text[offset:], self.encoding)
        if not self._exact:
            return tokens.count(text[offset:], self.encoding)
        whole = self._whole_scan_from(offset)
        known = next(whole, None)
        head = 0
        for match in self._regex.finditer(text, offset):
            start = match.start()
            while known is not None and known < start:
                known = next(whole, None)
            if known == start:
                return head + self._tokens_from(start)
            head += len(tokens.encode_piece(match.group(), self.encoding))
        return head

    def _through(self, offset: int, sync: int) -> int:
        """Tokens of ``text[offset:]``, where ``sync`` is the first sync point at or after
        ``offset``: the suffix's scan meets the whole text's there. What stands before it is
        encoded with the sync point's own character (so its last piece is scanned as in the
        whole text), whose token is not counted."""
        if sync == offset:
            return self._tokens_from(sync)
        return len(tokens.encode(self.text[offset : sync + 1], self.encoding)) - 1 + self._tokens_from(sync)

    def _long_pieces(self, offset: int) -> tuple[int, int]:
        """The tokens of the long pieces a suffix starts with, from ``offset`` (in a run of
        whitespace), and where they end (``offset`` when its first piece is short). The
        suffix's scan from there is the scan of the suffix that starts there (no look-behind).

        A piece that starts inside a long whitespace piece the pattern matched ends where that
        one ends, and is not matched again (matching it read the run to its end: n suffixes
        in a run of n spaces, n²; 100,000 slots on one line did not finish). Why: a piece that
        starts in a run of whitespace with a long run after it is one of the shipped patterns'
        whitespace alternatives (every other one needs a letter, digit, mark or punctuation
        within a character or two); ``\\s*[\\r\\n]+`` ends just after the run's last line break
        when one follows the start, and else ``\\s+(?!\\S)`` ends one character before the run's
        end (at the text's end, at it). A start later in the piece has the same line breaks
        after it, or none, so its piece ends at the same place."""
        text, head = self.text, 0
        # Only a long run of whitespace starts a long whitespace piece: where the previous
        # one ends, punctuation may start a piece that takes the line breaks after it
        # (``~\r\n\r\n…/``), long too, whose suffixes are scanned otherwise.
        while offset < len(text) and _LONG_WHITESPACE.match(text, offset):
            known = self._long_match
            if known is not None and known[0] < offset < known[1]:
                end = known[1]
            else:
                match = self._regex.match(text, offset)
                end = match.end() if match is not None else offset
                if end - offset >= _LONG_RUN:
                    self._long_match = (offset, end)
            if end - offset < _LONG_RUN:
                break
            head += self._long_piece(offset, end)
            offset = end
        return head, offset

    def _long_piece(self, start: int, end: int) -> int:
        """Tokens of the piece ``text[start:end]``, from an earlier encoding of a longer
        suffix of it when ``start`` was one of its token boundaries (see the module's
        docstring); else encoded, and, in ASCII, its boundaries kept."""
        known = self._run_suffixes.setdefault(end, {})
        found = known.get(start)
        if found is not None:
            return found
        piece = self.text[start:end]
        ids = tokens.encode_piece(piece, self.encoding)
        if self._known_suffixes < _MAX_KNOWN_SUFFIXES and piece.isascii():  # a byte per character
            length = tokens.token_length(self.encoding)
            at = start
            for left, token in zip(range(len(ids), 0, -1), ids):
                known.setdefault(at, left)
                at += length(token)
            self._known_suffixes += len(ids)
        return len(ids)

    def before(self, offset: int) -> int:
        """Tokens of ``text[:offset]`` encoded on its own.

        A prefix's scan is the whole text's until a match reads past its end. Each piece
        of the shipped patterns is matched reading at most two characters past it, so the
        two scans share every piece start up to ``_PREFIX_MARGIN`` characters before the
        prefix's end, and a sync point before the end (see the module's docstring) in any
        case. From the last such start the prefix's tail is encoded; before it, the whole
        text's tokens are counted."""
        text = self.text
        if offset <= 0:
            return 0
        if offset >= len(text):
            return self.after(0)
        if not self._built:
            self._build()
        if not self._counted or not self._exact:
            return tokens.count(text[:offset], self.encoding)
        sync = _last_sync(text, offset, _SYNC_REACH)
        if sync is not None:
            start = sync
        else:
            if self._piece_starts is None:
                self._piece_starts = _piece_starts(self._regex, text)
            j = bisect_right(self._piece_starts, offset - _PREFIX_MARGIN) - 1
            start = self._piece_starts[j] if j >= 0 else 0
        return self.total - self._tokens_from(start) + tokens.count(text[start:offset], self.encoding)

    def _whole_scan_from(self, offset: int) -> Iterator[int]:
        """The whole text's piece starts from the last one at or before ``offset`` on."""
        text = self.text
        # The last sync point at or before the offset, within reach.
        sync = _last_sync(text, offset + 1, _SYNC_REACH)
        if sync is None and offset <= _SYNC_REACH:
            sync = 0  # none, and the text's start is in reach: every scan starts a piece there
        if sync is not None:
            return (m.start() for m in self._regex.finditer(text, sync))
        if self._piece_starts is None:
            self._piece_starts = _piece_starts(self._regex, text)
        starts = self._piece_starts
        return iter(starts[max(0, bisect_left(starts, offset) - 1) :])

    def _tokens_from(self, offset: int) -> int:
        """Tokens of the whole text's encoding from a piece start on."""
        known = self._before.get(offset)
        if known is not None:
            return self.total - known
        if self._token_starts is None:
            assert self._whole_ids is not None  # a counted text has its tokens
            self._token_starts = token_starts(self._whole_ids, self.encoding)
            self._whole_ids = None
        return self.total - bisect_left(self._token_starts, self._byte_offset(offset))

    def _byte_offset(self, offset: int) -> int:
        if self._checkpoints is None:
            return offset
        base = offset - offset % _CHECKPOINT
        return self._checkpoints[base // _CHECKPOINT] + len(self.text[base:offset].encode("utf-8"))


def _piece_starts(regex: Any, text: str) -> array[int]:
    """Where each piece of the scan of ``text`` starts.

    The pieces' lengths are read from ``findall`` (its list is built without a match object
    per piece). When the pieces tile the text (their lengths add up to it, as tiktoken's
    patterns make them do), the starts are the running sums; else each match is asked."""
    if not regex.groups:
        starts = array("q", accumulate(map(len, regex.findall(text)), initial=0))
        if starts[-1] == len(text):
            starts.pop()
            return starts
    return array("q", (m.start() for m in regex.finditer(text)))


def shared_prefix_tokens(text: str, ids: list[int], other: str, encoding: str,
                         known: tuple[int, int] | None = None) -> int:
    """``tokens.common_prefix_length(ids, tokens.encode(other))``, where ``ids`` is
    ``text``'s encoding, without encoding all of ``other``. ``known``: a sync point of
    ``text`` before the texts part, and how many of ``ids`` stand before it (the tokens
    before the window are then counted from there, not from the start).

    The two texts are equal up to their first difference ``d``. A sync point ``s`` before
    ``d`` starts a piece in both scans, and what is scanned before it reads nothing past it
    (see the module's docstring), so the tokens before ``s`` are the same in both. From
    ``s``, ``other``'s tokens are those of its own scan from there; the first sync point
    ``e`` after ``d`` ends the pieces that cover ``d``, and encoding ``other[s : e + 1]``
    yields ``other``'s own tokens up to ``e``. The encodings part at a token that covers
    ``d``, before ``e``, so that window is all that is encoded."""
    d = _first_difference(text, other)
    if d == len(text) == len(other):
        return len(ids)
    s = _last_sync(text, d, d) or 0  # the last before d, else the start
    after = _SYNC.search(other, d)  # a break at or after d, with the sync point after it
    window = other[s:] if after is None else other[s : after.start() + 2]
    length = tokens.token_length(encoding)
    if known is not None and known[0] <= s:
        k = _tokens_before(ids, len(text[known[0] : s].encode("utf-8")), length, known[1])
    else:
        k = _tokens_before(ids, len(text[:s].encode("utf-8")), length)
    if k is None:  # not a token start after all: encode it whole
        return tokens.common_prefix_length(ids, tokens.encode(other, encoding))
    return k + tokens.common_prefix_length(ids[k:], tokens.encode(window, encoding))


def _tokens_before(ids: list[int], head: int, length: Callable[[int], int], first: int = 0) -> int | None:
    """How many of ``ids`` lie in their text's first ``head`` bytes from where token
    ``first`` starts, ``first`` counted; None when a token straddles that point. Summed a
    chunk at a time, up to the point only."""
    k, done = first, 0
    while done < head and k < len(ids):
        size = sum(map(length, ids[k : k + 1024]))
        if done + size > head:
            break
        done, k = done + size, k + 1024
    for piece in map(length, ids[k : k + 1024]):
        if done >= head:
            break
        done, k = done + piece, k + 1
    return min(k, len(ids)) if done == head else None


def _first_difference(a: str, b: str) -> int:
    """The first index where ``a`` and ``b`` differ (the shorter one's length when one is
    the other's prefix): whole blocks compared as slices, then the block that differs halved."""
    n = min(len(a), len(b))
    i, step = 0, 4096
    while i < n and a[i : i + step] == b[i : i + step]:
        i += step
    if i >= n:
        return n
    hi = min(i + step, n)
    while i < hi:  # a[:i] == b[:i], and they differ before hi (or hi is n)
        mid = (i + hi + 1) // 2
        if a[i:mid] == b[i:mid]:
            i = mid
        else:
            hi = mid - 1
    return i


def sync_points(text: str) -> list[int]:
    """Every position of ``text`` where every scan starts a piece (see the module's docstring)."""
    return [m.start() + 1 for m in _SYNC.finditer(text)]


def _is_sync_point(text: str, at: int) -> bool:
    """Whether ``at`` is a sync point of ``text``."""
    return at > 0 and _SYNC.match(text, at - 1) is not None


def _next_sync(text: str, at: int, reach: int) -> int | None:
    """The first sync point at or after ``at``, at most ``reach`` characters after it; None
    when there is none that near."""
    found = _SYNC.search(text, max(0, at - 1), at + reach + 1)  # the look-ahead stops at the end
    return None if found is None else found.start() + 1


def _last_sync(text: str, at: int, reach: int) -> int | None:
    """The last sync point before ``at``, at most ``reach`` characters before it; None when
    there is none that near. Read back from ``at`` (the match runs to its end at once, then
    backs up), so that the cost is the distance."""
    found = _LAST_SYNC.match(text, max(0, at - 1 - reach), min(at, len(text)))
    return None if found is None else found.end()


class _SyncPoints:
    """A text's sync points near the positions asked of: each looked for within
    ``_SYNC_REACH`` of the position, and every one of the text's found at once only when
    one is not found there (in a text whose lines all start with a space, a search from
    each position would walk the rest of it again)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._all: list[int] | None = None

    def _every(self) -> list[int]:
        if self._all is None:
            self._all = sync_points(self.text)
        return self._all

    def first_from(self, at: int) -> int | None:
        """The first sync point at or after ``at``; None when there is none."""
        if self._all is None:
            found = _next_sync(self.text, at, _SYNC_REACH)
            if found is not None or at + _SYNC_REACH >= len(self.text):
                return found
        every = self._every()
        i = bisect_left(every, at)
        return every[i] if i < len(every) else None

    def last_before(self, at: int) -> int | None:
        """The last sync point before ``at``; None when there is none."""
        if self._all is None:
            found = _last_sync(self.text, at, _SYNC_REACH)
            if found is not None or at - 1 - _SYNC_REACH <= 0:
                return found
        every = self._every()
        i = bisect_left(every, at) - 1
        return every[i] if i >= 0 else None


# Token starts of a text with fewer tokens than this are kept in a list (made in half the
# time of an array); more, in an array (a quarter of a list's memory, and made faster).
_LISTED_STARTS = 1 << 15


def token_starts(ids: list[int], encoding: str) -> Starts:
    """The byte offset where each token starts, and their text's length in bytes last."""
    running = accumulate(map(tokens.token_length(encoding), ids), initial=0)
    return list(running) if len(ids) < _LISTED_STARTS else array("q", running)


def spliced_encoding(text: str, rendered: str, spans: list[tuple[int, int]],
                     encoding: str) -> tuple[list[int], list[int], dict[int, int], dict[int, int]]:
    """``(tokens.encode(text), tokens.encode(rendered), before, following)``, where ``rendered`` is ``text``
    with the strings at ``spans`` (of ``rendered``, in order) put in, without encoding the
    rendering whole.

    Around each put-in string, a window runs from the last sync point before it to the
    first one after it in ``text`` (on a side where the point itself is a sync point of both
    texts, from or to the point). ``text`` is encoded a stretch at a time, cut at the
    windows' edges (see :func:`_stretch`), so that where each edge falls in its tokens is
    known without counting them. The rendering's tokens are ``text``'s outside the windows,
    which a scan from a sync point yields alike in both texts (see the module's docstring),
    and each window's own, encoded again. When ``rendered`` is not ``text`` with those
    strings put in, both are encoded whole. ``before``: how many of the text's tokens stand
    before some of its sync points; ``following``: the first sync point at or after each
    put-in point, where one is within ``_SYNC_REACH`` of it (both for :class:`SuffixTokens`)."""
    kept, prev = [], 0
    for start, end in spans:
        kept.append(rendered[prev:start])
        prev = end
    kept.append(rendered[prev:])
    if "".join(kept) != text:
        return tokens.encode(text, encoding), tokens.encode(rendered, encoding), {}, {}
    # The windows of ``text`` (lo, hi) around the points where strings are put in, merged
    # where they overlap, each with how many characters are put in within it.
    windows: list[list[int]] = []
    syncs = _SyncPoints(text)
    shift = 0
    following: dict[int, int] = {}  # the first sync point at or after each put-in point, within reach
    for start, end in spans:
        at = start - shift
        shift += end - start
        # The last sync point whose character is before the point, the first one after it.
        # Where the point is a sync point of ``text`` that the string put in keeps one in the
        # rendering, at its start (it starts with a sync point's character) or at its end (it
        # ends with a line break before one), the window ends at the point on that side: the
        # line before a value at a line's start is not encoded again.
        sync = syncs.first_from(at)
        if sync is not None and sync - at <= _SYNC_REACH:
            following[at] = sync
        at_sync = sync == at
        lo = at if at_sync and _is_sync_point(rendered, start) else syncs.last_before(at) or 0
        if at_sync and _is_sync_point(rendered, end):
            hi = at
        else:
            after = sync if not at_sync else syncs.first_from(at + 1)
            hi = len(text) if after is None else after
        if windows and (lo < windows[-1][1] or windows[-1][1] == len(text)):
            windows[-1][1] = max(windows[-1][1], hi)
            windows[-1][2] += end - start
        else:
            windows.append([lo, hi, end - start])
    # The text's tokens, a stretch at a time: cut at the windows' edges, and at the first
    # sync point at or after each put-in point, where a unit's suffix count is read.
    cuts = {edge for window in windows for edge in window[:2]}
    cuts.update(following.values())
    cut = encode_cut(text, sorted(cuts), encoding)
    if cut is None:
        return tokens.encode(text, encoding), tokens.encode(rendered, encoding), {}, {}
    ids, before = cut
    length = tokens.token_length(encoding)
    out: list[int] = []
    taken = 0  # tokens of ``ids`` copied so far
    shift = 0  # characters put in before the current window
    for lo, hi, size in windows:
        # Where the window's edges are in the rendering (a window holds its put-in strings).
        x, y = lo + shift, hi + shift + size
        shift += size
        piece = _stretch(rendered, x, y, encoding, length)
        if piece is None:  # not sync points after all
            return ids, tokens.encode(rendered, encoding), before, following
        out += ids[taken : before[lo]]
        out += piece
        taken = before[hi]
    out += ids[taken:]
    return ids, out, before, following


def encode_cut(text: str, cuts: list[int], encoding: str) -> tuple[list[int], dict[int, int]] | None:
    """``tokens.encode(text)``, a stretch at a time between ``cuts`` (its sync points, its
    start and end, in order), and how many of its tokens stand before each cut; None when
    a cut is not a sync point after all."""
    ids: list[int] = []
    before: dict[int, int] = {}
    done = 0
    length = tokens.token_length(encoding)
    for at in cuts:
        stretch = _stretch(text, done, at, encoding, length)
        if stretch is None:
            return None
        ids += stretch
        before[at] = len(ids)
        done = max(done, at)
    rest = _stretch(text, done, len(text), encoding, length)
    assert rest is not None  # the text's end needs no sync point
    ids += rest
    return ids, before


def _stretch(text: str, start: int, end: int, encoding: str,
             length: Callable[[int], int] | None = None) -> list[int] | None:
    """The tokens of ``text``'s whole encoding from ``start`` to ``end``, each the text's
    start or end or a sync point: ``text[start:end]`` encoded with the sync point's own
    character at ``end`` (so that its last piece is scanned as in the whole text), whose
    token, a piece of one ASCII character, is dropped. None when that last token is not
    one byte long (never, for sync points). ``length``: ``tokens.token_length(encoding)``,
    when the caller has it at hand (it cuts a text in many stretches)."""
    if end >= len(text):
        return tokens.encode(text[start:], encoding) if start < len(text) else []
    if end <= start:
        return []
    ids = tokens.encode(text[start : end + 1], encoding)
    if (length or tokens.token_length(encoding))(ids[-1]) != 1:
        return None
    ids.pop()
    return ids
