"""Where prompts are sent: system messages, prompt-named keys, system callees, and
long instruction text no name announces."""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.core.ir import Span, Text
from promptlint.loaders.code import (
    LOGGING_CALLEES, OTHER_TURN_CALLEES, SYSTEM_CALLEES, SYSTEM_ROLES, Lst, Value, is_sink_key,
    join, langchain, looks_like_instructions,
)
from promptlint.loaders.code.reader import Ctx
from promptlint.loaders.code.typescript.base import TsBase
from promptlint.loaders.code.typescript.nodes import (
    _FUNCTIONS, _PASS_THROUGH_METHODS, _STRIP_METHODS, _WRAPPERS, Node, _callee, _pair, _unwrap,
)


class Sites(TsBase):
    # ----------------------------------------------------------------- sinks

    def scan(self, stmt: Node, ctx: Ctx) -> None:
        for node in self._expressions(stmt):
            kind = node.type
            if kind == "object":
                role = _pair(node, "role", self.text)
                if role is not None and role.type == "string" and self.cooked(role) in SYSTEM_ROLES:
                    content = _pair(node, "content", self.text)
                    if content is not None:
                        self.sink(self.content(content, ctx), f"{{role: {self.cooked(role)}}}", content, stmt)
                for pair in node.named_children:
                    if pair.type == "pair":
                        key = pair.child_by_field_name("key")
                        value = pair.child_by_field_name("value")
                        if key is not None and value is not None and _unwrap(value).type not in _FUNCTIONS \
                                and is_sink_key(self.text(key).strip("'\"`"), self.prompt_names):
                            self.sink(self.content(value, ctx), f"{self.text(key)}:", value, stmt)
                    elif pair.type == "shorthand_property_identifier" and is_sink_key(self.text(pair), self.prompt_names):
                        self.sink(self.eval(pair, ctx), f"{self.text(pair)}:", pair, stmt)
            elif kind in ("new_expression", "call_expression"):
                callee = _callee(node)
                if callee in SYSTEM_CALLEES:
                    args = node.child_by_field_name("arguments")
                    if args is not None and args.named_children:
                        arg = args.named_children[0]
                        if arg.type == "object":
                            arg = _pair(arg, "content", self.text) or arg
                        self.sink(self.eval(arg, ctx), f"{callee}(...)", arg, stmt)
            elif kind == "array" and len(node.named_children) == 2:
                head = node.named_children[0]
                if head.type == "string" and self.cooked(head) in SYSTEM_ROLES:
                    value = self.eval(node.named_children[1], ctx)
                    if self._in_chat_template(node):
                        value = langchain.variable_slots(value, self.source)  # LangChain fills `{name}`
                    self.sink(value, f"[{self.cooked(head)!r}, ...]", node.named_children[1], stmt)
            elif kind in ("string", "template_string"):
                literal = self.cooked(node)
                if looks_like_instructions(literal):
                    top = self.climb(node)
                    name = self._statement_name(stmt) or f"text at line {node.start_point[0] + 1}"
                    self.sink(self.eval(top, ctx), name, top, stmt, named=False)

    def _in_chat_template(self, pair: Node) -> bool:
        """Whether a `["system", ...]` pair is a message of a LangChain chat prompt template
        (`ChatPromptTemplate.fromMessages([...])`), which formats it unless its options say
        `templateFormat: "mustache"`."""
        listed = pair.parent
        args = listed.parent if listed is not None and listed.type == "array" else None
        call = args.parent if args is not None and args.type == "arguments" else None
        if args is None or call is None or _callee(call) not in langchain.TEMPLATE_CALLS:
            return False
        options = next((a for a in args.named_children if a.type == "object"), None)
        given = _pair(options, "templateFormat", self.text) if options is not None else None
        return given is None or self.cooked(given) == "f-string"

    def _statement_name(self, stmt: Node) -> str | None:
        if stmt.type in ("lexical_declaration", "variable_declaration"):
            for declarator in stmt.named_children:
                name = declarator.child_by_field_name("name")
                if name is not None:
                    return self.text(name)
        return None

    def content(self, node: Node, ctx: Ctx) -> Value:
        """A message's content: a string, or content blocks / parts whose text is sent."""
        node = _unwrap(node)
        if node.type == "array":
            texts = [_pair(e, "text", self.text) for e in node.named_children if e.type == "object"]
            if texts and all(t is not None for t in texts):
                return join(Text(Span(0, 0), "\n"), Lst([self.item(t, ctx) for t in texts if t is not None]))
        if node.type == "object":
            for key in ("text", "parts", "content"):
                inner = _pair(node, key, self.text)
                if inner is not None:
                    return self.content(inner, ctx)
        return self.eval(node, ctx)

    def climb(self, node: Node) -> Node:
        while True:
            parent = node.parent
            if parent is None:
                return node
            operator = parent.child_by_field_name("operator") if parent.type == "binary_expression" else None
            if (operator is not None and self.text(operator) == "+") or parent.type in _WRAPPERS:
                node = parent
            elif parent.type == "call_expression" and parent.child_by_field_name("arguments") is not None \
                    and parent.child_by_field_name("arguments").id == node.id:
                node = parent  # a tagged template
            elif parent.type == "member_expression" and parent.parent is not None \
                    and parent.parent.type == "call_expression" and parent.child_by_field_name("property") is not None \
                    and self.text(parent.child_by_field_name("property")) in set(_STRIP_METHODS) | _PASS_THROUGH_METHODS:
                node = parent.parent
            else:
                return node

    def _expressions(self, stmt: Node) -> Iterator[Node]:
        kind = stmt.type
        if kind in ("if_statement", "while_statement", "do_statement"):
            roots = [c for c in [stmt.child_by_field_name("condition")] if c is not None]
        elif kind == "for_in_statement":
            roots = [c for c in [stmt.child_by_field_name("right")] if c is not None]
        elif kind in ("for_statement", "try_statement", "switch_statement", "statement_block", "class_declaration"):
            roots = []
        else:
            roots = [stmt]
        stack = list(reversed(roots))
        while stack:
            node = stack.pop()
            if node.type in _FUNCTIONS or node.type in ("class_declaration", "class", "statement_block"):
                continue
            if node.type in ("call_expression", "new_expression"):
                callee = _callee(node)
                if callee in LOGGING_CALLEES or callee in OTHER_TURN_CALLEES:
                    continue
            if node.type == "object":
                role = _pair(node, "role", self.text)
                if role is not None and role.type == "string" and self.cooked(role) not in SYSTEM_ROLES:
                    continue
            if node.type == "pair":
                key = node.child_by_field_name("key")
                if key is not None and self.text(key).strip("'\"") in ("description", "help", "summary"):
                    continue
            yield node
            if node.type in ("string", "template_string"):
                continue
            stack.extend(reversed(node.named_children))
