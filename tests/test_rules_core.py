"""PC101 (volatile-before-stable) and PC102 (unsorted-tool-loop) through the Python API."""

from __future__ import annotations

import pytest

from promptlint.core import tokens
from promptlint.core.analysis import analyze, find_units, render
from promptlint.api import check_text as _check_text
from promptlint.config import Config
from promptlint.loaders import load_text

CLOCK = '{{ now().strftime("%H:%M:%S") }}'
CORE = ("PC101", "PC102")


def check_text(text: str, path: str, config: Config | None = None):  # type: ignore[no-untyped-def]
    """check_text with only the rules under test (other rules have their own suites)."""
    config = config or Config()
    if config.select is None:
        config = config.with_options(select=CORE)
    return _check_text(text, path, config=config)


@pytest.fixture
def body(long_rules: str) -> str:
    text = long_rules
    assert len(text.split()) > 300
    return text


def test_clock_near_the_top_is_one_error_at_its_position(body: str) -> None:
    source = f"You are Atlas, a support agent.\nCurrent time:   {CLOCK}\n{body}\n"
    result = check_text(source, "agent.j2")
    assert result.error is None
    assert [f.rule for f in result.findings] == ["PC101"]
    finding = result.findings[0]
    assert finding.severity == "error"
    assert (finding.line, finding.column) == (2, 17)
    assert (finding.end_line, finding.end_column) == (2, 17 + len(CLOCK))
    assert finding.kind == "timestamp"
    assert finding.frequency == "per-request"
    assert finding.name == "volatile-before-stable"
    assert finding.tokens_lost > 100
    # What it costs is the stable text after the clock, counted in tokens.
    after = tokens.count(f"\n{body}\n")
    assert abs(finding.tokens_lost - after) <= 2
    assert f"{finding.tokens_lost:,}" in finding.message


def test_clock_on_the_last_line_is_a_warning_not_an_error(body: str) -> None:
    source = f"You are Atlas, a support agent.\n{body}\nCurrent time: {CLOCK}\n"
    result = check_text(source, "agent.j2")
    assert [f.rule for f in result.findings] == ["PC101"]
    finding = result.findings[0]
    assert finding.severity == "warning"
    assert finding.line == body.count("\n") + 3
    assert finding.tokens_lost < 100


def test_day_precision_date_at_the_top_is_a_warning(body: str) -> None:
    source = f'Date: {{{{ now().strftime("%Y-%m-%d") }}}}\n{body}\n'
    [finding] = check_text(source, "agent.j2").findings
    assert (finding.severity, finding.frequency) == ("warning", "per-day")


def test_session_value_at_the_tail_is_info(body: str) -> None:
    source = f"{body}\nWorking directory: {{{{ cwd }}}}\n"
    [finding] = check_text(source, "agent.j2").findings
    assert (finding.severity, finding.kind) == ("info", "environment")


def test_clean_template_has_no_findings(body: str) -> None:
    source = f"You are {{{{ agent_name }}}} from {{{{ company }}}}.\nTone: {{{{ tone }}}}\n{body}\n"
    result = check_text(source, "agent.j2")
    assert result.error is None
    assert result.findings == []
    assert result.tokens is not None and result.tokens > 300
    assert result.stable_prefix_tokens == result.tokens


def test_unsorted_tool_loop_is_pc102_error(body: str) -> None:
    source = (
        "You are Atlas.\nTools:\n{% for tool in tools %}\n- {{ tool.name }}: {{ tool.description }}\n"
        f"{{% endfor %}}\n{body}\n"
    )
    result = check_text(source, "agent.j2")
    assert [f.rule for f in result.findings] == ["PC102"]
    finding = result.findings[0]
    assert finding.severity == "error"
    assert finding.kind == "tool-order"
    assert (finding.line, finding.column) == (3, 1)
    assert (finding.end_line, finding.end_column) == (3, len("{% for tool in tools %}") + 1)
    assert finding.tokens_lost > 100


