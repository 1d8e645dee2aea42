"""Names and helpers: a helper's value inlined with the caller's arguments, and
what an opaque expression is made of (names, calls, environment, files, commands, dates)."""

from __future__ import annotations

from promptlint.core.ir import Expr
from promptlint.loaders.code import (
    FILE_READ_CALLEES, ISO_METHODS, MAX_HELPER_DEPTH, SHELL_CALLEES, Facts, Opaque, Value,
    date_fns_format, file_name_path, intl_format, iso_prefix_format, shell_command_name,
)
from promptlint.loaders.code.reader import Ctx, bound_facts, made_by_a_class, merge_value, pin
from promptlint.loaders.code.typescript.base import TsBase
from promptlint.loaders.code.typescript.nodes import (
    _FORMAT_METHODS, _FUNCTIONS, _QUIET_GLOBALS, _TEMPLATE_SUBSTITUTION, _UNTELLING_METHODS,
    Node, _callee, _defaults, _params, _path, _unwrap,
)


class Helpers(TsBase):
    def inline(self, fn: Node, call: Node, arguments: list[Node], ctx: Ctx, method: bool = False) -> Value:
        if ctx.depth >= MAX_HELPER_DEPTH or fn.id in ctx.stack:
            return Opaque(self.describe(call, ctx, follow=False))
        params = _params(fn, self.text)
        inner = Ctx(parent=self.module, params=frozenset(params),
                     memoised=self.memoised.get(fn.id) or ctx.memoised, module_level=ctx.module_level,
                     depth=ctx.depth + 1, inlining=True, names=self.function_names(fn), stack=ctx.stack + (fn.id,))
        for name, default in _defaults(fn, self.text):
            inner.env[name] = self.eval(default, ctx)
        for name, arg in zip(params, arguments, strict=False):
            if arg.type != "spread_element":
                inner.env[name] = self.eval(arg, ctx)
        self.run_body(fn, inner)
        returned = [(v, r) for v, r in inner.returns if v is not None]
        if not returned:
            return Opaque(self.describe(call, ctx, follow=False))
        return self.returned_value(returned, self.function_names(fn)[0], call)

    # ----------------------------------------------------------------- describing

    def describe(self, node: Node, ctx: Ctx, follow: bool = True) -> Expr:
        facts = Facts()
        self.facts(node, ctx, facts, follow)
        pin(facts, ctx, "a `{}`")
        return facts.expr(self.text(node))

    def facts(self, node: Node, ctx: Ctx, facts: Facts, follow: bool = True) -> None:
        kind = node.type
        if kind in ("string", "template_string"):
            facts.literals.append(self.cooked(node))
            for child in node.named_children:
                if child.type == _TEMPLATE_SUBSTITUTION:
                    for inner in child.named_children:
                        self.facts(inner, ctx, facts, follow)
            return
        if kind in _FUNCTIONS or kind in ("number", "comment"):
            return
        if kind in ("identifier", "member_expression", "subscript_expression", "this") \
                and self.path_facts(node, ctx, facts, follow):
            return
        if kind in ("call_expression", "new_expression"):
            self.call_facts(node, ctx, facts, follow)
            return
        if kind == "subscript_expression":
            obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
            if obj is not None:
                self.facts(obj, ctx, facts, follow)
            if index is not None and self.text(index) == "0" and obj is not None and _callee(obj) == "split" \
                    and ISO_METHODS & {c.lower() for c in facts.calls}:
                facts.format_spec = "%Y-%m-%d"  # `toISOString().split("T")[0]`: the date
            return
        for child in node.named_children:
            self.facts(child, ctx, facts, follow)

    def path_facts(self, node: Node, ctx: Ctx, facts: Facts, follow: bool) -> bool:
        path = _path(node, self.text, self.cooked)
        if path is None:
            return False
        if path[:2] == ("process", "env") and len(path) > 2:
            facts.paths.append(path[2:])
            facts.calls.append("getenv")  # read from the environment
            return True
        if path[:3] == ("import", "meta", "env") and len(path) > 3:
            facts.paths.append(path[3:])
            facts.calls.append("getenv")
            return True
        if bound_facts(facts, path, lambda k: self.lookup(k, ctx)):
            return True
        if path[0] in self.functions:
            facts.calls.append(path[0])
            return True
        if path[0] in _QUIET_GLOBALS:
            return True
        facts.paths.append(path[1:] if path[0] == "this" and len(path) > 1 else path)
        return True

    def call_facts(self, node: Node, ctx: Ctx, facts: Facts, follow: bool) -> None:
        func = _unwrap(node.child_by_field_name("function") or node.child_by_field_name("constructor"))
        args = node.child_by_field_name("arguments")
        callee = _callee(node) or ""
        arguments = [a for a in args.named_children if a.type != "comment"] if args is not None else []
        if args is not None and args.type == "template_string" and callee in ("$", "sh", "shell"):
            facts.paths.insert(0, (shell_command_name(self.cooked(args)),))
            facts.calls.append("shell")
            return
        if callee in SHELL_CALLEES and arguments and arguments[0].type in ("string", "template_string"):
            command = self.cooked(arguments[0])
            if len(arguments) > 1 and arguments[1].type == "array":
                command += " " + " ".join(self.cooked(a) for a in arguments[1].named_children
                                          if a.type in ("string", "template_string"))
            facts.paths.insert(0, (shell_command_name(command),))
            facts.calls.append(callee)
            return
        if callee in FILE_READ_CALLEES:
            names = [c for c in self._constants(node) if "." in c[-6:] or "/" in c]
            if names:
                for name in names:
                    facts.paths.insert(0, file_name_path(name))
                facts.calls.append(callee)
                return
        if callee and follow and func is not None and func.type == "identifier" and callee in self.functions \
                and ctx.depth < MAX_HELPER_DEPTH and self.functions[callee].id not in ctx.stack:
            value = self.inline(self.functions[callee], node, arguments, ctx)
            facts.calls.append(callee)
            merge_value(facts, value)
            return
        if callee and callee not in _UNTELLING_METHODS:
            if func is not None and func.type == "identifier":
                bound = self.lookup(callee, ctx)
                if isinstance(bound, Opaque):
                    facts.merge(bound.expr)
            facts.calls.append(callee)
        if func is not None:
            if func.type == "member_expression":
                obj = func.child_by_field_name("object")
                if obj is not None:
                    pinned = facts.pinned
                    self.facts(obj, ctx, facts, follow)
                    receiver = _path(obj, self.text, self.cooked)
                    if pinned is None and receiver is not None and made_by_a_class(self.lookup(".".join(receiver), ctx)):
                        facts.pinned = None  # `client.search(q)`: the client is made once, its answers each call
            elif func.type != "identifier":
                self.facts(func, ctx, facts, follow)
        if callee.startswith("toLocale") or callee in ("DateTimeFormat",):
            options = next((a for a in arguments if a.type == "object"), None)
            if options is not None:
                found = intl_format(self._options(options))
                if found:
                    facts.format_spec = found
            elif callee == "toLocaleDateString":
                facts.format_spec = facts.format_spec or "%Y-%m-%d"
            for arg in arguments:
                if arg.type != "object" and arg.type not in ("string",):
                    self.facts(arg, ctx, facts, follow)
            return
        if callee in ("slice", "substring", "substr") and len(arguments) >= 2 and self.text(arguments[0]) == "0" \
                and arguments[1].type == "number" and ISO_METHODS & {c.lower() for c in facts.calls}:
            try:
                length = int(self.text(arguments[1]))
            except ValueError:  # `0x10`, `1e1`, `16.0`: numbers too, which int() does not read
                return
            facts.format_spec = iso_prefix_format(length) or facts.format_spec
            return
        for arg in arguments:
            if facts.format_spec is None and arg.type in ("string", "template_string"):
                text = self.cooked(arg)
                facts.format_spec = date_fns_format(text) if callee in _FORMAT_METHODS else text
            self.facts(arg, ctx, facts, follow)

    def _options(self, node: Node) -> dict[str, str]:
        out = {}
        for pair in node.named_children:
            if pair.type == "pair":
                key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                if key is not None and value is not None:
                    out[self.text(key).strip("'\"")] = self.cooked(value) if value.type == "string" else self.text(value)
        return out

    def _constants(self, node: Node) -> list[str]:
        found = []
        stack = [node]
        while stack:
            current = stack.pop()
            if current.type in ("string", "template_string"):
                found.append(self.cooked(current))
            stack.extend(current.named_children)
        return found
