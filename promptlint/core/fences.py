"""Markdown's fenced code blocks, read one way wherever promptlint asks.

Syntax inference leaves placeholders inside a fence out of its evidence, PC105 leaves the
values inside one alone, and the fix moves nothing into or across one. The three must agree
on where fences are: a fix that moves a placeholder out past a line the inference took for a
fence changed the syntax the file was read as on the next run (and so what the next fix did).

The rule is CommonMark's, on lines ended by ``"\\n"`` only (as the fix's layout counts
them): a fence opens at a line of three or more backticks or tildes, and closes at a line
of at least as many of the same character and nothing else but whitespace (``"```python"``
inside a fence is code, not its end), indented at most three spaces more than the line
that opened it. One left open runs to the last line.

A fence opens at any indent, where CommonMark counts it from the list item the fence is in
(MkDocs steps indent theirs four spaces under "1."); outside a list, four spaces make an
indented code block, which is code all the same.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"( *)(`{3,}|~{3,})")


def split_lines(text: str) -> list[str]:
    """``text``'s lines as :func:`fenced_regions` numbers them: each with its ``"\\n"``, a last line
    without one kept, an empty one not."""
    *ended, rest = text.split("\n")
    return [line + "\n" for line in ended] + ([rest] if rest else [])


# Each run's character, and the run as a pattern: a pattern finds three backticks in about
# two thirds of the time of str.find, whose skip table takes a space for a backtick.
_RUNS = (("`", re.compile("```")), ("~", re.compile("~~~")))


def may_hold_fences(text: str) -> bool:
    """False where ``text`` holds no run of three backticks or tildes, and so no fence: said
    by ``str.find`` of one character first (memchr), many times faster over text without one
    (most files) than a search for three."""
    return any(char in text and pattern.search(text) is not None for char, pattern in _RUNS)


def fenced_regions(text: str) -> list[tuple[int, int, bool, int, int]]:
    """``(first, last, closed)`` of each fenced code block of ``text``, by 0-based index in
    :func:`split_lines`, and the offsets where its first line starts and where its last line
    ends (after its ``"\n"``). Only the lines that hold a run of three backticks or tildes are
    looked at, found by ``str.find`` (a loop over every line of a long page took most of the
    time of its syntax inference)."""
    starts: set[int] = set()  # where each line that holds a run starts
    for char, pattern in _RUNS:
        if char not in text:  # memchr: most pages hold no tilde at all
            continue
        hit = pattern.search(text)
        while hit is not None:
            at = hit.start()
            starts.add(text.rfind("\n", 0, at) + 1)
            after = text.find("\n", at)
            hit = None if after < 0 else pattern.search(text, after)
    found: list[tuple[int, int, bool, int, int]] = []
    opened: tuple[int, str, int, int, int] | None = None  # first line, character, run, indent, offset
    line = at = 0
    for start in sorted(starts):
        match = _FENCE.match(text, start)
        if match is None:
            continue
        line += text.count("\n", at, start)
        at = start
        indent, run = len(match.group(1)), match.group(2)
        if opened is None:
            opened = (line, run[0], len(run), indent, start)
            continue
        end = text.find("\n", start) + 1 or len(text)
        if run[0] == opened[1] and len(run) >= opened[2] and indent <= opened[3] + 3 and text[start:end].strip() == run:
            found.append((opened[0], line, True, opened[4], end))
            opened = None
    if opened is not None:
        last = text.count("\n") - text.endswith("\n")  # the last line's index
        found.append((opened[0], last, False, opened[4], len(text)))
    return found
