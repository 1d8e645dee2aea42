"""LangChain's chat prompt templates: ``ChatPromptTemplate.from_messages([("system", "...")])``.

LangChain formats each message of a chat prompt template (``from_messages``, the class
called with a list, ``SystemMessagePromptTemplate.from_template``) with ``str.format``
semantics by default: ``{name}`` is a variable filled on every ``invoke``, ``{{`` and ``}}``
are literal braces. A ``("system", ...)`` pair outside a template (``llm.invoke([...])``) is
sent as written. Read as text, ``Today is {current_date}`` in a template's system message
was a static prompt.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from promptlint.core.ir import Expr
from promptlint.loaders.code.fills import filled
from promptlint.loaders.code.values import Value

# Calls whose messages are templates: `ChatPromptTemplate.from_messages([...])`,
# `ChatPromptTemplate([...])`; and the one-message constructor.
TEMPLATE_CALLS = frozenset({"from_messages", "fromMessages", "ChatPromptTemplate"})
MESSAGE_TEMPLATE_CALL = "from_template"

# An escaped brace, or a field: a name, with an optional conversion and format spec.
_FIELD = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)(?:![rsa])?(?::[^{}]*)?\}")


def variable_slots(value: Value, source: str) -> Value:
    """``value`` with each ``{name}`` LangChain fills made a slot named by the variable."""
    return filled(value, source, _variables)


def _variables(text: str) -> Iterator[tuple[int, int, Expr]]:
    for match in _FIELD.finditer(text):
        name = match.group(1)
        if name is not None:
            yield match.start(), match.end(), Expr(source=name, path=(name,), paths=((name,),))
