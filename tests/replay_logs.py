"""Seeded random replay logs for the equivalence tests (and the goldens made from them).

Each log mixes what the replay has to tell apart: interleaved conversations with or without
routing keys, a clock or an id in some system prompts, tool lists reordered, whitespace edits,
an earlier message rewritten, a model switch, long gaps (TTL expiry), timestamps as epoch
seconds, ISO strings or missing, slightly out-of-order times (several workers writing one log),
and logged usage objects. The same seed always gives the same lines.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from typing import Any

RULES = [f"Rule {i}: read the files you change before editing, and explain every command you run."
         for i in range(120)]
TOOLS = [{"name": f"tool_{n}", "description": f"Does {n}.",
          "input_schema": {"type": "object", "properties": {"path": {"type": "string"}, "n": {"type": "integer"}}}}
         for n in ("read", "write", "grep", "run")]
OPENAI_TOOLS = [{"type": "function", "function": {"name": t["name"], "description": t["description"],
                                                  "parameters": t["input_schema"]}} for t in TOOLS]

#: (provider, models) per seed family: Anthropic, OpenAI before 5.6, OpenAI 5.6+.
FAMILIES = (
    ("anthropic", ("claude-sonnet-4-5", "claude-haiku-4-5")),
    ("openai", ("gpt-4o", "gpt-4.1")),
    ("openai", ("gpt-5.6", "gpt-5.6-mini")),
)


def _system(rng: random.Random, moment: float, conversation: int, turn: int) -> str:
    rules = RULES[: 60 + (conversation % 3) * 20]
    head = ""
    if conversation % 4 == 0:
        head = f"Current time: {datetime.fromtimestamp(moment, UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}\n\n"
    elif conversation % 4 == 1 and rng.random() < 0.3:
        head = f"Session {rng.getrandbits(64):016x}\n\n"
    spaced = "  " if rng.random() < 0.1 else " "
    return head + "\n".join(rules).replace("Rule 7: read", f"Rule 7:{spaced}read")


def _messages(rng: random.Random, conversation: int, turn: int, family: int) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = []
    for earlier in range(turn + 1):
        text = f"Conversation {conversation}, step {earlier}: check module_{earlier}.py " + "and more " * rng.randint(0, 30)
        if earlier < turn and rng.random() < 0.05:
            text = text.upper()  # an earlier message re-rendered
        messages.append({"role": "user", "content": text})
        if earlier < turn:
            messages.append({"role": "assistant", "content": f"module_{earlier}.py is fine."})
    if family == 0 and rng.random() < 0.3:
        last = messages[-1]
        last["content"] = [{"type": "text", "text": last["content"], "cache_control": {"type": "ephemeral"}}]
    return messages


def build(seed: int, requests: int = 60, disorder: float = 0.15) -> list[str]:
    """``requests`` JSONL lines of one seeded log; ``disorder``: the share of lines back-dated."""
    rng = random.Random(seed)
    family = seed % len(FAMILIES)
    provider, models = FAMILIES[family]
    conversations = rng.randint(1, 5)
    keyed = rng.random() < 0.7
    turns = [0] * conversations
    clock = 1_800_000_000.0
    lines: list[str] = []
    for _ in range(requests):
        conversation = rng.randrange(conversations)
        turn = turns[conversation]
        turns[conversation] += 1
        clock += rng.choice((1, 5, 30, 90)) if rng.random() > 0.04 else 4000  # 4000 s: past the TTL
        moment = clock - (rng.random() * 20 if rng.random() < disorder else 0)  # some lines out of order
        model = models[1] if rng.random() < 0.08 else models[0]
        tools = list(TOOLS if provider == "anthropic" else OPENAI_TOOLS)
        if rng.random() < 0.1:
            tools.reverse()
        system = _system(rng, moment, conversation, turn)
        messages = _messages(rng, conversation, turn, family)
        body: dict[str, Any]
        if provider == "anthropic":
            body = {"model": model, "max_tokens": 256, "tools": tools,
                    "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                    "messages": messages}
        else:
            body = {"model": model, "tools": tools, "messages": [{"role": "system", "content": system}, *messages]}
        line: dict[str, Any] = {"request": body}
        stamp = rng.random()
        if stamp < 0.6:
            line["timestamp"] = moment
        elif stamp < 0.85:
            line["timestamp"] = datetime.fromtimestamp(moment, UTC).isoformat()
        if keyed:
            line["routing_key"] = f"c{conversation}"
        if rng.random() < 0.5:
            cached = rng.choice((0, 1024, 2048))
            line["usage"] = ({"input_tokens": 100, "cache_read_input_tokens": cached, "cache_creation_input_tokens": 50}
                             if provider == "anthropic" else
                             {"prompt_tokens": 3000, "prompt_tokens_details": {"cached_tokens": cached}})
        lines.append(json.dumps(line) if rng.random() > 0.03 else json.dumps(body))  # some bare bodies
        if rng.random() < 0.02:
            lines.append("")  # a blank line
    return lines


#: The seeds whose results are kept as goldens (made with the pre-streaming implementation).
GOLDEN_SEEDS = (1, 2, 3, 4, 5, 6)
