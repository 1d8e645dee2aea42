"""Generate the request and replay fixtures (deterministic; the output is committed).

    .venv/bin/python bench/make_replay_fixtures.py

Writes:

* ``fixtures/replay/agent_clock.jsonl``: 20 turns of one agent conversation (Anthropic
  Messages bodies) whose ~1,700-token system prompt starts with ``Current time: <ISO>``,
  changing every turn, and ends with a ``cache_control`` breakpoint. Requests are 30 s apart.
  The logged ``usage`` shows what Anthropic reports for such a log: a cache write of the whole
  system prompt on every turn and no reads.
* ``fixtures/replay/agent_clock_fixed.jsonl``: the same conversation with the time moved to the
  latest user message; the system prompt is identical on every turn and ``usage`` shows reads.
* ``fixtures/requests/anthropic_timestamp.json`` (timestamp before the breakpoint),
  ``anthropic_clean.json`` (the same body, time in the user message) and ``openai_chat.json``.

The ``usage`` numbers are synthetic: o200k_base counts scaled by 1.03 (Claude's tokenizer is
not public and counts a little differently), split the way §2.5 of provider-caching.md says
Anthropic reports them.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from promptlint.core import tokens

MODEL = "claude-sonnet-4-5"
TURNS = 20
START = datetime(2026, 11, 30, 14, 0, 0, tzinfo=UTC)
STEP = timedelta(seconds=30)
CLAUDE_FACTOR = 1.03

_TOPICS = [
    ("Reading code", "read the files you change and the files that call them before editing anything"),
    ("Editing", "make the smallest change that fixes the problem and keep the surrounding style"),
    ("Tests", "run the test suite for the package you touched and report failures verbatim"),
    ("Commits", "never commit on the user's behalf unless asked; describe the change instead"),
    ("Secrets", "never print tokens, keys or passwords, even when they appear in files you read"),
    ("Shell", "prefer read-only commands; explain any command that deletes or overwrites files first"),
    ("Dependencies", "do not add a dependency without saying why the standard library is not enough"),
    ("Errors", "quote the exact error message and the command that produced it"),
    ("Scope", "stay within the task; list unrelated problems you notice at the end of your answer"),
    ("Style", "answer in short paragraphs, with code blocks for commands and file excerpts"),
    ("Reviews", "when asked to review, list problems by severity with file and line numbers"),
    ("Docs", "update the README or docstrings when you change behaviour that they describe"),
]


def system_rules() -> str:
    """A long stable system prompt body (about 1,700 tokens)."""
    lines = [
        "You are Forge, a careful coding agent working in the user's repository.",
        "Follow the rules below on every turn. They do not change during the conversation.",
        "",
    ]
    for round_ in range(3):
        for number, (title, rule) in enumerate(_TOPICS, 1):
            lines.append(
                f"## {title} ({round_ + 1}.{number})\n"
                f"- Always {rule}.\n"
                f"- If you cannot {rule.split(' ')[0]} as asked, say so and propose the nearest safe alternative.\n"
            )
    return "\n".join(lines)


RULES = system_rules()
TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file of the repository.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "run_tests",
        "description": "Run the test suite of a package and return its output.",
        "input_schema": {"type": "object", "properties": {"package": {"type": "string"}}, "required": ["package"]},
    },
]
QUESTIONS = [f"Step {n}: look at module_{n}.py and tell me whether its error handling is right." for n in range(1, TURNS + 1)]
ANSWERS = [f"Module_{n}.py catches every exception in its main loop and hides the cause; re-raise after logging." for n in range(1, TURNS + 1)]


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def claude_count(text: str) -> int:
    return round(tokens.count(text) * CLAUDE_FACTOR)


def body(turn: int, *, fixed: bool) -> dict[str, Any]:
    """The request of turn ``turn`` (0-based)."""
    now = iso(START + turn * STEP)
    system_text = RULES if fixed else f"Current time: {now}\n\n{RULES}"
    messages: list[dict[str, Any]] = []
    for earlier in range(turn + 1):
        question = QUESTIONS[earlier]
        if fixed:
            question = f"Current time: {iso(START + earlier * STEP)}\n\n{question}"
        messages.append({"role": "user", "content": question})
        if earlier < turn:
            messages.append({"role": "assistant", "content": ANSWERS[earlier]})
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "tools": TOOLS,
        "system": [{"type": "text", "text": system_text, "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    }


def usage(request: dict[str, Any], turn: int, *, fixed: bool) -> dict[str, Any]:
    """What Anthropic would report: the prefix up to the breakpoint is written or read."""
    cached = claude_count(json.dumps(request["tools"])) + claude_count(request["system"][0]["text"])
    rest = sum(claude_count(m["content"]) for m in request["messages"]) + 8 * len(request["messages"])
    read = cached if fixed and turn > 0 else 0
    written = cached - read
    return {
        "input_tokens": rest,
        "cache_creation_input_tokens": written,
        "cache_read_input_tokens": read,
        "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0},
        "output_tokens": claude_count(ANSWERS[turn]),
    }


def log(fixed: bool) -> str:
    lines = []
    for turn in range(TURNS):
        request = body(turn, fixed=fixed)
        entry = {
            "timestamp": iso(START + turn * STEP),
            "provider": "anthropic",
            "routing_key": "forge-session-1",
            "request": request,
            "usage": usage(request, turn, fixed=fixed),
        }
        lines.append(json.dumps(entry, ensure_ascii=False))
    return "\n".join(lines) + "\n"


def openai_chat() -> dict[str, Any]:
    return {
        "model": "gpt-5.5",
        "tools": [
            {"type": "function", "function": {"name": "lookup_order", "description": "Find an order by id.",
                                              "parameters": {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]}}},
        ],
        "messages": [
            {"role": "system", "content": f"Current time: {iso(START)}\n\n{RULES}"},
            {"role": "user", "content": "Where is my order 4411?"},
        ],
    }


def main() -> None:
    replay = ROOT / "fixtures" / "replay"
    requests = ROOT / "fixtures" / "requests"
    replay.mkdir(parents=True, exist_ok=True)
    requests.mkdir(parents=True, exist_ok=True)
    (replay / "agent_clock.jsonl").write_text(log(fixed=False), encoding="utf-8")
    (replay / "agent_clock_fixed.jsonl").write_text(log(fixed=True), encoding="utf-8")
    single = body(0, fixed=False)
    (requests / "anthropic_timestamp.json").write_text(json.dumps(single, indent=2) + "\n", encoding="utf-8")
    clean = body(0, fixed=True)
    (requests / "anthropic_clean.json").write_text(json.dumps(clean, indent=2) + "\n", encoding="utf-8")
    (requests / "openai_chat.json").write_text(json.dumps(openai_chat(), indent=2) + "\n", encoding="utf-8")
    print(f"system prompt: {tokens.count(RULES):,} tokens (o200k_base); wrote {replay} and {requests}")


if __name__ == "__main__":
    main()
