"""Handlebars beyond the Mustache spec (helper blocks with arguments and hash options,
sub-expressions, `{{else if}}`, block parameters) and the Jinja structures that hold
per-request content (`{% block %}` filled by child templates, `{% extends %}` chains,
`{% include %}` of a per-session component)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from promptlint.api import check_paths, check_text
from promptlint.core.analysis import analyze, find_units, put_in, render, renderings
from promptlint.core.ir import Block, Slot, Tag, Template, walk
from promptlint.loaders import LoadError, load_file, load_text
from promptlint.project import includes_others

from conftest import LONG_RULES
from test_fix_properties import templates


def _blocks(source: str) -> list[Block]:
    return [s for s in walk(load_text("p.hbs", source).segments) if isinstance(s, Block)]


def test_list_helper_with_hash_options_is_a_loop_over_its_argument(tiles) -> None:  # type: ignore[no-untyped-def]
    source = '{{#list mcpServers prefix="- " join=", "}}{{this}}{{/list}}'
    (block,) = _blocks(source)
    assert (block.kind, block.helper, block.expr.path) == ("each", "list", ("mcpServers",))
    tiles(load_text("p.hbs", source))


def test_helper_conditions_render_their_body() -> None:
    source = (
        '{{#if (eq mode "checkin")}}It is {{formatDate now "HH:mm"}}.{{else if quiet}}Hush.{{/if}}\n'
        '{{#has tools "read"}}Read with {{toolRefs.read}}.{{/has}}\n'
        "{{#ifAny a b}}{{#when MAX \">\" 0}}At most {{MAX}}.{{/when}}{{/ifAny}}\n"
    )
    blocks = _blocks(source)
    assert [(b.kind, b.helper) for b in blocks] == [("if", "if"), ("if", "has"), ("if", "ifAny"), ("if", "when")]
    template = load_text("p.hbs", source)
    assert [s.tag for s in walk(template.segments) if isinstance(s, Tag)] == ["else"]
    result = check_text(source + LONG_RULES, path="p.hbs")
    found = [(f.line, f.kind, f.severity) for f in result.findings if f.rule == "PC101"]
    assert found == [(1, "timestamp", "error")]  # the clock inside {{#if (eq …)}}


def test_block_parameters_bind_the_item() -> None:
    (block,) = _blocks("{{#each docs as |doc i|}}{{doc.title}}{{/each}}")
    assert block.kind == "each" and {"doc", "i"} <= set(block.loop_vars)


def test_sub_expression_sort_marks_the_loop_sorted() -> None:
    (block,) = _blocks('{{#each (sortBy tools "name")}}- {{name}}{{/each}}')
    assert block.sorted and block.expr.path == ("tools",)


def test_context_files_and_environment_list_are_per_session(tmp_path: Path) -> None:
    source = (
        "You are a coding assistant.\n"
        '{{#list environment prefix="- " join="\\n"}}{{label}}: {{value}}{{/list}}\n'
        "{{#each contextFiles}}\n<file path=\"{{path}}\">\n{{content}}\n</file>\n{{/each}}\n"
        "{{#each skills}}- {{name}}: {{description}}\n{{/each}}\n"
        "{{#each toolInfo}}- {{name}}\n{{/each}}\n" + LONG_RULES
    )
    result = check_text(source, path="system.md")
    assert result.syntax == "mustache"
    found = sorted((f.line, f.kind, f.severity) for f in result.findings if f.rule in ("PC101", "PC102"))
    assert found == [
        (2, "environment", "warning"),
        (3, "environment", "warning"),
        (8, "tool-order", "warning"),  # skills the host registers
        (10, "tool-order", "error"),  # tools can change order
    ]


def test_empty_block_that_children_fill_is_judged_by_its_name() -> None:
    source = "You are Ledger.\n{% block context %}{% endblock %}\n" + LONG_RULES
    template = load_text("base.j2", source)
    (block,) = [s for s in template.walk() if isinstance(s, Block)]
    assert block.target == "context"
    result = check_text(source, path="base.j2")
    found = [f for f in result.findings if f.rule == "PC101"]
    assert [(f.line, f.kind, f.severity) for f in found] == [(2, "retrieval", "error")]
    assert "templates that extend this one fill it" in found[0].message
    # a stable name, or a block with its own content, is not a finding
    assert check_text("{% block rules %}{% endblock %}\n" + LONG_RULES, path="b.j2").findings == []
    assert check_text("{% block context %}No documents.{% endblock %}\n" + LONG_RULES, path="b.j2").findings == []


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_child_block_is_judged_where_the_parent_renders_it(tmp_path: Path) -> None:
    _write(tmp_path, "base.j2", "You are Ledger.\n{% block context %}{% endblock %}\n" + LONG_RULES + "\n{% block tail %}{% endblock %}\n")
    child = _write(
        tmp_path,
        "child.j2",
        '{% extends "base.j2" %}\n{% block tail %}Be brief.{% endblock %}\n'
        "{% block context %}\n{% for doc in documents %}{{ doc.body }}\n{% endfor %}\n{% endblock %}\n",
    )
    report = check_paths([str(child)])
    (result,) = report.files
    found = [(f.line, f.kind, f.severity) for f in result.findings if f.rule == "PC101"]
    # Last in the child file, first in the rendered prompt: everything of base.j2 follows it.
    assert found == [(4, "retrieval", "error")]
    assert next(f for f in result.findings if f.rule == "PC101").tokens_lost > 500
    assert result.stable_prefix_tokens is not None and result.stable_prefix_tokens < 10


def test_extends_chain_and_missing_parent(tmp_path: Path) -> None:
    _write(tmp_path, "root.j2", "Intro.\n{% block body %}{% endblock %}\n" + LONG_RULES)
    _write(tmp_path, "mid.j2", '{% extends "root.j2" %}{% block body %}Mid {% block user %}{% endblock %}{% endblock %}')
    leaf = _write(tmp_path, "leaf.j2", '{% extends "mid.j2" %}{% block user %}{{ user.name }}{% endblock %}')
    found = [(f.line, f.kind, f.severity) for f in check_paths([str(leaf)]).findings if f.rule == "PC101"]
    assert found == [(1, "identity", "error")]
    orphan = _write(tmp_path, "orphan.j2", '{% extends "nowhere.j2" %}{% block x %}{{ user.name }}{% endblock %}')
    report = check_paths([str(orphan)])
    assert any("nowhere.j2" in w for w in report.warnings)


def test_extends_cycle_is_not_followed(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.j2", '{% extends "b.j2" %}{% block x %}{{ now() }}{% endblock %}')
    _write(tmp_path, "b.j2", '{% extends "a.j2" %}{% block x %}{% endblock %}')
    report = check_paths([str(a)])
    assert not [r for r in report.files if r.error]


def test_include_of_a_per_session_component_is_a_warning_in_both_files(tmp_path: Path) -> None:
    _write(tmp_path, "components/env.j2", "Working directory: {{ cwd }}\nPlatform: {{ platform }}\n"
                                         "Sandbox: {{ 'on' if sandbox_enabled else 'off' }}\n")
    _write(tmp_path, "agent.j2", 'You are Quill.\n{% include "components/env.j2" %}\n' + LONG_RULES)
    report = check_paths([str(tmp_path)])
    pc104 = sorted((Path(f.path).name, f.line, f.kind, f.severity) for f in report.findings if f.rule == "PC104")
    assert pc104 == [
        ("agent.j2", 2, "environment", "warning"),
        ("env.j2", 1, "environment", "warning"),
        ("env.j2", 2, "environment", "warning"),
        ("env.j2", 3, "environment", "warning"),
    ]
    # Each finding lands in a checked file (not "a file they draw on").
    assert report.extra_findings == []


def test_include_of_a_clock_is_still_an_error(tmp_path: Path) -> None:
    _write(tmp_path, "now.j2", "Time: {{ now().strftime('%H:%M') }}\n")
    agent = _write(tmp_path, "agent.j2", '{% include "now.j2" %}\n' + LONG_RULES)
    found = [(f.line, f.severity) for f in check_paths([str(agent)]).findings if f.rule == "PC104"]
    assert found == [(1, "error")]


def test_analysis_of_a_child_counts_only_its_own_units(tmp_path: Path) -> None:
    _write(tmp_path, "base.j2", "{{ now() }}\n{% block b %}{% endblock %}\n" + LONG_RULES)
    child = _write(tmp_path, "child.j2", '{% extends "base.j2" %}{% block b %}Hello {{ user.name }}{% endblock %}')
    report = check_paths([str(child)])
    rules = sorted((f.line, f.kind) for f in report.findings if f.rule == "PC101")
    assert rules == [(1, "identity")]  # the parent's clock is the parent's finding
    # Without a resolver (the Python API on text alone) the child is read as written.
    analysis = analyze(load_text(str(child), child.read_text()))
    assert [u.volatility.kind for u in analysis.units] == ["identity"]
    assert not any(isinstance(s, Slot) and s.expr.root == "now" for s in walk(analysis.template.segments))


def _renders_as_put_in(template: Template) -> None:
    """Each request's rendering, put together from the stable one and its units' values, is
    the whole template rendered for that request, its units where ``on_unit`` says."""
    units = find_units(template)
    stable, offsets, inserts = renderings(template, units)
    whole_offsets: dict[int, int] = {}
    assert stable == render(template, units, None, lambda seg, at: whole_offsets.__setitem__(id(seg), at))
    assert offsets == whole_offsets
    for variant in (0, 1):
        spans: list[tuple[int, int]] = []
        whole = render(template, units, variant, on_unit=lambda start, end: spans.append((start, end)))
        assert put_in(stable, inserts, variant) == (whole, spans)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["jinja", "mustache"]).flatmap(lambda syntax: st.tuples(st.just(syntax), templates(syntax))))
def test_a_request_s_rendering_is_the_stable_one_with_its_units_values_put_in(case: tuple[str, str]) -> None:
    syntax, source = case
    try:
        template = load_text("p", source, syntax)
    except LoadError:
        return
    _renders_as_put_in(template)


@pytest.mark.parametrize("source", [
    # Units inside stable loops nested deeper than those rendered twice, and a volatile loop.
    "{% for a in xs %}" * 4 + "{{ a }} at {{ now() }}: {% for t in tools %}{{ t.name }} "
    + "{% for x in t.args %}{{ x }}{% endfor %}{% endfor %}" + "{% endfor %}" * 4 + "\nRules.",
    "{{#each agents}}{{name}}: {{#documents}}{{title}}{{/documents}} {{user.name}}{{/each}}\n{{session_id}}",
    '{% if now().hour < 12 %}Morning{% else %}Evening{% endif %} {% include "x.j2" %} {{ "2026-01-01" }}',
])
def test_nested_units_render_as_put_in(source: str) -> None:
    _renders_as_put_in(load_text("p.hbs" if "{{#" in source else "p.j2", source))


def _walks_to_an_include(template: Template) -> bool:
    """``includes_others`` as the walk alone answers it, without its look at the text first."""
    return any(isinstance(s, Tag) and s.tag in ("include", "partial", "extends") for s in template.walk())


_INCLUDE_PIECES = {
    "jinja": ['{% include "a.j2" %}', "{%- extends 'base.j2' -%}", "{% import 'm.j2' as m %}", "{{ a > b }}",
              "{% if x > 1 %}y{% endif %}", "include", "extends", "{# include #}", "{{ x }}", "text", "\n"],
    "mustache": ["{{> card}}", "{{>card}}", "{{=<% %>=}}", "<%> card%>", "{{#each xs}}{{.}}{{/each}}", "{{x}}",
                 "> quoted", "{{! > }}", "{{#a}}b{{/a}}", "text", "\n"],
}


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["jinja", "mustache"]).flatmap(
    lambda syntax: st.tuples(st.just(syntax), st.lists(st.sampled_from(_INCLUDE_PIECES[syntax]), max_size=8))))
def test_includes_others_answers_as_the_walk_does(case: tuple[str, list[str]]) -> None:
    syntax, pieces = case
    try:
        template = load_text("p.j2" if syntax == "jinja" else "p.hbs", "".join(pieces), syntax)
    except LoadError:
        return
    assert includes_others(template) == _walks_to_an_include(template)


def test_includes_others_answers_as_the_walk_does_on_the_fixtures() -> None:
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    checked = 0
    for path in sorted(fixtures.rglob("*")):
        if not path.is_file() or path.suffix not in (".j2", ".jinja", ".mustache", ".hbs", ".md", ".txt", ".tmpl"):
            continue
        try:
            template = load_file(str(path))
        except (LoadError, OSError):
            continue
        assert includes_others(template) == _walks_to_an_include(template), path
        checked += 1
    assert checked > 20
