"""Stable tokens after a unit, read from one encoding of the text, are exactly the count of
the suffix encoded on its own (what every figure reported before was)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.core import suffixtokens, tokens
from promptlint.core.suffixtokens import SuffixTokens

TEXTS = [
    "You are Atlas.\n\nToday is 2026-11-30 14:03:27.\n\n## Rules\n\n- Keep answers short.\n",
    "héllo wörld  \n\n  🎉 emoji  ,.;\r\n\r\n  x   ",
    "   a  b\t\tc\n \n d 123456789 numbers's they're",
    "日本語のテキスト、句読点。  and  mixed ASCII; <|endoftext|> is text here",
    "a\ud800b c",  # a lone surrogate: counted suffix by suffix
    "",
]


@pytest.fixture(autouse=True)
def _table_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # The first few queries are answered by encoding the suffix: test the table itself.
    monkeypatch.setattr(suffixtokens, "_DIRECT_QUERIES", 0)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@pytest.mark.parametrize("text", TEXTS)
def test_every_suffix_counts_as_encoded_alone(text: str, encoding: str) -> None:
    counter = SuffixTokens(text, encoding)
    assert [counter.after(i) for i in range(len(text) + 2)] == [
        tokens.count(text[i:], encoding) for i in range(len(text) + 2)
    ]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab Z9 \n\r\t.,'-_{}é🎉日")), max_size=80), st.data())
def test_random_text_and_offsets(text: str, data: st.DataObject) -> None:
    counter = SuffixTokens(text, "o200k_base")
    for offset in data.draw(st.lists(st.integers(0, len(text)), max_size=8)):
        assert counter.after(offset) == tokens.count(text[offset:], "o200k_base")


# Long whitespace runs: each suffix that starts in one starts with a long piece, counted
# from earlier encodings of the run's suffixes (their token boundaries).
RUNS = [
    "You are Atlas.\n" + "\n" * 3000,  # the lines of slots that rendered to nothing
    "Rules first.\n" + "\n" * 2500 + "Done.\n",  # a sync point after the run
    "Header" + " " * 3000 + "tail words",  # spaces: tokens of up to 128 of them
    "a:\n" + "\t" * 1200 + "\n" * 700 + "  " * 600 + "end",  # runs of three kinds, back to back
    "x\n" + "\r\n" * 1500 + "y",
    "é\n" + "\n" * 2000 + "日本",  # not ASCII outside the run
    " " * 4000,  # 100,000 slots on one line left nothing but the spaces between them
    "a" + " " * 700 + "\n" + " " * 300 + "\n" + " " * 900 + "b",  # line breaks late in the run
    "a" + " " * 600 + "\u3000\xa0\x85" + " " * 600 + "\u2028" + " " * 400 + "'s",  # not ASCII in the run
    "x" + " " * 300 + "\n" * 3 + "\t" * 300 + "\r",  # a run to the end of the text
    # "~" after a run starts a piece that takes the next run's line breaks and "/" (o200k's
    # punctuation piece ends in [\r\n/]*): long, but no whitespace piece. A suffix from inside
    # that run is a whitespace piece and "/*"; read as a suffix of the punctuation piece (once
    # a query in the first run had met it), it counted a token too many (found by fuzzing).
    "x" + "\r\n" * 380 + "~" + "\r\n" * 585 + "/*",
]


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@pytest.mark.parametrize("text", RUNS, ids=range(len(RUNS)))
def test_suffixes_that_start_in_a_long_whitespace_run_count_as_encoded_alone(text: str, encoding: str) -> None:
    counter = SuffixTokens(text, encoding)
    # Backwards, forwards and in a scattered order: the known counts come from whichever
    # encodings were made before.
    offsets = list(range(len(text) - 1, -1, -7)) + list(range(0, len(text), 5)) + [
        (i * 7919) % len(text) for i in range(300)]
    assert [counter.after(i) for i in offsets] == [tokens.count(text[i:], encoding) for i in offsets]


def test_a_run_of_line_breaks_is_encoded_a_few_times_not_once_per_suffix(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Intro.\n" + "\n" * 10_000
    counter = SuffixTokens(text, "o200k_base")
    counter.after(3)  # built
    encoded: list[int] = []
    real = tokens.encode_piece

    def counting(piece: str, encoding: str = "o200k_base") -> list[int]:
        encoded.append(len(piece))
        return real(piece, encoding)

    monkeypatch.setattr(tokens, "encode_piece", counting)
    counts = [counter.after(i) for i in range(7, len(text))]
    assert counts[::997] == [tokens.count(text[i:]) for i in range(7, len(text), 997)]
    # Tokens of 16 line breaks: one encoding per starting point modulo 16 (n² was 50 M characters).
    assert len(encoded) <= 16 and sum(encoded) <= 16 * 10_000


def test_a_run_of_spaces_is_matched_a_few_times_not_once_per_suffix(monkeypatch: pytest.MonkeyPatch) -> None:
    # A piece that starts inside one the split pattern matched ends where it ends: each
    # match read the run to its end (100,000 slots on one line did not finish).
    text = "Intro " + " " * 20_000 + "end"
    counter = SuffixTokens(text, "o200k_base")
    counter.after(3)  # built
    pattern = counter._regex
    matched: list[int] = []

    class Counting:
        def match(self, text: str, pos: int) -> object:
            matched.append(pos)
            return pattern.match(text, pos)

        def __getattr__(self, name: str) -> object:
            return getattr(pattern, name)

    monkeypatch.setattr(SuffixTokens, "_regex", property(lambda self: Counting()))
    counts = [counter.after(i) for i in range(6, len(text) - 300)]
    assert counts[::499] == [tokens.count(text[i:]) for i in range(6, len(text) - 300, 499)]
    assert len(set(matched)) <= 4  # the run from its start, then the short piece after it, each time


_RUN_OF = st.sampled_from([" ", "  ", "\n", "\t", "\r\n", " \n", "\u3000", "\xa0"])


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.tuples(_RUN_OF, st.integers(1, 400)), min_size=1, max_size=4),
       before=st.sampled_from(["", "a", "x:", "'"]), after=st.sampled_from(["", "b", "'s", "9", ".", "\n/", "日"]),
       data=st.data())
def test_suffixes_in_mixed_runs_count_as_encoded_alone(encoding: str, parts: list[tuple[str, int]], before: str,
                                                       after: str, data: st.DataObject) -> None:
    text = before + "".join(run * times for run, times in parts) + after
    counter = SuffixTokens(text, encoding)
    offsets = sorted(data.draw(st.lists(st.integers(0, len(text)), min_size=1, max_size=12)))
    assert [counter.after(i) for i in offsets] == [tokens.count(text[i:], encoding) for i in offsets]


def test_no_token_is_as_long_as_a_long_run() -> None:
    # A piece of a long run is never a single token, which tiktoken would take as it is
    # without merging: its count is always what byte-pair merging makes of it.
    assert all(max(map(len, tokens.ranks(name))) < suffixtokens._LONG_RUN for name in tokens.SHIPPED_ENCODINGS)


def test_first_queries_are_the_direct_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(suffixtokens, "_DIRECT_QUERIES", 2)
    text = TEXTS[0] * 50
    counter = SuffixTokens(text, "o200k_base")
    assert [counter.after(i) for i in (0, 7, 100, 101, 2000)] == [tokens.count(text[i:]) for i in (0, 7, 100, 101, 2000)]


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@pytest.mark.parametrize("text", TEXTS)
def test_piece_starts_are_the_scan_starts(encoding: str, text: str) -> None:
    regex = suffixtokens._pattern(tokens.get_encoding(encoding)._pat_str)
    assert list(suffixtokens._piece_starts(regex, text)) == [m.start() for m in regex.finditer(text)]


def test_piece_starts_of_a_scan_that_leaves_gaps() -> None:
    # A pattern whose pieces do not tile the text (or that has groups) is read match by match.
    for pattern in (r"\w+", r"(\w)\w*"):
        regex = suffixtokens._pattern(pattern)
        assert list(suffixtokens._piece_starts(regex, "ab, cd  e")) == [0, 4, 8]


def test_a_character_the_regex_engines_may_class_differently_is_counted_exactly() -> None:
    from promptlint.core import tokens
    from promptlint.core.suffixtokens import SuffixTokens

    text = "Ask \U0003d000's owner, then \U0003d000's keeper. " * 5
    counter = SuffixTokens(text, "o200k_base")
    assert [counter.after(i) for i in range(len(text))] == [tokens.count(text[i:]) for i in range(len(text))]


_LINES = st.text(alphabet=st.sampled_from(list("ab Z9 \n\r\t.,'-_/{}#*é🎉日")), max_size=120)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=_LINES, data=st.data())
def test_a_sync_point_starts_a_piece_in_every_scan_that_covers_it(encoding: str, text: str, data: st.DataObject) -> None:
    regex = suffixtokens._pattern(tokens.split_pattern(encoding))
    syncs = [m.start() + 1 for m in suffixtokens._SYNC.finditer(text)]
    for start in data.draw(st.lists(st.integers(0, len(text)), max_size=4)) + [0]:
        scan = {m.start() for m in regex.finditer(text, start)}
        assert {p for p in syncs if p >= start} <= scan


@pytest.mark.parametrize("reach", [0, 3, 4096])
@settings(max_examples=60, deadline=None)
@given(text=_LINES, data=st.data())
def test_suffixes_count_alike_near_and_beyond_the_sync_reach(reach: int, text: str, data: st.DataObject) -> None:
    # reach 0: every offset past the start finds no sync point and uses the whole scan's starts.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suffixtokens, "_SYNC_REACH", reach)
        counter = SuffixTokens(text, "o200k_base")
        for offset in data.draw(st.lists(st.integers(0, len(text)), max_size=8)):
            assert counter.after(offset) == tokens.count(text[offset:], "o200k_base")


_EDITS = st.lists(st.tuples(st.integers(0, 200), st.integers(0, 3), st.sampled_from(["", "x", "\n", " 9", "é", "\n/", "'s"])),
                  max_size=3)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=_LINES, edits=_EDITS)
def test_shared_prefix_of_two_renderings_is_that_of_their_whole_encodings(encoding: str, text: str,
                                                                         edits: list[tuple[int, int, str]]) -> None:
    # Only a window of the second text is encoded; the count is the whole encodings' own.
    other = text
    for at, cut, put in edits:
        at = min(at, len(other))
        other = other[:at] + put + other[at + cut :]
    ids = tokens.encode(text, encoding)
    want = tokens.common_prefix_length(ids, tokens.encode(other, encoding))
    assert suffixtokens.shared_prefix_tokens(text, ids, other, encoding) == want
    # Told how many tokens stand before a sync point before the texts part (as the first
    # rendering's analysis is), the count is the same.
    d = suffixtokens._first_difference(text, other)
    for sync in [0] + [s for s in suffixtokens.sync_points(text) if s < d]:
        known = (sync, len(tokens.encode(text[:sync], encoding)))
        assert suffixtokens.shared_prefix_tokens(text, ids, other, encoding, known) == want


_VALUES = ["x", "\n", " 9", "é", "\n/", "'s", "2026-03-04 09:41\n", "- a\n", "/x\n", "b\r"]
_PUT_IN = st.lists(st.tuples(st.integers(0, 200), st.sampled_from(_VALUES)), max_size=4)


def _rendering(text: str, put_in: list[tuple[int, str]]) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with each value put in at its offset (in order), and the values' spans in it."""
    rendered, spans, taken = "", [], 0
    for at, value in put_in:
        rendered += text[taken:at]
        spans.append((len(rendered), len(rendered) + len(value)))
        rendered += value
        taken = at
    return rendered + text[taken:], spans


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=_LINES, put_in=_PUT_IN)
def test_a_rendering_spliced_from_the_stable_text_s_tokens_is_its_own_encoding(
        encoding: str, text: str, put_in: list[tuple[int, str]]) -> None:
    # The rendering is the stable text with values put in; only windows around them are encoded.
    rendered, spans = _rendering(text, sorted((min(at, len(text)), value) for at, value in put_in))
    # The stable text itself is encoded a stretch at a time, cut at the windows' edges.
    ids, spliced, before, following = suffixtokens.spliced_encoding(text, rendered, spans, encoding)
    assert (ids, spliced) == (tokens.encode(text, encoding), tokens.encode(rendered, encoding))
    # The sync point after each put-in point is the first one at or after it.
    syncs = suffixtokens.sync_points(text)
    for at, sync in following.items():
        assert sync == min(s for s in syncs if s >= at)
    # Counted from them, the tokens after each put-in point are those of the suffix on its own.
    counter = SuffixTokens(text, encoding, ids, before, following)
    points = [start - sum(e - s for s, e in spans[:i]) for i, (start, _) in enumerate(spans)]
    assert [counter.after(at) for at in points] == [tokens.count(text[at:], encoding) for at in points]
    # Where the text's tokens stand at a cut is what encoding the text up to the cut counts.
    for at, count in before.items():
        assert count == len(tokens.encode(text[:at], encoding)) if at in (0, len(text)) else \
            count == len(tokens.encode(text[: at + 1], encoding)) - 1


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@settings(max_examples=200, deadline=None)
@given(text=_LINES, data=st.data())
def test_values_put_in_at_sync_points_are_spliced_as_encoded_whole(encoding: str, text: str,
                                                                   data: st.DataObject) -> None:
    # A value at a line's start whose first character or last line break keeps the point a
    # sync point of the rendering: its window ends there (the text beyond is not encoded again).
    syncs = suffixtokens.sync_points(text)
    points = sorted(data.draw(st.lists(st.sampled_from(syncs), max_size=4))) if syncs else []
    rendered, spans = _rendering(text, [(at, data.draw(st.sampled_from(_VALUES))) for at in points])
    ids, spliced, _, _ = suffixtokens.spliced_encoding(text, rendered, spans, encoding)
    assert (ids, spliced) == (tokens.encode(text, encoding), tokens.encode(rendered, encoding))


