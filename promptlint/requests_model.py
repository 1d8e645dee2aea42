"""Provider request bodies as the cache sees them: blocks in render order, breakpoints, spans.

One model serves the request-JSON loader, the PC2xx rules and ``promptlint replay``:

* :func:`scan` reads JSON source and records the source span of every value (by JSON path),
  so findings point at the exact string in the file.
* :func:`detect` tells an OpenAI Chat Completions, OpenAI Responses or Anthropic Messages body
  from its keys.
* :func:`render` turns a body into :class:`Chunk` blocks in the provider's render order
  (Anthropic: tools, system, messages; OpenAI: tools and the output schema, then the
  instructions and messages), each with its JSON path and its ``cache_control`` marker.
* :func:`volatile_values` finds literal per-request values in text (an ISO timestamp with a
  time of day, ``Current time: …``, a UUID labelled as a request or session id).

Rendering is an approximation of the provider's own template (role headers and separators are
ours); what matters for caching is that equal bodies render equally and that a change shows up
at the same place it sits in the provider's prefix.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from json.decoder import scanstring  # type: ignore[attr-defined]
from typing import Any

from promptlint.core import literals
from promptlint.core import tokens as tokens_mod

JsonPath = tuple[str | int, ...]

ANTHROPIC = "anthropic"
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
#: Request kind -> promptlint provider name.
PROVIDER_OF_KIND = {ANTHROPIC: "anthropic", OPENAI_CHAT: "openai", OPENAI_RESPONSES: "openai"}
NOT_A_REQUEST = "not an OpenAI or Anthropic request body"
#: Sections before the conversation: a per-request value there breaks every later token. A value
#: in a message is the latest turn's (per-request by nature) or history (resent verbatim).
PREFIX_SECTIONS = frozenset({"tools", "schema", "system"})


class RequestError(ValueError):
    """JSON that cannot be read, or that is not a request body. ``line``/``column`` 1-based."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


