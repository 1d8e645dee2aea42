"""PC201-PC208 on request bodies: each fires on its case and stays quiet on the clean one."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from promptlint.api import check_text

REPO = Path(__file__).resolve().parents[1]
RULES = "\n".join(f"Rule {i}: answer politely, cite the handbook section, never invent order facts." for i in range(80))
TS = "Current time: 2026-11-30T14:03:27Z"


def _codes(body: Any, code: str) -> list[Any]:
    result = check_text(json.dumps(body, indent=2), path="body.json", syntax="json")
    assert result.error is None, result.error
    return [f for f in result.findings if f.rule == code]


def anthropic(system: str = RULES, **extra: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 100,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "What changed?"}],
    }
    body.update(extra)
    return body


def test_pc201_volatile_before_breakpoint() -> None:
    found = _codes(anthropic(f"{TS}\n\n{RULES}"), "PC201")
    assert len(found) == 1 and found[0].severity == "error" and found[0].kind == "timestamp"
    assert found[0].tokens_lost > 500
    assert not _codes(anthropic(), "PC201")
    moved = anthropic(messages=[{"role": "user", "content": f"{TS}\n\nWhat changed?"}])
    assert not _codes(moved, "PC201")


def test_pc202_breakpoint_on_changing_block() -> None:
    assert _codes(anthropic(f"{TS}\n\n{RULES}"), "PC202")
    assert not _codes(anthropic(), "PC202")
    # An array: the breakpoint's prefix never repeats in a later request.
    first, second = anthropic(f"{RULES}\nTurn 1"), anthropic(f"{RULES}\nTurn 2")
    assert _codes([first, second], "PC202")
    assert not _codes([anthropic(), anthropic()], "PC202")


def test_pc203_more_than_four_breakpoints() -> None:
    tools = [{"name": f"t{i}", "description": "x", "input_schema": {"type": "object"},
              "cache_control": {"type": "ephemeral"}} for i in range(4)]
    assert _codes(anthropic(tools=tools), "PC203")
    assert not _codes(anthropic(tools=tools[:3]), "PC203")


def test_pc204_long_ttl_after_short() -> None:
    tools = [{"name": "t", "description": "x", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]
    body = anthropic(tools=tools)
    body["system"][0]["cache_control"]["ttl"] = "1h"
    assert _codes(body, "PC204")
    body["tools"][0]["cache_control"]["ttl"] = "1h"
    body["system"][0]["cache_control"]["ttl"] = "5m"
    assert not _codes(body, "PC204")


def test_pc205_breakpoint_below_minimum() -> None:
    found = _codes(anthropic("A short system prompt."), "PC205")
    assert found and found[0].extra["minimum"] == 1024
    assert not _codes(anthropic(), "PC205")


def test_pc206_more_than_20_blocks_between_breakpoints() -> None:
    messages: list[dict[str, Any]] = []
    for i in range(12):
        messages += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    messages.append({"role": "user", "content": [{"type": "text", "text": "last", "cache_control": {"type": "ephemeral"}}]})
    assert _codes(anthropic(messages=messages), "PC206")
    short = messages[-5:]
    assert not _codes(anthropic(messages=short), "PC206")


def test_pc207_order_of_tools_and_keys() -> None:
    def tool(name: str, keys: list[str]) -> dict[str, Any]:
        return {"name": name, "description": "d",
                "input_schema": {"type": "object", "properties": {k: {"type": "string"} for k in keys}}}

    unsorted = anthropic(tools=[tool("write", ["b", "a"]), tool("read", ["a"])])
    found = _codes(unsorted, "PC207")
    assert {f.severity for f in found} == {"info"} and len(found) == 2
    assert "same on every request" in found[0].message
    assert not _codes(anthropic(tools=[tool("read", ["a"]), tool("write", ["a", "b"])]), "PC207")
    first = anthropic(tools=[tool("read", ["a"]), tool("write", ["a", "b"])])
    second = copy.deepcopy(first)
    second["tools"].reverse()
    assert any(f.severity == "error" for f in _codes([first, second], "PC207"))
    third = copy.deepcopy(first)
    third["tools"][1]["input_schema"]["properties"] = {"b": {"type": "string"}, "a": {"type": "string"}}
    errors = [f for f in _codes([first, third], "PC207") if f.severity == "error"]
    assert errors and "key" in errors[0].message


def test_pc208_volatile_outside_latest_turn() -> None:
    chat = json.loads((REPO / "fixtures/requests/openai_chat.json").read_text())
    assert [f.severity for f in _codes(chat, "PC208")] == ["error"]
    chat["messages"][0]["content"] = RULES
    assert not _codes(chat, "PC208")
    # History re-rendered between two requests of one conversation.
    one = {"model": "gpt-5.5", "messages": [{"role": "system", "content": RULES}, {"role": "user", "content": "q1 at 10:00"}]}
    two = copy.deepcopy(one)
    two["messages"][1]["content"] = "q1 at 10:01"
    two["messages"] += [{"role": "assistant", "content": "a1"}, {"role": "user", "content": "q2"}]
    assert _codes([one, two], "PC208")
    three = copy.deepcopy(one)
    three["messages"] += [{"role": "assistant", "content": "a1"}, {"role": "user", "content": "q2"}]
    assert not _codes([one, three], "PC208")


def test_request_rules_ignore_templates() -> None:
    result = check_text(f"{TS}\n\n{RULES}", path="system.md")
    assert not [f for f in result.findings if f.rule.startswith("PC2")]


def test_slot_at_is_the_first_slot_of_the_walk_with_that_span() -> None:
    # From an index made once (a walk per value took 30 s for a body of 5,500 values).
    from promptlint.api import _check_template  # noqa: F401  (the engine, imported as a check does)
    from promptlint.config import Config
    from promptlint.core.analysis import analyze
    from promptlint.core.context import RuleContext
    from promptlint.core.ir import Slot
    from promptlint.loaders import load_text

    body = json.dumps({"model": "gpt-4o", "messages": [
        {"role": "system", "content": f"Session id: 123e4567-e89b-12d3-a456-42661417400{i % 10}. Rule {i}."}
        for i in range(40)] + [{"role": "user", "content": "hi"}]})
    template = load_text("body.json", body, "json")
    ctx = RuleContext("body.json", template, analyze(template), Config())
    slots = [s for s in template.walk() if isinstance(s, Slot)]
    assert len(slots) == 40
    for slot in slots:
        first = next(s for s in template.walk() if isinstance(s, Slot) and s.span == slot.span)
        assert ctx.slot_at(slot.span.start, slot.span.end) is first
    assert ctx.slot_at(0, 1) is None
