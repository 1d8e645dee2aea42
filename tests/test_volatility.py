"""Classification of slots: kind, frequency and precision, from calls, format strings,
names and configuration."""

from __future__ import annotations

import pytest

from promptlint.core.ir import Expr, Slot
from promptlint.loaders import load_text
from promptlint.core.volatility import Overrides, classify, precision_of_format, words


def slot_expr(source: str, syntax: str) -> Expr:
    template = load_text("x", source, syntax)
    slots = list(template.slots())
    assert len(slots) == 1, slots
    slot: Slot = slots[0]
    return slot.alias_of or slot.expr


# (template source, syntax, kind, frequency, precision)
CLOCKS = [
    ('{{ now().strftime("%H:%M:%S") }}', "jinja", "per-request", "second"),
    ('{{ now().strftime("%H:%M") }}', "jinja", "per-request", "minute"),
    ('{{ now().strftime("%Y-%m-%d %H:00") }}', "jinja", "per-session", "hour"),
    ('{{ now().strftime("%Y-%m-%d") }}', "jinja", "per-day", "day"),
    ('{{ now().strftime("%A, %B %d") }}', "jinja", "per-day", "day"),
    ('{{ now().strftime("%B %Y") }}', "jinja", "per-deploy", "month"),
    ('{{ now().strftime("%Y-%m-%dT%H:%M:%S.%f") }}', "jinja", "per-request", "microsecond"),
    ('{{ now() | strftime("%H:%M") }}', "jinja", "per-request", "minute"),
    ("{{ now().isoformat() }}", "jinja", "per-request", "microsecond"),
    ('{{ now().isoformat(timespec="minutes") }}', "jinja", "per-request", "minute"),
    ("{{ date.today().isoformat() }}", "jinja", "per-day", "day"),
    ('{% set t = now().strftime("%H:%M") %}{{ t }}', "jinja", "per-request", "minute"),
    ('{{formatDate now "HH:mm:ss"}}', "mustache", "per-request", "second"),
    ('{{formatDate now "YYYY-MM-DD"}}', "mustache", "per-day", "day"),
    ('{{moment "HH:mm"}}', "mustache", "per-request", "minute"),
    ("${new Date().toISOString()}", "dollar", "per-request", "millisecond"),
    ("${new Date().toLocaleDateString()}", "dollar", "per-day", "day"),
    ("{now:%H:%M}", "format", "per-request", "minute"),
    ("{now:%Y-%m-%d}", "format", "per-day", "day"),
]


@pytest.mark.parametrize(("source", "syntax", "frequency", "precision"), CLOCKS)
def test_clock_precision(source: str, syntax: str, frequency: str, precision: str) -> None:
    vol = classify(slot_expr(source, syntax))
    assert vol is not None
    assert (vol.kind, vol.frequency, vol.precision) == ("timestamp", frequency, precision)
    assert vol.confidence == "high"


def test_clock_without_format_assumes_fine_precision() -> None:
    vol = classify(slot_expr("{{ now() }}", "jinja"))
    assert vol is not None
    assert (vol.kind, vol.frequency, vol.precision) == ("timestamp", "per-request", None)
    assert vol.assumed


