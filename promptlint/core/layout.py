"""The shape of a template file, as the fixer sees it: lines, paragraphs, Markdown list
items, code fences and tables, and the spans (blocks, tags, slots) that may not be cut.

A pure view of a :class:`~promptlint.core.ir.Template`; it computes, never edits.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from itertools import accumulate

from promptlint.core.fences import fenced_regions, split_lines
from promptlint.core.ir import Block, Slot, Span, Tag, Template, walk

_LIST_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
_TABLE_DELIMITER = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)+\|?\s*$|^\s*\|\s*:?-+:?\s*\|\s*$")


class Layout:
    """A template's lines, with the Markdown structure and the spans a move may not cut."""

    def __init__(self, template: Template) -> None:
        self.template = template
        self._shape_found: _Shape | None = None  # paragraphs and indentation, read when first asked
        # Where the statement of each line asked so far starts and ends (see ``_statement``).
        self._statement_starts: dict[int, int] = {}
        self._statement_ends: dict[int, int] = {}
        # The list item of each line asked so far (growing a range asks of the same lines
        # again and again: 80,000 times for the 2,500 drafts of the throughput bench).
        self._list_items: dict[int, tuple[int, int] | None] = {}
        source = template.source
        # Each line keeps its "\n" (only "\n" ends a line here, not the other breaks
        # ``str.splitlines`` knows); a last line without one is kept, an empty one is not.
        self.lines: list[str] = split_lines(source)
        self.starts: list[int] = list(accumulate(map(len, self.lines), initial=0))[:-1]
        self.count = len(self.lines)
        self.blank = [not line.strip() for line in self.lines]
        self.fences: list[tuple[int, int, bool]] = [region[:3] for region in fenced_regions(source)]
        # In line order and apart: looked up by bisection (5,000 fences were each walked for
        # each of 5,000 values).
        self._fence_starts = [f[0] for f in self.fences]
        self._fence_ends = [f[1] for f in self.fences]
        self.table_rows = self._table_rows()
        # Spans that may not be cut: every block (at any depth) and every tag or slot.
        self.whole: list[tuple[Span, Block | None]] = []
        for seg in walk(template.segments):
            if isinstance(seg, Block):
                self.whole.append((seg.span, seg))
            elif isinstance(seg, Slot | Tag) and seg.span.end > seg.span.start:
                self.whole.append((seg.span, None))
        self.blocks = [(span, block) for span, block in self.whole if block is not None]
        # The first block on each (first line, last line), when describe first asks (each
        # of 3,000 moved lines was compared with each of 3,000 macros).
        self._blocks_on: dict[tuple[int, int], Block] | None = None
        # Tags and slots do not overlap one another: in start order, a range cuts at most
        # the one across its start and the one across its end (found by bisection, so
        # that growing a range does not read every slot of a large file).
        leaves = sorted((span for span, block in self.whole if block is None), key=lambda span: (span.start, span.end))
        disjoint = all(a.end <= b.start for a, b in zip(leaves, leaves[1:]))
        self._leaves: list[Span] | None = leaves if disjoint else None
        self._leaf_starts = [span.start for span in leaves]
        # Blocks nest: the blocks around a point are the parents of the last block opened
        # before it (a range of 3,000 {{#each}} blocks read every block each time it grew).
        self._block_starts = [span.start for span, _ in self.blocks]
        self._block_parent = self._nesting()

    def _nesting(self) -> list[int] | None:
        """Each block's parent (-1 for none), in the order of ``blocks``; None when they are
        not a tree in start order (then they are read one by one)."""
        parents: list[int] = []
        opened: list[int] = []
        for i, (span, _) in enumerate(self.blocks):
            if i and span.start < self.blocks[i - 1][0].start:
                return None
            while opened and self.blocks[opened[-1]][0].end <= span.start:
                opened.pop()
            if opened and self.blocks[opened[-1]][0].end < span.end:
                return None  # overlaps its parent's end
            parents.append(opened[-1] if opened else -1)
            opened.append(i)
        return parents

    def _blocks_across(self, point: int, parents: list[int]) -> Iterator[int]:
        """The blocks that start before ``point`` and end after it."""
        k = bisect_left(self._block_starts, point) - 1
        while k >= 0:
            if self.blocks[k][0].end > point:
                yield k
            k = parents[k]

    # positions
    def line_of(self, offset: int) -> int:
        """The 0-based line holding ``offset`` (the first line for offsets before it)."""
        return max(0, bisect_right(self.starts, offset) - 1)

    def lines_of(self, span: Span) -> tuple[int, int]:
        return self.line_of(span.start), self.line_of(max(span.start, span.end - 1))

    def offsets(self, first: int, last: int) -> tuple[int, int]:
        return self.starts[first], self.starts[last] + len(self.lines[last])

    # Markdown structure
    def _table_rows(self) -> set[int]:
        rows: set[int] = set()
        if "|" not in self.template.source:
            return rows
        # Both need a "|" on the line: the lines without one (most) are not matched at all.
        piped = [i for i, line in enumerate(self.lines) if "|" in line]
        for i in piped:
            if not _TABLE_DELIMITER.match(self.lines[i].rstrip("\r\n")):
                continue
            first, last = self.paragraph(i)
            rows.update(j for j in range(first, last + 1) if "|" in self.lines[j])
        rows.update(i for i in piped if self.lines[i].lstrip().startswith("|"))
        return rows

    def fence_at(self, line: int) -> tuple[int, int, bool] | None:
        k = bisect_right(self._fence_starts, line) - 1
        return self.fences[k] if k >= 0 and self.fences[k][1] >= line else None

    def fence_cut(self, first: int, last: int) -> tuple[int, int, bool] | None:
        """The first fence that lines ``first``–``last`` hold one end of but not the other."""
        k = bisect_left(self._fence_ends, first)  # those that end before ``first`` hold neither
        while k < len(self.fences) and self.fences[k][0] <= last:
            fence = self.fences[k]
            if (first <= fence[0] <= last) != (first <= fence[1] <= last):
                return fence
            k += 1
        return None

    def paragraph(self, line: int) -> tuple[int, int]:
        if self.blank[line]:
            return line, line
        shape = self._shape()
        return shape.first[line], shape.last[line]

    def _shape(self) -> _Shape:
        if self._shape_found is None:
            self._shape_found = _Shape(self.lines, self.blank)
        return self._shape_found

    def _is_item(self, line: int) -> bool:
        return bool(_LIST_ITEM.match(self.lines[line]))

    def list_item(self, line: int) -> tuple[int, int] | None:
        """The top-level Markdown list item a line belongs to (item line + continuation):
        up the lines less indented than the one below them, while they are items, within
        the paragraph; then down the lines more indented than the item."""
        known = self._list_items
        if line not in known:
            known[line] = self._list_item(line)
        return known[line]

    def _list_item(self, line: int) -> tuple[int, int] | None:
        if self.blank[line]:
            return None
        shape = self._shape()
        item: int | None = line if self._is_item(line) else None
        j = shape.outer[line]
        while j >= 0 and self._is_item(j):
            item, j = j, shape.outer[j]
        if item is None:
            return None
        last = shape.inner_end[item] - 1
        return (item, last) if item <= line <= last else None

    def grow(self, first: int, last: int) -> tuple[int, int]:
        """Grow a line range until it cuts no block, tag, paragraph or list item."""
        while True:
            lo, hi = self.offsets(first, last)
            new_first, new_last = first, last
            for span in self._cut(lo, hi):
                a, b = self.lines_of(span)
                new_first, new_last = min(new_first, a), max(new_last, b)
            for line in (new_first, new_last):
                item = self.list_item(line)
                if item is not None:
                    new_first, new_last = min(new_first, item[0]), max(new_last, item[1])
            new_first, new_last = self._statement(new_first, new_last)
            if (new_first, new_last) == (first, last):
                return first, last
            first, last = new_first, new_last

    def _cut(self, lo: int, hi: int) -> list[Span]:
        """The spans that may not be cut and that ``[lo, hi)`` cuts (overlaps, not holds)."""
        def cuts(span: Span) -> bool:
            return span.start < hi and span.end > lo and not (lo <= span.start and span.end <= hi)

        if self._leaves is None:
            return [span for span, _ in self.whole if cuts(span)]
        parents = self._block_parent
        if parents is None:
            found = [span for span, _ in self.blocks if cuts(span)]
        else:  # across the range's start, or starting in it and ending after it
            across = set(self._blocks_across(lo, parents))
            across.update(k for k in self._blocks_across(hi, parents) if self.blocks[k][0].start >= lo)
            found = [self.blocks[k][0] for k in sorted(across)]
        for at in (lo, hi):
            i = bisect_right(self._leaf_starts, at - 1) - 1  # the last leaf starting before ``at``
            if i >= 0 and cuts(self._leaves[i]) and self._leaves[i] not in found:
                found.append(self._leaves[i])
        return found

    def _ends_statement(self, line: int) -> bool:
        """A line that ends a sentence (``.``, ``!``, ``?``) or a value (``}}``, ``%}``, ``}``)."""
        text = self.lines[line].rstrip().rstrip("\"')*_]`")
        return text.endswith((".", "!", "?", "}"))

    def _comment_only(self, line: int) -> bool:
        return bool(re.fullmatch(r"\s*(\{#.*#\}|\{\{!.*\}\})\s*", self.lines[line]))

    def _statement(self, first: int, last: int) -> tuple[int, int]:
        """Grow a range to the statement it belongs to within its paragraph.

        Prompts often put one statement per line (``Current time: …`` under ``You are
        Atlas.``); such a line is self-contained. A line that runs on (hard-wrapped
        prose, an intro ending in ``:``, a comment about what follows) takes its
        neighbours with it, up to the whole paragraph.
        """
        if self.list_item(first) is None:
            first = self._statement_start(first)
        if self.list_item(last) is None:
            last = self._statement_end(last)
        return first, last

    # Each walk keeps its answer for every line it passed (the same for all of them): a move
    # plan grows line after line of one paragraph, and a paragraph of lines that run on was
    # walked whole for each of them (5,000 lines: 74 s).

    def _statement_start(self, line: int) -> int:
        """Up the lines that run on into this one (``_statement``), within the paragraph."""
        top, passed, known = self.paragraph(line)[0], [], self._statement_starts
        while line not in known and line > top and self.list_item(line - 1) is None and (
            not self._ends_statement(line - 1) or self._comment_only(line - 1)
        ):
            passed.append(line)
            line -= 1
        start = known.setdefault(line, line)
        known.update(dict.fromkeys(passed, start))
        return start

    def _statement_end(self, line: int) -> int:
        """Down the lines this one runs on into (``_statement``), within the paragraph."""
        bottom, passed, known = self.paragraph(line)[1], [], self._statement_ends
        while line not in known and line < bottom and self.list_item(line + 1) is None and not self._ends_statement(line):
            passed.append(line)
            line += 1
        end = known.setdefault(line, line)
        known.update(dict.fromkeys(passed, end))
        return end

    def describe(self, first: int, last: int) -> str:
        where = f"line {first + 1}" if first == last else f"lines {first + 1}–{last + 1}"
        if self._blocks_on is None:
            self._blocks_on = {}
            for span, block in self.blocks:
                self._blocks_on.setdefault(self.lines_of(span), block)
        named = self._blocks_on.get((first, last))
        if named is not None:
            return f"{block_name(named, self.template)} on {where}"
        if self.list_item(first) == (first, last):
            return f"list item on {where}"
        if first != last and self.paragraph(first) == (first, last):
            return f"paragraph on {where}"
        return where


