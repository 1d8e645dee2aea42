"""Every loader: the IR it builds, exact positions, and leaf spans that tile the source."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from promptlint.core.ir import Block, Slot, Span, Tag, Template, Text, walk
from promptlint.loaders import LoadError, load_file, load_text
from promptlint.loaders.base import decode, detect_syntax


@pytest.fixture
def load(tiles):  # type: ignore[no-untyped-def]
    """load_text that also checks the tiling of every template it returns."""

    def _load(source: str, syntax: str, path: str = "prompt") -> Template:
        template = load_text(path, source, syntax)
        assert template.syntax == syntax
        tiles(template)
        return template

    return _load


def src(template: Template, segment) -> str:  # type: ignore[no-untyped-def]
    span = segment.open if isinstance(segment, Block) else segment.span
    return template.source[span.start : span.end]


def pos(template: Template, segment) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    span = segment.open if isinstance(segment, Block) else segment.span
    p = template.position(span.start)
    return (p.line, p.column)


def only(items, kind):  # type: ignore[no-untyped-def]
    found = [s for s in items if isinstance(s, kind)]
    assert len(found) == 1, found
    return found[0]


def rendered_text(template: Template) -> str:
    """The text of every Text segment in order (what the static parts render to)."""
    return "".join(s.text for s in template.walk() if isinstance(s, Text))


# ---------------------------------------------------------------------------------------
# The tiling helper itself must be able to fail.


def test_tiling_helper_detects_gap_and_overlap(tiles) -> None:  # type: ignore[no-untyped-def]
    from promptlint.core.ir import Span

    gap = Template("x", "markdown", "abcd", [Text(Span(0, 1), "a"), Text(Span(2, 4), "cd")])
    overlap = Template("x", "markdown", "abcd", [Text(Span(0, 3), "abc"), Text(Span(2, 4), "cd")])
    short = Template("x", "markdown", "abcd", [Text(Span(0, 3), "abc")])
    for bad in (gap, overlap, short):
        with pytest.raises(AssertionError):
            tiles(bad)


# ---------------------------------------------------------------------------------------
# Jinja


def test_jinja_slot_with_attribute_path_and_filter(load) -> None:  # type: ignore[no-untyped-def]
    t = load("Hello,\n  dear {{ user.name | upper }}!\n", "jinja")
    slot = only(t.segments, Slot)
    assert src(t, slot) == "{{ user.name | upper }}"
    assert pos(t, slot) == (2, 8)
    assert slot.expr.path == ("user", "name")
    assert slot.expr.filters == ("upper",)
    assert slot.expr.name == "user.name"


def test_jinja_call_with_format_string(load) -> None:  # type: ignore[no-untyped-def]
    t = load('Line one\nTime: {{ now().strftime("%H:%M:%S") }} UTC\n', "jinja")
    slot = only(t.segments, Slot)
    assert src(t, slot) == '{{ now().strftime("%H:%M:%S") }}'
    assert pos(t, slot) == (2, 7)
    assert set(slot.expr.calls) == {"now", "strftime"}
    assert slot.expr.format_spec == "%H:%M:%S"
    texts = [s.text for s in t.segments if isinstance(s, Text)]
    assert texts == ["Line one\nTime: ", " UTC"]  # jinja drops one trailing newline


def test_jinja_if_elif_else(load) -> None:  # type: ignore[no-untyped-def]
    source = "A\n{% if mode == 'x' %}X{% elif other %}Y{% else %}Z{% endif %}\nB"
    t = load(source, "jinja")
    block = only(t.segments, Block)
    assert block.kind == "if"
    assert src(t, block) == "{% if mode == 'x' %}"
    assert pos(t, block) == (2, 1)
    assert block.expr is not None and block.expr.path == ("mode",)
    assert block.close is not None
    assert source[block.close.start : block.close.end] == "{% endif %}"
    assert t.position(block.close.start) == t.position(source.index("{% endif"))
    tags = [s for s in block.body if isinstance(s, Tag)]
    assert [tg.tag for tg in tags] == ["elif", "else"]
    assert tags[0].expr is not None and tags[0].expr.path == ("other",)
    assert [pos(t, tg) for tg in tags] == [(2, 22), (2, 39)]
    assert [s.text for s in block.body if isinstance(s, Text)] == ["X", "Y", "Z"]


@pytest.mark.parametrize(
    ("loop", "is_sorted"),
    [
        ("{% for tool in tools %}", False),
        ("{% for tool in tools | sort(attribute='name') %}", True),
        ("{% for tool in tools|sort %}", True),
        ("{% for name, tool in tools | dictsort %}", True),
        ("{% for tool in tools | selectattr('enabled') %}", False),
    ],
)
def test_jinja_for_loop_sorted_or_not(load, loop: str, is_sorted: bool) -> None:  # type: ignore[no-untyped-def]
    source = f"Tools:\n{loop}\n- {{{{ tool.name }}}}\n{{% endfor %}}\nDone."
    t = load(source, "jinja")
    block = only(t.segments, Block)
    assert block.kind == "for"
    assert src(t, block) == loop
    assert pos(t, block) == (2, 1)
    assert block.expr is not None and block.expr.root == "tools"
    assert block.sorted is is_sorted
    assert "tool" in block.loop_vars
    inner = only(block.body, Slot)
    assert inner.expr.path == ("tool", "name")
    assert pos(t, inner) == (3, 3)


def test_jinja_set_alias_is_resolved(load) -> None:  # type: ignore[no-untyped-def]
    source = '{% set stamp = now().strftime("%H:%M") %}\n{% set t2 = stamp %}Stamp: {{ stamp }} / {{ t2 }}\n'
    t = load(source, "jinja")
    sets = [s for s in t.segments if isinstance(s, Tag) and s.tag == "set"]
    assert [s.target for s in sets] == ["stamp", "t2"]
    assert sets[0].expr is not None and "now" in sets[0].expr.calls
    slots = [s for s in t.segments if isinstance(s, Slot)]
    assert [s.expr.name for s in slots] == ["stamp", "t2"]
    for slot in slots:
        assert slot.alias_of is not None
        assert "now" in slot.alias_of.calls
        assert slot.alias_of.format_spec == "%H:%M"
    assert pos(t, slots[0]) == (2, 28)


def test_jinja_unaliased_name_has_no_alias(load) -> None:  # type: ignore[no-untyped-def]
    t = load("{% set a = 'x' %}{{ b }}", "jinja")
    assert only(t.segments, Slot).alias_of is None


def test_jinja_include_is_a_tag_with_its_target(load) -> None:  # type: ignore[no-untyped-def]
    t = load('Intro\n{% include "partials/tools.j2" %}\nOutro\n', "jinja")
    tag = only(t.segments, Tag)
    assert tag.tag == "include"
    assert tag.target == "partials/tools.j2"
    assert pos(t, tag) == (2, 1)


def test_jinja_raw_block_has_no_slots(load) -> None:  # type: ignore[no-untyped-def]
    t = load("Keep {% raw %}{{ not_a_slot }}{% endraw %} literally.", "jinja")
    assert list(t.slots()) == []
    block = only(t.segments, Block)
    assert block.kind == "raw"
    assert rendered_text(t) == "Keep {{ not_a_slot }} literally."
    assert src(t, block) == "{% raw %}"


def test_jinja_comment_is_a_tag(load) -> None:  # type: ignore[no-untyped-def]
    t = load("Top\n{# a note\n over two lines #}Next {{ x }}", "jinja")
    tag = only(t.segments, Tag)
    assert tag.tag == "comment"
    assert pos(t, tag) == (2, 1)
    assert pos(t, only(t.segments, Slot)) == (3, 24)
    assert rendered_text(t) == "Top\nNext "


def test_jinja_whitespace_control_strips_text_but_spans_tile(load) -> None:  # type: ignore[no-untyped-def]
    source = "Intro  \n  {%- if flag -%}\n   Inside\n  {%- endif %}\nValue:\n   {{- value -}}\n   end\n"
    t = load(source, "jinja")  # tiles() checks spans cover the stripped whitespace
    assert rendered_text(t) == "IntroInside\nValue:end"
    block = only(t.segments, Block)
    assert pos(t, block) == (2, 3)
    slot = only(t.segments, Slot)
    assert pos(t, slot) == (6, 4)
    first = t.segments[0]
    assert isinstance(first, Text) and first.text == "Intro"


def test_jinja_whitespace_control_between_slots(load) -> None:  # type: ignore[no-untyped-def]
    t = load("{{ a }}\n\n{{- b }}", "jinja")
    slots = list(t.slots())
    assert [pos(t, s) for s in slots] == [(1, 1), (3, 1)]
    assert rendered_text(t) == ""


def test_jinja_crlf_source(load) -> None:  # type: ignore[no-untyped-def]
    source = "First line\r\nUser: {{ user.name }}\r\n{% if x %}\r\nyes\r\n{% endif %}\r\nLast\r\n"
    t = load(source, "jinja")
    slot = only(t.segments, Slot)
    assert pos(t, slot) == (2, 7)
    assert src(t, slot) == "{{ user.name }}"
    block = only(t.segments, Block)
    assert pos(t, block) == (3, 1)


def test_jinja_unicode_source(load) -> None:  # type: ignore[no-untyped-def]
    source = "Zoë 🎉 日本語\nNaïve — {{ user.name }} ✓ {{ now() }}\n"
    t = load(source, "jinja")
    slots = list(t.slots())
    # Columns count characters, not bytes.
    assert [pos(t, s) for s in slots] == [(2, 9), (2, 27)]
    assert [src(t, s) for s in slots] == ["{{ user.name }}", "{{ now() }}"]


def test_jinja_trailing_newline_is_covered(load) -> None:  # type: ignore[no-untyped-def]
    load("Hello\n", "jinja")
    load("{{ x }}\n", "jinja")
    load("a\n\n\n", "jinja")


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("ok\nok\n{% if x %}\nnever closed\n", 3),
        ("ok\n{{ foo( }}\n", 2),
        ("ok\n{% endfor %}\n", 2),
    ],
)
def test_jinja_malformed_names_the_line(source: str, line: int) -> None:
    with pytest.raises(LoadError) as info:
        load_text("bad.j2", source, "jinja")
    assert info.value.line == line


# ---------------------------------------------------------------------------------------
# Mustache / Handlebars


def test_mustache_variables(load) -> None:  # type: ignore[no-untyped-def]
    source = "Hi {{name}}, {{{html}}} and {{& raw.value }}!\n"
    t = load(source, "mustache")
    slots = list(t.slots())
    assert [s.expr.path for s in slots] == [("name",), ("html",), ("raw", "value")]
    assert [src(t, s) for s in slots] == ["{{name}}", "{{{html}}}", "{{& raw.value }}"]
    assert [pos(t, s) for s in slots] == [(1, 4), (1, 14), (1, 29)]


def test_mustache_sections_inverted_and_standalone_lines(load) -> None:  # type: ignore[no-untyped-def]
    source = "Items:\n  {{#items}}\n- {{label}}\n  {{/items}}\n{{^items}}none{{/items}}\nEnd\n"
    t = load(source, "mustache")
    blocks = [s for s in t.segments if isinstance(s, Block)]
    assert [b.kind for b in blocks] == ["section", "inverted"]
    section = blocks[0]
    # A standalone tag owns its whole line, indentation and newline included.
    assert src(t, section) == "  {{#items}}\n"
    assert pos(t, section) == (2, 1)
    assert section.close is not None
    assert source[section.close.start : section.close.end] == "  {{/items}}\n"
    assert rendered_text(t) == "Items:\n- \nnone\nEnd\n"
    assert pos(t, only(section.body, Slot)) == (3, 3)
    inverted = blocks[1]
    assert src(t, inverted) == "{{^items}}"  # not standalone: text follows on its line
    assert pos(t, inverted) == (5, 1)


def test_mustache_partial_and_comment(load) -> None:  # type: ignore[no-untyped-def]
    source = "Top\n{{> header}}\n{{! a comment }}\nText {{! inline }} more\n"
    t = load(source, "mustache")
    tags = [s for s in t.segments if isinstance(s, Tag)]
    assert [(tg.tag, tg.target) for tg in tags] == [("partial", "header"), ("comment", None), ("comment", None)]
    assert [pos(t, tg) for tg in tags] == [(2, 1), (3, 1), (4, 6)]
    assert rendered_text(t) == "Top\nText  more\n"


def test_handlebars_each_with_else(load) -> None:  # type: ignore[no-untyped-def]
    source = "Tools:\n{{#each tools}}\n- {{name}}: {{description}}\n{{else}}\nNo tools.\n{{/each}}\nBye\n"
    t = load(source, "mustache")
    block = only(t.segments, Block)
    assert block.kind == "each"
    assert block.expr is not None and block.expr.path == ("tools",)
    assert block.sorted is False
    assert pos(t, block) == (2, 1)
    else_tag = only(block.body, Tag)
    assert else_tag.tag == "else"
    assert pos(t, else_tag) == (4, 1)
    assert [s.expr.path for s in block.body if isinstance(s, Slot)] == [("name",), ("description",)]


def test_handlebars_each_over_sorted_helper(load) -> None:  # type: ignore[no-untyped-def]
    t = load("{{#each (sortBy tools 'name')}}{{name}}{{/each}}", "mustache")
    assert only(t.segments, Block).sorted is True


def test_mustache_set_delimiters(load) -> None:  # type: ignore[no-untyped-def]
    source = "A {{first}}\n{{=<% %>=}}\nB <% second %> {{not_a_tag}}\n<%={{ }}=%>\nC {{third}}\n"
    t = load(source, "mustache")
    slots = list(t.slots())
    assert [s.expr.path for s in slots] == [("first",), ("second",), ("third",)]
    assert [pos(t, s) for s in slots] == [(1, 3), (3, 3), (5, 3)]
    assert "{{not_a_tag}}" in rendered_text(t)


def test_mustache_crlf_and_unicode(load) -> None:  # type: ignore[no-untyped-def]
    source = "Café ☕\r\n{{#items}}\r\n• {{name}}\r\n{{/items}}\r\nFin {{user.name}}\r\n"
    t = load(source, "mustache")
    block = only(t.segments, Block)
    assert src(t, block) == "{{#items}}\r\n"
    assert pos(t, only(block.body, Slot)) == (3, 3)
    assert pos(t, only(t.segments, Slot)) == (5, 5)


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("a\nb\nHello {{ name\n", 3),
        ("a\n{{#items}}\nx\n", 2),
        ("a\n{{/items}}\n", 2),
        ("{{#a}}\n{{/b}}\n", 2),
    ],
)
def test_mustache_malformed_names_the_line(source: str, line: int) -> None:
    with pytest.raises(LoadError) as info:
        load_text("bad.mustache", source, "mustache")
    assert info.value.line == line


# ---------------------------------------------------------------------------------------
# str.format


def test_format_fields(load) -> None:  # type: ignore[no-untyped-def]
    source = "Hi {name},\nuser {user.name} arg {0} at {now:%H:%M} {x!r}\n"
    t = load(source, "format")
    slots = list(t.slots())
    assert [src(t, s) for s in slots] == ["{name}", "{user.name}", "{0}", "{now:%H:%M}", "{x!r}"]
    assert [s.expr.path for s in slots] == [("name",), ("user", "name"), ("0",), ("now",), ("x",)]
    assert slots[3].expr.format_spec == "%H:%M"
    assert slots[0].expr.format_spec is None
    assert [pos(t, s) for s in slots] == [(1, 4), (2, 6), (2, 22), (2, 29), (2, 41)]


def test_format_escapes_are_decoded_in_text(load) -> None:  # type: ignore[no-untyped-def]
    source = "JSON: {{\"a\": {value}}}\nbraces {{}} done"
    t = load(source, "format")
    assert rendered_text(t) == 'JSON: {"a": }\nbraces {} done'
    slot = only(t.segments, Slot)
    assert src(t, slot) == "{value}"
    assert pos(t, slot) == (1, 14)


def test_format_crlf_and_unicode(load) -> None:  # type: ignore[no-untyped-def]
    source = "Ünïcode 😀 {{ok}}\r\n→ {name} ←\r\n"
    t = load(source, "format")
    assert pos(t, only(t.segments, Slot)) == (2, 3)
    assert rendered_text(t) == "Ünïcode 😀 {ok}\r\n→  ←\r\n"


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("a\nb {x} {\nc\n", 2),
        ("a\n}\n", 2),
        ("a\nb\n{x} {{ok}}\nc } d\n", 4),
    ],
)
def test_format_malformed_names_the_line(source: str, line: int) -> None:
    with pytest.raises(LoadError) as info:
        load_text("bad.fmt", source, "format")
    assert info.value.line == line


# ---------------------------------------------------------------------------------------
# ${var}


def test_dollar_slots(load) -> None:  # type: ignore[no-untyped-def]
    source = "Hello ${user.name}!\nNow: ${new Date().toISOString()} and \\${literal}\n"
    t = load(source, "dollar")
    slots = list(t.slots())
    assert [src(t, s) for s in slots] == ["${user.name}", "${new Date().toISOString()}"]
    assert [pos(t, s) for s in slots] == [(1, 7), (2, 6)]
    assert slots[0].expr.path == ("user", "name")
    assert "toISOString" in slots[1].expr.calls


def test_dollar_nested_braces_and_crlf(load) -> None:  # type: ignore[no-untyped-def]
    source = "A\r\nB ${fmt({a: 1})} ✓ ${cwd}\r\n"
    t = load(source, "dollar")
    slots = list(t.slots())
    assert [src(t, s) for s in slots] == ["${fmt({a: 1})}", "${cwd}"]
    assert [pos(t, s) for s in slots] == [(2, 3), (2, 20)]


def test_dollar_unclosed_names_the_line() -> None:
    with pytest.raises(LoadError) as info:
        load_text("bad.tmpl", "a\nb\n${oops\n", "dollar")
    assert info.value.line == 3


# ---------------------------------------------------------------------------------------
# Markdown


@pytest.mark.parametrize(
    "source",
    ["# Soul\n\nYou answer {answer} in prose.\n", "Ünïcode 😀\r\nline two\r\n", "x", ""],
)
def test_markdown_is_static_text(load, source: str) -> None:  # type: ignore[no-untyped-def]
    t = load(source, "markdown")
    assert list(t.slots()) == []
    assert rendered_text(t) == source


# ---------------------------------------------------------------------------------------
# Files: decoding, BOM, CRLF


def test_load_file_with_bom_and_crlf(tmp_path: Path, tiles) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "bom.j2"
    path.write_bytes(b"\xef\xbb\xbfLine one\r\nHi {{ user.name }}\r\n")
    t = load_file(str(path))
    tiles(t)
    assert t.has_bom is True
    assert t.newline == "\r\n"
    assert not t.source.startswith("\ufeff")
    slot = only(t.segments, Slot)
    assert pos(t, slot) == (2, 4)


def test_decode_refuses_binary_and_invalid_utf8() -> None:
    with pytest.raises(LoadError, match="binary"):
        decode(b"abc\x00def")
    with pytest.raises(LoadError) as info:
        decode(b"line one\nab\xffcd\n")
    assert (info.value.line, info.value.column) == (2, 3)


# ---------------------------------------------------------------------------------------
# Syntax detection


@pytest.mark.parametrize(
    ("path", "text", "syntax"),
    [
        ("a.j2", "plain", "jinja"),
        ("a.jinja", "plain", "jinja"),
        ("a.jinja2", "plain", "jinja"),
        ("a.mustache", "plain", "mustache"),
        ("a.hbs", "plain", "mustache"),
        ("a.handlebars", "plain", "mustache"),
        ("a.fmt", "plain", "format"),
        ("a.tmpl", "plain", "dollar"),
        ("a.json", "{}", "json"),
        ("A.J2", "plain", "jinja"),
        ("notes.md", "# Title\n\nAnswer {answer} here.\n", "markdown"),
        ("notes.txt", "Just text.\n", "markdown"),
        ("system.txt", "{% if x %}a{% endif %}", "jinja"),
        ("system.prompt", "{# note #}Hello", "jinja"),
        ("system.md", "Hello {{ user.name | title }}", "jinja"),
        ("system.md", "Hello {{ now().isoformat() }}", "jinja"),
        ("system.txt", "{{#each tools}}{{name}}{{/each}}", "mustache"),
        ("system.md", "Hello {{name}}", "mustache"),
        ("system.prompt", "Hello ${user}", "dollar"),
        ("system.j2.md", "Hello {name}", "jinja"),
        ("system.fmt.txt", "Hello {name}", "format"),
    ],
)
def test_detect_syntax(path: str, text: str, syntax: str) -> None:
    assert detect_syntax(path, text) == syntax


def test_load_text_uses_detected_syntax(tiles) -> None:  # type: ignore[no-untyped-def]
    t = load_text("x.txt", "Intro\n{% for t in tools %}{{ t }}{% endfor %}\n")
    assert t.syntax == "jinja"
    tiles(t)
    assert any(isinstance(s, Block) and s.kind == "for" for s in walk(t.segments))


# -- jinja2's lexer, its text rule compiled for one pass: the same tokens as jinja2's own -------

from hypothesis import given, settings, strategies as st  # noqa: E402

from promptlint.loaders import jinja  # noqa: E402

_JINJA_PIECES = st.sampled_from([
    "{", "}", "{{", "}}", "{%", "%}", "{#", "#}", "{{-", "-}}", "{%-", "-%}", "{%+", "{{{", "{%%",
    " raw ", " endraw ", "{% raw %}", "{% endraw %}", "{% raw -%}", "if x", "endif", "for a in b", "endfor",
    "'", '"', "x", " ", "\n", "\r\n", "\r", "\t", "é", "(", ")", "[", "]", "|", "1", "-", "+", "#", "%",
])


def _lexed(lexer, source: str):  # type: ignore[no-untyped-def]
    try:
        return list(lexer.tokeniter(source, None))
    except Exception as exc:  # the same failure, at the same line, is the same answer
        return type(exc), str(exc), getattr(exc, "lineno", None)


@settings(max_examples=600)
@given(st.lists(_JINJA_PIECES, max_size=40).map("".join))
def test_jinja_lexer_gives_jinja2s_own_tokens(source: str) -> None:
    if jinja.lexer() is jinja.environment().lexer:  # jinja2 is not pinned
        pytest.skip("this jinja2's text rule is not of the shape the one-pass rule replaces: its own is used")
    assert _lexed(jinja.lexer(), source) == _lexed(jinja.environment().lexer, source)


def test_jinja_lexer_gives_jinja2s_own_tokens_for_every_shipped_template() -> None:
    root = Path(__file__).resolve().parent.parent
    sources = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.glob("fixtures/**/*.j2"))]
    assert len(sources) > 20
    for source in sources + ["text " * 5000 + "{{ x }}" + "{ y } " * 5000]:
        assert _lexed(jinja.lexer(), source) == _lexed(jinja.environment().lexer, source)


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("a\r\n\\é "), max_size=30))
def test_jinja_newline_normalisation_is_jinja2s(value: str) -> None:
    from jinja2.lexer import Lexer

    assert jinja._newlines_normalised(value) == Lexer(jinja.environment())._normalize_newlines(value)


def test_jinja_templates_fail_as_jinja2s_own_parse_fails() -> None:
    from jinja2 import TemplateSyntaxError

    for source in ("{{ 'a\\\r\nb' }}", "{{ 'a\r\nb' }}\r\n{% if x %}\r{% endif %}", "{{ '\\x\r' }}",
                   "{% if x %}\r\n", "{{ x }}\r{% endfor %}", "{% raw %}\r\n{% endraw %}"):
        expected: object
        try:
            jinja.environment().parse(source)
            expected = None
        except TemplateSyntaxError as exc:
            expected = (exc.message, exc.lineno)
        try:
            jinja.load("t.j2", source)
            got: object = None
        except LoadError as exc:
            got = (exc.message.removeprefix("malformed Jinja template: "), exc.line)
        assert got == expected, source


@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from("ab{}{}{} \n:x0!é"), max_size=40))
def test_format_literals_end_where_a_character_by_character_walk_says(source: str) -> None:
    import string

    from promptlint.loaders import formatstr

    try:
        items = list(string.Formatter().parse(source))
    except ValueError:
        return  # malformed: the loader's error, tested elsewhere
    cursor = 0
    for literal, field, _spec, _conversion in items:
        if literal:
            walked = cursor
            for ch in literal:  # each character one, a brace the source doubles two
                walked += 2 if ch in "{}" and source.startswith(ch * 2, walked) else 1
            assert formatstr._literal_end(source, cursor, literal) == walked
            cursor = walked
        if field is not None:
            try:
                cursor = formatstr._field_end(source, cursor)
            except LoadError:
                return  # a field the loader refuses (`{!{}`)


def test_a_file_is_read_whole_up_to_the_limit_and_one_byte_past_it(tmp_path: Path) -> None:
    # read_bytes reads what stat said the file holds, plus a byte to see that it grew; a file
    # whose size stat does not tell (/proc) is still read, never past the limit and a byte.
    import sys

    from promptlint.loaders import read_bytes

    small = tmp_path / "small.j2"
    small.write_bytes(b"Hello {{ name }}\n")
    assert read_bytes(str(small), 8 << 20) == b"Hello {{ name }}\n"
    assert read_bytes(str(small), None) == b"Hello {{ name }}\n"
    exact = tmp_path / "exact.md"
    exact.write_bytes(b"x" * 100)
    assert read_bytes(str(exact), 100) == b"x" * 100
    if sys.platform.startswith("linux"):
        assert os.stat("/proc/self/status").st_size == 0
        status = read_bytes("/proc/self/status", 1 << 20)
        assert status.startswith(b"Name:") and len(status) > 100
        assert len(read_bytes("/proc/self/status", 10)) == 11
        assert read_bytes("/proc/self/status", None).startswith(b"Name:")
    # Longer than one read's ask after the first: read in pieces, joined.
    grown = tmp_path / "big.md"
    grown.write_bytes(bytes(range(256)) * 20000)
    assert read_bytes(str(grown), None) == bytes(range(256)) * 20000
    assert read_bytes(str(grown), 8 << 20) == bytes(range(256)) * 20000


def test_jinja_colon_before_a_body_is_read_as_jinja2_reads_it(load) -> None:  # type: ignore[no-untyped-def]
    # jinja2 skips a colon that ends a block's opening tag (for Python's sake): the test, the
    # loop and the names are what they are without it (the colon once crashed the check).
    source = ("{% if mode: %}A{% elif other : %}B{% else: %}C{% endif %}"
              "{% for tool in tools: %}{{ tool }}{% endfor %}{% set note: %}n{% endset %}{% block body: %}{% endblock %}")
    t = load(source, "jinja")
    blocks = [s for s in t.segments if isinstance(s, Block)]
    assert [b.kind for b in blocks] == ["if", "for", "set", "block"]
    assert blocks[0].expr is not None and blocks[0].expr.path == ("mode",)
    elif_tag = next(s for s in blocks[0].body if isinstance(s, Tag) and s.tag == "elif")
    assert elif_tag.expr is not None and elif_tag.expr.path == ("other",)
    assert blocks[1].expr is not None and blocks[1].expr.root == "tools" and blocks[1].loop_vars == ("tool",)
    assert blocks[2].target == "note" and blocks[3].target == "body"


def test_jinja_set_block_with_an_equals_sign_in_its_filter(load) -> None:  # type: ignore[no-untyped-def]
    # jinja2 reads an assignment only at an `=` outside brackets: this is a block set
    source = "{% set note | indent(width=2) %}{{ user.name }}{% endset %}{% set pair = a == '=' %}{{ note }}"
    t = load(source, "jinja")
    block = only(t.segments, Block)
    assert block.kind == "set" and block.target == "note"
    assert only(block.body, Slot).expr.path == ("user", "name")
    pair = next(s for s in t.segments if isinstance(s, Tag) and s.tag == "set")
    assert pair.target == "pair" and pair.expr is not None and pair.expr.path == ("a",)


def test_jinja_comment_left_open_at_the_end_is_a_comment(load) -> None:  # type: ignore[no-untyped-def]
    # jinja2 renders "Hi\n" of this (its lexer ends at an open `{#` and one line break)
    source = "Hi\n{#\n"
    t = load(source, "jinja")
    assert [s.tag for s in t.segments if isinstance(s, Tag)] == ["comment"]
    assert t.segments[-1].span.end == len(source)


_STRUCTURES = [
    "{% if a %}x{% elif b %}y{% else %}z{% endif %}",
    "{% if a %}x{% else %}y{% else %}z{% endif %}",
    "{% if a %}x{% else %}y{% elif b %}z{% endif %}",
    "{% for a in b %}x{% else %}y{% endfor %}",
    "{% for a in b %}x{% else %}y{% else %}z{% endfor %}",
    "{% for a in b %}x{% elif c %}y{% endfor %}",
    "{% else %}", "{% endif %}", "{% elif a %}",
    "{% set x %}a{% else %}b{% endset %}",
    "{% set x | upper %}a{% endset %}{% set y = x %}{{ y }}",
    "{% if a %}{% for b in c %}{% endif %}{% endfor %}",
    "{% if a %}{% for b in c %}{% endfor %}",
    "{% if a %}x{% endif b %}", "{% if a %}x{% else b %}{% endif %}", "{% if a %}x{% endif: %}",
    "{% if a: %}x{% elif b: %}{% else: %}{% endif %}",
    "{% if a if b else c %}x{% endif %}", "{% if a, b %}x{% endif %}", "{% if %}x{% endif %}",
    "{% if a %}x{% elif %}y{% endif %}", "{% if a %}x{% elif b if c else d %}y{% endif %}",
    "{% for a in b:: %}x{% endfor %}", "{% set x = 1 %}{% set 1 = x %}", "{% set x | f(k=1) %}a{% endset %}",
    "{% %}", "{% if a %}{% include 'b' %}{% endif %}", "{% if a %}{% break %}{% endif %}",
    "{% if a %}" * 70 + "x" + "{% endif %}" * 70,
    "{% if a %}" * 300 + "x" + "{% endif %}" * 300,
]


@pytest.mark.parametrize("source", _STRUCTURES)
def test_jinja_block_structure_is_read_as_jinja2_parses_it(source: str) -> None:
    # The loader checks the block structure of templates made of if/for/set itself, and
    # parses each tag alone (see loaders/jinja.py, _Checks): it must accept exactly what
    # jinja2's parse accepts, and parse the template whole where it cannot vouch for it.
    from jinja2 import TemplateSyntaxError

    try:
        jinja.environment().parse(source)
        expected: object = None
    except TemplateSyntaxError as exc:
        expected = (exc.message, exc.lineno)
    except RecursionError:
        expected = RecursionError
    try:
        loaded = jinja.load("t.j2", source)
        got: object = None
    except LoadError as exc:
        got = (exc.message.removeprefix("malformed Jinja template: "), exc.line)
    except RecursionError:
        got = RecursionError
    assert got == expected
    if got is None:  # the whole parse was spared where the tags are all if/for/set and shallow
        simple = not any(tag in source for tag in ("include", "break", "else:")) and source.count("{% if") < 64
        assert (loaded.jinja_tree is None) is simple


@pytest.mark.parametrize("source", ["{{#}}x{{/each}}", "Intro\n{{# }}\nx\n{{/}}\n", "{{#~}}x{{/x}}"])
def test_mustache_section_that_names_nothing_is_malformed(source: str) -> None:
    with pytest.raises(LoadError) as info:
        load_text("p.mustache", source, "mustache")
    assert "names nothing" in info.value.message and "\n" not in info.value.message


def _field_end_walked(source: str, start: int) -> int | None:
    """A field's end as a character-by-character walk finds it (the loaders' fast path finds
    the first `}` with str.find where no `{` comes before it): None where it never closes."""
    depth = 0
    for i in range(start, len(source)):
        if source[i] == "{":
            depth += 1
        elif source[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


@settings(max_examples=400)
@given(st.text(alphabet=st.sampled_from("ab{}{}{} \n:x"), max_size=40))
def test_a_fields_closing_brace_is_where_a_character_walk_finds_it(tail: str) -> None:
    from promptlint.loaders import dollar, formatstr

    source = "{" + tail
    walked = _field_end_walked(source, 0)
    try:
        assert formatstr._field_end(source, 0) == walked
    except LoadError:
        assert walked is None
    # `${…}` in a dollar template: the slot spans to the same brace.
    text = "$" + source
    try:
        slots = [s for s in dollar.load("t.tmpl", text).segments if isinstance(s, Slot)]
    except LoadError:
        assert walked is None
    else:
        assert walked is not None and slots[0].span == Span(0, walked + 1)


# Mustache pieces: every sigil, the forms of Handlebars (triple, raw, escaped, `~`, else, block
# parameters, partial and inline blocks), set-delimiter tags to and from custom delimiters.
_MUSTACHE_PIECES = st.sampled_from([
    "{", "}", "{{", "}}", "{{{", "}}}", "{{{{", "}}}}", "#", "/", "^", "!", "=", "&", ">", "*", "~", "\\",
    " ", "  ", "\t", "\n", "\r\n", "a", "b", "x.y", "else", "each", "if", "as |i|", '"s"', "(", ")",
    "{{a}}", "{{ a }}", "{{#a}}", "{{/a}}", "{{^a}}", "{{else}}", "{{~a~}}", "{{#each a}}", "{{/each}}",
    "{{=<% %>=}}", "<%", "%>", "<%={{ }}=%>", "{{=| |=}}", "|", "{{{{raw}}}}", "{{{{/raw}}}}",
])


def _mustache_read(parser: type, source: str) -> object:
    try:
        return parser(source).parse()
    except LoadError as exc:  # the same message at the same line is the same answer
        return exc.message, exc.line


@settings(max_examples=1500)
@given(st.lists(_MUSTACHE_PIECES, max_size=40).map("".join))
def test_mustache_parse_reads_as_the_reference_parser_reads(source: str) -> None:
    from promptlint.loaders import mustache
    from support.mustache_reference import ReferenceParser

    assert _mustache_read(mustache._Parser, source) == _mustache_read(ReferenceParser, source)


@settings(max_examples=600)
@given(st.lists(_JINJA_PIECES, max_size=40).map("".join))
def test_jinja_token_offsets_summed_are_those_searched(source: str) -> None:
    try:
        lexed = list(jinja.lexer().tokeniter(source, None))
    except Exception:
        return  # jinja2 refuses it: no tokens to place
    builder = jinja._Builder("t.j2", source, lexed)
    normal, _original = jinja._normalised(source)
    summed = builder._summed(normal)
    if summed is not None:  # every token after the one before: the sums are where a search finds them
        assert summed == builder._searched(normal)
    else:  # only whitespace control strips text between tokens
        assert "-" in source or not lexed