@pytest.mark.parametrize(
    "loop",
    [
        "{% for tool in tools | sort(attribute='name') %}",
        "{% for name, tool in tools | dictsort %}",
    ],
)
def test_sorted_tool_loop_is_quiet(body: str, loop: str) -> None:
    source = f"You are Atlas.\nTools:\n{loop}\n- {{{{ tool.name }}}}\n{{% endfor %}}\n{body}\n"
    result = check_text(source, "agent.j2")
    assert result.error is None
    assert result.findings == []


def test_unsorted_handlebars_each_is_pc102(body: str) -> None:
    source = f"You are Atlas.\n{{{{#each tools}}}}\n- {{{{name}}}}\n{{{{/each}}}}\n{body}\n"
    result = check_text(source, "agent.hbs")
    assert [(f.rule, f.line) for f in result.findings] == [("PC102", 2)]


@pytest.mark.parametrize(
    "source",
    [
        "Intro line.\nUser: {{ user.name }}\nNow: {{ now() }}\n{% for t in tools %}{{ t }}{% endfor %}\n{body}",
        "Today is {{ current_date }}.\n{body}",
        "Hello {{ user_name }}, welcome back.\n{body}\nBye {{ session_id }}",
    ],
)
@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_stable_prefix_is_the_lcp_of_two_renderings(body: str, source: str, encoding: str) -> None:
    template = load_text("agent.j2", source.replace("{body}", body), "jinja")
    analysis = analyze(template, encoding)
    units = find_units(template)
    assert units
    first = tokens.encode(render(template, units, 0), encoding)
    second = tokens.encode(render(template, units, 1), encoding)
    lcp = 0
    while lcp < min(len(first), len(second)) and first[lcp] == second[lcp]:
        lcp += 1
    assert analysis.stable_prefix_tokens == lcp
    assert lcp < len(first)
    assert analysis.tokens == len(first)


def test_check_text_reports_the_same_figures(body: str) -> None:
    source = f"Intro.\nUser: {{{{ user.name }}}}\n{body}"
    result = check_text(source, "agent.j2")
    analysis = analyze(load_text("agent.j2", source, "jinja"))
    assert (result.tokens, result.stable_prefix_tokens) == (analysis.tokens, analysis.stable_prefix_tokens)
    assert result.stable_prefix_tokens == tokens.count("Intro.\nUser:")


def test_select_and_ignore_in_config(body: str) -> None:
    source = f"Now: {CLOCK}\n{{% for t in tools %}}{{{{ t }}}}{{% endfor %}}\n{body}"
    rules = lambda config: sorted(f.rule for f in check_text(source, "a.j2", config=config).findings)
    assert rules(Config()) == ["PC101", "PC102"]
    assert "PC101" in [f.rule for f in _check_text(source, "a.j2").findings]  # on by default
    assert rules(Config(select=("PC101",))) == ["PC101"]
    assert rules(Config(ignore=("PC101",))) == ["PC102"]
    by_prefix = rules(Config(select=("PC1",), ignore=("PC102",)))
    assert "PC101" in by_prefix and "PC102" not in by_prefix


def test_config_stable_and_volatile_reach_the_rules(body: str) -> None:
    source = f"User: {{{{ user.name }}}} of {{{{ agent_name }}}}\n{body}"
    findings = check_text(source, "a.j2", config=Config(stable=("user",), volatile={"agent_name": ("identity", "per-session")})).findings
    assert [(f.rule, f.column) for f in findings] == [("PC101", 26)]


def test_malformed_text_is_an_error_not_an_exception() -> None:
    result = check_text("ok\n{% if x %}\n", "bad.j2")
    assert result.error is not None and "line" in result.error
    assert result.findings == []


@pytest.mark.parametrize(("source", "says"), [
    ("{body}\n{{{{ user_name }}}}", "only 0 stable tokens follow it"),
    ("{body}\n{{{{ user_name }}}}.", "only 1 stable token follows it"),
    ("You help people.\n{{{{ user_name }}}} bye", "1 stable token after it is re-billed"),
    ("You help people.\n{{{{ user_name }}}}\nBye", "2 stable tokens after it are re-billed"),
])
def test_the_cost_of_a_value_agrees_in_number(body: str, source: str, says: str) -> None:
    [finding] = check_text(source.format(body=body), "agent.j2").findings
    assert says in finding.message, finding.message
