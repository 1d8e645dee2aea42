"""Severity calibration against DESIGN.md: names read in UPPER_CASE like their lower-case
forms, day-precision dates and per-session values are warnings before stable text (info
only at the tail), constants that merely mention a tool are not tool lists, and lists the
host registers in a fixed order are a warning at most unless evidence says otherwise."""

from __future__ import annotations

import pytest

from promptlint.api import check_text
from promptlint.core.ir import Expr
from promptlint.core.severity import severity_for
from promptlint.core.volatility import Volatility, classify

from conftest import LONG_RULES


def _name(*path: str, collection: bool = False) -> tuple[str, str] | None:
    vol = classify(Expr(source=".".join(path), path=path, paths=(path,)), collection=collection)
    return (vol.kind, vol.frequency) if vol else None


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        (("CURRENT_DATETIME",), ("timestamp", "per-request")),
        (("current_datetime",), ("timestamp", "per-request")),
        (("WORKING_DIRECTORY",), ("environment", "per-session")),
        (("working_directory",), ("environment", "per-session")),
        (("FOLDER_STRUCTURE",), ("environment", "per-session")),
        (("folder_structure",), ("environment", "per-session")),
        (("file_tree",), ("environment", "per-session")),
        (("SYSTEM_INFO",), ("environment", "per-session")),
        (("CURRENT_WEEKDAY",), ("timestamp", "per-day")),
        (("USER_LOCATION",), ("identity", "per-session")),
        (("USER_EMAIL",), ("identity", "per-session")),
        (("guest_name",), ("identity", "per-session")),
        (("GIT_CHANGES",), ("environment", "per-request")),
        (("REMAINING_STEPS",), ("session-id", "per-request")),
        (("contextFiles",), ("environment", "per-session")),
        (("sandbox_enabled",), ("environment", "per-session")),
        # a general word yields to a specific one
        (("platform_context",), ("environment", "per-session")),
        (("workspace_context",), ("environment", "per-session")),
        (("context",), ("retrieval", "per-request")),
        # constants that mention a tool name one tool, or count them
        (("toolRefs", "read"), None),
        (("READ_TOOL_NAME",), None),
        (("BASH_TOOL_NAME",), None),
        (("ToolNames", "EDIT"), None),
        (("tools", "bash"), None),
        (("tool_count",), None),
        (("tool_results",), ("retrieval", "per-request")),
        # the catalogue itself is still a tool list
        (("tools",), ("tool-order", "per-session")),
        (("AVAILABLE_TOOLS",), ("tool-order", "per-session")),
        (("tool_summary",), ("tool-order", "per-session")),
        (("toolInfo",), ("tool-order", "per-session")),
        (("tools", "list"), ("tool-order", "per-session")),
        # a plural is read as its singular only for counters and ids
        (("areas",), None),
        (("support_email",), None),
    ],
)
def test_names(path: tuple[str, ...], expected: tuple[str, str] | None) -> None:
    assert _name(*path) == expected


def test_registered_lists_are_fixed_order_and_discovered_ones_are_not() -> None:
    skills = classify(Expr(source="skills", path=("skills",), paths=(("skills",),)), collection=True)
    tools = classify(Expr(source="tools", path=("tools",), paths=(("tools",),)), collection=True)
    assert skills is not None and skills.fixed_order and not skills.varies_per_request_or_user
    assert "registers" in skills.evidence and skills.assumed
    assert tools is not None and not tools.fixed_order and tools.varies_per_request_or_user


@pytest.mark.parametrize(
    ("vol", "after", "severity"),
    [
        (Volatility("timestamp", "per-day", "a date", precision="day"), 80, "warning"),
        (Volatility("timestamp", "per-day", "a date", precision="day"), 500, "warning"),
        (Volatility("timestamp", "per-day", "a date", precision="day"), 5, "info"),
        (Volatility("environment", "per-session", "cwd"), 60, "warning"),
        (Volatility("environment", "per-session", "cwd"), 0, "info"),
        (Volatility("timestamp", "per-session", "pinned"), 40, "warning"),
        (Volatility("timestamp", "per-request", "clock"), 500, "error"),
        (Volatility("timestamp", "per-request", "clock"), 60, "warning"),
        (Volatility("timestamp", "per-request", "clock"), 0, "warning"),
        (Volatility("identity", "per-session", "user"), 500, "error"),
        (Volatility("tool-order", "per-session", "skills", fixed_order=True), 500, "warning"),
        (Volatility("tool-order", "per-session", "tools"), 500, "error"),
        (Volatility("environment", "per-deploy", "model"), 500, "info"),
    ],
)
def test_severity_policy(vol: Volatility, after: int, severity: str) -> None:
    assert severity_for(vol, after, 2000) == severity