# (name, kind, frequency)
NAMES = [
    ("current_date", "timestamp", "per-day"),
    ("today", "timestamp", "per-day"),
    ("CURRENT_DATETIME", "timestamp", "per-request"),
    ("currentTime", "timestamp", "per-request"),
    ("timestamp", "timestamp", "per-request"),
    ("session_started_at", "timestamp", "per-session"),
    ("process_start_time", "timestamp", "per-session"),
    ("user.name", "identity", "per-session"),
    ("user_name", "identity", "per-session"),
    ("userProfile", "identity", "per-session"),
    ("customer.email", "identity", "per-session"),
    ("user.timezone", "identity", "per-session"),
    ("session_id", "session-id", "per-session"),
    ("conversationId", "session-id", "per-session"),
    ("request_id", "session-id", "per-request"),
    ("trace_id", "session-id", "per-request"),
    ("cwd", "environment", "per-session"),
    ("working_directory", "environment", "per-session"),
    ("workPath", "environment", "per-session"),
    ("os", "environment", "per-session"),
    ("shell", "environment", "per-session"),
    ("git_status", "environment", "per-request"),
    ("recent_files", "environment", "per-request"),
    ("retrieved_documents", "retrieval", "per-request"),
    ("context", "retrieval", "per-request"),
    ("search_results", "retrieval", "per-request"),
    ("memory", "memory", "per-request"),
    ("chat_history", "memory", "per-request"),
    ("user_memories", "memory", "per-request"),
    ("tools", "tool-order", "per-session"),
    ("AVAILABLE_TOOLS", "tool-order", "per-session"),
    ("mcp_servers", "tool-order", "per-session"),
    ("DRIVER_NAME", "identity", "per-session"),
    ("CYCLE_NUMBER", "session-id", "per-request"),
    ("job_card", "retrieval", "per-request"),
    ("self.current_task", "memory", "per-request"),  # `self.` reads as the name after it
    # where something is kept, not the thing (openai-agents-python's memory prompts, mem0's
    # skills read `memory_dir` as memory and `CURSOR_PLUGIN_ROOT` as the editor's cursor)
    ("memory_dir", "environment", "per-session"),
    ("CURSOR_PLUGIN_ROOT", "environment", "per-session"),
    ("user_instructions", "identity", "per-session"),  # a user's own, unlike `memory_instructions`
]


@pytest.mark.parametrize(("name", "kind", "frequency"), NAMES)
@pytest.mark.parametrize("syntax", ["jinja", "mustache", "format", "dollar"])
def test_classified_by_name(name: str, kind: str, frequency: str, syntax: str) -> None:
    source = {
        "jinja": f"{{{{ {name} }}}}",
        "mustache": f"{{{{{name}}}}}",
        "format": f"{{{name}}}",
        "dollar": f"${{{name}}}",
    }[syntax]
    vol = classify(slot_expr(source, syntax))
    assert vol is not None, f"{name} judged stable"
    assert (vol.kind, vol.frequency) == (kind, frequency)
    assert name.split(".")[0] in vol.evidence or "`" in vol.evidence


@pytest.mark.parametrize(
    "name",
    [
        "agent_name",
        "assistant.name",
        "company",
        "company_name",
        "tone",
        "persona",
        "knowledge_cutoff",
        "product_version",
        "policy_effective_date",
        "style_guide",
        "language",
        # the application's configuration, and the phone of the place the assistant answers for
        "config.hallPhone",
        "cfg.bot_handle",
        "settings.support_email",
        "centre_phone",
        "hall_email",
        "TOUR_OPERATOR",  # a business that sells tours
        "deploy_region",  # set by the deploy
        "character_name",  # the character the assistant plays
        "char",
        # one tool's name, whatever holds it: not the step or turn it belongs to (found in
        # openai-agents-python and -js, where `step.tool_name` was a per-request id)
        "step.tool_name",
        "step.toolName",
        "turn.tool_name",
        # a method's own setting (khoj's operator prompts: "upto {self.max_iterations}
        # iterations" was a per-request id)
        "self.max_iterations",
        "this.maxRetries",
        "self.query_tool_name",
        "output_dir",  # a place, which no word before it makes volatile
        "value.constructor.name",  # a class's name (openai-agents-js), no person's
        "memory_update_instructions",  # how to update the memory (openai-agents-python), not the memory
        "search_guidelines",  # the name of its query tool (agno's context providers)
    ],
)
def test_stable_names(name: str) -> None:
    assert classify(slot_expr(f"{{{{ {name} }}}}", "jinja")) is None


