"""Markdown's fenced code blocks, read one way wherever promptlint asks.

Syntax inference leaves placeholders inside a fence out of its evidence, PC105 leaves the
values inside one alone, and the fix moves nothing into or across one. The three must agree
on where fences are: a fix that moves a placeholder out past a line the inference took for a
fence changed the syntax the file was read as on the next run (and so what the next fix did).

The rule is CommonMark's, on lines ended by ``"\\n"`` only (as the fix's layout counts
them): a fence opens at a line of three or more backticks or tildes, indented at most three
spaces, and closes at a line of at least as many of the same character and nothing else
but whitespace (``"```python"`` inside a fence is code, not its end). One left open runs to
the last line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def fences(lines: Sequence[str]) -> list[tuple[int, int, bool]]:
    """``(first, last, closed)`` of each fenced code block, by 0-based index in ``lines``."""
    found: list[tuple[int, int, bool]] = []
    opened: tuple[int, str, int] | None = None
    for i, line in enumerate(lines):
        if "```" not in line and "~~~" not in line:
            continue
        match = _FENCE.match(line)
        if match is None:
            continue
        run = match.group(1)
        if opened is None:
            opened = (i, run[0], len(run))
        elif run[0] == opened[1] and len(run) >= opened[2] and line.strip() == run:
            found.append((opened[0], i, True))
            opened = None
    if opened is not None:
        found.append((opened[0], len(lines) - 1, False))
    return found


def split_lines(text: str) -> list[str]:
    """``text``'s lines as :func:`fences` reads them: each with its ``"\\n"``, a last line
    without one kept, an empty one not."""
    *ended, rest = text.split("\n")
    return [line + "\n" for line in ended] + ([rest] if rest else [])
