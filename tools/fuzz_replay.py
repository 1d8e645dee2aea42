"""A fuzz of ``promptlint replay``: logs of requests as agents write them, with the edits that
break a cache and the lines a real log picks up, through the command as users run it.

    .venv/bin/python tools/fuzz_replay.py                       # 60 s, seed 1
    .venv/bin/python tools/fuzz_replay.py --seconds 600 --seed 7

Each input is one JSONL log of 1 to 12 requests: one conversation, or several sessions
interleaved (with routing keys), each request the one before it plus new turns (user,
assistant, tool calls and their results), now and then with an edit that breaks the cache (a
clock or an id in the system prompt, the tools reordered, a tool's schema changed, a message
dropped, a ``cache_control`` moved, another model mid-log, a space doubled). Bodies come in
each shape the replay reads: OpenAI Chat (system/developer/user/assistant/tool roles,
function tools, content as a string or parts, ``tool_calls``), OpenAI Responses
(``instructions``, ``input`` items, function calls and their output), Anthropic Messages
(``system`` as a string or blocks with ``cache_control`` and ``ttl``, tools, ``tool_use``/
``tool_result``, base64 images, a top-level ``cache_control``). Most lines are wrapped with a
``timestamp`` (ISO with and without a zone, epoch int or float, missing, equal, out of order,
far apart, absurd), a ``provider`` (each known one, an unknown one), a ``routing_key`` and a
``usage`` in each provider's shape (plausible counts, and absurd ones: negative, larger than
the prompt, strings, null, floats, nested wrong). Rarely, a hostile line or byte: blank
lines, comments, a truncated line, a JSON array or scalar, a huge integer, deep nesting,
non-ASCII and lone surrogates escaped in strings, a UTF-8 BOM, CRLF line ends, no final
newline, a NUL byte.

The log is written to a temporary folder and run in process (click's CliRunner) as
``replay LOG``, ``replay --format json LOG`` and ``replay --provider P [--model M] LOG`` (P
one of the known providers). Each run must hold:

- the exit code is 0 (replayed) or 2 (refused): ``replay`` has no findings to fail on, so
  exit 1 (findings, DESIGN.md's contract) is never its; no exception escapes, and nothing
  says "internal error" or prints a traceback;
- a refusal (exit 2) is one error line that names the log, and the line (``LOG:N:``, N a line
  of the log that is not blank, and not after a line the fuzz broke on purpose) unless the
  problem is the whole log's (no requests in it);
- ``--format json`` prints valid JSON (no ``NaN`` or ``Infinity``) when it exits 0;
- a log under 100 KB replays in under 5 s (the slowest run is printed at the end);
- the log is unchanged afterwards.

Each failure prints the property, the command and the log (``repr`` of its bytes); the exit
code is 1 when one failed. tests/test_replay_fuzz.py runs a seeded part of it; :func:`run`
runs it in process.
"""

from __future__ import annotations

import copy
import json
import math
import random
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from fuzzing import campaign, command_line, run_cli

#: A log under this many bytes must replay in under SLOW_SECONDS (each command).
SMALL_LOG_BYTES = 100_000
SLOW_SECONDS = 5.0

_RULES = [f"Rule {i}: read the files you change before editing, and explain every command you run."
          for i in range(80)]
_WORDS = ["check", "module", "the", "tests", "fail", "on", "parse", "config", "é", "naïve", "日本語", "🙂",
          "\\", '"quoted"', "\t", "line\nbreak", "10:42", "2026-01-01", "{json}", "<tag>", "\u2028", "\x00"]
_OPENAI_MODELS = ["gpt-4o", "gpt-4.1", "gpt-4.1-mini", "gpt-5.5", "gpt-5.6", "gpt-5.6-mini", "o3"]
_ANTHROPIC_MODELS = ["claude-sonnet-4-5", "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-5"]
_ODD_MODELS = ["", "unknown-model", "gemini-2.5-flash", "deepseek-chat", "grok-4", "Qwen/Qwen3-8B", "gpt-4o\ud800",
               "claude\x1b[31m\n"]
_TOOL_NAMES = ["read_file", "write_file", "grep", "run_tests", "search", "fetch_url"]
_IMAGE = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
_SHAPES = ("chat", "responses", "anthropic")
_EDITS = ("clock", "id", "tool-order", "tool-schema", "drop-message", "cache-control", "model", "whitespace",
          "key-order")