def test_spans_that_do_not_describe_the_rendering_fall_back_to_encoding_it_whole() -> None:
    text, rendered = "a\nb\n", "a\nXb\nY"
    both = (tokens.encode(text), tokens.encode(rendered))
    assert suffixtokens.spliced_encoding(text, rendered, [(0, 1)], "o200k_base") == (*both, {}, {})
    # Spans that do describe it are spliced, to the same tokens.
    assert suffixtokens.spliced_encoding(text, rendered, [(2, 3), (5, 6)], "o200k_base")[:2] == both


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@settings(max_examples=300, deadline=None)
@given(text=_LINES, cuts=st.lists(st.integers(0, 400), max_size=6))
def test_a_text_cut_at_sync_points_is_encoded_as_it_is_whole(encoding: str, text: str, cuts: list[int]) -> None:
    # Stretches between sync points (and the text's ends), each encoded with the next sync
    # point's character and that character's token dropped, add up to the whole encoding.
    syncs = suffixtokens.sync_points(text)
    edges = sorted({0, len(text), *(syncs[c % len(syncs)] for c in cuts if syncs)})
    ids: list[int] = []
    for start, end in zip(edges, edges[1:]):
        stretch = suffixtokens._stretch(text, start, end, encoding)
        assert stretch is not None
        ids += stretch
    assert ids == tokens.encode(text, encoding)