def test_tool_collection_loop_is_tool_order() -> None:
    template = load_text("x.j2", "{% for t in tools %}{{ t.name }}{% endfor %}", "jinja")
    block = next(template.blocks())
    assert block.expr is not None
    vol = classify(block.expr, collection=True)
    assert vol is not None
    assert (vol.kind, vol.frequency) == ("tool-order", "per-session")
    assert vol.assumed is None
    # The same name rendered as one value is assumed to be a catalogue in discovery order.
    single = classify(slot_expr("{{ tools }}", "jinja"))
    assert single is not None and single.assumed


def test_overrides_stable_silences_a_name() -> None:
    expr = slot_expr("{{ user.name }}", "jinja")
    assert classify(expr) is not None
    assert classify(expr, Overrides(stable=frozenset({"user.name"}))) is None
    # The root of a path covers its attributes.
    assert classify(expr, Overrides(stable=frozenset({"user"}))) is None
    assert classify(expr, Overrides(stable=frozenset({"other"}))) is not None


def test_overrides_stable_silences_a_clock() -> None:
    expr = slot_expr("{{ now_str }}", "jinja")
    assert classify(expr) is not None
    assert classify(expr, Overrides(stable=frozenset({"now_str"}))) is None


def test_overrides_volatile_marks_an_unknown_name() -> None:
    expr = slot_expr("{{ agent_name }}", "jinja")
    assert classify(expr) is None
    vol = classify(expr, Overrides(volatile={"agent_name": ("identity", "per-session")}))
    assert vol is not None
    assert (vol.kind, vol.frequency, vol.confidence) == ("identity", "per-session", "high")
    assert "configured" in vol.evidence


def test_overrides_volatile_changes_a_known_kind() -> None:
    expr = slot_expr("{{ cwd }}", "jinja")
    vol = classify(expr, Overrides(volatile={"cwd": ("environment", "per-request")}))
    assert vol is not None and vol.frequency == "per-request"


def test_varies_per_request_or_user() -> None:
    per_user = classify(slot_expr("{{ user.name }}", "jinja"))
    per_session_env = classify(slot_expr("{{ cwd }}", "jinja"))
    per_request = classify(slot_expr("{{ git_status }}", "jinja"))
    assert per_user is not None and per_user.varies_per_request_or_user
    assert per_session_env is not None and not per_session_env.varies_per_request_or_user
    assert per_request is not None and per_request.varies_per_request_or_user


@pytest.mark.parametrize(
    ("fmt", "precision"),
    [
        ("%H:%M:%S", "second"),
        ("%H:%M", "minute"),
        ("%Y-%m-%d %H", "hour"),
        ("%Y-%m-%d", "day"),
        ("%B %Y", "month"),
        ("%Y", "year"),
        ("%-d %b", "day"),
        ("HH:mm:ss", "second"),
        ("YYYY-MM-DD HH:mm", "minute"),
        ("YYYY-MM-DD", "day"),
        ("[Today is] dddd", "day"),
        ("Today is a fine day", None),
    ],
)
def test_precision_of_format(fmt: str, precision: str | None) -> None:
    assert precision_of_format(fmt) == precision


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("CURRENT_DATETIME", ["current", "datetime"]),
        ("workPath", ["work", "path"]),
        ("session-started.at", ["session", "started", "at"]),
    ],
)
def test_words(name: str, expected: list[str]) -> None:
    assert words(name) == expected


def test_a_js_arrow_functions_parameters_are_not_values_of_the_template() -> None:
    # `t` and `a`, `b` name items inside the expression: only `registry` is given to the template.
    unsorted = slot_expr('${[...registry.values()].map((t) => `- ${t.name}`).join("\\n")}', "dollar")
    assert unsorted.paths == (("registry",),)
    vol = classify(unsorted, collection=False)
    assert vol is not None and vol.kind == "tool-order"
    ordered = slot_expr('${[...registry.values()].sort((a, b) => a.name.localeCompare(b.name))'
                        '.map(t => t.name).join(", ")}', "dollar")
    assert ("a", "name") not in ordered.paths and classify(ordered) is None
