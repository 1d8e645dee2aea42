"""A line diff that stays fast on large files whose lines recur, for what ``fix`` changed:
its unified diff (``fix --diff``) and SARIF's replacements (:func:`line_edits`).

difflib's matcher looks for the longest matching block at every step; with lines that recur
through a file (blank lines, a clock line written 500 times) that is quadratic, and a
5 MB template took 6 s even with its junk heuristic. The fix only moves lines, and a moved
file keeps most of its lines once each, so the lines that occur exactly once on both sides
anchor the match (patience diff, as ``git diff --patience``): the longest run of them in the
same order on both sides is matched, and each stretch between two anchors is matched again
the same way, with difflib only for a stretch that has no such line. A small file is also
matched by difflib alone, and whichever match keeps more text is used. Whatever is matched
is equal, in order on both sides, so the opcodes always turn one text into the other.
"""

from __future__ import annotations

import difflib
from bisect import bisect_left
from collections.abc import Sequence


def _unique_pairs(a: Sequence[str], b: Sequence[str], alo: int, ahi: int, blo: int, bhi: int) -> list[tuple[int, int]]:
    """(i, j) of each line that occurs once in ``a[alo:ahi]`` and once in ``b[blo:bhi]``, by i."""
    seen: dict[str, int] = {}
    for i in range(alo, ahi):
        seen[a[i]] = -1 if a[i] in seen else i
    other: dict[str, int] = {}
    for j in range(blo, bhi):
        line = b[j]
        if seen.get(line, -1) >= 0:
            other[line] = -1 if line in other else j
    return sorted((seen[line], j) for line, j in other.items() if j >= 0)


def _longest_increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest subsequence of ``pairs`` (increasing in i) that also increases in j."""
    tails: list[int] = []  # the smallest j ending an increasing run of each length
    ends: list[int] = []  # the pair index of that end
    before = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        at = bisect_left(tails, j)
        if at == len(tails):
            tails.append(j)
            ends.append(k)
        else:
            tails[at], ends[at] = j, k
        before[k] = ends[at - 1] if at else -1
    run = []
    k = ends[-1] if ends else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


def matched_lines(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """Pairs (i, j) with ``a[i] == b[j]``, increasing in both: a common subsequence of the
    two line lists, found as the module's docstring says (without recursion). For a small
    file, difflib's own match where it keeps more text: anchored on the lines that occur
    once, a line moved across lines that recur (a clock line above thirty identical ones)
    can be the only anchor, and every other line is deleted and inserted again. (Where
    difflib keeps more lines but less text, the stable text it keeps in place is moved
    up, not the volatile lines down: the diff shows less of what the fix did.)"""
    found = _patience(a, b)
    if len(a) * len(b) <= _DIFFLIB_CELLS and len(found) < min(len(a), len(b)):
        blocks = difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
        other = [(i + k, j + k) for i, j, size in blocks for k in range(size)]
        if sum(len(a[i]) for i, _ in other) > sum(len(a[i]) for i, _ in found):
            return other
    return found


# Files of at most this many line pairs (old lines × new lines) are matched by difflib too,
# without its junk heuristic: at worst this many comparisons, a few milliseconds.
_DIFFLIB_CELLS = 200 * 200


def _patience(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int]]:
    """:func:`matched_lines` by the lines that occur once (see the module's docstring)."""
    found: list[tuple[int, int]] = []
    stack = [(0, len(a), 0, len(b))]
    while stack:
        alo, ahi, blo, bhi = stack.pop()
        while alo < ahi and blo < bhi and a[alo] == b[blo]:
            found.append((alo, blo))
            alo, blo = alo + 1, blo + 1
        while alo < ahi and blo < bhi and a[ahi - 1] == b[bhi - 1]:
            ahi, bhi = ahi - 1, bhi - 1
            found.append((ahi, bhi))
        if alo == ahi or blo == bhi:
            continue
        anchors = _longest_increasing(_unique_pairs(a, b, alo, ahi, blo, bhi))
        if not anchors:
            matcher = difflib.SequenceMatcher(None, a[alo:ahi], b[blo:bhi])
            for i, j, size in matcher.get_matching_blocks():
                found.extend((alo + i + k, blo + j + k) for k in range(size))
            continue
        for i, j in anchors:
            found.append((i, j))
            stack.append((alo, i, blo, j))
            alo, blo = i + 1, j + 1
        stack.append((alo, ahi, blo, bhi))
    found.sort()
    return found


class LineMatcher(difflib.SequenceMatcher[str]):
    """difflib's matcher of two line lists, its matching blocks found by :func:`matched_lines`
    (``get_opcodes`` and ``get_grouped_opcodes`` work from them as difflib's own do)."""

    def __init__(self, a: Sequence[str], b: Sequence[str]) -> None:
        # difflib's index of ``b`` (made by its own constructor) is not needed.
        self.a, self.b = a, b
        self.matching_blocks: list[difflib.Match] | None = None
        self.opcodes = None

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.matching_blocks is not None:
            return self.matching_blocks
        blocks: list[difflib.Match] = []
        for i, j in matched_lines(self.a, self.b):
            if blocks and blocks[-1].a + blocks[-1].size == i and blocks[-1].b + blocks[-1].size == j:
                blocks[-1] = difflib.Match(blocks[-1].a, blocks[-1].b, blocks[-1].size + 1)
            else:
                blocks.append(difflib.Match(i, j, 1))
        blocks.append(difflib.Match(len(self.a), len(self.b), 0))
        self.matching_blocks = blocks
        return blocks


def unified_diff(a: Sequence[str], b: Sequence[str], fromfile: str, tofile: str, n: int = 3) -> str:
    """``difflib.unified_diff`` of two line lists (each line with its ending), its hunks from
    :class:`LineMatcher`."""
    out: list[str] = []
    for group in LineMatcher(a, b).get_grouped_opcodes(n):
        if not out:
            out += [f"--- {fromfile}\n", f"+++ {tofile}\n"]
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [" " + line for line in a[i1:i2]]
                continue
            if tag in ("replace", "delete"):
                out += ["-" + line for line in a[i1:i2]]
            if tag in ("replace", "insert"):
                out += ["+" + line for line in b[j1:j2]]
    return "".join(out)


def _range(start: int, stop: int) -> str:
    """A hunk's range as unified diffs write it (1-based start; ``start,0`` when empty)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if not length else start + 1},{length}"


# A replacement of whole lines: (character offset in the old text, characters replaced, new text).
Edit = tuple[int, int, str]


def line_edits(old: str, new: str) -> list[Edit]:
    """``new`` as replacements of whole lines of ``old``, in order; none when they are equal."""
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    return [(starts[i1], starts[i2] - starts[i1], "".join(new_lines[j1:j2]))
            for tag, i1, i2, j1, j2 in LineMatcher(old_lines, new_lines).get_opcodes() if tag != "equal"]