def test_a_cut_that_is_not_a_sync_point_is_refused() -> None:
    # "ab" is one token: cut after "a", its last token is not the one character's own.
    assert suffixtokens._stretch("xab", 0, 1, "o200k_base") is None


def test_the_whole_text_is_counted_from_its_encoding_whenever_it_is_asked() -> None:
    # after(0) once the table is built, and an analysis asked for offset 0, answer with the
    # whole text's encoding; the count must be that of encoding the text again.
    from promptlint.core.analysis import analyze
    from promptlint.loaders import load_text

    text = "Intro line.\n" * 50 + "é and more\n  indented\n" + "Tail.\n" * 20
    ids = tokens.encode(text)
    for known in (None, ids):
        counter = SuffixTokens(text, "o200k_base", known)
        asked = [counter.after(i) for i in (5, 300, 0, 17, 0)]
        assert asked == [tokens.count(text[i:]) for i in (5, 300, 0, 17, 0)]
    surrogate = "Head\ud800 tail\n" * 3
    counter = SuffixTokens(surrogate, "o200k_base")
    assert [counter.after(i) for i in (3, 0)] == [tokens.count(surrogate[i:]) for i in (3, 0)]
    analysis = analyze(load_text("p.j2", "Today is {{ today }}.\n" + text))
    assert analysis.stable_tokens_from(0) == tokens.count(analysis.stable_text)
    assert analysis.stable_tokens_from(40) == tokens.count(analysis.stable_text[40:])
    assert analysis.stable_tokens_from(0) == tokens.count(analysis.stable_text)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@pytest.mark.parametrize("text", TEXTS)
