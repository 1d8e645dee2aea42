"""The request-JSON loader: spans, provider render order, errors."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from promptlint.core.ir import Slot, Tag, Text
from promptlint.loaders import LoadError, load_file, load_text
from promptlint.requestbody import load, volatile_values

REPO = Path(__file__).resolve().parents[1]


def _texts(template):  # type: ignore[no-untyped-def]
    return [s for s in template.segments if isinstance(s, Text) and s.span.start != s.span.end]


def test_text_spans_point_at_the_json_strings() -> None:
    source = '{\n  "model": "claude-sonnet-4-5",\n  "system": "You are terse.",\n  "messages": [{"role": "user", "content": "Hi"}]\n}\n'
    template = load_text("body.json", source, "json")
    texts = _texts(template)
    assert [source[t.span.start : t.span.end] for t in texts] == ['"You are terse."', '"Hi"']
    assert [t.text for t in texts] == ["You are terse.", "Hi"]
    first = template.position(texts[0].span.start)
    assert (first.line, first.column) == (3, 13)


def test_slot_span_is_the_value_inside_the_string_even_after_escapes() -> None:
    source = '{"system": "Line\\none\\tCurrent time: 2026-11-30T14:03:27Z\\nRules", "messages": []}'
    template = load_text("body.json", source, "json")
    slots = [s for s in template.segments if isinstance(s, Slot)]
    assert len(slots) == 1
    assert source[slots[0].span.start : slots[0].span.end] == "2026-11-30T14:03:27Z"
    assert "".join(s.text for s in template.segments if isinstance(s, Text)).endswith("\nRules")


def _every_offset(source: str, start: int) -> list[int]:
    """The source offset of each decoded character of the JSON string at ``start``, then of
    its closing quote, read a character at a time: the oracle of string_offsets."""
    offsets, at = [], start + 1
    while source[at] != '"':
        offsets.append(at)
        if source[at] != "\\":
            at += 1
        elif source[at + 1] != "u":
            at += 2
        else:
            at += 6
            high = int(source[at - 4 : at], 16)
            if 0xD800 <= high < 0xDC00 and re.match(r"\\u[dD][c-fC-F]", source[at : at + 4]):
                at += 6
    return [*offsets, at]


def test_string_offsets_are_each_characters_place_in_the_source() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from promptlint.requestbody import string_offsets

    # Escapes of every kind (a surrogate pair is one character; a lone or reversed one is two).
    pieces = ["a", "é", "\U0001f600", " ", "\\n", '\\"', "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00",
              "\\ud800", "\\udc00\\ud800", "\\ud83dx", "\\u0022", "}"]

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(pieces), max_size=12).map("".join), st.sampled_from(["", '{"k": ', "[1, "]))
    def same(inner: str, before: str) -> None:
        source = f'{before}"{inner}"'
        decoded = json.loads(source[len(before):])
        expected = _every_offset(source, len(before))
        assert len(expected) == len(decoded) + 1
        offsets = string_offsets(source, len(before))
        assert [offsets[i] for i in range(len(expected))] == expected, source
        with pytest.raises(IndexError):
            offsets[len(expected)]

    same()


def test_anthropic_order_is_tools_system_messages_whatever_the_file_order() -> None:
    body = {
        "messages": [{"role": "user", "content": "question"}],
        "system": [{"type": "text", "text": "system text", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        "tools": [{"name": "a_tool", "description": "d", "input_schema": {"type": "object"}}],
        "model": "claude-sonnet-4-5",
    }
    source = json.dumps(body, indent=2)
    template = load_text("body.json", source, "json")
    rendered = "".join(s.text for s in template.segments if isinstance(s, Text))
    assert rendered.index("a_tool") < rendered.index("system text") < rendered.index("question")
    tags = [s for s in template.segments if isinstance(s, Tag)]
    assert [(t.tag, t.target) for t in tags] == [("breakpoint", "1h")]
    assert source[tags[0].span.start : tags[0].span.end].startswith("{")
    assert '"ephemeral"' in source[tags[0].span.start : tags[0].span.end]


def test_openai_chat_puts_tools_and_schema_before_messages() -> None:
    body = {
        "model": "gpt-5.5",
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hello"}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "answer_schema"}},
        "tools": [{"type": "function", "function": {"name": "lookup"}}],
    }
    request = load(json.dumps(body)).requests[0]
    assert request.kind == "openai-chat"
    assert [c.section for c in request.chunks] == ["tools", "schema", "system", "messages"]
    assert [c.path_text for c in request.chunks] == ["tools[0]", "response_format", "messages[0].content", "messages[1].content"]


def test_openai_responses_body() -> None:
    body = {"model": "gpt-5.5", "instructions": "be brief", "input": [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}],
            "text": {"format": {"type": "json_schema", "name": "x"}}}
    request = load(json.dumps(body)).requests[0]
    assert request.kind == "openai-responses"
    assert [c.path_text for c in request.chunks] == ["text.format", "instructions", "input[0].content[0].text"]


def test_array_of_bodies_is_several_requests() -> None:
    body = {"model": "claude-sonnet-4-5", "system": "s", "messages": [{"role": "user", "content": "q"}]}
    loaded = load(json.dumps([body, body]))
    assert len(loaded.requests) == 2
    assert loaded.requests[1].chunks[0].path_text == "[1].system"


def test_malformed_json_reports_line_and_column(write) -> None:  # type: ignore[no-untyped-def]
    path = write("bad.json", '{\n  "system": "x",\n  "messages": [\n}\n')
    with pytest.raises(LoadError) as caught:
        load_file(str(path))
    assert (caught.value.line, caught.value.column) == (4, 1)
    assert "\n" not in caught.value.message


def test_json_that_is_not_a_request_body_is_refused() -> None:
    with pytest.raises(LoadError, match="not an OpenAI or Anthropic request body"):
        load_text("package.json", '{"name": "left-pad", "version": "1.0.0"}', "json")


def test_check_cli_on_a_body_and_on_non_request_json(run_cli, write) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--no-frames", str(REPO / "fixtures/requests/anthropic_clean.json"))
    assert result.exit_code == 0, result.output
    other = write("package.json", '{"name": "x"}')
    result = run_cli("check", str(other))
    assert result.exit_code == 2
    assert "not an OpenAI or Anthropic request body" in result.output


@pytest.mark.parametrize(
    "command",
    [["check", "--provider", "openai"], ["check", "--format", "json", "--provider", "openai"],
     ["probe", "--provider", "openai", "--dry-run"], ["probe", "--provider", "openai", "--dry-run", "--format", "json"]],
)
def test_a_lone_surrogate_escape_in_a_body_is_written_back_as_its_escape(run_cli, write, command) -> None:  # type: ignore[no-untyped-def]
    """A `\\ud800` escape is valid JSON for a string no UTF-8 can hold. Quoted in a report (the
    body's model) or kept in the result cache, it was a UnicodeEncodeError (an internal error)
    in check and probe; replay had its own escaping for it. Every stream and the cache now
    write it as the escape it was read from, which reads back as the same string."""
    body = write("b.json", '{"model": "gpt-4o\\ud800", "messages": [{"role": "system", "content": '
                           '"Now: 2026-01-01T10:00:00Z. You are Atlas \\ud800. Cite the policy."}, '
                           '{"role": "user", "content": "hi"}]}')
    for _ in range(2):  # the second check reads the result the first one cached
        result = run_cli(*command, str(body))
        assert result.exit_code in (0, 1), result.output
        assert "\\ud800" in result.stdout
        if "json" in command:
            assert "gpt-4o\ud800" in json.dumps(json.loads(result.stdout), ensure_ascii=False)


def test_volatile_values_labelled_ids_and_clock_labels() -> None:
    text = "Session ID: 3f2b9c1e-8d4a-4f6b-9a7e-2c5d1b0e7f43\nrequest_id=a9d04c77-1e52-4b8f-b3a6-f0c2e8d91b25\nCurrent time: 14:03\nRelease 2026-01-01"
    found = [(v.kind, v.label, text[v.start : v.end]) for v in volatile_values(text)]
    assert found == [
        ("id", "session_id", "3f2b9c1e-8d4a-4f6b-9a7e-2c5d1b0e7f43"),
        ("id", "request_id", "a9d04c77-1e52-4b8f-b3a6-f0c2e8d91b25"),
        ("timestamp", "current_time", "14:03"),
    ]


@pytest.mark.parametrize(
    ("text", "clock"),
    [
        ("Dispatch assistant for a pedicab company. It is 14:32 on Saturday.", "14:32"),
        ("It's 09:05 at the club.", "09:05"),
        ("You take commissions. It is Wednesday 4 March 2026, 09:41 at the workshop.", "Wednesday 4 March 2026, 09:41"),
        ("It is 14:32 meetings aside.", "14:32"),  # "meet" is not a time zone
        ("Current time: 10:42 CEST. Be brief.", "10:42 CEST"),
        ("Press queue at 10:41:07: R-2231 zine, R-2234 poster.", "10:41:07"),
    ],
)
def test_a_clock_stated_as_the_time_now_in_a_sentence(text: str, clock: str) -> None:
    assert [(v.kind, text[v.start : v.end]) for v in volatile_values(text)] == [("timestamp", clock)]


@pytest.mark.parametrize("text", ["Opening hours: 09:00 to 17:30.", "It is open until 17:30 on Saturdays." ,
                                  "Meet at 14:32 by the gate."])
def test_a_time_that_is_not_the_time_now_stays_quiet(text: str) -> None:
    assert volatile_values(text) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("You are speaking with Gwen Trelawney of Higher Polmear Farm.", "Gwen Trelawney"),
        ("You take fault reports. The caller is Dana Okafor, building manager.", "Dana Okafor"),
        ("Rider: Tom Arkwright, day pass 4471.", "Tom Arkwright"),
        ("Learner: Maren Ilves, practice console booked.", "Maren Ilves"),
    ],
)
def test_the_name_of_the_person_served_is_rendered_for_them(text: str, name: str) -> None:
    assert [(v.kind, text[v.start : v.end]) for v in volatile_values(text)] == [("identity", name)]


@pytest.mark.parametrize("text", ["You are helping The Team with rotas.", "You are talking with our mascot.",
                                  "I am Tom Okafor from the Quay Cafe."])
def test_no_person_served_is_named(text: str) -> None:
    assert volatile_values(text) == []


def _label_words(*patterns: re.Pattern[str]) -> list[str]:
    """The words of some label patterns, each with its first letter back where
    values._cased_first wrote the class of its cases."""
    plain = (re.sub(r"\(\?-i:\[(\w)[^]]*\]\)", r"\1", p.pattern) for p in patterns)
    return sorted({w for text in plain for w in re.findall(r"[A-Za-z']{2,}", text)})


def test_the_word_start_guards_leave_every_value_found() -> None:
    # Each label pattern a body is read with starts with a look-ahead on its alternatives'
    # first letters (values._starts_with). Without it the same values must be found: a
    # label added later with another first letter would be missed, silently.
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from promptlint.requestbody import values

    guarded = [(values._CLOCK_LABEL, values._CLOCK_LABEL_STARTS, "value"),
               (values._LABELLED_ID, values._LABELLED_ID_STARTS, "value"),
               (values._SERVED_PERSON, values._SERVED_PERSON_STARTS, "name")]
    checks = [(pattern, re.compile(pattern.pattern.replace(guard, "", 1), pattern.flags), group)
              for pattern, guard, group in guarded]
    # Every word of every label, in both cases, and what follows a label.
    label_words = _label_words(*(p for p, _, _ in guarded))
    label_words += [w.capitalize() for w in label_words]
    values_after = ["10:42 UTC", "2026-12-01T10:42:17Z", "Monday 07:12", "abc_12345678",
                    "0123456789abcdef0123", "Dana Okafor"]

    def same(text: str) -> None:
        for pattern, reference, group in checks:
            assert [m.span(group) for m in pattern.finditer(text)] == \
                   [m.span(group) for m in reference.finditer(text)], (pattern.pattern[:40], text)

    # One or two label words, a separator, a value: every alternative is met this way.
    for first in label_words:
        for second in ["", "time", "id", "is", "at", "clock"]:
            for sep in (":", " is", " ="):
                for value in values_after:
                    same(f"Note. {first} {second}{sep} {value}. ")

    for phrase in ("You are speaking with", "you're helping", "The caller is", "It is", "The time is", "Generated at"):
        for value in values_after:
            same(f"Note. {phrase} {value}. ")

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.sampled_from(label_words + values_after + [":", "is", ".", "\n", "wall"]), max_size=25))
    def any_order(chosen: list[str]) -> None:
        same(" ".join(chosen))

    any_order()


def test_the_prefilters_leave_every_value_found(monkeypatch: pytest.MonkeyPatch) -> None:
    # A label pattern's scan is skipped when the text lacks what each value it keeps holds
    # (values._CLOCK_NEEDS and the others). With every prefilter passing every text, the
    # same values must be found: the oracle is the scan they skip.
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from promptlint.requestbody import values

    found = values._volatile_values.__wrapped__
    label_words = _label_words(values._CLOCK_LABEL, values._LABELLED_ID, values._SERVED_PERSON)
    # Values of every kind, and near misses: a time of day in other digits, an id of the
    # letters (?i) folds to ASCII ones, a run of 7, names of one capitalised word.
    values_after = ["10:42 UTC", "2026-12-01T10:42:17Z", "Monday 07:12", "abc_12345678", "x_ſſſſKKKK",
                    "sess_İıİıİıİı", "0123456789abcdef0123", "deadbeefdeadbeef", "ABCDEFABCDEFABCD", "abc_1234567", "Dana Okafor",
                    "Dana-Lee Okafor", "O'Neil Ng", "Bo Li", "Dana", "١٠:٤٢", "7:05", "12:3", "Monday", "Dec 3"]
    pieces = label_words + [w.capitalize() for w in label_words] + values_after + [
        ":", "is", "=", ".", "\n", " ", "\t", "-", "wall", "You are speaking with", "The caller is", "It is"]

    names = ("_CLOCK_NEEDS", "_WORD_ID_NEEDS", "_PERSON_NEEDS")
    passing = re.compile("")  # found in every text, at its start

    def same(text: str) -> None:
        kept = found(text)
        for name in names:
            monkeypatch.setattr(values, name, passing)
        monkeypatch.setattr(values, "_has_hex_run", lambda _text: True)
        assert kept == found(text), text
        monkeypatch.undo()

    for value in values_after:
        for label in ("Current time:", "Request id", "session_id =", "Caller:", "You are speaking with",
                      "Generated at", "The caller is"):
            same(f"Note. {label} {value}. ")

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.sampled_from(pieces), max_size=30))
    def any_order(chosen: list[str]) -> None:
        same(" ".join(chosen))

    any_order()
    # And the prefilters do skip: a text with none of what they look for finds nothing.
    assert not values._CLOCK_NEEDS.search("Generated at noon for the caller") and not found(
        "Generated at noon for the caller")


def test_a_load_after_the_shape_check_of_its_source_takes_its_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    """A walk's look at a body (check_shape) hands its parse to the load that follows,
    which gives what a load of its own gives; a load of another source parses that one."""
    from promptlint.requestbody import files

    parsed: list[str] = []
    real = files.parse
    monkeypatch.setattr(files, "parse", lambda source: parsed.append(source) or real(source))
    sources = [p.read_text() for p in sorted((Path(__file__).resolve().parents[1] / "fixtures" / "requests").glob("*.json"))]
    assert len(sources) >= 3
    for source, other in zip(sources, sources[1:] + sources[:1], strict=True):
        alone = files.load(source)
        files.check_shape(source)
        parsed.clear()
        taken = files.load(source)
        assert parsed == [] and files._last_shaped is None  # the check's parse, handed over once
        assert (taken.value, taken.requests, taken.spans) == (alone.value, alone.requests, alone.spans)
        files.check_shape(other)
        parsed.clear()
        assert files.load(source).requests == alone.requests and parsed == [source]  # not the other body's
