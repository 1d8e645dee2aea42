"""The line diff of ``fix --diff`` and SARIF fixes (promptlint.fix.linediff): whatever the
lines, its opcodes and its unified diff turn the old text into the new one."""

from __future__ import annotations

import difflib
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.fix.linediff import LineMatcher, line_edits, matched_lines, unified_diff

# Few distinct lines, so that they recur (blank lines, a clock line written many times).
lines = st.lists(st.sampled_from(["\n", "a\n", "b\n", "Now: {{ now }}\n", "c", "d\n"]), max_size=40)
mixed = st.lists(st.one_of(st.sampled_from(["\n", "x\n"]), st.integers(0, 30).map(lambda n: f"line {n}\n")),
                 max_size=60)


def _apply_hunks(a: list[str], diff: str) -> list[str]:
    """``diff`` (a unified diff of ``a``) applied to ``a``, hunk by hunk, checking its context."""
    out: list[str] = []
    at = 0
    body = diff.splitlines(keepends=True)[2:] if diff else []
    for line in body:
        if line.startswith("@@"):
            start = int(re.match(r"@@ -(\d+)(?:,(\d+))?", line).group(1))  # type: ignore[union-attr]
            length = re.match(r"@@ -\d+(?:,(\d+))?", line).group(1)  # type: ignore[union-attr]
            begin = start - 1 if length != "0" else start
            out += a[at:begin]
            at = begin
        elif line.startswith(" "):
            assert a[at] == line[1:]
            out.append(a[at])
            at += 1
        elif line.startswith("-"):
            assert a[at] == line[1:]
            at += 1
        else:
            assert line.startswith("+")
            out.append(line[1:])
    return out + a[at:]


@settings(max_examples=300, deadline=None)
@given(st.one_of(lines, mixed), st.one_of(lines, mixed))
def test_opcodes_turn_the_old_lines_into_the_new(a: list[str], b: list[str]) -> None:
    pairs = matched_lines(a, b)
    assert all(a[i] == b[j] for i, j in pairs)
    assert all(i1 < i2 and j1 < j2 for (i1, j1), (i2, j2) in zip(pairs, pairs[1:]))
    rebuilt, i = [], 0
    for tag, i1, i2, j1, j2 in LineMatcher(a, b).get_opcodes():
        assert i1 == i
        if tag == "equal":
            assert a[i1:i2] == b[j1:j2]
        rebuilt += b[j1:j2]
        i = i2
    assert i == len(a) and rebuilt == b


@settings(max_examples=300, deadline=None)
@given(st.one_of(lines, mixed), st.one_of(lines, mixed))
def test_the_unified_diff_applies(a: list[str], b: list[str]) -> None:
    a = [line if line.endswith("\n") else line + "\n" for line in a]
    b = [line if line.endswith("\n") else line + "\n" for line in b]
    diff = unified_diff(a, b, "a/x", "b/x")
    assert (diff == "") == (a == b)
    assert _apply_hunks(a, diff) == b


@settings(max_examples=300, deadline=None)
@given(st.one_of(lines, mixed), st.one_of(lines, mixed), st.sampled_from(["\n", "\r\n", "\r"]))
def test_the_line_edits_applied_from_the_end_turn_the_old_text_into_the_new(a: list[str], b: list[str],
                                                                           newline: str) -> None:
    # SARIF's replacements: whole lines of the old text, by character offset, in order.
    old, new = "".join(a).replace("\n", newline), "".join(b).replace("\n", newline)
    edits = line_edits(old, new)
    assert (edits == []) == (old == new)
    assert all(x[0] + x[1] <= y[0] for x, y in zip(edits, edits[1:]))
    text = old
    for offset, length, inserted in reversed(edits):
        text = text[:offset] + inserted + text[offset + length:]
    assert text == new


def test_a_moved_paragraph_is_one_deletion_and_one_insertion() -> None:
    rules = [f"Rule {i}: answer with care.\n" for i in range(30)]
    a = ["Intro.\n", "\n", "Now: {{ now }}\n", "\n", *rules]
    b = ["Intro.\n", "\n", *rules, "\n", "Now: {{ now }}\n"]
    opcodes = [op for op in LineMatcher(a, b).get_opcodes() if op[0] != "equal"]
    assert [op[0] for op in opcodes] == ["delete", "insert"]
    # As few changed lines as difflib's (which blank line is said to move may differ).
    def changed(diff: str) -> int:
        return sum(1 for line in diff.splitlines()[2:] if line[:1] in "+-")

    assert changed(unified_diff(a, b, "a/x", "b/x")) == changed("".join(difflib.unified_diff(a, b, "a/x", "b/x"))) == 4


def test_lines_that_recur_thousands_of_times_are_matched_without_difflib_quadratic_search() -> None:
    # A clock line and a blank line every other line, one of the clocks moved to the end:
    # matched through the unique lines between them.
    a = [line for i in range(5000) for line in (f"Rule {i}.\n", "\n", "Now: {{ now }}\n")]
    b = a[3:] + a[:3]
    pairs = matched_lines(a, b)
    assert len(pairs) >= len(a) - 6


def test_a_line_moved_across_lines_that_recur_is_one_deletion_and_one_insertion() -> None:
    # The clock line was the only line that occurs once on both sides: as the only anchor it
    # split the file, and all thirty rules were deleted and inserted again.
    rule = "Answer with care, cite the handbook, and keep to the point. " * 20 + "\n"
    a = ["Now: {{ now }}\n", "\n", *[rule] * 30]
    b = [*[rule] * 30, "\n", "Now: {{ now }}\n"]
    changed = [line for line in unified_diff(a, b, "a/x", "b/x").splitlines()[2:] if line[:1] in "+-"]
    assert changed == ["-Now: {{ now }}", "-", "+", "+Now: {{ now }}"]
    edits = line_edits("".join(a), "".join(b))
    assert sum(length + len(text) for _, length, text in edits) == 2 * len("Now: {{ now }}\n\n")


def test_a_small_file_keeps_the_match_that_keeps_more_text() -> None:
    # difflib keeps more lines here (the short moved ones) but less text: the stable sections
    # would be shown moving up, not the volatile lines down.
    long = ["## Safety\n", "Pour soy and beeswax blends slowly, " * 30 + "\n", "\n",
            "## Answers\n", "Lead with the answer, then the reason. " * 30 + "\n"]
    volatile = ["- Time: {t}\n", "- User: {u}\n", "- Session: {s}\n"] * 2 + ["\n"]
    a = ["You are the assistant.\n", "\n", *volatile, *long]
    b = ["You are the assistant.\n", "\n", *long, "\n", *volatile[:-1]]
    kept = sum(len(a[i]) for i, _ in matched_lines(a, b))
    assert kept >= sum(map(len, long)) + len(a[0]) + 1