def test_every_prefix_counts_as_encoded_alone(text: str, encoding: str) -> None:
    counter = SuffixTokens(text, encoding)
    assert [counter.before(i) for i in range(len(text) + 2)] == [
        tokens.count(text[:i], encoding) for i in range(len(text) + 2)
    ]


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@pytest.mark.parametrize("reach", [0, 3, 4096])
@settings(max_examples=80, deadline=None)
@given(text=_LINES, data=st.data())
def test_prefixes_count_alike_near_and_beyond_the_sync_reach(encoding: str, reach: int, text: str,
                                                             data: st.DataObject) -> None:
    # reach 0: no sync point is near, and the whole scan's piece starts are read instead.
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suffixtokens, "_SYNC_REACH", reach)
        counter = SuffixTokens(text, encoding)
        for offset in data.draw(st.lists(st.integers(0, len(text)), max_size=8)):
            assert counter.before(offset) == tokens.count(text[:offset], encoding)


def test_a_prefix_is_not_read_from_a_piece_start_its_end_reaches() -> None:
    # "  a": the whole scan splits the spaces (" ", " a"), the prefix "  " is one token. A
    # piece is matched reading up to two characters past it: one character of margin is
    # too little, and the margin used must be more.
    text = "  a"
    assert tokens.count(text[:2]) == 1
    assert suffixtokens._PREFIX_MARGIN > 2
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suffixtokens, "_SYNC_REACH", 0)
        assert SuffixTokens(text, "o200k_base").before(2) == 1
        patch.setattr(suffixtokens, "_PREFIX_MARGIN", 1)
        assert SuffixTokens(text, "o200k_base").before(2) == 2  # what too small a margin gets wrong