SHORT_RULES = (
    "Answer briefly and cite the handbook section you rely on; escalate refunds above the limit to a "
    "human colleague and never promise delivery dates to the customer."
)


@pytest.mark.parametrize(
    "slot",
    [
        "{{ today }}",
        "{{ now().strftime('%Y-%m-%d') }}",
        "{{ datetime.now().date() }}",
        "{{ now().date().isoformat() }}",
        "{{ now().isoformat()[:10] }}",
    ],
)
def test_day_precision_before_some_stable_text_is_a_warning(slot: str) -> None:
    # 1 paragraph (~40 tokens) after the date in a 1,000-token prompt: not "substantial"
    # for the error class, but stable content after a per-day value (DESIGN.md: warning).
    text = f"{LONG_RULES}\n\nToday is {slot}.\n{SHORT_RULES}\n"
    found = [f for f in check_text(text, path="p.j2").findings if f.rule == "PC101"]
    assert [(f.kind, f.frequency, f.severity) for f in found] == [("timestamp", "per-day", "warning")]


@pytest.mark.parametrize(
    ("slot", "precision"),
    [
        ("${new Date().toISOString().slice(0, 10)}", "day"),
        ("${new Date().toISOString().split('T')[0]}", "day"),
        ("${new Date().toISOString().slice(0, 16)}", "minute"),
        ("${new Date().toISOString().slice(0, 19).replace('T', ' ')}", "second"),
    ],
)
def test_a_cut_iso_string_keeps_the_precision_it_prints(slot: str, precision: str) -> None:
    found = [f for f in check_text(f"Date: {slot}\n{LONG_RULES}", path="p.tmpl").findings if f.rule == "PC101"]
    assert [f.extra["precision"] for f in found] == [precision]


def test_tool_constants_are_not_tool_order_errors() -> None:
    text = (
        "Read files with `{{READ_TOOL_NAME}}` and edit them with `{{toolRefs.edit}}`.\n"
        "{{#has tools \"grep\"}}Search with `{{toolRefs.grep}}`.{{/has}}\n" + LONG_RULES
    )
    result = check_text(text, path="agent.md")
    assert result.syntax == "mustache"
    assert result.findings == []


def test_skills_loop_is_a_warning_and_says_why() -> None:
    text = f"You can load skills.\nSkills:\n{{% for skill in skills %}}- {{{{ skill.name }}}}\n{{% endfor %}}\n{LONG_RULES}"
    found = [f for f in check_text(text, path="p.j2").findings if f.rule == "PC102"]
    assert [(f.line, f.severity) for f in found] == [(3, "warning")]
    assert "registers" in found[0].message and "[volatile]" in found[0].message


@pytest.mark.parametrize(
    "nearby",
    [
        "Extensions you can enable or disable while you work:",
        "Extensions discovered at startup:",
        "Extensions loaded at run time:",
    ],
)
def test_a_registered_list_the_prompt_says_can_change_is_an_error(nearby: str) -> None:
    text = f"{nearby}\n{{% for extension in extensions %}}- {{{{ extension.name }}}}\n{{% endfor %}}\n{LONG_RULES}"
    found = [f for f in check_text(text, path="p.j2").findings if f.rule == "PC102"]
    assert [(f.line, f.severity) for f in found] == [(2, "error")]
    assert "change at run time" in found[0].message


def test_a_registered_mapping_iterated_with_items_is_an_error() -> None:
    text = f"Plugins:\n{{% for name, plugin in plugins.items() %}}- {{{{ name }}}}\n{{% endfor %}}\n{LONG_RULES}"
    found = [f for f in check_text(text, path="p.j2").findings if f.rule == "PC102"]
    assert [f.severity for f in found] == ["error"] and "mapping" in found[0].message


def test_config_says_a_registered_list_changes_order() -> None:
    from promptlint.config import Config

    text = f"Skills:\n{{% for skill in skills %}}- {{{{ skill.name }}}}\n{{% endfor %}}\n{LONG_RULES}"
    config = Config(volatile={"skills": ("tool-order", "per-session")})
    found = [f for f in check_text(text, path="p.j2", config=config).findings if f.rule == "PC102"]
    assert [f.severity for f in found] == ["error"]


def test_a_registered_list_whose_name_says_it_is_loaded_is_an_error() -> None:
    text = f"Booking tools:\n{{% for plugin in loaded_plugins %}}- {{{{ plugin.name }}}}\n{{% endfor %}}\n{LONG_RULES}"
    found = [f for f in check_text(text, path="p.j2").findings if f.rule == "PC102"]
    assert [f.severity for f in found] == ["error"] and "`loaded`" in found[0].message
