"""Rendered content is evidence: a clock to the second under a "now"/"generated" label, or a
signed-in user's name and e-mail, in a static file or a request body is rated by where it
stands; dates, cutoffs, versions, SHAs and support addresses stay quiet."""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from itertools import accumulate
from pathlib import Path

import pytest

from promptlint.api import check_paths, check_text
from promptlint.core import literals

from conftest import LONG_RULES


@pytest.mark.parametrize(
    ("text", "kind", "literal"),
    [
        ("Current time: 2025-11-03T16:42:09Z", "timestamp", "2025-11-03T16:42:09Z"),
        ("Generated on 2025-11-03 at 07:12:44Z by the digest job.", "timestamp", "07:12:44Z"),
        ("Rendered at 2026-01-05 10:12:33 UTC", "timestamp", "2026-01-05 10:12:33 UTC"),
        ("The time is 16:42:09.", "timestamp", "16:42:09"),
        ("You are helping Dana Whitfield (dana@northwind.example), an admin.", "identity",
         "Dana Whitfield (dana@northwind.example)"),
        ("Signed in as: dana@northwind.example", "identity", "dana@northwind.example"),
        ("User: Priya Raman <priya@acme.example>", "identity", "Priya Raman <priya@acme.example>"),
        ("Buyer: Morwenna Tate, Tate & Gill Kitchen, morwenna@tategill.example", "identity",
         "Morwenna Tate, Tate & Gill Kitchen, morwenna@tategill.example"),
    ],
)
def test_rendered_values(text: str, kind: str, literal: str) -> None:
    (found,) = literals.scan(text)
    assert (found.kind, text[found.start : found.end]) == (kind, literal)


@pytest.mark.parametrize(
    "text",
    [
        "Current time: 14:03",  # minute precision: may be an example
        "Our policy is effective from 2024-03-01.",
        "Your knowledge cutoff is October 2024.",
        "Release 4.2.1 (build 7f3c9e2a), released 2025-06-30.",
        "Questions go to billing@northwind.example.",
        "Escalate to our officer, Priya Raman (privacy@northwind.example).",
        "Last synced: 2026-11-30T09:14:22Z",  # a sync stamp, not the time now: low confidence (info)
        "Meeting slots run from 09:00:00 to 17:30:00.",
        "Contact: Jane Doe, jane@shop.example",  # the shop's contact, not a person served
    ],
)
def test_not_rendered(text: str) -> None:
    assert literals.scan(text) == []


def test_static_file_clock_at_the_top_is_an_error_and_at_the_end_a_warning() -> None:
    top = check_text("You are Beacon.\nCurrent time: 2025-11-03T16:42:09Z\n" + LONG_RULES, path="oncall.md")
    (finding,) = [f for f in top.findings if f.rule == "PC105"]
    assert (finding.line, finding.kind, finding.severity, finding.confidence) == (2, "timestamp", "error", "medium")
    assert "rendered" in finding.message and "16:42:09" in (finding.evidence or "")
    tail = check_text("You are Beacon.\n" + LONG_RULES + "\nCurrent time: 2025-11-03T16:42:09Z\n", path="oncall.md")
    assert [(f.kind, f.severity) for f in tail.findings if f.rule == "PC105"] == [("timestamp", "warning")]


def test_weak_evidence_stays_info() -> None:
    result = check_text("You are Hearth.\nCurrent time: 14:03\n" + LONG_RULES, path="snapshot.txt")
    assert [(f.severity, f.confidence) for f in result.findings if f.rule == "PC105"] == [("info", "low")]


def test_signed_in_user_in_a_static_file() -> None:
    text = "You are Harbor.\nYou are helping Dana Whitfield (dana@northwind.example).\n" + LONG_RULES
    (finding,) = [f for f in check_text(text, path="help.md").findings if f.rule == "PC105"]
    assert (finding.line, finding.kind, finding.severity) == (2, "identity", "error")


def test_example_domain_is_not_an_example_line() -> None:
    # `.example` in an address is a domain, not the word "example" that marks sample lines.
    text = "You are chatting with Sam Ortiz (sam@acme.example).\n" + LONG_RULES
    assert [f.kind for f in check_text(text, path="a.md").findings if f.rule == "PC105"] == ["identity"]