# ------------------------------------------------------------------------------------------
# JSON with source spans


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def format_path(path: JsonPath) -> str:
    """``("messages", 0, "content")`` -> ``messages[0].content``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def parse(source: str) -> Any:
    """``json.loads`` with a one-line :class:`RequestError` (line, column) on bad JSON."""
    try:
        return json.loads(source)
    except json.JSONDecodeError as exc:
        raise RequestError(f"malformed JSON: {exc.msg}", exc.lineno, exc.colno) from None


def scan(source: str) -> dict[JsonPath, tuple[int, int]]:
    """The source span ``[start, end)`` of every value of valid JSON ``source``, by path.

    A string's span includes its quotes. Call after :func:`parse` has accepted the text.
    """
    spans: dict[JsonPath, tuple[int, int]] = {}

    def value(at: int, path: JsonPath) -> int:
        at = _WS.match(source, at).end()  # type: ignore[union-attr]
        ch = source[at]
        start = at
        if ch == '"':
            _, at = scanstring(source, at + 1)
        elif ch == "{":
            at = _WS.match(source, at + 1).end()  # type: ignore[union-attr]
            if source[at] == "}":
                at += 1
            else:
                while True:
                    key, at = scanstring(source, at + 1)
                    at = _WS.match(source, at).end() + 1  # type: ignore[union-attr]  # the colon
                    at = value(at, (*path, key))
                    at = _WS.match(source, at).end()  # type: ignore[union-attr]
                    if source[at] == "}":
                        at += 1
                        break
                    at = _WS.match(source, at + 1).end()  # type: ignore[union-attr]  # the comma
        elif ch == "[":
            at = _WS.match(source, at + 1).end()  # type: ignore[union-attr]
            index = 0
            if source[at] == "]":
                at += 1
            else:
                while True:
                    at = value(at, (*path, index))
                    index += 1
                    at = _WS.match(source, at).end()  # type: ignore[union-attr]
                    if source[at] == "]":
                        at += 1
                        break
                    at += 1
        elif source.startswith("true", at):
            at += 4
        elif source.startswith("false", at) or source.startswith("null", at):
            at += 5 if ch == "f" else 4
        else:
            match = _NUMBER.match(source, at)
            at = match.end() if match else at + 1
        spans[path] = (start, at)
        return at

    value(0, ())
    return spans


def string_offsets(source: str, start: int) -> list[int]:
    """Source offset of each decoded character of the JSON string opening at ``start``.

    One entry per decoded character, plus the offset of the closing quote; an escape maps
    its decoded character to the backslash (a surrogate pair counts once).
    """
    offsets: list[int] = []
    at = start + 1
    while source[at] != '"':
        offsets.append(at)
        if source[at] == "\\":
            if source[at + 1] == "u":
                code = int(source[at + 2 : at + 6], 16)
                at += 6
                if 0xD800 <= code < 0xDC00 and source.startswith("\\u", at):
                    low = int(source[at + 2 : at + 6], 16)
                    if 0xDC00 <= low < 0xE000:
                        at += 6
            else:
                at += 2
        else:
            at += 1
    offsets.append(at)
    return offsets


# ------------------------------------------------------------------------------------------
# Which API a body is for


def _tool_shapes(body: Mapping[str, Any]) -> set[str]:
    shapes = set()
    for tool in body.get("tools") or ():
        if isinstance(tool, Mapping):
            if "input_schema" in tool:
                shapes.add("anthropic")
            if "function" in tool or tool.get("type") == "function":
                shapes.add("openai")
    return shapes


def _has_cache_control(value: Any) -> bool:
    if isinstance(value, Mapping):
        return "cache_control" in value or any(_has_cache_control(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_cache_control(v) for v in value)
    return False


def detect(body: Any) -> str:
    """``"anthropic"``, ``"openai-chat"`` or ``"openai-responses"``; RequestError otherwise."""
    if not isinstance(body, Mapping):
        raise RequestError(NOT_A_REQUEST)
    model = str(body.get("model") or "").lower()
    messages = body.get("messages")
    if isinstance(messages, list) and all(isinstance(m, Mapping) and "role" in m for m in messages):
        roles = {m.get("role") for m in messages}
        openai_signs = (
            bool(roles & {"system", "developer", "tool", "function"})
            or "response_format" in body
            or "max_completion_tokens" in body
            or "openai" in _tool_shapes(body)
        )
        anthropic_signs = (
            "system" in body
            or "anthropic" in _tool_shapes(body)
            or _has_cache_control(body)
            or model.startswith("claude")
        )
        if openai_signs or not anthropic_signs:
            return OPENAI_CHAT
        return ANTHROPIC
    if isinstance(body.get("input"), str | list) or isinstance(body.get("instructions"), str):
        return OPENAI_RESPONSES
    raise RequestError(NOT_A_REQUEST)


# ------------------------------------------------------------------------------------------
# Rendering


@dataclass(frozen=True)
class Marker:
    """A ``cache_control`` marker: its TTL and the path of the ``cache_control`` object."""

    ttl: str
    path: JsonPath


@dataclass(frozen=True)
class Chunk:
    """One block of the rendered prompt (a tool, a system block, a message content block).

    ``text`` = ``header`` + ``body``. When ``is_string`` the body is the decoded JSON string
    at ``value_path``; otherwise it is the value serialised in its own key order.
    """

    path: JsonPath
    section: str  # "tools", "schema", "system", "messages"
    header: str
    body: str
    is_string: bool
    message_index: int | None = None
    role: str | None = None
    marker: Marker | None = None

    @property
    def text(self) -> str:
        return self.header + self.body

    @property
    def path_text(self) -> str:
        return format_path(self.path)


@dataclass(frozen=True)
class Rendered:
    """A request body in render order."""

    kind: str
    model: str | None
    chunks: tuple[Chunk, ...]
    # Top-level (automatic) cache_control: a breakpoint on the last block.
    auto_marker: Marker | None = None
    index: int = 0  # position in an array of bodies
    base: JsonPath = ()  # the path prefix of this body in the file ((i,) in an array)

    @property
    def provider(self) -> str:
        return PROVIDER_OF_KIND[self.kind]

    @property
    def text(self) -> str:
        return "".join(c.text for c in self.chunks)

    def markers(self) -> list[tuple[int, Marker]]:
        """(chunk index, marker) of every breakpoint, the automatic one last."""
        found = [(i, c.marker) for i, c in enumerate(self.chunks) if c.marker is not None]
        if self.auto_marker is not None and self.chunks:
            last = len(self.chunks) - 1
            if not any(i == last for i, _ in found):
                found.append((last, self.auto_marker))
        return found

    @property
    def latest_user_index(self) -> int | None:
        """The message index of the latest user turn."""
        indices = [c.message_index for c in self.chunks if c.role == "user" and c.message_index is not None]
        return max(indices) if indices else None


def dumps(value: Any) -> str:
    """JSON in the value's own key order (the order a client sends is what gets cached)."""
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def _marker(block: Any, path: JsonPath) -> Marker | None:
    if isinstance(block, Mapping) and isinstance(block.get("cache_control"), Mapping):
        ttl = str(block["cache_control"].get("ttl") or "5m")
        return Marker(ttl, (*path, "cache_control"))
    return None


