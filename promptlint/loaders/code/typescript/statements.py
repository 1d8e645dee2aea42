"""Statements: declarations, assignments, ``push``/``unshift``/``+=`` list building,
loops, branches, switch and try blocks, class fields, in statement order."""

from __future__ import annotations

from dataclasses import replace

from promptlint.core.ir import Expr, Span
from promptlint.loaders.code import (
    Each, Item, Lst, Opaque, Value, as_list, concat, is_prompt_name,
)
from promptlint.loaders.code.reader import Ctx
from promptlint.loaders.code.typescript.base import TsBase
from promptlint.loaders.code.typescript.nodes import (
    _FUNCTIONS, _SORT_METHODS, Node, _pattern_names, _sorts, _unwrap,
)


class Statements(TsBase):
    # ----------------------------------------------------------------- statements

    def run(self, statements: list[Node], ctx: Ctx) -> None:
        for stmt in statements:
            self.statement(stmt, ctx)

    def statement(self, stmt: Node, ctx: Ctx) -> None:
        kind = stmt.type
        if not ctx.inlining and kind not in _FUNCTIONS and kind not in ("class_declaration", "export_statement"):
            self.scan(stmt, ctx)
        if kind in ("export_statement",):
            declaration = stmt.child_by_field_name("declaration")
            value = stmt.child_by_field_name("value")
            if declaration is not None:
                self.statement(declaration, ctx)
            elif value is not None and not ctx.inlining:
                self.scan(value, ctx)
            return
        if kind in ("lexical_declaration", "variable_declaration"):
            for declarator in stmt.named_children:
                if declarator.type != "variable_declarator":
                    continue
                name, value = declarator.child_by_field_name("name"), declarator.child_by_field_name("value")
                if name is not None and value is not None and _unwrap(value).type not in _FUNCTIONS:
                    self.bind(name, self.eval(value, ctx), stmt, ctx)
        elif kind == "expression_statement":
            expr = _unwrap(stmt.named_children[0]) if stmt.named_children else None
            if expr is not None:
                self.expression_statement(expr, stmt, ctx)
        elif kind == "for_in_statement":
            self.loop(stmt, ctx)
        elif kind in ("for_statement", "while_statement", "do_statement"):
            self.branch(stmt.child_by_field_name("body"), ctx, "for", self.header(stmt))
        elif kind == "if_statement":
            self.branch(stmt.child_by_field_name("consequence"), ctx, "if", self.header(stmt))
            self.branch(stmt.child_by_field_name("alternative"), ctx, "if", self.header(stmt))
        elif kind == "statement_block":
            self.run(stmt.named_children, ctx)
        elif kind == "try_statement":
            self.block(stmt.child_by_field_name("body"), ctx)
            handler = stmt.child_by_field_name("handler")
            if handler is not None:
                self.branch(handler.child_by_field_name("body"), ctx, "if", self.span(handler))
            finalizer = stmt.child_by_field_name("finalizer")
            if finalizer is not None:
                self.block(finalizer.named_children[0] if finalizer.named_children else None, ctx)
        elif kind == "switch_statement":
            body = stmt.child_by_field_name("body")
            for case in body.named_children if body is not None else []:
                before = self.snapshot(ctx)
                self.run([c for c in case.named_children if c.type.endswith(("statement", "declaration"))], ctx)
                self.wrap(ctx, before, Each("if", self.span(case), []))
        elif kind == "return_statement":
            expr = stmt.named_children[0] if stmt.named_children else None
            value = self.eval(expr, ctx) if expr is not None else None
            ctx.returns.append((value, stmt))
            if expr is not None and not ctx.inlining and any(is_prompt_name(n, self.prompt_names) for n in ctx.names):
                self.sink(value, f"{ctx.names[0]}()", expr, stmt)
        elif kind in ("class_declaration", "abstract_class_declaration") and ctx.module_level and not ctx.inlining:
            body = stmt.child_by_field_name("body")
            class_name = stmt.child_by_field_name("name")
            class_ctx = Ctx(parent=ctx, module_level=True,
                             names=(self.text(class_name),) if class_name is not None else ())
            for member in body.named_children if body is not None else []:
                if member.type in ("public_field_definition", "field_definition"):
                    name = member.child_by_field_name("name") or member.child_by_field_name("property")
                    value = member.child_by_field_name("value")
                    if name is not None and value is not None and _unwrap(value).type not in _FUNCTIONS:
                        self.scan(member, class_ctx)
                        key = "this." + self.text(name)
                        found = self.eval(value, class_ctx)
                        static = any(child.type == "static" for child in member.children)
                        if static and class_name is not None:
                            # `static shared = load()`: made once, as the class is defined
                            ctx.env[f"{self.text(class_name)}.{self.text(name)}"] = found
                        elif isinstance(found, Opaque) and found.expr.pinned:
                            # `private ctx = load()`: made again for each instance, not at import
                            found = Opaque(replace(found.expr, pinned=None))
                        self.assign(key, found, member, class_ctx)
                        self.class_env[self.text(name)] = class_ctx.env[key]
            self.finish(class_ctx)

    def header(self, stmt: Node) -> Span:
        body = stmt.child_by_field_name("body") or stmt.child_by_field_name("consequence")
        end = body.start_byte if body is not None else stmt.end_byte
        return Span(self.char(stmt.start_byte), self.char(end))

    def expression_statement(self, expr: Node, stmt: Node, ctx: Ctx) -> None:
        if expr.type == "assignment_expression":
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            if left is not None and right is not None and _unwrap(right).type not in _FUNCTIONS:
                self.bind(left, self.eval(right, ctx), stmt, ctx)
        elif expr.type == "augmented_assignment_expression":
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            operator = expr.child_by_field_name("operator")
            key = self.key(left) if left is not None else None
            if key is not None and right is not None and operator is not None and self.text(operator) == "+=":
                old = self.lookup(key, ctx)
                new = self.eval(right, ctx)
                if isinstance(old, Lst):
                    value: Value = Lst(old.items + as_list(new, self.span(right), "").items)
                else:
                    value = concat(old, new, self.span(left), self.span(right))
                self.assign(key, value, stmt, ctx)
        elif expr.type == "call_expression":
            self.mutate(expr, stmt, ctx)

    def bind(self, target: Node, value: Value, stmt: Node, ctx: Ctx) -> None:
        key = self.key(target)
        if key is not None:
            self.assign(key, value, stmt, ctx)
            return
        for name in _pattern_names(target, self.text):
            ctx.env[name] = Opaque(replace(value.expr, source=name)) if isinstance(value, Opaque) else value

    def mutate(self, call: Node, stmt: Node, ctx: Ctx) -> None:
        """``lines.push(a, b)``, ``lines.unshift(x)``, ``tools.sort()``."""
        func = _unwrap(call.child_by_field_name("function"))
        if func is None or func.type != "member_expression":
            return
        obj, prop = func.child_by_field_name("object"), func.child_by_field_name("property")
        key = self.key(obj) if obj is not None else None
        if key is None or prop is None:
            return
        method = self.text(prop)
        if method in _SORT_METHODS:
            ctx.sorted_names.add(key)
            return
        current = self.lookup(key, ctx)
        args = call.child_by_field_name("arguments")
        if not isinstance(current, Lst) or args is None:
            return
        added: list[Item] = []
        for arg in args.named_children:
            if arg.type == "spread_element" and arg.named_children:
                inner = arg.named_children[0]
                added.extend(as_list(self.eval(inner, ctx), self.span(inner), self.text(inner)).items)
            else:
                added.append(self.item(arg, ctx))
        if method == "push":
            self.assign(key, Lst(current.items + added), stmt, ctx)
        elif method == "unshift":
            self.assign(key, Lst(added + current.items), stmt, ctx)

    def loop(self, stmt: Node, ctx: Ctx) -> None:
        left, right = stmt.child_by_field_name("left"), stmt.child_by_field_name("right")
        if right is None:
            return
        loop_vars = tuple(_pattern_names(left, self.text)) if left is not None else ()
        operator = stmt.child_by_field_name("operator")
        expr = self.loop_expr(right, ctx)
        if operator is not None and self.text(operator) == "in":
            expr = replace(expr, calls=expr.calls + ("keys",))
        for name in loop_vars:
            ctx.env.pop(name, None)
        before = self.snapshot(ctx)
        self.block(stmt.child_by_field_name("body"), ctx)
        self.wrap(ctx, before, Each("for", self.header(stmt), [], expr, loop_vars, self.is_sorted(right, expr, ctx)))

    def loop_expr(self, node: Node, ctx: Ctx) -> Expr:
        expr = self.describe(node, ctx)
        key = self.key(node)
        if key is not None:
            path = tuple(key.split("."))
            if path not in expr.paths:
                expr = replace(expr, source=self.text(node), path=path, paths=(path, *expr.paths))
        return expr

    def is_sorted(self, node: Node, expr: Expr, ctx: Ctx) -> bool:
        key = self.key(node)
        return _sorts(expr) or (key is not None and key in ctx.sorted_names)

    def run_body(self, fn: Node, ctx: Ctx) -> None:
        body = fn.child_by_field_name("body")
        if body is None:
            return
        if body.type == "statement_block":
            self.run(body.named_children, ctx)
        else:  # an arrow function's expression body is what it returns
            value = self.eval(body, ctx)
            ctx.returns.append((value, body))
            if not ctx.inlining and any(is_prompt_name(n, self.prompt_names) for n in ctx.names):
                self.sink(value, f"{ctx.names[0]}()", body, body)
