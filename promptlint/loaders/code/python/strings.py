"""String expressions: constants, f-strings, ``+``, ``*``, ``sep.join(...)``,
``.strip()``/dedent, and calls of the module's helpers."""

from __future__ import annotations

import ast
from dataclasses import replace

from promptlint.core.ir import Block, Expr, Segment, Slot, Text
from promptlint.loaders.code import (
    DEDENT_CALLEES, Item, Lst, Opaque, Str, Value, as_list, cleandoc, concat, dedent, extend,
    is_prompt_name, join, literal_text, segments_of, strip,
)
from promptlint.loaders.code.python.base import PythonBase
from promptlint.loaders.code.python.nodes import (
    _PASS_THROUGH_METHODS, _callee, _key,
)
from promptlint.loaders.code.reader import Ctx


class Strings(PythonBase):
    # ----------------------------------------------------------------- expressions

    def eval(self, node: ast.AST | None, ctx: Ctx) -> Value:
        if node is None:
            return Str([])
        if isinstance(node, ast.Constant):
            if isinstance(node.value, str):
                return Str([Text(self.span(node), node.value)])
            if isinstance(node.value, bool | int | float) or node.value is None:
                try:
                    return Str([Text(self.span(node), str(node.value))])
                except ValueError:  # an integer too long to print (sys.get_int_max_str_digits)
                    return Opaque(Expr(source="<number>"))
            return Opaque(self.describe(node, ctx))
        if isinstance(node, ast.JoinedStr):
            return self.fstring(node, ctx)
        if isinstance(node, ast.Name | ast.Attribute):
            key = _key(node)
            if key is not None:
                found = self.lookup(key, node, ctx)
                if found is not None:
                    return found
            return Opaque(self.describe(node, ctx))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.sum(node, ctx)
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Mod):
                left = self.eval(node.left, ctx)
                if isinstance(left, Str):
                    return self.percent(left, node.left, node.right, ctx)
            elif isinstance(node.op, ast.Mult):
                left, right = self.eval(node.left, ctx), self.eval(node.right, ctx)
                times = literal_text(right) if isinstance(left, Str) else literal_text(left)
                repeated = left if isinstance(left, Str) else right
                if isinstance(repeated, Str) and times is not None and times.isdecimal() and len(times) < 7:
                    return Str(list(repeated.parts) * min(int(times), max(1, 4096 // max(1, len(repeated.parts)))))
            return Opaque(self.describe(node, ctx))
        if isinstance(node, ast.Call):
            return self.call(node, ctx)
        if isinstance(node, ast.IfExp):
            span = self.span(node.test)
            return Str([Block("if", span, None, segments_of(self.eval(node.body, ctx), self.span(node.body),
                                                              self.text(node.body))),
                        Block("if", span, None, segments_of(self.eval(node.orelse, ctx), self.span(node.orelse),
                                                              self.text(node.orelse)))])
        if isinstance(node, ast.List | ast.Tuple):
            items: list[Item] = []
            for elt in node.elts:
                if isinstance(elt, ast.Starred):
                    items.extend(as_list(self.eval(elt.value, ctx), self.span(elt), self.text(elt)).items)
                else:
                    items.append(self.item(elt, ctx))
            return Lst(items)
        if isinstance(node, ast.ListComp | ast.GeneratorExp):
            return Lst([self.comprehension(node, node.generators, ctx)])
        if isinstance(node, ast.Await | ast.NamedExpr):
            return self.eval(node.value, ctx)
        return Opaque(self.describe(node, ctx))

    def sum(self, node: ast.BinOp, ctx: Ctx) -> Value:
        """``a + b + c``: a tree that leans left, as deep as the chain is long (a prompt of
        500 lines joined with ``+``), folded in a loop, not by recursion."""
        chain: list[ast.BinOp] = []
        first: ast.expr = node
        while isinstance(first, ast.BinOp) and isinstance(first.op, ast.Add):
            chain.append(first)
            first = first.left
        value = self.eval(first, ctx)
        made = False  # whether ``value`` is a string this fold made (nothing else holds it)
        for link in reversed(chain):
            right = self.eval(link.right, ctx)
            if made and isinstance(value, Str):
                extend(value, right, self.span(link.right))
            elif isinstance(value, Str | Lst) or isinstance(right, Str | Lst):
                value = concat(value, right, self.span(link.left), self.span(link.right))
                made = isinstance(value, Str)
            else:
                value = Opaque(self.describe(link, ctx))
        return value

    def fstring(self, node: ast.JoinedStr, ctx: Ctx) -> Str:
        span = self.span(node)
        parts: list[Segment] = []
        for value in node.values:
            if isinstance(value, ast.Constant):
                parts.append(Text(span, str(value.value)))
            elif isinstance(value, ast.FormattedValue):
                spec = None
                if value.format_spec is not None:
                    spec = literal_text(self.eval(value.format_spec, ctx)) or self.text(value.format_spec)
                parts.extend(self.interpolate(value.value, ctx, spec))
        return Str(parts)

    def interpolate(self, node: ast.AST, ctx: Ctx, spec: str | None = None) -> list[Segment]:
        value = self.eval(node, ctx)
        if isinstance(value, Str):
            return list(value.parts)
        expr = value.expr if isinstance(value, Opaque) else self.describe(node, ctx)
        if spec:
            expr = replace(expr, format_spec=spec)
        return [Slot(self.span(node), expr)]

    def call(self, node: ast.Call, ctx: Ctx) -> Value:
        func = node.func
        callee = _callee(func)
        if isinstance(func, ast.Attribute):
            if callee == "format":
                base = self.eval(func.value, ctx)
                if isinstance(base, Str):
                    formatted = self.format(base, node, ctx)
                    key = _key(func.value)
                    if key is not None and not ctx.inlining and ctx.statement is not None \
                            and is_prompt_name(key.rsplit(".", 1)[-1], self.prompt_names):
                        # A prompt template filled here: the filled prompt is what is sent.
                        self.sink(formatted, f"{key}.format()", node, ctx.statement)
                    return formatted
            elif callee == "join" and node.args:
                separator = literal_text(self.eval(func.value, ctx))
                if separator is not None:
                    items = as_list(self.eval(node.args[0], ctx), self.span(node.args[0]), self.text(node.args[0]))
                    return join(Text(self.span(func.value), separator), items)
            elif callee in _PASS_THROUGH_METHODS:
                base = self.eval(func.value, ctx)
                if isinstance(base, Str):
                    return strip(base, callee) if callee in ("strip", "lstrip", "rstrip") and not node.args else base
            if isinstance(func.value, ast.Name) and func.value.id in ("self", "cls") and callee in self.methods:
                return self.inline(self.methods[callee], node, ctx, method=True)
        if callee in DEDENT_CALLEES and node.args:
            base = self.eval(node.args[0], ctx)
            if isinstance(base, Str):
                return cleandoc(base) if callee == "cleandoc" else dedent(base)
        if isinstance(func, ast.Name):
            if callee == "str" and len(node.args) == 1:
                base = self.eval(node.args[0], ctx)
                if isinstance(base, Str):
                    return base
            if callee in self.functions:
                return self.inline(self.functions[callee], node, ctx)
        return Opaque(self.describe(node, ctx))