def _without(value: Mapping[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k != key}


class _Builder:
    def __init__(self, base: JsonPath) -> None:
        self.base = base
        self.chunks: list[Chunk] = []

    def add(
        self,
        path: JsonPath,
        section: str,
        value: Any,
        *,
        header: str = "",
        message_index: int | None = None,
        role: str | None = None,
        marker: Marker | None = None,
    ) -> None:
        separator = "\n\n" if self.chunks else ""
        is_string = isinstance(value, str)
        body = value if is_string else dumps(value)
        self.chunks.append(
            Chunk((*self.base, *path), section, separator + header, body, is_string, message_index, role, marker)
        )

    def marker(self, block: Any, path: JsonPath) -> Marker | None:
        found = _marker(block, path)
        return Marker(found.ttl, (*self.base, *found.path)) if found else None


def _tools(builder: _Builder, body: Mapping[str, Any]) -> None:
    tools = body.get("tools")
    if isinstance(tools, list):
        for i, tool in enumerate(tools):
            value = _without(tool, "cache_control") if isinstance(tool, Mapping) else tool
            builder.add(("tools", i), "tools", value, header="[tool]\n", marker=builder.marker(tool, ("tools", i)))


def _anthropic_content(builder: _Builder, content: Any, path: JsonPath, index: int, role: str) -> None:
    header = f"[{role}]\n"
    if isinstance(content, str):
        builder.add((*path, "content"), "messages", content, header=header, message_index=index, role=role)
        return
    if not isinstance(content, list):
        builder.add((*path, "content"), "messages", content, header=header, message_index=index, role=role)
        return
    for j, block in enumerate(content):
        where = (*path, "content", j)
        marker = builder.marker(block, where)
        head = header if j == 0 else ""
        kind = block.get("type") if isinstance(block, Mapping) else None
        if kind == "text" and isinstance(block.get("text"), str):
            builder.add((*where, "text"), "messages", block["text"], header=head, message_index=index, role=role, marker=marker)
        elif kind == "tool_result" and isinstance(block.get("content"), str):
            builder.add((*where, "content"), "messages", block["content"], header=head, message_index=index, role=role, marker=marker)
        elif kind == "thinking" and isinstance(block.get("thinking"), str):
            builder.add((*where, "thinking"), "messages", block["thinking"], header=head, message_index=index, role=role, marker=marker)
        elif kind in ("image", "document"):
            builder.add(where, "messages", f"[{kind}]", header=head, message_index=index, role=role, marker=marker)
        else:
            value = _without(block, "cache_control") if isinstance(block, Mapping) else block
            builder.add(where, "messages", value, header=head, message_index=index, role=role, marker=marker)


def _render_anthropic(body: Mapping[str, Any], base: JsonPath) -> list[Chunk]:
    builder = _Builder(base)
    _tools(builder, body)
    system = body.get("system")
    if isinstance(system, str):
        builder.add(("system",), "system", system, header="[system]\n")
    elif isinstance(system, list):
        for i, block in enumerate(system):
            head = "[system]\n" if i == 0 else ""
            marker = builder.marker(block, ("system", i))
            if isinstance(block, Mapping) and isinstance(block.get("text"), str):
                builder.add(("system", i, "text"), "system", block["text"], header=head, marker=marker)
            else:
                builder.add(("system", i), "system", block, header=head, marker=marker)
    for index, message in enumerate(body.get("messages") or ()):
        if isinstance(message, Mapping):
            role = str(message.get("role") or "user")
            _anthropic_content(builder, message.get("content"), ("messages", index), index, role)
    return builder.chunks


def _openai_message(builder: _Builder, message: Any, path: JsonPath, index: int, content_key: str) -> None:
    if not isinstance(message, Mapping):
        builder.add(path, "messages", message, message_index=index)
        return
    role = str(message.get("role") or message.get("type") or "user")
    section = "system" if role in ("system", "developer") else "messages"
    header = f"[{role}]\n"
    content = message.get(content_key)
    if isinstance(content, str):
        builder.add((*path, content_key), section, content, header=header, message_index=index, role=role)
    elif isinstance(content, list):
        for j, part in enumerate(content):
            where = (*path, content_key, j)
            head = header if j == 0 else ""
            if isinstance(part, Mapping) and isinstance(part.get("text"), str):
                builder.add((*where, "text"), section, part["text"], header=head, message_index=index, role=role)
            elif isinstance(part, Mapping) and part.get("type") in ("image_url", "input_image", "input_file", "file"):
                builder.add(where, section, "[image]" if "image" in str(part.get("type")) else "[file]", header=head, message_index=index, role=role)
            else:
                builder.add(where, section, part, header=head, message_index=index, role=role)
    elif content is None and role in ("function_call_output",) and isinstance(message.get("output"), str):
        builder.add((*path, "output"), "messages", message["output"], header=header, message_index=index, role=role)
    else:
        rest = _without(message, "role")
        builder.add(path, section, rest, header=header, message_index=index, role=role)
        return
    if isinstance(message.get("tool_calls"), list):
        builder.add((*path, "tool_calls"), section, message["tool_calls"], message_index=index, role=role)


def _render_openai_chat(body: Mapping[str, Any], base: JsonPath) -> list[Chunk]:
    builder = _Builder(base)
    _tools(builder, body)
    if body.get("response_format") is not None:
        builder.add(("response_format",), "schema", body["response_format"], header="[response_format]\n")
    for index, message in enumerate(body.get("messages") or ()):
        _openai_message(builder, message, ("messages", index), index, "content")
    return builder.chunks


def _render_openai_responses(body: Mapping[str, Any], base: JsonPath) -> list[Chunk]:
    builder = _Builder(base)
    _tools(builder, body)
    text = body.get("text")
    if isinstance(text, Mapping) and text.get("format") is not None:
        builder.add(("text", "format"), "schema", text["format"], header="[text.format]\n")
    if isinstance(body.get("instructions"), str):
        builder.add(("instructions",), "system", body["instructions"], header="[instructions]\n")
    items = body.get("input")
    if isinstance(items, str):
        builder.add(("input",), "messages", items, header="[user]\n", message_index=0, role="user")
    elif isinstance(items, list):
        for index, item in enumerate(items):
            _openai_message(builder, item, ("input", index), index, "content")
    return builder.chunks


def render(body: Any, *, index: int = 0, base: JsonPath = ()) -> Rendered:
    """A body's blocks in its provider's render order. RequestError if it is not a body."""
    kind = detect(body)
    if kind == ANTHROPIC:
        chunks = _render_anthropic(body, base)
    elif kind == OPENAI_CHAT:
        chunks = _render_openai_chat(body, base)
    else:
        chunks = _render_openai_responses(body, base)
    auto = _marker(body, base) if kind == ANTHROPIC else None
    model = body.get("model")
    return Rendered(kind, str(model) if model else None, tuple(chunks), auto, index, base)


# ------------------------------------------------------------------------------------------
# A request file: one body or an array of them, with spans


@dataclass
class RequestFile:
    source: str
    value: Any
    requests: list[Rendered]
    spans: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)

    def span(self, path: JsonPath) -> tuple[int, int]:
        """The source span of ``path``, or of its nearest ancestor that has one."""
        while path and path not in self.spans:
            path = path[:-1]
        return self.spans.get(path, (0, 0))

    def value_at(self, path: JsonPath) -> Any:
        value = self.value
        for part in path:
            value = value[part]
        return value


