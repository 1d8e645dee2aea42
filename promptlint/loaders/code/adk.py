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
from collections.abc import Iterator

from promptlint.core.ir import Expr
from promptlint.loaders.code.fills import filled
from promptlint.loaders.code.values import Value

# The agent classes whose instructions ADK templates, and those arguments.
AGENTS = frozenset({"Agent", "LlmAgent"})
INSTRUCTION_KEYS = frozenset({"instruction", "global_instruction"})

# ADK's own pattern (`{+[^{}]*}+`), and the names it fills: an identifier, with an optional
# state prefix, or an artifact; `?` makes it optional.
_BRACES = re.compile(r"\{+[^{}]*\}+")
_NAME = re.compile(r"(?:(app|user|temp):)?([A-Za-z_][A-Za-z0-9_]*)|artifact\.([A-Za-z0-9_.-]+)")


def state_slots(value: Value, source: str) -> Value:
    """``value`` with each ``{key}`` ADK fills made a slot named by the key (``user:name``
    as the path ``user.name``)."""
    return filled(value, source, _state_keys)


def _state_keys(text: str) -> Iterator[tuple[int, int, Expr]]:
    for match in _BRACES.finditer(text):
        inner = match.group().lstrip("{").rstrip("}").strip().removesuffix("?")
        name = _NAME.fullmatch(inner)
        if name is None:
            continue
        prefix, key, artifact = name.groups()
        path = ("artifact", artifact) if artifact else ((prefix, key) if prefix else (key,))
        yield match.start(), match.end(), Expr(source=inner, path=path, paths=(path,))
