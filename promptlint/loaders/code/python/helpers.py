"""Names and helpers: a helper's value inlined with the caller's arguments, and
what an opaque expression is made of (names, calls, environment, files, commands)."""

from __future__ import annotations

import ast
import re

from promptlint.core.ir import Expr
from promptlint.loaders.code import (
    FILE_READ_CALLEES, ISO_METHODS, MAX_HELPER_DEPTH, Facts, Opaque, Value, file_name_path,
    iso_prefix_format, literal_text, shell_command_name,
)
from promptlint.loaders.code.python.base import PythonBase
from promptlint.loaders.code.python.nodes import (
    _QUIET_MODULES, _SHELL_ANY_BASE, _SHELL_MODULE_CALLS, _base_name, _callee, _command,
    _constants, _params, _path, children,
)
from promptlint.loaders.code.reader import Ctx, bound_facts, made_by_a_class, merge_value, pin


class Helpers(PythonBase):
    def inline(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, ctx: Ctx,
               method: bool = False) -> Value:
        """A helper's return value, evaluated with the caller's arguments."""
        if ctx.depth >= MAX_HELPER_DEPTH or fn.name in ctx.stack:
            return Opaque(self._describe_call_only(call, ctx))
        inner = Ctx(parent=self.module, params=_params(fn), memoised=self.memoised.get(id(fn)) or ctx.memoised,
                     module_level=ctx.module_level, depth=ctx.depth + 1, inlining=True, names=(fn.name,),
                     stack=ctx.stack + (fn.name,))
        args = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        defaults = fn.args.defaults
        # Paired before `self` is dropped: it may have a default too (`def render(self=None)`),
        # and then there were more defaults than the arguments left (a ValueError).
        defaulted = list(zip(args[len(args) - len(defaults):], defaults, strict=True))
        if method and args and args[0] in ("self", "cls"):
            args = args[1:]
        for name, default in defaulted:
            if name in args and isinstance(default, ast.Constant) and isinstance(default.value, str):
                inner.env[name] = self.eval(default, ctx)
        for name, arg in zip(args, call.args, strict=False):
            if not isinstance(arg, ast.Starred):
                inner.env[name] = self.eval(arg, ctx)
        for kw in call.keywords:
            if kw.arg:
                inner.env[kw.arg] = self.eval(kw.value, ctx)
        self.run(fn.body, inner)
        returned = [(v, r) for v, r in inner.returns if v is not None]
        if not returned:
            return Opaque(self._describe_call_only(call, ctx))
        return self.returned_value(returned, fn.name, call)

    # ----------------------------------------------------------------- describing

    def describe(self, node: ast.AST, ctx: Ctx) -> Expr:
        facts = Facts()
        self.facts(node, ctx, facts)
        return self.finish_facts(facts, node, ctx)

    def _describe_call_only(self, call: ast.Call, ctx: Ctx) -> Expr:
        facts = Facts()
        facts.calls.append(_callee(call.func) or "call")
        for arg in call.args:
            self.facts(arg, ctx, facts)
        return self.finish_facts(facts, call, ctx)

    def finish_facts(self, facts: Facts, node: ast.AST, ctx: Ctx) -> Expr:
        pin(facts, ctx, "an `@{}`")
        return facts.expr(self.text(node))

    def facts(self, node: ast.AST, ctx: Ctx, facts: Facts) -> None:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                facts.literals.append(node.value)
            return
        if isinstance(node, ast.Name | ast.Attribute) or (isinstance(node, ast.Subscript) and _path(node) is not None):
            self.path_facts(node, ctx, facts)
            return
        if isinstance(node, ast.Subscript):
            self.facts(node.value, ctx, facts)
            sl = node.slice
            if isinstance(sl, ast.Slice) and isinstance(sl.upper, ast.Constant) and isinstance(sl.upper.value, int) \
                    and (sl.lower is None or (isinstance(sl.lower, ast.Constant) and sl.lower.value == 0)) \
                    and ISO_METHODS & {c.lower() for c in facts.calls}:
                facts.format_spec = iso_prefix_format(sl.upper.value) or facts.format_spec
            return
        if isinstance(node, ast.Call):
            self.call_facts(node, ctx, facts)
            return
        if isinstance(node, ast.Set | ast.SetComp):
            facts.calls.append("set")
        if isinstance(node, ast.Lambda):
            return
        for child in children(node):
            self.facts(child, ctx, facts)

    def path_facts(self, node: ast.AST, ctx: Ctx, facts: Facts) -> None:
        path = _path(node)
        if path is None:
            for child in children(node):
                self.facts(child, ctx, facts)
            return
        if path[:2] == ("os", "environ") and len(path) > 2:
            facts.paths.append(path[2:])
            facts.calls.append("getenv")  # read from the environment, as os.getenv reads
            return
        head = path[0]
        if bound_facts(facts, path, lambda k: self.lookup(k, node, ctx)):
            return
        if head in self.functions:
            facts.calls.append(head)
            return
        if head in _QUIET_MODULES:
            return  # `os.getcwd()`, `datetime.now()`: the function's name speaks, not the module's
        facts.paths.append(path)

    def call_facts(self, node: ast.Call, ctx: Ctx, facts: Facts) -> None:
        func = node.func
        callee = _callee(func) or ""
        base = _base_name(func)
        if callee in _SHELL_ANY_BASE or (callee in _SHELL_MODULE_CALLS and base in ("subprocess", "os", "sp")):
            command = _command(node.args[0]) if node.args else None
            if command is not None:
                facts.paths.insert(0, (shell_command_name(command),))
                facts.calls.append(callee)
                return
        if callee in ("getenv", "get") and (callee == "getenv" or _path(func) == ("os", "environ", "get")) \
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            facts.paths.append((node.args[0].value,))
            facts.calls.append("getenv")
            return
        if callee in FILE_READ_CALLEES or (callee == "read" and isinstance(func, ast.Attribute)
                                           and isinstance(func.value, ast.Call) and _callee(func.value.func) == "open"):
            names = [c for c in _constants(node) if re.search(r"\.[A-Za-z]{1,5}$|/", c)]
            if names:
                for name in names:
                    facts.paths.insert(0, file_name_path(name))
                facts.calls.append(callee)
                return
        if callee in ("set", "frozenset"):
            facts.calls.append("set")
        elif callee:
            if isinstance(func, ast.Name) and callee in self.functions and ctx.depth < MAX_HELPER_DEPTH \
                    and callee not in ctx.stack:
                value = self.inline(self.functions[callee], node, ctx)
                facts.calls.append(callee)
                merge_value(facts, value)
                return
            bound = self.lookup(callee, func, ctx) if isinstance(func, ast.Name) else None
            if isinstance(bound, Opaque):
                facts.merge(bound.expr)
            facts.calls.append(callee)
        if isinstance(func, ast.Attribute):
            pinned = facts.pinned
            self.facts(func.value, ctx, facts)
            receiver = _path(func.value)
            if pinned is None and receiver is not None and made_by_a_class(self.lookup(".".join(receiver), func, ctx)):
                facts.pinned = None  # `client.search(q)`: the client is made once, its answers each call
        elif not isinstance(func, ast.Name):
            self.facts(func, ctx, facts)
        for arg in [*node.args, *(kw.value for kw in node.keywords)]:
            if facts.format_spec is None and isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                facts.format_spec = arg.value
            elif facts.format_spec is None and isinstance(arg, ast.Name):
                text = literal_text(self.lookup(arg.id, arg, ctx))
                if text is not None and "%" in text:
                    facts.format_spec = text
            self.facts(arg, ctx, facts)