def load(source: str) -> RequestFile:
    """Parse a request file. RequestError for bad JSON or JSON that is not a body."""
    value = parse(source)
    if isinstance(value, list):
        if not value:
            raise RequestError(NOT_A_REQUEST)
        requests = [render(body, index=i, base=(i,)) for i, body in enumerate(value)]
    else:
        requests = [render(value)]
    return RequestFile(source, value, requests, scan(source))


@lru_cache(maxsize=32)
def load_cached(source: str) -> RequestFile:
    """:func:`load`, remembered: every PC2xx rule reads the same file."""
    return load(source)


# ------------------------------------------------------------------------------------------
# Literal per-request values in text


@dataclass(frozen=True)
class VolatileValue:
    """A literal value in text that changes per request or session."""

    start: int
    end: int
    kind: str  # "timestamp" or "id"
    label: str  # a variable-like name: "current_time", "request_id", "session_id"
    precision: str | None = None


_ISO = re.compile(
    r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?![\d:])"
)
# One word of a written date or time: 2026-12-01T10:42:17Z, 10:42, 1/12/2026, Monday, Dec.,
# PM, UTC, CEST. A labelled clock value is a run of these, so it ends where the prose resumes
# ("Current time: 10:42 UTC. Request id: …" is `10:42 UTC`, not the rest of the line).
_TIME_WORD = (
    r"(?:\d{1,4}(?:[-/.:]\d{1,4})*(?:T\d{1,2}(?::\d{2}){1,2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?(?:st|nd|rd|th)?"
    r"|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]{0,6}\.?"
    r"|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]{0,6}\.?"
    r"|[AaPp]\.?[Mm](?:\.(?=\S))?(?![A-Za-z])|UTC|GMT|[A-Z]{2,4}T)"
)
_CLOCK_LABEL = re.compile(
    r"(?im)\b(?:(?:current\s+(?:date\s*(?:and|&|/)\s*)?time|local\s+time|time\s+now|now|timestamp)\s*(?:is|:|=)"
    r"|the\s+time\s+is\s*:?)[ \t]*(?P<value>" + _TIME_WORD + r"(?:,?[ \t]+" + _TIME_WORD + r"|,(?=\s*\d))*)"
)
_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_LABELLED_ID = re.compile(
    r"(?i)\b(?P<label>request|session|trace|conversation|correlation|run|thread|chat|message)"
    r"[ _-]?id\b[\"']?\s*(?:is|:|=)?\s*[\"']?(?P<value>" + _UUID + r"|[0-9a-fA-F]{16,}|[A-Za-z]+_[A-Za-z0-9]{8,})"
)
_PER_SESSION_IDS = frozenset({"session", "conversation", "thread", "chat"})