def _known_providers() -> tuple[str, ...]:
    from promptlint.providers import known_providers

    return known_providers()


def _text(rng: random.Random, words: int = 12) -> str:
    return " ".join(rng.choice(_WORDS[:8]) if rng.random() < 0.95 else rng.choice(_WORDS)
                    for _ in range(rng.randint(1, words)))


def _schema(rng: random.Random) -> dict[str, Any]:
    properties = {name: {"type": rng.choice(["string", "integer", "boolean"])}
                  for name in rng.sample(["path", "n", "query", "recursive", "limit"], rng.randint(0, 3))}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if properties and rng.random() < 0.5:
        schema["required"] = list(properties)[:1]
    return schema


@dataclass
class _Tool:
    name: str
    description: str
    schema: dict[str, Any]


@dataclass
class _Turn:
    """One message of a conversation, in a shape-independent form the renderers below write
    in each API's shape: ``kind`` is user, assistant, call (the assistant calls a tool) or
    result (the tool's answer)."""

    kind: str
    text: str
    tool: str = ""
    call_id: str = ""
    parts: bool = False  # content as a list of parts (or blocks)
    image: bool = False
    marker: str | None = None  # Anthropic: a cache_control on its block (None: none) with this ttl ("": default)


@dataclass
class _Session:
    """One conversation: what every request of it resends, and the turns so far."""

    shape: str
    model: str
    system: str
    system_role: str  # chat: "system" or "developer"
    system_blocks: int  # anthropic: the system prompt as a string (0) or that many blocks
    system_marker: str | None  # anthropic: ttl of a cache_control on the last system block (None: none)
    tools: list[_Tool]
    key: Any
    auto_marker: bool = False
    messy: bool = False  # odd values allowed (see log_case)
    turns: list[_Turn] = field(default_factory=list)
    calls: int = 0


def _ttl(rng: random.Random, messy: bool) -> str:
    """A message's cache_control ttl: "" for the default, else a class (in a messy log, now and
    then a 1 h one, which Anthropic refuses after a 5 min one, or one that is no class at all).
    The system prompt's may be 1 h in any log: it comes first."""
    r = rng.random()
    if r < 0.5:
        return ""
    if r < 0.9 or not messy:
        return "5m"
    if r < 0.97:
        return "1h"
    return rng.choice(["2h", "0", "forever"])


def _new_session(rng: random.Random, shape: str, number: int, messy: bool) -> _Session:
    if shape == "anthropic":
        model = rng.choice(_ANTHROPIC_MODELS)
    else:
        model = rng.choice(_OPENAI_MODELS)
    if messy and rng.random() < 0.1:
        model = rng.choice(_ODD_MODELS)
    rules = _RULES[: rng.choice([2, 10, 40, 80, 80])]
    head = "You are Forge, a careful coding agent.\n"
    if rng.random() < 0.3:
        head += "Current time: 2026-11-30T14:00:00Z\n"
    tools = [_Tool(name, f"{name.replace('_', ' ').capitalize()}.", _schema(rng))
             for name in rng.sample(_TOOL_NAMES, rng.randint(0, 4))]
    key_kinds: list[Any] = [f"session-{number}", f"session-{number}", None]
    if messy:
        key_kinds += [number, ["odd", number], ""]
    return _Session(
        shape=shape,
        model=model,
        system=head + "\n".join(rules),
        system_role=rng.choice(["system", "system", "developer"]),
        system_blocks=rng.choice([0, 1, 1, 2]),
        system_marker=rng.choice(["", "5m", "1h"]) if rng.random() < 0.6 else None,
        tools=tools,
        key=rng.choice(key_kinds),
        auto_marker=shape == "anthropic" and rng.random() < 0.2,
        messy=messy,
    )


def _grow(rng: random.Random, session: _Session) -> None:
    """Append the turns between one request and the next: the assistant's answer or a tool
    call and its result, then the user's next message."""
    if session.turns:
        if session.tools and rng.random() < 0.5:
            session.calls += 1
            call_id = f"call_{session.calls:04d}" if rng.random() < 0.9 else f"toolu_{rng.getrandbits(48):012x}"
            tool = rng.choice(session.tools).name
            session.turns.append(_Turn("call", _text(rng, 6), tool=tool, call_id=call_id))
            session.turns.append(_Turn("result", _text(rng, 30), tool=tool, call_id=call_id,
                                       parts=rng.random() < 0.3))
        else:
            session.turns.append(_Turn("assistant", _text(rng, 20), parts=rng.random() < 0.2))
    marker = _ttl(rng, session.messy) if session.shape == "anthropic" and rng.random() < 0.3 else None
    session.turns.append(_Turn("user", _text(rng, 25), parts=rng.random() < 0.4, image=rng.random() < 0.1,
                               marker=marker))


