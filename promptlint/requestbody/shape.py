"""The types a request body's fields must have, checked before it is rendered.

A body whose ``tools`` is ``5``, whose ``role`` is ``["user"]`` or whose ``content`` is a
number would be refused by the provider's API; here it gets one line naming the JSON path
and the type it should have, instead of a TypeError deep in the renderer. Only the fields
the renderers read are checked; unknown fields pass (providers add them all the time).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from promptlint.core.findings import kind_of_value
from promptlint.requestbody.jsonspans import JSON_OBJECT, JsonPath, RequestError, format_path



def _kind(value: Any) -> str:
    return kind_of_value(value, mapping="an object", sequence="an array")


def _refuse(path: JsonPath, wanted: str, value: Any) -> RequestError:
    return RequestError(f"`{format_path(path)}` must be {wanted}, not {_kind(value)}")


def _parts(value: Any, path: JsonPath) -> None:
    """Content that is a string, null, or an array of parts (objects, or strings)."""
    if value is None or isinstance(value, str):
        return
    if not isinstance(value, list):
        raise _refuse(path, "a string or an array of content parts", value)
    for i, part in enumerate(value):
        if isinstance(part, str):
            continue
        if not isinstance(part, JSON_OBJECT):
            raise _refuse((*path, i), "an object (a content part)", part)
        for key in ("type", "text"):
            if key in part and not isinstance(part[key], str):
                raise _refuse((*path, i, key), "a string", part[key])


def check(body: Mapping[str, Any], base: JsonPath = ()) -> None:
    """RequestError naming the first field of ``body`` with the wrong type."""
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise _refuse((*base, "model"), "a string", model)
    tools = body.get("tools")
    if tools is not None:
        if not isinstance(tools, list):
            raise _refuse((*base, "tools"), "an array of tool objects", tools)
        for i, tool in enumerate(tools):
            if not isinstance(tool, JSON_OBJECT):
                raise _refuse((*base, "tools", i), "an object (a tool)", tool)
    for key in ("system", "instructions"):
        if key in body:
            _parts(body[key], (*base, key))
    messages = body.get("messages")
    if isinstance(messages, list):
        for i, message in enumerate(messages):
            where = (*base, "messages", i)
            if not isinstance(message, JSON_OBJECT):
                raise _refuse(where, "an object (a message)", message)
            role = message.get("role")
            if role is not None and not isinstance(role, str):
                raise _refuse((*where, "role"), "a string", role)
            if "content" in message:
                _parts(message["content"], (*where, "content"))
    items = body.get("input")
    if isinstance(items, list):
        for i, item in enumerate(items):
            if isinstance(item, JSON_OBJECT):
                role = item.get("role")
                if role is not None and not isinstance(role, str):
                    raise _refuse((*base, "input", i, "role"), "a string", role)
                if "content" in item:
                    _parts(item["content"], (*base, "input", i, "content"))