def _body(system: str, **extra: object) -> str:
    return json.dumps({"model": "gpt-5.5", **extra, "messages": [
        {"role": "system", "content": system}, {"role": "user", "content": "Hi"}]}, indent=2)


def test_signed_in_user_in_a_request_body(tmp_path: Path) -> None:
    path = tmp_path / "body.json"
    path.write_text(_body("You are helping Dana Whitfield (dana@northwind.example).\n" + LONG_RULES))
    found = [(f.rule, f.kind, f.severity, f.frequency) for f in check_paths([str(path)]).findings
             if f.rule in ("PC208", "PC201")]
    assert found == [("PC208", "identity", "error", "per-session")]
    message = next(f.message for f in check_paths([str(path)]).findings if f.rule == "PC208")
    assert "differs for every user" in message


def test_generated_at_in_a_request_body_before_a_breakpoint(tmp_path: Path) -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "system": [{"type": "text", "text": "Generated on 2025-11-03 at 07:12:44Z.\n" + LONG_RULES,
                    "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Hi"}],
        "max_tokens": 10,
    }
    path = tmp_path / "body.json"
    path.write_text(json.dumps(body, indent=2))
    found = [(f.rule, f.kind, f.severity) for f in check_paths([str(path)]).findings if f.rule == "PC201"]
    assert found == [("PC201", "timestamp", "error")]


@pytest.mark.parametrize(
    "header",
    [
        "Rendered system prompt, captured from the gateway log for debugging.",
        "=== captured system message (trace dump) ===",
        "<!-- Snapshot of the rendered prompt, saved by the eval harness -->",
        "=== CAPTURED SYSTEM MESSAGE (TRACE DUMP) ===",  # any case, as the pattern reads it
    ],
)
def test_a_capture_of_one_rendering_stays_low_confidence(header: str) -> None:
    text = f"{header}\nCurrent time: 2025-11-03T16:42:09Z\n" + LONG_RULES
    found = [(f.severity, f.confidence) for f in check_text(text, path="captured.md").findings if f.rule == "PC105"]
    assert found == [("info", "low")]


# -- PC105's quick scans agree with its patterns ------------------------------------------------

from hypothesis import example, given, strategies as st  # noqa: E402

from rules import literal_volatile_value as pc105  # noqa: E402

# ASCII text, and text with other scripts' digits (Arabic-Indic, Devanagari), a long s and a
# Kelvin sign (which a case-blind pattern matches as "s" and "k"), where the patterns decide.
_TEXT = st.text(alphabet=st.sampled_from("ab Ex:=@19\n#`~-_.\u0663\u0967\u017f\u212aCAPTURDSNHOLGEM"), max_size=60)


@given(_TEXT, st.lists(st.integers(min_value=0, max_value=70), max_size=8))
def test_pc105_finds_the_characters_its_class_matches(text: str, points: list[int]) -> None:
    # Asked at rising points, as the rule asks, of text with other scripts' digits (which the
    # pattern takes in) and of the same in ASCII; the pattern's search is the oracle.
    for source in (text, text.encode("ascii", "replace").decode()):
        marks = pc105._marks(source)
        assert len(marks) == len(source)
        for at in [0, *sorted(points)]:
            hit = pc105._CANDIDATE.search(source, at)
            assert marks.find(b":", at) == (-1 if hit is None else hit.start())


_LINES_TEXT = st.text(alphabet=st.sampled_from("a :=7\u0663\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u2028\u2029\t"), max_size=40)
_WINDOW = st.tuples(st.integers(min_value=0, max_value=40), st.integers(min_value=0, max_value=40))


@given(_LINES_TEXT, _WINDOW)
@example("a:\r\nb=\r\r7\n", (0, 99))
@example("a:\r\nb=\r\n7\n", (3, 7))  # a line break of the file split at the text's start and end
@example("a:\u2028\r\nb=\r\n7\n", (4, 8))
def test_pc105_finds_the_line_of_each_candidate_as_splitlines_makes_it(text: str, window: tuple[int, int]) -> None:
    # The lines of one text ([start, end) of a file) are found in the file's marks;
    # str.splitlines of the text alone is the oracle.
    for source in (text, text.encode("ascii", "replace").decode()):
        start, end = sorted(min(w, len(source)) for w in window)
        marks = pc105._marks(source)
        ends = list(accumulate(map(len, source[start:end].splitlines(keepends=True))))
        for hit in pc105._CANDIDATE.finditer(source, start, end):
            i = bisect_right(ends, hit.start() - start)
            assert pc105._line_around(marks, source, hit.start(), start, end) == (
                start + (ends[i - 1] if i else 0), start + ends[i])


