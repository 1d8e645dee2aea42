"""Fuzzing the readers: random bytes and random template-like text, in every syntax.

Whatever the text, ``check_text`` returns a result (an unreadable text is a result with
``error`` set, never an exception), the loaders raise nothing but :class:`LoadError`, the
request-body reader nothing but :class:`RequestError`, and every span and every finding's
position lies within the text. The corpus of hand-made hostile files is
tests/test_bad_inputs_corpus.py; this finds the inputs nobody thought of.
"""

from __future__ import annotations

import codecs

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptlint import requestbody
from promptlint.api import check_text
from promptlint.core.findings import FileResult
from promptlint.core.ir import SYNTAXES, Block, Template
from promptlint.loaders import LoadError, load_bytes, load_text

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# Code syntaxes parse with tree-sitter or ast and analyse every prompt they find: fewer
# examples keep the whole file to seconds.
CODE_FUZZ = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])

_FRAGMENTS = [
    "{{", "}}", "{{{", "}}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "${", "{", "}", "[", "]", "(", ")",
    "#each ", "/each", "#if ", "/if", "^", ">", "&", "!", "=", "|", ":", ".", ",", "'", '"', "\\",
    "\n", "\r", "\r\n", "\t", " ", "if ", "endif", "for x in y", "endfor", "include 'a.j2'", "raw", "endraw",
    "now()", "user.name", "date", "time", "session_id", "uuid", "x", "name", "items", "99999", "\x00", "\x1b",
    "é", "\u2028", "\ud7ff", "\U0001f600",
    '"messages"', '"role"', '"content"', '"tools"', '"system"', '"model"', "true", "null", "5",
    "def f():", "prompt = ", "SYSTEM_PROMPT = f'", "`", "const system = `", "```",
    # Go templates and `{NAME}` tokens
    "{{.", "{{- ", " -}}", ".Time", "$x := ", "range ", "with ", "end", "else", "/*", "*/", "define \"a\"",
    "block \"b\"", "template \"a\"", ".Format \"15:04\"", "{CURRENT_TIME}", "{search_results}",
    # What PC105 reads a static page by: fences, example heads, headings, labelled values
    "~~~", "Examples:", "## Example\n", "# ", "Current date: ", "Working directory: ", "2026-03-14",
    "10:42", "T09:15:00Z", "@acme.example",
]
template_text = st.lists(st.sampled_from(_FRAGMENTS) | st.text(max_size=4), max_size=40).map("".join)

_BODY_PIECES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.sampled_from(["user", "system", "assistant", "text", "function", "now 2024-01-01T10:00:00Z"]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["role", "content", "type", "text", "tools", "system", "model", "messages",
                                       "input", "instructions", "cache_control", "function", "name"]), inner,
                      max_size=4),
    max_leaves=20,
)
request_like = st.fixed_dictionaries(
    {"messages": st.lists(st.dictionaries(st.sampled_from(["role", "content", "name"]), _BODY_PIECES, max_size=3)
                          .map(lambda m: {"role": "user", **m}), max_size=3)},
    optional={"model": _BODY_PIECES, "tools": _BODY_PIECES, "system": _BODY_PIECES,
              "input": _BODY_PIECES, "instructions": _BODY_PIECES},
)


def _assert_within(text: str, result: FileResult) -> None:
    if result.error is not None:
        assert "\n" not in result.error, result.error
        return
    lines = text.split("\n")
    for finding in result.findings:
        for line, column in ((finding.line, finding.column), (finding.end_line, finding.end_column)):
            assert 1 <= line <= len(lines), (finding, len(lines))
            # At most one past the line's last character, its line break (a CR before "\n") not counted.
            assert 1 <= column <= len(lines[line - 1].removesuffix("\r")) + 1, (finding, lines[line - 1])
        assert (finding.line, finding.column) <= (finding.end_line, finding.end_column), finding


def _assert_spans(template: Template) -> None:
    size = len(template.source)
    for part in [template, *template.prompts]:
        for segment in part.walk():
            spans = [segment.span] + ([segment.open] + ([segment.close] if segment.close else [])
                                      if isinstance(segment, Block) else [])
            for span in spans:
                assert 0 <= span.start <= span.end <= size, (segment, size)


def _check(text: str, syntax: str) -> None:
    result = check_text(text, path=f"fuzz.{syntax}", syntax=syntax)
    _assert_within(text, result)
    try:
        template = load_text(f"fuzz.{syntax}", text, syntax)
    except LoadError:
        return
    _assert_spans(template)


_PLAIN = [s for s in SYNTAXES if s not in ("python", "typescript", "javascript")]
_CODE = [s for s in SYNTAXES if s in ("python", "typescript", "javascript")]


@pytest.mark.parametrize("syntax", _PLAIN)
@FUZZ
@given(text=template_text)
def test_template_like_text(syntax: str, text: str) -> None:
    _check(text, syntax)


@pytest.mark.parametrize("syntax", _CODE)
@CODE_FUZZ
@given(text=template_text)
def test_template_like_code(syntax: str, text: str) -> None:
    _check(text, syntax)


@pytest.mark.parametrize("syntax", [*_PLAIN, None])
@FUZZ
@given(data=st.binary(max_size=200))
def test_random_bytes(syntax: str | None, data: bytes) -> None:
    """Bytes as a file holds them: decoding refuses or reads them, the loader does the
    rest; nothing but LoadError comes out."""
    try:
        template = load_bytes(f"fuzz.{syntax or 'txt'}", data, syntax)
    except LoadError:
        return
    _assert_spans(template)
    text = data.removeprefix(codecs.BOM_UTF8).decode("utf-8")
    _assert_within(text, check_text(text, path=f"fuzz.{syntax or 'txt'}", syntax=syntax))


@FUZZ
@given(body=request_like | _BODY_PIECES)
def test_request_bodies(body: object) -> None:
    """Any JSON value through the request-body reader: RequestError or a request."""
    import json

    source = json.dumps(body)
    try:
        loaded = requestbody.load(source)
    except requestbody.RequestError as exc:
        assert "\n" not in exc.message
    else:
        for path, (start, end) in loaded.spans.items():
            assert 0 <= start <= end <= len(source), path
    _assert_within(source, check_text(source, path="fuzz.json", syntax="json"))