def _precision(value: str) -> str:
    if re.search(r"\d{1,2}:\d{2}:\d{2}\.\d", value):
        return "millisecond"
    if re.search(r"\d{1,2}:\d{2}:\d{2}", value):
        return "second"
    if re.search(r"\d{1,2}:\d{2}", value):
        return "minute"
    return "day"


def volatile_values(text: str) -> list[VolatileValue]:
    """Literal per-request values in ``text``, in order, not overlapping."""
    found: list[VolatileValue] = []
    for match in _CLOCK_LABEL.finditer(text):
        value = match.group("value")
        if not re.search(r"\d", value):
            continue
        if _precision(value) != "day" or _ISO.search(value):
            found.append(VolatileValue(match.start("value"), match.end("value"), "timestamp", "current_time", _precision(value)))
    for match in _ISO.finditer(text):
        found.append(VolatileValue(match.start(), match.end(), "timestamp", "current_time", _precision(match.group())))
    for match in _LABELLED_ID.finditer(text):
        label = match.group("label").lower()
        name = "session_id" if label in _PER_SESSION_IDS else "request_id"
        found.append(VolatileValue(match.start("value"), match.end("value"), "id", name))
    # Rendered for one request or user (core/literals.py): "Generated … at 07:12:44Z", a
    # signed-in user's name and e-mail.
    for value in literals.scan(text):
        if value.kind == "identity":
            found.append(VolatileValue(value.start, value.end, "identity", "signed_in_user"))
        else:
            found.append(VolatileValue(value.start, value.end, "timestamp", "current_time", _precision(text[value.start : value.end])))
    found.sort(key=lambda v: (v.start, -(v.end - v.start)))
    kept: list[VolatileValue] = []
    for value in found:
        if kept and value.start < kept[-1].end:
            continue
        kept.append(value)
    return kept


# ------------------------------------------------------------------------------------------
# Tokens per block