_CLOCK_TEXT = st.lists(st.sampled_from(["Current time: ", "now ", "12", "7", ":", "09", ":42", ":09", "Z", " UTC", "@",
                                         "dana@x.example", "Dana Whitfield ", "(", "\u0663", "\u0967", "\n", " ", "T",
                                         "2025-11-03"]), max_size=12).map("".join)


@given(_CLOCK_TEXT)
@example("Current time: 16:42:09Z")
@example("Current time: 1\u0663:42:09Z")
def test_pc105_scans_every_text_that_may_hold_a_rendered_value(text: str) -> None:
    # A text with neither an "@" nor seven digits and colons in a row is not scanned:
    # literals.scan finds nothing there.
    if literals.scan(text):
        assert "@" in text or b":::::::" in pc105._marks(text)


_MARKED_TEXT = st.lists(st.sampled_from(["Examples:", "## Example", "example", "EXAMPLE", "  for example :", "Sample input",
                                          "sample outputs", "# Rules", " #", "x#", "\u017f", "\u212a", "#", " ", "\t", "\r",
                                          "\x1c", "\n", "\n", "\n", "ampl", "text", "é", "İ", "\u2028", "\x85", "\xa0", "\u3000#"]), max_size=24).map("".join)


@given(_MARKED_TEXT)
@example("Example\nx\n# A\nExamples:\n")
def test_pc105_finds_example_heads_and_headings_on_the_lines_a_scan_finds(text: str) -> None:
    # Only the lines that hold the anchor are tried; the pattern's scan of the whole text, as
    # first written, is the oracle.
    def scanned(pattern: re.Pattern[str], source: str) -> list[int]:
        numbers, line, at = [], 1, 0
        if pattern.match("\n" + source.partition("\n")[0]):  # the first line: no break before it
            numbers.append(1)
        for match in pattern.finditer(source):
            line += source.count("\n", at, match.end())
            at = match.end()
            numbers.append(line)
        return numbers

    for source in (text, text.encode("ascii", "replace").decode()):
        assert pc105._line_marks(pc105._EXAMPLES_HEAD, source, "ampl") == scanned(pc105._EXAMPLES_HEAD, source)
        assert pc105._heading_lines(source) == scanned(pc105._HEADING, source)


_LABEL_LINES = st.lists(st.sampled_from(["Date", "date", "Current ", "today's ", "Todays ", "local ", "time", "Time", ":",
                                         "=", " ", "- ", "**", "working ", "directory", "Git status", "git ", "OS", "os",
                                         "Operating system", "platform", "linux", "2026", "07:55", "/home/x", "\u017f",
                                         "\u212a", "_", "x", "\u0131", "pm"]), max_size=8).map("".join)


@given(_LABEL_LINES)
@example("\u212aurrent date: 2026-03-14")
@example("- O\u017f: linux")
def test_pc105_passes_over_a_line_only_where_no_label_of_this_moment_can_match(line: str) -> None:
    if any(pattern.match(line) for pattern, _ in pc105._MOMENT_PATTERNS):
        assert pc105._may_start_a_label(line)


@given(_TEXT, st.sampled_from([(pc105._CAPTURE, pc105._CAPTURE_WORDS), (pc105._RENDER_HEADER, ("rendered",))]))
def test_pc105_passes_over_a_head_only_where_its_pattern_cannot_match(text: str, case) -> None:
    pattern, words = case
    for head in (text, "snaPSHot " + text, text + " RenderED", "caPTUREd"):
        if pattern.search(head) is not None:
            assert pc105._may_match(head, words)


