"""Property tests of ``promptlint fix`` over generated templates in every syntax.

For any template (random text with Unicode and CRLF line endings, list items, code
fences, table rows, slots of every volatility kind at random places, nested Jinja
``if``/``for`` blocks and Mustache sections), the fix never loses or adds a word, is
idempotent, never produces a template that fails to parse, never increases the number
of volatile values that stand before stable text, and is never refused by its own proof.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from promptlint.core.analysis import analyze
from promptlint.fix import plan_fix
from promptlint.loaders import LoadError, load_text

EXAMPLES = 2000
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])

VOLATILE = ["now", "current_time", "user.name", "session_id", "cwd", "git_status", "documents", "memory", "tools"]
STABLE = ["agent_name", "product_name", "company"]
NAMES = VOLATILE + STABLE
WORDS = ["You", "are", "Atlas", "héllo", "naïve", "数据", "ключ", "🙂", "rule", "cite", "never", "the", "answer",
         "files", "and", "x", "ß", "–", "Ω"]
ENDINGS = ["", ".", ":", ",", "!", "?"]


def _slots(syntax: str) -> list[str]:
    """Every slot the generator uses in a syntax (markdown has none: literal text)."""
    if syntax == "jinja":
        return [f"{{{{ {n} }}}}" for n in NAMES] + ["{{ now() }}", '{{ now().strftime("%H:%M") }}']
    if syntax == "mustache":
        return [f"{{{{{n}}}}}" for n in NAMES] + [f"{{{{{{{n}}}}}}}" for n in ("user.name", "documents")]
    if syntax == "format":
        return [f"{{{n}}}" for n in NAMES] + ["{now:%H:%M}"]
    if syntax == "dollar":
        return [f"${{{n}}}" for n in NAMES]
    return [f"<{n}>" for n in NAMES]


_PREFIXES = st.sampled_from(["", "", "", "- ", "  ", "1. ", "## ", "| "])
_TEXT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)
_PARTS = {
    syntax: st.lists(st.one_of(_TEXT, _TEXT, _TEXT, st.sampled_from(_slots(syntax))), min_size=1, max_size=4)
    for syntax in ("jinja", "mustache", "format", "dollar", "markdown")
}


@st.composite
def _line(draw, syntax: str) -> str:  # type: ignore[no-untyped-def]
    return draw(_PREFIXES) + " ".join(draw(_PARTS[syntax])) + draw(st.sampled_from(ENDINGS))


@st.composite
def _body(draw, syntax: str, depth: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Lines of a template; blocks open and close on their own lines or inline."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 5 if depth == 0 else 3))):
        kind = draw(st.sampled_from(["line", "line", "line", "blank", "fence", "block"]))
        if kind == "line":
            lines.append(draw(_line(syntax)))
        elif kind == "blank":
            lines.append("")
        elif kind == "fence":
            lines += ["```", draw(_line(syntax)), "```"]
        elif depth < 2 and syntax in ("jinja", "mustache"):
            lines += draw(_block(syntax, depth))
        else:
            lines.append(draw(_line(syntax)))
    return lines


@st.composite
def _block(draw, syntax: str, depth: int) -> list[str]:  # type: ignore[no-untyped-def]
    name = draw(st.sampled_from(NAMES))
    inner = draw(_body(syntax, depth + 1))
    if syntax == "jinja":
        var = name.split(".")[0]
        opening, closing = draw(st.sampled_from([
            (f"{{% if {name} %}}", "{% endif %}"),
            (f"{{% for item in {var} %}}", "{% endfor %}"),
        ]))
        if draw(st.booleans()) and opening.startswith("{% if"):
            inner = inner + ["{% else %}"] + draw(_body(syntax, depth + 1))
    else:
        sigil = draw(st.sampled_from(["#", "#", "^"]))
        opening, closing = f"{{{{{sigil}{name}}}}}", f"{{{{/{name}}}}}"
    if draw(st.booleans()):  # inline: the tags share lines with text
        return [opening + (inner[0] if inner else ""), *inner[1:-1], (inner[-1] if len(inner) > 1 else "") + closing]
    return [opening, *inner, closing]


@st.composite
def templates(draw, syntax: str) -> str:  # type: ignore[no-untyped-def]
    lines = draw(_body(syntax, 0))
    # Stable text at the end, so that there is something to move volatile parts behind.
    lines += ["", draw(_line("markdown")), draw(_line("markdown"))] if draw(st.booleans()) else []
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines)
    return text + (newline if draw(st.booleans()) else "")


def _volatile_before_stable(source: str, syntax: str) -> int:
    analysis = analyze(load_text("p", source, syntax))
    return sum(1 for u in analysis.units if analysis.stable_text[analysis.offset_of(u.segment) :].strip())


def check_fix_properties(source: str, syntax: str) -> None:
    try:
        template = load_text("p", source, syntax)
    except LoadError:
        return  # generated text that is not a template in this syntax (none expected)
    result = plan_fix(template)
    assert not result.problems, (result.problems, source)
    event("moved" if result.changed else ("refused a move" if result.not_fixable else "nothing to move"))
    if not result.changed:
        assert result.new_source == source or result.problems
        return
    new = result.new_source
    assert Counter(new.split()) == Counter(source.split()), source
    fixed = load_text("p", new, syntax)  # parses
    assert not plan_fix(fixed).changed, (source, new)  # idempotent
    assert _volatile_before_stable(new, syntax) <= _volatile_before_stable(source, syntax)
    assert result.stable_after > result.stable_before
    if "\r\n" in source:
        assert "\n" not in new.replace("\r\n", ""), "moved text lost its CRLF line endings"
    assert new.endswith("\n") == source.endswith("\n")


@SETTINGS
@given(templates("jinja"))
def test_fix_properties_jinja(source: str) -> None:
    check_fix_properties(source, "jinja")


@SETTINGS
@given(templates("mustache"))
def test_fix_properties_mustache(source: str) -> None:
    check_fix_properties(source, "mustache")


@SETTINGS
@given(templates("format"))
def test_fix_properties_format(source: str) -> None:
    check_fix_properties(source, "format")


@SETTINGS
@given(templates("dollar"))
def test_fix_properties_dollar(source: str) -> None:
    check_fix_properties(source, "dollar")


@SETTINGS
@given(templates("markdown"))
def test_fix_properties_markdown(source: str) -> None:
    check_fix_properties(source, "markdown")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(templates("jinja"))
def test_unsafe_fixes_parse_are_idempotent_and_proved(source: str) -> None:
    template = load_text("p", source, "jinja")
    result = plan_fix(template, unsafe=True)
    assert not result.problems, (result.problems, source)
    if result.changed:
        fixed = load_text("p", result.new_source, "jinja")
        assert not plan_fix(fixed, unsafe=True).changed
