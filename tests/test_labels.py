"""A value whose name says nothing is judged by the label it stands under: the words
before it on its line ("Latest GPS fix: {fix}"), or the heading or colon-ended line just
above it ("## Current standings"). Sentences, fixed names and configuration stay quiet."""

from __future__ import annotations

import pytest

from promptlint.api import check_text
from promptlint.config import Config
from promptlint.core.lead import label_before

RULES = "\n".join(
    f"- Rule {i}: confirm the caller's request in one sentence, keep every answer under six "
    "sentences and cite the section of the handbook it rests on."
    for i in range(1, 25)
)


def findings(text: str, path: str = "prompt.fmt", config: Config | None = None) -> list[tuple[int, str | None, str]]:
    result = check_text(text, path=path, config=config)
    assert result.error is None, result.error
    return [(f.line, f.kind, f.severity) for f in result.findings]


def evidence(text: str, path: str = "prompt.fmt") -> list[str]:
    return [f.evidence or "" for f in check_text(text, path=path).findings]


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        # The words before the value, ending in a colon, say it is of this moment.
        ("You brief harbour crews.\nLatest fix from the chart plotter: {plot}\n", "p.fmt", (2, "retrieval", "error")),
        # A heading above a value that stands alone on its line.
        ("You run the league desk.\n\n## Current standings\n${table}\n", "p.tmpl", (4, "retrieval", "error")),
        # A colon-ended line above a loop, one blank line between.
        ("You book the clinic.\nOpen appointment slots:\n\n{{#each grid}}- {{this}}\n{{/each}}\n", "p.hbs",
         (4, "retrieval", "error")),
        # "… on this route": the case at hand.
        ("You plan deliveries.\n## Drops on this route\n{{range .Drops}}- {{.}}\n{{end}}\n", "p.gotmpl",
         (3, "retrieval", "error")),
        # Who the assistant works with now.
        ("You support the freight desk.\nLead on shift: {{ desk.lead }}\n", "p.j2", (2, "identity", "error")),
        # A count that grows during the conversation.
        ("You run the escape room.\nHints used so far: ${hints}\n", "p.tmpl", (2, "session-id", "error")),
        # A label's noun names what changes, as a variable's name would.
        ("You answer from the archive.\nSearch results:\n{archive_pull}\n", "p.fmt", (3, "retrieval", "error")),
    ],
)
def test_label_judges_a_value_whose_name_says_nothing(text: str, path: str, expected: tuple[int, str, str]) -> None:
    assert findings(text + RULES + "\n", path) == [expected]
    assert any("judged by the label before it" in e for e in evidence(text + RULES + "\n", path))


def test_label_gives_a_clock_its_kind() -> None:
    text = "You log the watch.\nCurrent time: {stamp}\n" + RULES + "\n"
    assert findings(text) == [(2, "timestamp", "error")]


@pytest.mark.parametrize(
    "text",
    [
        # A sentence that runs on into the value is not a label.
        "You keep the table safe.\nThe current list is {safety_lines}. Stop the scene when asked.\n",
        # Names fixed per deploy stay stable whatever label they stand under.
        "You answer questions.\nCurrent version: {version}\n",
        "You answer questions.\n## Current rules\n{house_rules}\n",
        # No word of the moment and no noun that changes.
        "You answer questions.\n## Background\n{backdrop}\n",
    ],
)
def test_labels_that_say_nothing_stay_quiet(text: str) -> None:
    assert findings(text + RULES + "\n") == []


def test_words_before_a_value_label_it_not_the_next_one() -> None:
    result = check_text("You answer questions.\nLatest fix: {plot} {unit_suffix}\n" + RULES + "\n", path="p.fmt")
    assert [(f.line, f.column, f.kind) for f in result.findings] == [(2, 13, "retrieval")]


def test_configured_stable_name_wins_over_its_label() -> None:
    text = "You brief harbour crews.\nLatest fix: {plot}\n" + RULES + "\n"
    assert findings(text) == [(2, "retrieval", "error")]
    assert findings(text, config=Config(stable=("plot",))) == []


def test_labels_are_not_read_in_request_bodies_or_code() -> None:
    body = '{"model": "gpt-4o", "messages": [{"role": "system", "content": "Latest fix: north by west"}]}'
    assert findings(body, path="request.json") == []


def test_label_before_reads_the_line_or_the_heading_above() -> None:
    source = "## Live board\n\n{board}\nPilot: {pilot_ref}\nText {a} then {b}\n"
    assert label_before(source, source.index("{board}")) == "Live board"
    assert label_before(source, source.index("{pilot_ref}")) == "Pilot:"
    assert label_before(source, source.index("{b}")) is None  # "then" runs on: a sentence
    assert label_before(source, 0) is None


def test_a_long_line_is_labelled_as_a_short_one() -> None:
    # Past the window a label is read from (a long line's values are not each read from
    # the line's start): the same labels, and words far back still count as words.
    filler = "Some words here. " * 400  # 6,800 characters
    source = filler + "Pilot: {pilot_ref} and {{x}}" + "{{y}}" * 1000 + "{board}\nOn shift: {crew}"
    assert label_before(source, source.index("{pilot_ref}")) == "Pilot:"
    assert label_before(source, source.index("{board}")) is None  # words earlier on its line label the first value
    assert label_before("Live board\n" + "{{y}}" * 1000 + "{board}", 11 + 5000) is None
    assert label_before(source, source.index("{crew}")) == "On shift:"
    markup_only = "{{y}}" * 1000 + "{board}"
    assert label_before("## Live board\n" + markup_only, 14 + 5000) == "Live board"


def test_role_label_names_a_person() -> None:
    text = "You plan field visits.\nAdjuster: {adjuster_name}\n" + RULES + "\n"
    assert findings(text) == [(2, "identity", "error")]