def _edit(rng: random.Random, session: _Session) -> None:
    """One edit that breaks the cache from this request on."""
    what = rng.choice(_EDITS)
    if what == "clock":
        stamp = f"{rng.randint(2024, 2027)}-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}T" \
                f"{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}Z"
        session.system = f"Current time: {stamp}\n" + session.system.split("\n", 1)[-1]
    elif what == "id":
        session.system = f"Request id: {rng.getrandbits(128):032x}\n" + session.system
    elif what == "tool-order" and len(session.tools) > 1:
        rng.shuffle(session.tools)
    elif what == "tool-schema" and session.tools:
        tool = rng.choice(session.tools)
        tool.schema = copy.deepcopy(tool.schema)
        tool.schema.setdefault("properties", {})[f"extra_{rng.randrange(99)}"] = {"type": "string"}
    elif what == "drop-message" and len(session.turns) > 2:
        del session.turns[rng.randrange(len(session.turns) - 1)]
    elif what == "cache-control":
        session.system_marker = None if session.system_marker is not None else rng.choice(["", "5m", "1h"])
        for turn in session.turns:
            turn.marker = None
        if session.turns and rng.random() < 0.5:
            rng.choice(session.turns).marker = _ttl(rng, session.messy)
    elif what == "model":
        models = _ANTHROPIC_MODELS if session.shape == "anthropic" else _OPENAI_MODELS
        session.model = rng.choice(models + _ODD_MODELS[:2])
    elif what == "whitespace":
        session.system = session.system.replace("Rule 1:", "Rule 1: ", 1).replace("\n", "\n\n", 1)
    elif what == "key-order" and session.tools:
        tool = rng.choice(session.tools)
        tool.schema = dict(reversed(list(tool.schema.items())))


# ---------------------------------------------------------------------------------------
# The bodies, in each API's shape


def _cache_control(ttl: str | None) -> dict[str, Any]:
    control: dict[str, Any] = {"type": "ephemeral"}
    if ttl:
        control["ttl"] = ttl
    return control


def _chat_body(rng: random.Random, session: _Session) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": session.system_role, "content": session.system}]
    for turn in session.turns:
        if turn.kind == "user":
            content: Any = turn.text
            if turn.parts:
                content = [{"type": "text", "text": turn.text}]
                if turn.image:
                    content.append({"type": "image_url", "image_url": {"url": "data:image/png;base64," + _IMAGE}})
            messages.append({"role": "user", "content": content})
        elif turn.kind == "assistant":
            messages.append({"role": "assistant",
                             "content": [{"type": "text", "text": turn.text}] if turn.parts else turn.text})
        elif turn.kind == "call":
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": turn.call_id, "type": "function",
                 "function": {"name": turn.tool, "arguments": json.dumps({"path": turn.text})}}]})
        else:
            messages.append({"role": "tool", "tool_call_id": turn.call_id,
                             "content": [{"type": "text", "text": turn.text}] if turn.parts else turn.text})
    body: dict[str, Any] = {"model": session.model, "messages": messages}
    if session.tools:
        body["tools"] = [{"type": "function", "function": {"name": t.name, "description": t.description,
                                                           "parameters": t.schema}} for t in session.tools]
    if rng.random() < 0.1:
        body["response_format"] = {"type": "json_object"}
    if rng.random() < 0.3:
        body["max_completion_tokens"] = 1024
    return body


