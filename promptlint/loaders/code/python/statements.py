"""Statements: assignments, list building (``append``/``extend``/``+=``), loops,
branches and comprehensions, in statement order."""

from __future__ import annotations

import ast
from dataclasses import replace

from promptlint.core.ir import Expr, Span
from promptlint.loaders.code import (
    Each, Item, Lst, Opaque, Value, as_list, concat, is_prompt_name,
)
from promptlint.loaders.code.python.base import PythonBase
from promptlint.loaders.code.python.nodes import (
    _key, _names,
)
from promptlint.loaders.code.reader import Ctx


class Statements(PythonBase):
    # ----------------------------------------------------------------- statements

    def run(self, body: list[ast.stmt], ctx: Ctx) -> None:
        for stmt in body:
            ctx.statement = stmt
            if not ctx.inlining:
                self.scan(stmt, ctx)
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if isinstance(stmt, ast.ClassDef):
                if ctx.module_level and not ctx.inlining:
                    class_ctx = Ctx(parent=ctx, module_level=True, class_body=True, names=(stmt.name,))
                    self.run(stmt.body, class_ctx)
                    self.finish(class_ctx)
                    self.class_envs[stmt.name] = class_ctx.env
                continue
            if isinstance(stmt, ast.Assign):
                value = self.eval(stmt.value, ctx)
                for target in stmt.targets:
                    self.bind(target, value, stmt, ctx)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                value = self.eval(stmt.value, ctx)
                if (ctx.class_body and isinstance(value, Opaque) and value.expr.pinned
                        and "ClassVar" not in ast.unparse(stmt.annotation)):
                    # `i_context: RunCodeContext = Field(default_factory=...)` in a class body:
                    # a field's default (pydantic, dataclasses, attrs), which each instance
                    # replaces; not a value computed once at import (MetaGPT's actions).
                    value = Opaque(replace(value.expr, pinned=None))
                self.bind(stmt.target, value, stmt, ctx)
            elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, ast.Add):
                key = _key(stmt.target)
                if key is not None:
                    old = self.lookup(key, stmt.target, ctx)
                    new = self.eval(stmt.value, ctx)
                    if isinstance(old, Lst):
                        grown: Value = Lst(old.items + as_list(new, self.span(stmt.value), "").items)
                    else:
                        grown = concat(old, new, self.span(stmt.target), self.span(stmt.value))
                    self.assign(key, grown, stmt, ctx)
            elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
                self.mutate(stmt.value, stmt, ctx)
            elif isinstance(stmt, ast.For | ast.AsyncFor):
                self.loop(stmt, ctx)
            elif isinstance(stmt, ast.While):
                self.branch(stmt.body, ctx, "for", self.header(stmt, stmt.test))
                self.run(stmt.orelse, ctx)
            elif isinstance(stmt, ast.If):
                self.branch(stmt.body, ctx, "if", self.header(stmt, stmt.test))
                self.branch(stmt.orelse, ctx, "if", self.header(stmt, stmt.test))
            elif isinstance(stmt, ast.With | ast.AsyncWith):
                self.run(stmt.body, ctx)
            elif isinstance(stmt, ast.Try | ast.TryStar):
                self.run(stmt.body, ctx)
                for handler in stmt.handlers:
                    self.branch(handler.body, ctx, "if", self.span(handler))
                self.run(stmt.orelse, ctx)
                self.run(stmt.finalbody, ctx)
            elif isinstance(stmt, ast.Match):
                for case in stmt.cases:
                    self.branch(case.body, ctx, "if", self.span(case.pattern))
            elif isinstance(stmt, ast.Return):
                returned = self.eval(stmt.value, ctx) if stmt.value is not None else None
                ctx.returns.append((returned, stmt))
                if not ctx.inlining and any(is_prompt_name(n, self.prompt_names) for n in ctx.names):
                    self.sink(returned, f"{ctx.names[0]}()", stmt.value or stmt, stmt, declared=ctx.declared)

    def header(self, stmt: ast.stmt, last: ast.AST) -> Span:
        return Span(self.span(stmt).start, self.span(last).end)

    def bind(self, target: ast.AST, value: Value, stmt: ast.stmt, ctx: Ctx) -> None:
        key = _key(target)
        if key is not None:
            self.assign(key, value, stmt, ctx)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                if isinstance(elt, ast.Name):
                    ctx.env[elt.id] = Opaque(self.describe(stmt.value, ctx)) if hasattr(stmt, "value") else value
                    ctx.sorted_names.discard(elt.id)

    def mutate(self, call: ast.Call, stmt: ast.stmt, ctx: Ctx) -> None:
        """``parts.append(x)``, ``parts.extend(xs)``, ``parts.insert(0, x)``, ``tools.sort()``."""
        if not isinstance(call.func, ast.Attribute):
            return
        key = _key(call.func.value)
        method = call.func.attr
        if key is None:
            return
        current = self.lookup(key, call.func.value, ctx)
        if method == "sort":
            ctx.sorted_names.add(key)
            return
        if not isinstance(current, Lst) or not call.args:
            return
        if method == "append":
            item = self.item(call.args[0], ctx)
            self.assign(key, Lst(current.items + [item]), stmt, ctx)
        elif method == "extend":
            added = as_list(self.eval(call.args[0], ctx), self.span(call.args[0]), self.text(call.args[0]))
            self.assign(key, Lst(current.items + added.items), stmt, ctx)
        elif method == "insert" and len(call.args) == 2:
            item = self.item(call.args[1], ctx)
            at_start = isinstance(call.args[0], ast.Constant) and call.args[0].value == 0
            items = [item] + current.items if at_start else current.items + [item]
            self.assign(key, Lst(items), stmt, ctx)

    def loop(self, stmt: ast.For | ast.AsyncFor, ctx: Ctx) -> None:
        loop_vars = tuple(_names(stmt.target))
        expr = self.loop_expr(stmt.iter, ctx)
        is_sorted = self.is_sorted(stmt.iter, expr, ctx)
        for name in loop_vars:
            ctx.env.pop(name, None)
        before = self.snapshot(ctx)
        self.run(stmt.body, ctx)
        self.wrap(ctx, before, Each("for", self.header(stmt, stmt.iter), [], expr, loop_vars, is_sorted))
        for name in loop_vars:
            ctx.env.pop(name, None)
        self.run(stmt.orelse, ctx)

    def loop_expr(self, node: ast.AST, ctx: Ctx) -> Expr:
        expr = self.describe(node, ctx)
        key = _key(node)
        if key is not None and (key,) not in expr.paths:
            # The local name of a collection says what it holds (`tools = registry.values()`).
            path = tuple(key.split("."))
            expr = replace(expr, source=self.text(node), path=path, paths=(path, *expr.paths))
        return expr

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, generators: list[ast.comprehension],
                      ctx: Ctx) -> Item:
        gen = generators[0]
        loop_vars = tuple(_names(gen.target))
        expr = self.loop_expr(gen.iter, ctx)
        saved = {n: ctx.env.pop(n) for n in loop_vars if n in ctx.env}
        inner = self.comprehension(node, generators[1:], ctx) if len(generators) > 1 else self.item(node.elt, ctx)
        ctx.env.update(saved)
        return Each("for", self.span(gen.iter), [inner], expr, loop_vars, self.is_sorted(gen.iter, expr, ctx))
