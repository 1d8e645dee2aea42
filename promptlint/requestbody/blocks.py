"""Request bodies as blocks: which API a body is for, and the blocks it renders to.

:func:`detect` tells an OpenAI Chat Completions, OpenAI Responses or Anthropic Messages body
from its keys. A provider module's render order (``Provider.renderers``) fills a
:class:`Builder` with :class:`Chunk` blocks, each with its JSON path and its ``cache_control``
marker; :class:`Rendered` is the result. Provider-independent: the orders themselves live in
:mod:`promptlint.providers`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from promptlint.requestbody.jsonspans import JSON_OBJECT, JsonPath, RequestError, format_path


ANTHROPIC = "anthropic"
OPENAI_CHAT = "openai-chat"
OPENAI_RESPONSES = "openai-responses"
NOT_A_REQUEST = "not an OpenAI or Anthropic request body"
#: Sections before the conversation: a per-request value there breaks every later token. A value
#: in a message is the latest turn's (per-request by nature) or history (resent verbatim).
PREFIX_SECTIONS = frozenset({"tools", "schema", "system"})


# ------------------------------------------------------------------------------------------
# Which API a body is for


def _tool_shapes(body: Mapping[str, Any]) -> set[str]:
    shapes: set[str] = set()
    tools = body.get("tools")
    for tool in tools if isinstance(tools, list) else ():  # a wrong type is shape.check's to report
        if isinstance(tool, JSON_OBJECT):
            if "input_schema" in tool:
                shapes.add("anthropic")
            if "function" in tool or tool.get("type") == "function":
                shapes.add("openai")
    return shapes


def _has_cache_control(value: Any) -> bool:
    if isinstance(value, JSON_OBJECT):
        return "cache_control" in value or any(_has_cache_control(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_cache_control(v) for v in value)
    return False


def detect(body: Any) -> str:
    """``"anthropic"``, ``"openai-chat"`` or ``"openai-responses"``; RequestError otherwise."""
    if not isinstance(body, JSON_OBJECT):
        raise RequestError(NOT_A_REQUEST)
    model = str(body.get("model") or "").lower()
    messages = body.get("messages")
    if isinstance(messages, list) and all(isinstance(m, JSON_OBJECT) and "role" in m for m in messages):
        roles = {role for m in messages if isinstance(role := m.get("role"), str)}
        openai_signs = (
            bool(roles & {"system", "developer", "tool", "function"})
            or "response_format" in body
            or "max_completion_tokens" in body
            or "openai" in _tool_shapes(body)
        )
        if openai_signs:
            return OPENAI_CHAT
        anthropic_signs = (  # looked for only when no OpenAI sign decided it (a walk of the body)
            "system" in body
            or "anthropic" in _tool_shapes(body)
            or _has_cache_control(body)
            or model.startswith("claude")
        )
        if not anthropic_signs:
            return OPENAI_CHAT
        return ANTHROPIC
    if isinstance(body.get("input"), str | list) or isinstance(body.get("instructions"), str):
        return OPENAI_RESPONSES
    raise RequestError(NOT_A_REQUEST)


# ------------------------------------------------------------------------------------------
# Blocks


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
    """A request body in render order (the order of its provider's ``Provider.renderers``)."""

    kind: str
    provider: str  # the promptlint provider whose render order this is
    model: str | None
    chunks: tuple[Chunk, ...]
    # Top-level (automatic) cache_control: a breakpoint on the last block.
    auto_marker: Marker | None = None
    index: int = 0  # position in an array of bodies
    base: JsonPath = ()  # the path prefix of this body in the file ((i,) in an array)

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


def without(value: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``value`` less ``key`` (a block without its ``cache_control``)."""
    return {k: v for k, v in value.items() if k != key}


class Builder:
    """The blocks of one body, in the order a render order adds them.

    Paths are relative to the body; ``base`` (the body's path in the file) is prefixed.
    ``auto_marker`` is a top-level (automatic) ``cache_control``: a breakpoint on the last block.
    """

    def __init__(self, base: JsonPath) -> None:
        self.base = base
        self.chunks: list[Chunk] = []
        self.auto_marker: Marker | None = None

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
        """The ``cache_control`` marker of ``block`` at ``path`` (TTL default 5m), if it has one."""
        if isinstance(block, JSON_OBJECT) and isinstance(block.get("cache_control"), JSON_OBJECT):
            ttl = str(block["cache_control"].get("ttl") or "5m")
            return Marker(ttl, (*self.base, *path, "cache_control"))
        return None

    def tools(self, body: Mapping[str, Any]) -> None:
        """The body's ``tools``, one block each (first in every provider's order)."""
        tools = body.get("tools")
        if isinstance(tools, list):
            for i, tool in enumerate(tools):
                value = without(tool, "cache_control") if isinstance(tool, JSON_OBJECT) else tool
                self.add(("tools", i), "tools", value, header="[tool]\n", marker=self.marker(tool, ("tools", i)))


# ------------------------------------------------------------------------------------------
# Reading bodies


def iter_tool_names(body: Mapping[str, Any]) -> Iterator[str]:
    for tool in body.get("tools") or ():
        if isinstance(tool, JSON_OBJECT):
            inner = tool.get("function")
            function: Mapping[str, Any] = inner if isinstance(inner, JSON_OBJECT) else tool
            yield str(function.get("name", ""))


def schema_property_orders(value: Any, path: JsonPath = ()) -> Iterator[tuple[JsonPath, list[str]]]:
    """Every ``properties`` object under ``value``: (its path, its keys in order)."""
    if isinstance(value, JSON_OBJECT):
        for key, inner in value.items():
            if key == "properties" and isinstance(inner, JSON_OBJECT):
                yield (*path, key), list(inner)
            yield from schema_property_orders(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from schema_property_orders(inner, (*path, i))