class ChunkTokenizer:
    """Token ids of each chunk, remembered by text (a growing conversation repeats them)."""

    def __init__(self, encoding: str = "o200k_base", limit: int = 200_000) -> None:
        self.encoding = encoding
        self._cache: dict[str, tuple[int, ...]] = {}
        self._limit = limit

    def encode(self, text: str) -> tuple[int, ...]:
        found = self._cache.get(text)
        if found is None:
            found = tuple(tokens_mod.encode(text, self.encoding))
            if len(self._cache) >= self._limit:
                self._cache.clear()
            self._cache[text] = found
        return found

    def request(self, rendered: Rendered) -> tuple[list[int], list[int]]:
        """(token ids of the whole request, end offset of each chunk)."""
        ids: list[int] = []
        ends: list[int] = []
        for chunk in rendered.chunks:
            ids.extend(self.encode(chunk.text))
            ends.append(len(ids))
        return ids, ends


def chunk_ends(rendered: Rendered, encoding: str = "o200k_base") -> list[int]:
    """The token offset at which each chunk ends (chunks tokenised one by one)."""
    return ChunkTokenizer(encoding).request(rendered)[1]


def strictly_increasing_ends(ends: Sequence[int]) -> list[int]:
    """Block ends for the simulator: empty blocks (no tokens) merged into the previous one."""
    out: list[int] = []
    for end in ends:
        if end > 0 and (not out or end > out[-1]):
            out.append(end)
    return out


def iter_tool_names(body: Mapping[str, Any]) -> Iterator[str]:
    for tool in body.get("tools") or ():
        if isinstance(tool, Mapping):
            inner = tool.get("function")
            function: Mapping[str, Any] = inner if isinstance(inner, Mapping) else tool
            yield str(function.get("name", ""))


def schema_property_orders(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, list[str]]]:
    """Every ``properties`` object under ``value``: (its path, its keys in order)."""
    if isinstance(value, Mapping):
        for key, inner in value.items():
            if key == "properties" and isinstance(inner, Mapping):
                yield (*path, key), list(inner)
            yield from schema_property_orders(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from schema_property_orders(inner, (*path, i))


# ------------------------------------------------------------------------------------------
# What the PC2xx rules read


@dataclass(frozen=True)
class PlacedValue:
    """A volatile value of a request: its chunk, its source span, its token offset."""

    chunk_index: int
    value: VolatileValue
    span: tuple[int, int]
    token_offset: int

    @property
    def per_request(self) -> bool:
        return self.value.label not in ("session_id", "signed_in_user")


@dataclass
class RequestView:
    """One request of a file, with token ends per chunk and its placed volatile values."""

    file: RequestFile
    request: Rendered
    ends: list[int]
    values: list[PlacedValue]

    def start_of(self, chunk_index: int) -> int:
        return self.ends[chunk_index - 1] if chunk_index > 0 else 0


def views(request_file: RequestFile, encoding: str = "o200k_base") -> list[RequestView]:
    """Every request of a file, ready for the rules."""
    return _views_cached(request_file.source, encoding)


@lru_cache(maxsize=16)
def _views_cached(source: str, encoding: str) -> list[RequestView]:
    request_file = load_cached(source)
    tokenizer = ChunkTokenizer(encoding)
    out = []
    for request in request_file.requests:
        _, ends = tokenizer.request(request)
        placed: list[PlacedValue] = []
        for index, chunk in enumerate(request.chunks):
            if not chunk.is_string or chunk.section not in PREFIX_SECTIONS:
                continue
            found = volatile_values(chunk.body)
            if not found:
                continue
            start, _ = request_file.span(chunk.path)
            offsets = string_offsets(source, start)
            before = ends[index - 1] if index > 0 else 0
            for value in found:
                token_offset = before + len(tokenizer.encode(chunk.header + chunk.body[: value.start]))
                placed.append(PlacedValue(index, value, (offsets[value.start], offsets[value.end]), token_offset))
        out.append(RequestView(request_file, request, ends, placed))
    return out


def anthropic_minimum(model: str | None, provider_overrides: Mapping[str, Any] | None = None) -> tuple[int, str]:
    """(minimum cacheable tokens, model label) for an Anthropic model (the row's fallback if unknown)."""
    from promptlint import providers

    name = model if model and model.lower().startswith("claude") else None
    facts = providers.facts("anthropic", name, provider_overrides)
    return facts.min_cacheable_tokens, name or "an unknown Claude model (fallback minimum)"