def _responses_body(rng: random.Random, session: _Session) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for turn in session.turns:
        if turn.kind == "user":
            parts: list[dict[str, Any]] = [{"type": "input_text", "text": turn.text}]
            if turn.image:
                parts.append({"type": "input_image", "image_url": "data:image/png;base64," + _IMAGE})
            items.append({"role": "user", "content": parts if turn.parts or turn.image else turn.text})
        elif turn.kind == "assistant":
            items.append({"role": "assistant", "content": [{"type": "output_text", "text": turn.text}]})
        elif turn.kind == "call":
            items.append({"type": "function_call", "call_id": turn.call_id, "name": turn.tool,
                          "arguments": json.dumps({"path": turn.text})})
        else:
            items.append({"type": "function_call_output", "call_id": turn.call_id, "output": turn.text})
    body: dict[str, Any] = {"model": session.model, "instructions": session.system}
    if len(items) == 1 and isinstance(items[0].get("content"), str) and rng.random() < 0.5:
        body["input"] = items[0]["content"]
    else:
        body["input"] = items
    if session.tools:
        body["tools"] = [{"type": "function", "name": t.name, "description": t.description, "parameters": t.schema}
                         for t in session.tools]
    if rng.random() < 0.1:
        body["text"] = {"format": {"type": "json_schema", "name": "answer", "schema": _schema(rng)}}
    return body


def _anthropic_body(rng: random.Random, session: _Session) -> dict[str, Any]:
    body: dict[str, Any] = {"model": session.model, "max_tokens": 1024}
    if session.tools:
        body["tools"] = [{"name": t.name, "description": t.description, "input_schema": t.schema}
                         for t in session.tools]
    if session.system_blocks == 0 and session.system_marker is None:
        body["system"] = session.system
    else:
        pieces = session.system.split("\n\n", max(0, session.system_blocks - 1)) if session.system_blocks > 1 \
            else [session.system]
        blocks: list[dict[str, Any]] = [{"type": "text", "text": piece} for piece in pieces]
        if session.system_marker is not None:
            blocks[-1]["cache_control"] = _cache_control(session.system_marker)
        body["system"] = blocks
    messages: list[dict[str, Any]] = []
    for turn in session.turns:
        block: dict[str, Any]
        if turn.kind in ("user", "assistant"):
            block = {"type": "text", "text": turn.text}
        elif turn.kind == "call":
            block = {"type": "tool_use", "id": turn.call_id, "name": turn.tool, "input": {"path": turn.text}}
        else:
            content: Any = [{"type": "text", "text": turn.text}] if turn.parts else turn.text
            block = {"type": "tool_result", "tool_use_id": turn.call_id, "content": content}
        if turn.marker is not None:
            block["cache_control"] = _cache_control(turn.marker)
        role = "assistant" if turn.kind in ("assistant", "call") else "user"
        blocks = [block]
        if turn.image:
            blocks.insert(0, {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                          "data": _IMAGE}})
        plain = turn.kind in ("user", "assistant") and not turn.parts and not turn.image and turn.marker is None
        if messages and messages[-1]["role"] == role and isinstance(messages[-1]["content"], list) and not plain:
            messages[-1]["content"].extend(blocks)
        else:
            messages.append({"role": role, "content": turn.text if plain else blocks})
    body["messages"] = messages
    if session.auto_marker:
        body["cache_control"] = _cache_control(_ttl(rng, session.messy))
    return body


_BODIES = {"chat": _chat_body, "responses": _responses_body, "anthropic": _anthropic_body}


# ---------------------------------------------------------------------------------------
# The wrapping: timestamp, provider, routing key, usage


def _timestamp(rng: random.Random, clock: float, messy: bool) -> Any:
    from datetime import UTC, datetime, timedelta, timezone

    r = rng.random()
    if r < 0.35:
        return int(clock) if rng.random() < 0.5 else round(clock, 3)
    moment = datetime.fromtimestamp(clock, UTC)
    if r < 0.55:
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    if r < 0.65:
        return moment.replace(tzinfo=None).isoformat()  # no zone: local time
    if r < 0.75:
        return moment.astimezone(timezone(timedelta(hours=rng.choice([-8, 2, 5.5, 14])))).isoformat()
    if r < 0.95 or not messy:
        return None  # absent
    return rng.choice([0, -1, 1e20, 10**30, 10**400, 1e308, -1e308, math.nan, math.inf, -math.inf, 1.5, clock * 1000,
                       "2026-13-45T99:99:99Z", "yesterday", "", True, [clock], "0001-01-01T00:00:00",
                       "9999-12-31T23:59:59+14:00", "2026-01-01"])