class _Shape:
    """Paragraphs and indentation, each line's read once (a move plan asks for the list
    item and paragraph of line after line; walking the paragraph for each made a
    2,000-line paragraph cost seconds).

    ``first``/``last``: the paragraph of each non-blank line. ``outer``: the nearest line
    above in the paragraph indented less (-1 when none). ``inner_end``: the first line
    below that is blank or indented no more (the line count when none)."""

    def __init__(self, lines: list[str], blank: list[bool]) -> None:
        count = len(lines)
        indent = [len(text) - len(text.lstrip(" \t")) for text in lines]
        self.first = [0] * count
        self.last = [0] * count
        self.outer = [-1] * count
        self.inner_end = [count] * count
        start = 0
        above: list[int] = []  # lines of the paragraph, each indented more than the one before
        for i in range(count):
            if blank[i]:
                for j in range(start, i):
                    self.last[j] = i - 1
                start, above = i + 1, []
                continue
            self.first[i] = start
            while above and indent[above[-1]] >= indent[i]:
                above.pop()
            self.outer[i] = above[-1] if above else -1
            above.append(i)
        for j in range(start, count):
            self.last[j] = count - 1
        waiting: list[int] = []  # lines whose end is not found yet, each indented more than the one before
        for i in range(count):
            if blank[i]:
                for j in waiting:
                    self.inner_end[j] = i
                waiting = []
                continue
            while waiting and indent[i] <= indent[waiting[-1]]:
                self.inner_end[waiting.pop()] = i
            waiting.append(i)


def layout_of(template: Template) -> Layout:
    """The template's layout, built once: the move plan and the draft of each round, and
    the safe and unsafe outlooks, all read the same template's lines (a template is not
    edited once loaded; a draft is a new template)."""
    found = template.layout
    if not isinstance(found, Layout) or found.template is not template:
        found = template.layout = Layout(template)
    return found


def block_name(block: Block, template: Template) -> str:
    if template.syntax == "jinja":
        return f"`{{% {block.kind} %}}` block"
    return f"section `{template.source[block.open.start:block.open.end].strip()}`"