def test_prefixes_of_a_long_line_are_counted_from_one_encoding() -> None:
    # A one-line request body: no sync point anywhere; every prefix is still exact.
    text = " ".join(f"Session id: sess_{i:08d}. Current time: 2026-12-01T10:{i % 60:02d}:17Z. some words" for i in range(300))
    counter = SuffixTokens(text, "o200k_base")
    offsets = [m.start() for m in __import__("re").finditer("2026", text)]
    assert [counter.before(k) for k in offsets] == [tokens.count(text[:k]) for k in offsets]


def test_an_analysis_during_which_the_rust_encoder_takes_over_counts_its_tokens(monkeypatch: pytest.MonkeyPatch) -> None:
    # Below a budget of characters the Python encoder serves a run; past it tiktoken's is
    # built. An analysis that crosses the budget reads the byte lengths of tokens from both:
    # a 190 KB one-line request body stopped with "internal error: KeyError".
    from promptlint.core.analysis import analyze
    from promptlint.loaders import load_text

    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "_small", {})
    monkeypatch.setattr(tokens, "_small_left", {})
    monkeypatch.setattr(tokens, "SMALL_TEXT_BUDGET", 3000)
    line = "You are Atlas. " + "Current time: {{ now }}. Some filler words for the prompt here. " * 30 + "\n"
    analysis = analyze(load_text("one.j2", line + "Keep answers short.\n"))
    assert "o200k_base" in tokens._encodings  # the budget was crossed during the analysis
    assert analysis.tokens == tokens.count(analysis.rendered)


@settings(max_examples=300, deadline=None)
@given(text=_LINES, data=st.data(), reach=st.sampled_from([0, 1, 3, 40, 4096]))
def test_sync_points_looked_for_near_a_position_are_those_of_the_whole_list(text: str, data: st.DataObject,
                                                                          reach: int) -> None:
    # Found near a position (within reach, or anywhere), a sync point is the one the list
    # of all of them gives: the first at or after it, the last before it.
    at = data.draw(st.integers(0, len(text) + 2))
    every = suffixtokens.sync_points(text)
    following = next((s for s in every if s >= at), None)
    prior = next((s for s in reversed(every) if s < at), None)
    near_following = following if following is not None and following - at <= reach else None
    near_prior = prior if prior is not None and at - prior <= reach else None
    assert suffixtokens._next_sync(text, at, reach) == near_following
    assert suffixtokens._last_sync(text, at, reach) == near_prior
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(suffixtokens, "_SYNC_REACH", reach)
        points = suffixtokens._SyncPoints(text)
        assert points.first_from(at) == following
        assert points.last_before(at) == prior


def test_a_seeded_fuzz_against_tiktoken_finds_nothing() -> None:
    # tools/fuzz_tokens.py: suffix and prefix counts, spliced renderings and shared prefixes
    # of random texts with long runs, against tiktoken. Its first 400 texts of seed 2 held
    # three whose suffix counts before 784be8b were a token off (over and under).
    import io
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import fuzz_tokens

    out = io.StringIO()
    assert fuzz_tokens.run(2, count=400, out=out) == (400, 0), out.getvalue()
