"""Where prompts are sent: system messages, ``system=`` arguments, prompt-named
keywords, and long instruction text no name announces."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from promptlint.core.ir import Span, Text
from promptlint.loaders.code import (
    DEDENT_CALLEES, LOGGING_CALLEES, OTHER_TURN_CALLEES, SYSTEM_CALLEES, SYSTEM_ROLES, Lst,
    Value, adk, is_sink_key, join, langchain, looks_like_instructions,
)
from promptlint.loaders.code.python import nodes
from promptlint.loaders.code.python.base import PythonBase
from promptlint.loaders.code.python.nodes import (
    _SKIPPED_KEYWORDS, _base_name, _callee, _dict_get, _target_name,
)
from promptlint.loaders.code.reader import Ctx


def _f_string_template(call: ast.Call) -> bool:
    """Whether a LangChain template call formats with `str.format` (its default), not
    `template_format="mustache"` or `"jinja2"`."""
    given = next((k.value for k in call.keywords if k.arg == "template_format"), None)
    return given is None or (isinstance(given, ast.Constant) and given.value == "f-string")


class Sites(PythonBase):
    # ----------------------------------------------------------------- sinks

    def scan(self, stmt: ast.stmt, ctx: Ctx) -> None:
        """Prompts sent from this statement: system messages, `system=` arguments, and long
        instruction text no name announces."""
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return  # a docstring or a bare string: never sent
        for node in self._expressions(stmt):
            if isinstance(node, ast.Dict):
                role = _dict_get(node, "role")
                if isinstance(role, ast.Constant) and role.value in SYSTEM_ROLES:
                    content = _dict_get(node, "content")
                    if content is not None:
                        self.sink(self.content(content, ctx), f"{{role: {role.value}}}", content, stmt)
            elif isinstance(node, ast.Call):
                callee = _callee(node.func)
                for kw in node.keywords:
                    if kw.arg in adk.INSTRUCTION_KEYS and callee in adk.AGENTS:
                        # Google ADK fills `{key}` from the session state on every invocation.
                        value = adk.state_slots(self.content(kw.value, ctx), self.source)
                        self.sink(value, f"{kw.arg}=", kw.value, stmt)
                    elif kw.arg and is_sink_key(kw.arg, self.prompt_names):
                        self.sink(self.content(kw.value, ctx), f"{kw.arg}=", kw.value, stmt)
                if callee in SYSTEM_CALLEES or (callee == "from_template" and _base_name(node.func) in SYSTEM_CALLEES):
                    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in
                                                               ("content", "template")), None)
                    if arg is not None:
                        value = self.eval(arg, ctx)
                        if callee == langchain.MESSAGE_TEMPLATE_CALL and _f_string_template(node):
                            value = langchain.variable_slots(value, self.source)  # LangChain fills `{name}`
                        self.sink(value, f"{callee}(...)", arg, stmt)
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
                head = node.elts[0]
                if isinstance(head, ast.Constant) and head.value in SYSTEM_ROLES:
                    value = self.eval(node.elts[1], ctx)
                    if self._in_chat_template(node):
                        value = langchain.variable_slots(value, self.source)  # LangChain fills `{name}`
                    self.sink(value, f"({head.value!r}, ...)", node.elts[1], stmt)
            elif isinstance(node, ast.Constant | ast.JoinedStr):
                literal = node.value if isinstance(node, ast.Constant) else "".join(
                    v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                if isinstance(literal, str) and looks_like_instructions(literal):
                    top = self.climb(node)
                    name = _target_name(stmt) or (f"{ctx.names[0]}()" if isinstance(stmt, ast.Return) and ctx.names
                                                  else f"text at line {node.lineno}")
                    self.sink(self.eval(top, ctx), name, top, stmt, named=False)

    def _in_chat_template(self, pair: ast.Tuple) -> bool:
        """Whether a `("system", ...)` pair is a message of a LangChain chat prompt template
        (an item of the list given to `ChatPromptTemplate.from_messages`), which formats it."""
        listed = self.parents.get(id(pair))
        call = self.parents.get(id(listed)) if isinstance(listed, ast.List | ast.Tuple) else None
        return (isinstance(call, ast.Call) and _callee(call.func) in langchain.TEMPLATE_CALLS
                and _f_string_template(call))

    def content(self, node: ast.AST, ctx: Ctx) -> Value:
        """A message's content: a string, or a list of content blocks whose text is sent."""
        if isinstance(node, ast.List | ast.Tuple):
            texts = [_dict_get(e, "text") for e in node.elts if isinstance(e, ast.Dict)]
            if texts and all(t is not None for t in texts):
                return join(Text(Span(0, 0), "\n"), Lst([self.item(t, ctx) for t in texts if t is not None]))
        return self.eval(node, ctx)

    def climb(self, node: ast.AST) -> ast.AST:
        """The whole string expression a literal belongs to (`"..." + x`, `"...".format()`, dedent)."""
        while True:
            parent = self.parents.get(id(node))
            if isinstance(parent, ast.BinOp) and isinstance(parent.op, ast.Add | ast.Mod):
                node = parent
            elif isinstance(parent, ast.Attribute) and isinstance(grand := self.parents.get(id(parent)), ast.Call) \
                    and parent.attr in ("format", "strip", "lstrip", "rstrip") and grand.func is parent:
                node = grand
            elif isinstance(parent, ast.Call) and _callee(parent.func) in DEDENT_CALLEES and node in parent.args:
                node = parent
            else:
                return node

    def _expressions(self, stmt: ast.stmt) -> Iterator[ast.AST]:
        """The expression nodes of one statement (a compound statement's header only), minus
        logging calls, other turns' messages, nested functions and tool descriptions."""
        if isinstance(stmt, ast.If | ast.While):
            roots: list[ast.AST] = [stmt.test]
        elif isinstance(stmt, ast.For | ast.AsyncFor):
            roots = [stmt.iter]
        elif isinstance(stmt, ast.With | ast.AsyncWith):
            roots = [i.context_expr for i in stmt.items]
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Try | ast.TryStar | ast.Match):
            roots = []
        else:
            roots = [stmt]
        stack = list(reversed(roots))
        while stack:
            node = stack.pop()
            if isinstance(node, ast.Lambda | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                continue
            if isinstance(node, ast.Call):
                callee = _callee(node.func)
                if callee in LOGGING_CALLEES or callee in OTHER_TURN_CALLEES:
                    continue
            if isinstance(node, ast.Dict):
                role = _dict_get(node, "role")
                if isinstance(role, ast.Constant) and isinstance(role.value, str) and role.value not in SYSTEM_ROLES:
                    continue
            yield node
            if isinstance(node, ast.JoinedStr):
                continue  # its parts are the f-string's own
            children = nodes.children(node)
            if isinstance(node, ast.Call):
                children = [c for c in children if not (isinstance(c, ast.keyword) and c.arg in _SKIPPED_KEYWORDS)]
            if isinstance(node, ast.Dict):
                children = [v for k, v in zip(node.keys, node.values, strict=True)  # type: ignore[assignment]
                            if not (isinstance(k, ast.Constant) and k.value in _SKIPPED_KEYWORDS)] + \
                           [k for k in node.keys if k is not None]
            for child in children:  # what climb() and _in_chat_template() go up through
                self.parents[id(child)] = node
            stack.extend(reversed(children))
