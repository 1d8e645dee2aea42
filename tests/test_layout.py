"""The fixer's view of a file's lines: paragraphs and Markdown list items."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from promptlint.core.fences import fenced_regions, may_hold_fences
from promptlint.core.layout import Layout
from promptlint.loaders import load_text


def fences(lines: list[str]) -> list[tuple[int, int, bool]]:
    """``(first, last, closed)`` of each fence of the text these lines make."""
    return [region[:3] for region in fenced_regions("".join(lines))]

_ITEM = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" \t"))


def _walked_paragraph(lines: list[str], line: int) -> tuple[int, int]:
    """The paragraph of a line, found by walking up and down from it (the reference)."""
    blank = [not text.strip() for text in lines]
    if blank[line]:
        return line, line
    first, last = line, line
    while first > 0 and not blank[first - 1]:
        first -= 1
    while last + 1 < len(lines) and not blank[last + 1]:
        last += 1
    return first, last


def _walked_list_item(lines: list[str], line: int) -> tuple[int, int] | None:
    """The top-level list item of a line, found by walking the paragraph (the reference)."""
    blank = [not text.strip() for text in lines]
    if blank[line]:
        return None
    item = line if _ITEM.match(lines[line]) else None
    base = _indent(lines[line])
    j = line - 1
    while j >= 0 and not blank[j]:
        if _indent(lines[j]) < base:
            if not _ITEM.match(lines[j]):
                break
            item, base = j, _indent(lines[j])
        j -= 1
    if item is None:
        return None
    last = item
    while last + 1 < len(lines) and not blank[last + 1] and _indent(lines[last + 1]) > _indent(lines[item]):
        last += 1
    return (item, last) if item <= line <= last else None


_LINE = st.tuples(st.sampled_from(["", " ", "  ", "\t", "    "]),
                  st.sampled_from(["- ", "* ", "1. ", "2) ", "", "", "text ", "-x "]),
                  st.sampled_from(["rule", "Now: {{ now }}", "", "more words"]))


@settings(max_examples=300, deadline=None)
@given(st.lists(_LINE, min_size=1, max_size=30))
def test_paragraphs_and_list_items_are_those_a_walk_from_each_line_finds(parts: list[tuple[str, str, str]]) -> None:
    source = "".join(indent + marker + text + "\n" for indent, marker, text in parts)
    layout = Layout(load_text("p.md", source, "jinja"))
    lines = layout.lines
    for line in range(layout.count):
        assert layout.paragraph(line) == _walked_paragraph(lines, line), (source, line)
        assert layout.list_item(line) == _walked_list_item(lines, line), (source, line)


def test_a_long_paragraph_of_list_items_and_continuations() -> None:
    source = "Intro:\n" + "".join(f"- item {i}\n  more of item {i}\n    deeper {i}\n" for i in range(300)) + "\nAfter.\n"
    layout = Layout(load_text("p.md", source, "jinja"))
    for line in range(layout.count):
        assert layout.list_item(line) == _walked_list_item(layout.lines, line)
        assert layout.paragraph(line) == _walked_paragraph(layout.lines, line)
    assert layout.list_item(2) == (1, 3) and layout.paragraph(5) == (0, 900)


def _walked_statement(layout: Layout, first: int, last: int) -> tuple[int, int]:
    """``Layout._statement`` as a walk from the range each time (the reference)."""
    top, bottom = layout.paragraph(first)[0], layout.paragraph(last)[1]
    if layout.list_item(first) is None:
        while first > top and layout.list_item(first - 1) is None and (
                not layout._ends_statement(first - 1) or layout._comment_only(first - 1)):
            first -= 1
    if layout.list_item(last) is None:
        while last < bottom and layout.list_item(last + 1) is None and not layout._ends_statement(last):
            last += 1
    return first, last


_STATEMENT_LINE = st.sampled_from(["Runs on and", "ends here.", "Asks?", "{{ now }}", "- item", "  more",
                                   "{# a note #}", "", "Label:", "value {{ x }} on"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_STATEMENT_LINE, min_size=1, max_size=30), st.data())
def test_statements_are_those_a_walk_from_each_range_finds(lines: list[str], data: st.DataObject) -> None:
    source = "".join(line + "\n" for line in lines)
    layout = Layout(load_text("p.j2", source, "jinja"))
    # In any order, and ranges after single lines: what one walk keeps serves the next.
    for _ in range(12):
        first = data.draw(st.integers(0, layout.count - 1))
        last = data.draw(st.integers(first, min(layout.count - 1, first + 3)))
        assert layout._statement(first, last) == _walked_statement(Layout(layout.template), first, last), source


def test_a_paragraph_of_lines_that_run_on_is_walked_once_not_once_per_line(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # 5,000 macro calls on lines that end in no full stop: the fix's plan grew every one to
    # the whole paragraph by walking it (74 s).
    source = "".join(f"{{{{ greet(user_name) }}}} line {i}\n" for i in range(3000))
    layout = Layout(load_text("p.j2", source, "jinja"))
    asked: list[int] = []
    real = Layout._ends_statement
    monkeypatch.setattr(Layout, "_ends_statement", lambda self, line: asked.append(line) or real(self, line))
    assert {layout._statement(line, line) for line in range(0, 3000, 7)} == {(0, 2999)}
    assert len(asked) <= 2 * 3000


_FENCE_LINES = st.lists(st.sampled_from(["```\n", "~~~\n", "````\n", "text\n", "\n", "- item\n", "```python\n"]),
                        max_size=30)


@settings(max_examples=200, deadline=None)
@given(_FENCE_LINES)
def test_fences_are_found_as_a_walk_over_them_finds_them(lines: list[str]) -> None:
    layout = Layout(load_text("x.md", "".join(lines), "markdown"))
    for line in range(layout.count):
        assert layout.fence_at(line) == next((f for f in layout.fences if f[0] <= line <= f[1]), None)
        for last in range(line, layout.count):
            walked = next((f for f in layout.fences
                           if (line <= f[0] <= last) != (line <= f[1] <= last)), None)
            assert layout.fence_cut(line, last) == walked


def test_fences_follow_commonmark() -> None:
    # A fence closes only at a run of the same character, at least as long, alone on its
    # line: "```python" or "```}" inside one is code, "~~~" does not close "```", nor does
    # a run indented four spaces more than the fence; one left open runs to the last line.
    lines = ["```\n", "```python\n", "```}\n", "~~~\n", "    ```\n", "``\n", "````\n",
             "~~~~\n", "~~~\n", "```\n", "~~~~~ \n", "  ```\n", "code"]
    assert fences(lines) == [(0, 6, True), (7, 10, True), (11, 12, False)]


def test_a_fence_in_a_list_item_is_a_fence() -> None:
    # MkDocs steps indent a fence four spaces under "1.", where CommonMark counts the indent
    # from the item: its placeholders are an example, not the page's own (promptflow's
    # prompty how-to read as a ${} template with 7 warnings). A run four spaces deeper than
    # the fence does not close it.
    lines = ["1. Write the prompt:\n", "\n", "    ```yaml\n", "    inputs: ${user_name}\n", "    ```\n",
             "2. Run it:\n", "    ```\n", "        ```\n", "  ```\n", "tail\n", "    ~~~\n"]
    assert fences(lines) == [(2, 4, True), (6, 8, True), (10, 10, False)]


_FENCE_TEXT_LINES = st.lists(st.sampled_from(["```\n", "~~~\n", "````\n", "```python\n", "```}\n", "    ```\n",
                                              "        ```\n", "    ~~~~\n",
                                              "   ~~~~\n", "{{ user_name }} and {session_id}\n", "\n", "text\r\n"]),
                             max_size=25)


@settings(max_examples=200, deadline=None)
@given(_FENCE_TEXT_LINES)
def test_inference_pc105_and_the_fix_read_the_same_fences(lines: list[str]) -> None:
    # Syntax inference leaves fenced placeholders out of its evidence, PC105 leaves fenced
    # values alone and the fix moves nothing across a fence: where they disagreed, a fix
    # moved a placeholder out of what the inference took for a fence, and the next run read
    # the file in another syntax.
    import importlib

    from promptlint.loaders.base import _outside_fences

    pc105 = importlib.import_module("promptlint.rules.literal_volatile_value")
    source = "".join(lines)
    layout = Layout(load_text("x.md", source, "markdown"))
    by_layout = {i for first, last, _ in layout.fences for i in range(first, last + 1)}
    blanked = {i for i, (line, kept) in enumerate(zip(source.split("\n"), _outside_fences(source).split("\n")))
               if line.strip() and line != kept}
    assert blanked == {i for i in by_layout if layout.lines[i].strip()}
    assert pc105._fenced_lines(source) == {i + 1 for i in by_layout}


_FENCE_TEXTS = st.lists(st.sampled_from(["```", "~~~", "````", "~~~~", "```python", "    ", " ", "x", "\n", "\r",
                                          "\u2028", "\t", "``"]), max_size=30).map("".join)


@settings(max_examples=300, deadline=None)
@given(_FENCE_TEXTS)
@example("```\n    ```\n```python\n~~~\n```\n~~~~\nx")
@example("  ```\n```\r\n~~~\n\n   ~~~ x\n~~~\u2028\n")
def test_fences_read_from_the_whole_text_are_those_of_its_lines(text: str) -> None:
    # Found by str.find in the text whole (a loop over every line took most of a long page's
    # syntax inference); the lines' walk as first written is the oracle.
    from promptlint.core.fences import _FENCE, split_lines

    def walked(lines: list[str]) -> list[tuple[int, int, bool]]:
        found: list[tuple[int, int, bool]] = []
        opened: tuple[int, str, int, int] | None = None  # first line, character, run, indent
        for i, line in enumerate(lines):
            match = _FENCE.match(line)
            if match is None:
                continue
            indent, run = len(match.group(1)), match.group(2)
            if opened is None:
                opened = (i, run[0], len(run), indent)
            elif run[0] == opened[1] and len(run) >= opened[2] and indent <= opened[3] + 3 and line.strip() == run:
                found.append((opened[0], i, True))
                opened = None
        return found + ([(opened[0], len(lines) - 1, False)] if opened is not None else [])

    lines = split_lines(text)
    regions = fenced_regions(text)
    assert [r[:3] for r in regions] == walked(lines) == fences(lines)
    assert may_hold_fences(text) == ("```" in text or "~~~" in text)
    if not may_hold_fences(text):
        assert regions == []
    starts = [sum(map(len, lines[:i])) for i in range(len(lines) + 1)]
    assert [(start, end) for *_, start, end in regions] == [(starts[first], starts[last + 1])
                                                            for first, last, _ in walked(lines)]


def _nested_blocks(draw_parts: list[int]) -> str:
    """Jinja text of nested and sibling blocks, slots and lines, from a list of moves."""
    out, depth = [], 0
    for move in draw_parts:
        if move == 0 and depth < 6:
            out.append("{% if flag %}\n")
            depth += 1
        elif move == 1 and depth:
            out.append("{% endif %}\n")
            depth -= 1
        elif move == 2:
            out.append("Now: {{ now() }} and the rules.\n")
        else:
            out.append("Some stable words.\n")
    return "".join(out) + "{% endif %}\n" * depth


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(0, 3), max_size=40), st.data())
def test_the_spans_a_range_cuts_are_those_a_walk_over_every_span_finds(moves: list[int], data: st.DataObject) -> None:
    layout = Layout(load_text("x.j2", _nested_blocks(moves), "jinja"))
    size = len(layout.template.source)
    for _ in range(10):
        lo = data.draw(st.integers(0, size))
        hi = data.draw(st.integers(lo, size))
        walked = [span for span, _ in layout.whole
                  if span.start < hi and span.end > lo and not (lo <= span.start and span.end <= hi)]
        assert sorted(layout._cut(lo, hi), key=lambda s: (s.start, s.end)) == sorted(walked, key=lambda s: (s.start, s.end))


@given(st.text(alphabet="ab\n\r\u2028", max_size=40), st.data())
def test_a_lines_number_is_the_line_of_its_position(text: str, data: st.DataObject) -> None:
    from promptlint.core.ir import LineIndex

    index = LineIndex(text)
    offset = data.draw(st.integers(0, len(text)))
    assert index.line_of(offset) == index.position(offset).line