def _count(rng: random.Random, plausible: int, messy: bool) -> Any:
    """A token count: mostly ``plausible``, in a messy log now and then absurd."""
    if not messy or rng.random() < 0.95:
        return plausible
    return rng.choice([-1, -plausible - 5, plausible * 1000 + 7, 0, str(plausible), "many", None, 1.5, True,
                       [plausible], {"n": plausible}, 10**25, 1e300, math.nan, math.inf])


def _usage(rng: random.Random, shape: str, size: int, messy: bool) -> Any:
    """A usage object in one provider's shape (mostly the body's), counts near ``size`` (absurd
    ones and fields nested wrong in a messy log)."""
    prompt = max(1, size // 4 + rng.randint(-50, 50))
    cached = rng.choice([0, prompt // 2, prompt - prompt % 128, prompt])
    style = rng.random()
    if style < 0.1 and messy:
        shape = rng.choice(["chat", "responses", "anthropic", "gemini", "deepseek"])
    if shape == "chat":
        details: Any = {"cached_tokens": _count(rng, cached, messy)}
        if messy and rng.random() < 0.05:
            details = rng.choice([5, [cached], None, "x"])
        return {"prompt_tokens": _count(rng, prompt, messy), "completion_tokens": 12, "total_tokens": prompt + 12,
                "prompt_tokens_details": details}
    if shape == "responses":
        return {"input_tokens": _count(rng, prompt, messy), "output_tokens": 12,
                "input_tokens_details": {"cached_tokens": _count(rng, cached, messy)}}
    if shape == "anthropic":
        written = rng.choice([0, prompt - cached])
        return {"input_tokens": _count(rng, prompt - cached - written, messy), "output_tokens": 12,
                "cache_read_input_tokens": _count(rng, cached, messy),
                "cache_creation_input_tokens": _count(rng, written, messy),
                "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0}}
    if shape == "gemini":
        return {"prompt_token_count": _count(rng, prompt, messy), "cached_content_token_count": _count(rng, cached, messy)}
    return {"prompt_tokens": _count(rng, prompt, messy), "prompt_cache_hit_tokens": _count(rng, cached, messy),
            "prompt_cache_miss_tokens": _count(rng, prompt - cached, messy)}


def _provider(rng: random.Random, shape: str, messy: bool) -> Any:
    r = rng.random()
    if r < 0.6:
        return "anthropic" if shape == "anthropic" else "openai"
    if r < 0.97 or not messy:
        return rng.choice(_known_providers())
    return rng.choice(["acme", "OpenAI", "", None, 5, ["openai"]])


# ---------------------------------------------------------------------------------------
# Hostile lines and bytes


def _deep(depth: int) -> str:
    return '{"role": "user", "content": ' + "[" * depth + '"x"' + "]" * depth + "}"


# Bodies at the edges of what the renderers read: empty, null or oddly typed parts.
_ODD_BODIES: list[Any] = [
    {"model": "gpt-4o", "messages": []}, {"model": "gpt-4o", "input": ""}, {"model": "gpt-4o", "input": []},
    {"instructions": "You are Forge."}, {"model": "gpt-4o", "messages": [{"role": "user", "content": None}]},
    {"model": "claude-sonnet-4-5", "system": [], "messages": [{"role": "user", "content": []}]},
    {"model": "claude-sonnet-4-5", "system": [{"type": "text", "text": "", "cache_control": {"type": "ephemeral"}}],
     "messages": [{"role": "user", "content": ""}], "cache_control": {"type": "ephemeral"}},
    {"model": "claude-sonnet-4-5", "system": [{"type": "text", "text": "a", "cache_control": 5}],
     "messages": [{"role": "user", "content": "x"}]},
    {"model": "claude-sonnet-4-5", "system": ["a", 5], "messages": [{"role": "robot", "content": [5, "x"]}]},
    {"model": "gpt-4o", "messages": [{"role": "assistant", "content": "x", "tool_calls": {"a": 1}}]},
    {"model": "gpt-4o", "tools": [{}], "messages": [{"role": "system", "content": "x"}]},
    {"model": "gpt-4o", "input": ["x", 5, None, {"type": "function_call_output", "output": 5}]},
    {"model": "gpt-4o", "input": "x", "text": {"format": []}, "instructions": ["x"]},
    {"model": "x" * 300, "messages": [{"role": "user", "content": "x"}], "stream": True},
]


def _hostile(rng: random.Random, good: str) -> tuple[str, bool]:
    """A line that does not belong in a log (or a good line made odd); whether a replay of a
    log holding it must refuse it (exit 2)."""
    way = rng.randrange(12)
    if way == 11:
        body = rng.choice(_ODD_BODIES)
        return json.dumps({"request": body, "routing_key": "odd"} if rng.random() < 0.5 else body), False
    if way == 0:
        return rng.choice(["", "   ", "\t"]), False
    if way == 1:
        return rng.choice(["# a comment", "// a comment", "--- next session ---"]), True
    if way == 2:
        return good[: rng.randrange(1, max(2, len(good)))], True
    if way == 3:
        return rng.choice(["[" + good + "]", "[]", "5", "null", '"request"', "true", "{}"]), True
    if way == 4:
        digits = "9" * rng.choice([20, 400, 4301, 20000])
        return good.replace('"max_tokens": 1024', f'"max_tokens": {digits}', 1).replace(
            '"model": ', f'"n": {digits}, "model": ', 1), False
    if way == 5:
        depth = rng.choice([50, 500, 900, 990, 1100, 5000, 100000])
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}
        line = json.dumps({"request": body})
        return line.replace('{"role": "user", "content": "hi"}', _deep(depth), 1), False
    if way == 6:
        odd = rng.choice(["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\u00e9", "\\u0000", "\\u2028", "\\\\",
                          "\\ud800\\ud800", "caf\\u00e9 \\ud83d"])
        return good.replace('"content": "', '"content": "' + odd, 1).replace('"text": "', '"text": "' + odd, 1), False
    if way == 7:
        return good.replace('"', "\x00", 1) if rng.random() < 0.5 else good + "\x00", True
    if way == 8:
        return good.replace("1024", "NaN", 1) if rng.random() < 0.5 else good.replace("1024", "-Infinity", 1), False
    if way == 9:
        return '{"request": ' + good + "}", False  # a wrapped line wrapped again
    return good.replace('"messages": [', '"messages": [' + rng.choice(
        ['"stray", ', "5, ", "null, ", '{"role": ["user"], "content": "x"}, ', '{"role": "user", "content": 5}, ',
         '{"role": "user", "content": [{"type": "text", "text": 5}]}, ']), 1), False


@dataclass
class Log:
    """One generated log: its bytes, its lines (for the error-line check), the first line
    (1-based) the replay must refuse (0: none known), and the provider and model of the third
    command."""

    data: bytes
    lines: int
    first_bad: int
    provider: str
    model: str | None


def log_case(rng: random.Random) -> Log:
    """A log of 1 to 12 requests of one conversation or several, in a random shape. Three in ten
    logs are messy (odd models, routing keys, providers, timestamps, usage counts and
    TTLs), a quarter hold hostile lines; the rest are what a working client logs, so that most
    logs are replayed and not refused at their first odd value."""
    shape = rng.choice(_SHAPES)
    count = rng.randint(1, 12)
    messy = rng.random() < 0.3
    sessions = [_new_session(rng, shape if rng.random() < 0.9 else rng.choice(_SHAPES), n, messy)
                for n in range(1 if rng.random() < 0.6 else rng.randint(2, 3))]
    wrapped = rng.random() < 0.75
    clock = 1_800_000_000.0 + rng.random() * 1000
    lines: list[str] = []
    bad: list[bool] = []
    hostile = rng.random() < 0.25
    for _ in range(count):
        session = rng.choice(sessions)
        _grow(rng, session)
        if rng.random() < 0.2:
            _edit(rng, session)
        body = _BODIES[session.shape](rng, session)
        step = rng.random()
        clock += 0 if step < 0.1 else rng.choice([1, 5, 30, 90]) if step < 0.85 else rng.choice([400, 4000, 90000])
        if wrapped:
            record: dict[str, Any] = {}
            for key, value in (
                ("timestamp", _timestamp(rng, clock - (rng.random() * 40 if rng.random() < 0.15 else 0), messy)),
                ("provider", _provider(rng, session.shape, messy)),
                ("routing_key", session.key),
                ("usage", _usage(rng, session.shape, len(json.dumps(body)), messy)),
            ):
                if rng.random() < 0.85:
                    record[key] = value
            record["request"] = body
            if rng.random() < 0.2:
                record = dict(reversed(list(record.items())))
            line = json.dumps(record, ensure_ascii=rng.random() < 0.5)
        else:
            line = json.dumps(body, ensure_ascii=rng.random() < 0.5)
        lines.append(line)
        bad.append(False)
        if hostile and rng.random() < 0.25:
            odd, refused = _hostile(rng, line)
            at = rng.randrange(len(lines) + 1)
            lines.insert(at, odd)
            bad.insert(at, refused)
    newline = "\r\n" if rng.random() < 0.1 else "\n"
    text = newline.join(lines)
    if rng.random() < 0.9:
        text += newline
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:
        data = b"\xef\xbb\xbf" + data
    first_bad = next((i + 1 for i, refused in enumerate(bad) if refused), 0)
    provider = rng.choice(_known_providers())
    model = rng.choice([None, None, *_OPENAI_MODELS[:3], *_ANTHROPIC_MODELS[:2], *_ODD_MODELS[:3]])
    return Log(data, len(lines), first_bad, provider, model)


# ---------------------------------------------------------------------------------------
# The properties

#: The slowest command seen: (seconds, log size in bytes, the command).
SLOWEST: list[tuple[float, int, str]] = []
_LOG = "log.jsonl"  # in the run's folder, as the commands name it


def _commands(case: Log) -> list[list[str]]:
    third = ["replay", "--provider", case.provider] + (["--model", case.model] if case.model is not None else [])
    return [["replay", _LOG], ["replay", "--format", "json", _LOG], [*third, _LOG]]


def _strict(name: str) -> Any:
    """Python's JSON reader takes NaN and Infinity; no other does."""
    raise ValueError(f"{name} is not JSON")


def _problems(case: Log) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / _LOG).write_bytes(case.data)
        for command in _commands(case):
            start = time.monotonic()
            result, _, broken = run_cli(root, command)
            took = time.monotonic() - start
            shown = " ".join(command[:-1])
            if not SLOWEST or took > SLOWEST[0][0]:
                SLOWEST[:] = [(took, len(case.data), shown)]
            yield from (f"{shown}: {problem}" for problem in broken)
            if result.exit_code == 1:
                yield f"{shown}: exit 1, which replay has no findings for"
            if result.exit_code == 2:
                yield from (f"{shown}: {problem}" for problem in _refusal(case, result.stderr or ""))
            elif case.first_bad:
                yield f"{shown}: exit {result.exit_code} on a log with a broken line {case.first_bad}"
            if result.exit_code == 0 and "--format" in command:
                try:
                    json.loads(result.stdout, parse_constant=_strict)
                except ValueError as exc:
                    yield f"{shown}: not JSON ({exc}): {result.stdout[:120]!r}"
            if took > SLOW_SECONDS and len(case.data) < SMALL_LOG_BYTES:
                yield f"{shown}: took {took:.1f} s on {len(case.data):,} bytes"
        if (root / _LOG).read_bytes() != case.data:
            yield "the log was changed"


def _refusal(case: Log, stderr: str) -> Iterator[str]:
    """What is wrong with a refusal's error output (exit 2)."""
    lines = stderr.strip().splitlines()
    if len(lines) != 1 or not lines[0].startswith("error: "):
        yield f"exit 2 without one error line: {stderr.strip()[:200]!r}"
        return
    message = lines[0]
    if not message.startswith(f"error: {_LOG}:"):
        yield f"exit 2 without naming the log: {message!r}"
        return
    rest = message[len(f"error: {_LOG}:"):]
    number = rest.split(":", 1)[0]
    if not number.isdigit():
        if rest.strip() not in ("no requests",):
            yield f"exit 2 naming no line: {message!r}"
        return
    if not 1 <= int(number) <= case.lines:
        yield f"exit 2 naming line {number} of {case.lines}: {message!r}"
    elif not case.data.split(b"\n")[int(number) - 1].strip():
        yield f"exit 2 naming line {number}, which is blank: {message!r}"
    elif case.first_bad and int(number) > case.first_bad:
        yield f"exit 2 at line {number}, after the broken line {case.first_bad}: {message!r}"


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` logs (or for ``seconds``); (logs tried, logs that failed)."""
    return campaign(seed, count, seconds, out, log_case, _problems,
                    lambda case: f"--provider {case.provider} --model {case.model}, log {case.data!r}")


def main() -> int:
    code = command_line(__doc__ or "", run, "logs")
    if SLOWEST:
        took, size, command = SLOWEST[0]
        print(f"slowest: {took:.2f} s ({command} of a {size:,}-byte log)")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
