"""## What it does
Checks the order of tool definitions and of JSON schema `properties` keys in request
bodies. In one body, tools not sorted by name and `properties` not sorted by key are
reported at *info*: the order is fine as long as it is the same on every request, which
a sorted order guarantees. In an array of requests (one conversation or trace), the same
tools in another order, or the same schema with its keys in another order, is an *error*.

## Why is this bad?
Tools and output schemas are rendered before the system prompt and the messages (OpenAI
and Anthropic alike), byte for byte. A tool list built from a dict, a set or MCP
servers' discovery order, or a schema serialised from a map with random iteration order
(Go, Swift, Rust), changes the very first tokens of the prompt: nothing is ever cached.

## Example
Request 1 sends tools `[search, read_file]`, request 2 `[read_file, search]`.

## Use instead
Sort tools by name and serialise schemas with sorted keys (`json.dumps(sort_keys=True)`).

## Fix safety
No automatic fix.

## Options
None.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from promptlint import requestbody
from promptlint.requestbody.rules import on_request_bodies
from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Span

CODE = "PC207"
NAME = "unstable-order"
SUMMARY = "Tool or schema key order that can change between requests"
FIX = None


def _bodies(value: Any) -> list[tuple[tuple[int, ...], Any]]:
    if isinstance(value, list):
        return [((i,), body) for i, body in enumerate(value)]
    return [((), value)]


def _schemas(body: Any) -> list[tuple[tuple[str | int, ...], Any]]:
    found: list[tuple[tuple[str | int, ...], Any]] = []
    for i, tool in enumerate(body.get("tools") or ()):
        found.append((("tools", i), tool))
    if body.get("response_format") is not None:
        found.append((("response_format",), body["response_format"]))
    text = body.get("text")
    if isinstance(text, dict) and text.get("format") is not None:
        found.append((("text", "format"), text["format"]))
    return found


@on_request_bodies
def check(ctx: RuleContext, request_file: requestbody.RequestFile) -> Iterator[Finding]:
    bodies = _bodies(request_file.value)
    for base, body in bodies[-1:]:
        names = list(requestbody.iter_tool_names(body))
        if len(names) > 1 and names != sorted(names):
            yield ctx.finding(
                CODE, NAME, Span(*request_file.span((*base, "tools"))), severity="info",
                message=(
                    f"tools are not sorted by name ({', '.join(names[:6])}{'…' if len(names) > 6 else ''}): "
                    "the tool list is the start of the cached prefix and its order must be the same on every "
                    "request; if it comes from a dict, a set or MCP discovery, sort it by name"
                ),
                kind="tool-order", frequency="per-session",
            )
        for where, schema in _schemas(body):
            for path, keys in requestbody.schema_property_orders(schema, where):
                if len(keys) > 1 and keys != sorted(keys):
                    yield ctx.finding(
                        CODE, NAME, Span(*request_file.span((*base, *path))), severity="info",
                        message=(
                            f"schema keys {', '.join(keys[:6])} are not sorted: the schema is part of the cached "
                            "prefix and its key order must be the same on every request; serialise it with "
                            "sorted keys if it is built from a map"
                        ),
                        kind="tool-order", frequency="per-session",
                    )
    for (_, old), (base, new) in itertools.pairwise(bodies):
        old_tools, new_tools = old.get("tools") or [], new.get("tools") or []
        old_names, new_names = list(requestbody.iter_tool_names(old)), list(requestbody.iter_tool_names(new))
        if old_names != new_names and sorted(old_names) == sorted(new_names):
            yield ctx.finding(
                CODE, NAME, Span(*request_file.span((*base, "tools"))), severity="error",
                message=(
                    f"request {base[0]} sends the same tools as request {base[0] - 1} in another order "
                    f"({', '.join(new_names[:6])} vs {', '.join(old_names[:6])}): every token after the first "
                    "moved tool misses the cache; sort the tools by name"
                ),
                kind="tool-order", frequency="per-request",
            )
            continue
        by_name = {n: t for n, t in zip(old_names, old_tools)}
        for i, (name, tool) in enumerate(zip(new_names, new_tools)):
            before = by_name.get(name)
            if before is not None and before == tool and requestbody.dumps(before) != requestbody.dumps(tool):
                yield ctx.finding(
                    CODE, NAME, Span(*request_file.span((*base, "tools", i))), severity="error",
                    message=(
                        f"tool `{name}` has the same definition as in request {base[0] - 1} with its JSON keys in "
                        "another order: the rendered prefix differs from here on; serialise with sorted keys"
                    ),
                    kind="tool-order", frequency="per-request",
                )
