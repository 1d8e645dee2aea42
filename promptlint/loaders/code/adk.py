"""Google ADK's instruction templates: ``Agent(instruction="... {key} ...")``.

ADK fills an agent's ``instruction`` (and ``global_instruction``) from the session state on
every invocation: ``{key}`` is ``state["key"]``, ``{key?}`` the same or nothing, and the
``app:``, ``user:`` and ``temp:`` prefixes name app-wide, per-user and per-invocation state
(google.adk.utils.instructions_utils.inject_session_state). Braces around anything else
(a JSON example) are left as written, as ADK leaves them. A plain string literal is such a
template: read as text, ``Current time: {_time}`` (a state key a callback sets to the clock)
was a static prompt.
"""

from __future__ import annotations

import re

from promptlint.core.ir import Expr, Segment, Slot, Span, Text
from promptlint.loaders.code.values import Str, Value

# The agent classes whose instructions ADK templates, and those arguments.
AGENTS = frozenset({"Agent", "LlmAgent"})
INSTRUCTION_KEYS = frozenset({"instruction", "global_instruction"})

# ADK's own pattern (`{+[^{}]*}+`), and the names it fills: an identifier, with an optional
# state prefix, or an artifact; `?` makes it optional.
_BRACES = re.compile(r"\{+[^{}]*\}+")
_NAME = re.compile(r"(?:(app|user|temp):)?([A-Za-z_][A-Za-z0-9_]*)|artifact\.([A-Za-z0-9_.-]+)")


def state_slots(value: Value, source: str) -> Value:
    """``value`` with each ``{key}`` ADK fills in its literal text made a slot named by the
    key (``user:name`` as the path ``user.name``). A placeholder is placed where its text
    stands in ``source`` within its literal's span (a cooked string, dedented or with
    escapes, is not the source); one not found there stays text."""
    if not isinstance(value, Str):
        return value
    parts: list[Segment] = []
    for part in value.parts:
        parts.extend(_split(part, source) if isinstance(part, Text) else [part])
    return Str(parts)


def _split(text: Text, source: str) -> list[Segment]:
    written = source[text.span.start : text.span.end]
    out: list[Segment] = []
    at = 0  # in text.text
    cursor = 0  # in written
    for match in _BRACES.finditer(text.text):
        inner = match.group().lstrip("{").rstrip("}").strip().removesuffix("?")
        name = _NAME.fullmatch(inner)
        where = written.find(match.group(), cursor) if name is not None else -1
        if name is None or where < 0:
            continue
        prefix, key, artifact = name.groups()
        path = ("artifact", artifact) if artifact else ((prefix, key) if prefix else (key,))
        if match.start() > at:
            out.append(Text(text.span, text.text[at : match.start()]))
        start = text.span.start + where
        out.append(Slot(Span(start, start + len(match.group())), Expr(source=inner, path=path, paths=(path,))))
        at, cursor = match.end(), where + len(match.group())
    if not out:
        return [text]
    if at < len(text.text):
        out.append(Text(text.span, text.text[at:]))
    return out