@pytest.mark.parametrize(
    "text",
    [
        # The assistant's own role is a deploy constant, not a person served.
        "You are {tutor_name}, a patient tutor.\n",
        # A loop over a literal list is what it says, whatever its label.
        "Service order:\n{% for s in ['inspect', 'clean'] %}- {{ s }}\n{% endfor %}\n",
        # A thing whose noun ends like a role, and a standing timetable.
        "Number: {hotline}\n",
        "Weekly schedule:\n{{ weekly_schedule }}\n",
    ],
)
def test_persona_literals_and_standing_lists_stay_quiet(text: str) -> None:
    path = "p.j2" if "{%" in text or "{{" in text else "p.fmt"
    assert findings(text + RULES + "\n", path) == []


# --------------------------------------------------------------------------- names that stamp, refer, are open


@pytest.mark.parametrize(
    ("name", "kind"),
    [("generated_at", "timestamp"), ("lastUpdated", "timestamp"), ("call_ref", "session-id"),
     ("booking_reference", "session-id"), ("openPermits", "retrieval")],
)
def test_names_that_say_they_change(name: str, kind: str) -> None:
    text = f"You plan the terminal.\nPlan note: {{{{{name}}}}}\n" + RULES + "\n"
    assert findings(text, "p.mustache") == [(2, kind, "error")]


def test_built_at_is_fixed_per_deploy() -> None:
    assert findings("Build stamp: {{built_at}}\n" + RULES + "\n", "p.mustache") == []


# --------------------------------------------------------------------------- a test on the clock


GREETING = (
    "{% if now().hour < 12 %}Good morning{% elif now().hour < 18 %}Good afternoon{% else %}Good evening"
    "{% endif %}, harvest team.\nYou are the harvest desk assistant.\n"
)


def test_a_test_on_the_clock_picks_text_by_the_hour() -> None:
    result = check_text(GREETING + RULES + "\n", path="greeting.j2")
    assert [(f.line, f.kind, f.severity, f.fixable) for f in result.findings] == [(1, "timestamp", "warning", True)]
    assert "to the hour" in (result.findings[0].evidence or result.findings[0].message)


def test_a_test_on_a_flag_named_like_a_clock_is_not_a_clock() -> None:
    text = "{% if guest.wants_exact_time %}Give times to the minute.{% endif %}\n" + RULES + "\n"
    assert findings(text, "p.j2") == []


def test_an_items_field_is_judged_by_its_label_only() -> None:
    text = ("You are the visitor assistant.\n{{#presenter}}Presenter on the desk: {{name}}{{/presenter}}\n"
            "{{#faq}}Q: {{question}} A: {{answer}}\n{{/faq}}\n" + RULES + "\n")
    assert findings(text, "p.mustache") == [(2, "identity", "error")]


def test_free_slots_are_of_now_but_available_runbooks_are_not() -> None:
    assert findings("You book flights.\nFree slots:\n{slot_grid}\n" + RULES + "\n") == [(3, "retrieval", "error")]
    sorted_list = ("Available runbooks:\n{% for name, book in runbooks | dictsort %}- {{ name }}: {{ book.summary }}\n"
                   "{% endfor %}\n")
    assert findings(sorted_list + RULES + "\n", "p.j2") == []


# -- a long line's labels are read from one scan of the line ---------------------------------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from promptlint.core import lead  # noqa: E402

_PIECES = ["{a}", "{{ x }}", "{% if a %}", "{%", "%}", "{{", "}}", "{", "}", "${v}", "${", "<b>", "<", ">", "*", "`",
           "#", "|", "word ", "Label: ", "  ", "\t", ".", "é", "\u00a0", "x"]


def _read_directly(source: str, start: int) -> tuple[str, bool]:
    """The window's words after its last tag, and whether it has words, read from the window
    itself (as each value of a long line once read it)."""
    line_start = source.rfind("\n", 0, start) + 1
    prefix = source[max(line_start, start - lead._LABEL_WINDOW) : start]
    tags = list(lead._TAGS.finditer(prefix))
    return lead._words_of(prefix[tags[-1].end():] if tags else prefix), bool(lead._words_of(prefix))


@settings(max_examples=300)
@given(pieces=st.lists(st.sampled_from(_PIECES), min_size=1, max_size=8), picks=st.lists(st.integers(0, 7), max_size=80),
       window=st.sampled_from([4, 9, 20]), data=st.data())
def test_a_long_lines_window_reads_from_its_scan_as_from_itself(pieces: list[str], picks: list[int], window: int,
                                                               data: st.DataObject) -> None:
    # The window of a value far into a line is read from the line's scans where they give the
    # window's own answer (a tag cut at the window's edge reads as words); each value of a
    # 200 KB line of 66,000 `{a}` read its 2,000 characters anew (11 s).
    line = "".join(pieces[i % len(pieces)] for i in picks)
    source = "Intro:\n" + line + "\nnext"
    start = 7 + data.draw(st.integers(0, len(line)))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lead, "_LABEL_WINDOW", window)
        lead._line_scan.cache_clear()
        lo = max(7, start - window)
        found = lead._line_scan(source, 7).window(source, lo, start) if lo > 7 else None
        if found is not None:
            last_end, has_words = found
            assert (lead._words_of(source[lo if last_end is None else last_end : start]), has_words) == \
                _read_directly(source, start)
    lead._line_scan.cache_clear()


def test_a_value_far_into_a_long_line_of_values_has_no_label() -> None:
    line = "{a}" * 5000 + "Now: {b}"
    assert label_before(line, line.index("{b}")) == "Now:"
    assert label_before(line, 3 * 4000) is None
    assert label_before("Current fix: " + "{a} " * 1000, 13 + 4 * 999) is None