_ADDRESS_TEXT = st.lists(st.sampled_from(["@", "a@b.co", "Dana Whitfield", " (", "<", ", ", "\n", "\n\n", "Buyer: ", "- ",
                                          "signed in as ", "User: ", "You are helping ", "x", "\u212a", ".", "\r", "=",
                                          "customer email: ", "Ann Lee, Acme, ", "\t", "::", "/"]),
                        max_size=16).map("".join)


@given(_ADDRESS_TEXT)
@example("User: a@b.co\n- Buyer: Ann Lee, Acme, ann@acme.co\n\nYou are helping Dana Whitfield (dana@nw.example)")
@example("\n\n- \nBuyer: Ann Lee, x a@b.co, User: c@d.co")
def test_signed_in_users_are_what_the_patterns_find_in_the_whole_text(text: str) -> None:
    # Searched for on the lines that hold an "@" only (a long page searched whole took a tenth
    # of its check): the same values, in the same order, as the patterns over the whole text.
    def whole(text: str) -> list[tuple[int, int]]:
        found = []
        for match in literals._NAME_AND_EMAIL.finditer(text):
            start = text.rfind("\n\n", 0, match.start())
            before = text[max(start, match.start() - 160, 0) : match.start()]
            if literals._USER_CONTEXT.search(before) or literals._USER_CONTEXT.search(text[match.end():match.end() + 80]):
                found.append((match.start("name"), match.end()))
        found += [(m.start("email"), m.end("email")) for m in literals._LABELLED_EMAIL.finditer(text)]
        return found + [(m.start("name"), m.end("email")) for m in literals._SERVED_LINE.finditer(text)]

    assert [(r.start, r.end) for r in literals.signed_in_users(text)] == whole(text)


def test_values_under_an_examples_head_in_capitals_are_examples() -> None:
    clock = "Current time: 2025-11-03T16:42:09Z\n"
    assert [f.rule for f in check_text("You are Beacon.\n" + clock + LONG_RULES, path="a.md").findings
            if f.rule == "PC105"] == ["PC105"]
    assert [f.rule for f in check_text("You are Beacon.\nEXAMPLES:\n" + clock + LONG_RULES, path="a.md").findings
            if f.rule == "PC105"] == []


def test_values_in_a_fence_or_under_an_examples_head_are_passed_over_and_those_after_them_found() -> None:
    # Lines of a fenced block or an example are skipped whole, and the reading goes on from
    # the first line after them (where a render's values still count).
    fence = "```\nWorking directory: /home/a\nCurrent date: 2026-03-14\n```\n"
    example = "## Examples\nWorking directory: /home/c\nCurrent date: 2026-03-16\n"
    text = ("You are Beacon.\n" + fence + "Working directory: /home/b\nCurrent date: 2026-03-15\n" + example
            + "# Rules\nOS: linux\n" + fence + "Time: 10:42\n" + LONG_RULES)
    found = [(f.line, f.evidence) for f in check_text(text, path="a.md").findings if f.rule == "PC105"]
    assert [line for line, _ in found] == [6, 7, 12, 17], found


# -- an id's label is read near the id -----------------------------------------------------------

_ID_LINE_PARTS = st.sampled_from(["session", "Request", "run", "id", "uuid", "_", "-", " ", "\t", ":", "#", "x",
                                  "xsession", "é", " " * 40, "-" * 30])


@given(parts=st.lists(_ID_LINE_PARTS, max_size=30), data=st.data())
def test_an_ids_label_is_found_as_a_search_of_the_line_before_it_finds_it(parts: list[str], data) -> None:  # type: ignore[no-untyped-def]
    # Read near the id, not from the line's start (a line of 4,400 ids read 4,400 prefixes:
    # 20 s); a label with a long run of separators before "id" is still found.
    from promptlint.rules import literal_volatile_value as rule

    line = "".join(parts)
    end = data.draw(st.integers(0, len(line)))
    assert rule._labelled_id(line, end) == (rule._PER_REQUEST_ID_LABEL.search(line[:end]) is not None)


def test_a_label_far_before_its_id_across_separators_is_found() -> None:
    from promptlint.rules import literal_volatile_value as rule

    line = "session" + " " * 200 + "id: "
    assert rule._labelled_id(line, len(line))
    assert not rule._labelled_id("x" * 200 + " id: ", 205)
