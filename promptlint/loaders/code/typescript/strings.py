"""String expressions: literals, template literals (tagged ones too), ``+``,
ternaries, arrays ``.join``-ed, ``.map(...)`` over a collection, ``.trim()``, helper calls."""

from __future__ import annotations

from promptlint.core.ir import Block, Segment, Slot, Text
from promptlint.loaders.code import (
    DEDENT_CALLEES, Each, Item, Lst, Opaque, Str, Value, as_list, concat, dedent, extend, join,
    literal_text, segments_of, strip,
)
from promptlint.loaders.code.reader import Ctx
from promptlint.loaders.code.typescript.base import TsBase
from promptlint.loaders.code.typescript.nodes import (
    _FUNCTIONS, _LIST_METHODS, _PASS_THROUGH_METHODS, _STRIP_METHODS, _TEMPLATE_SUBSTITUTION,
    _WRAPPERS, Node, _params, _unescape, _unwrap,
)


class Strings(TsBase):
    # ----------------------------------------------------------------- expressions


    def eval(self, node: Node | None, ctx: Ctx) -> Value:
        if node is None:
            return Str([])
        kind = node.type
        if kind in _WRAPPERS:
            inner = node.named_children[-1] if kind != "as_expression" and node.named_children else (
                node.named_children[0] if node.named_children else None)
            return self.eval(inner, ctx)
        if kind == "string":
            return Str([Text(self.span(node), self.cooked(node))])
        if kind in ("number", "true", "false", "null", "undefined"):
            return Str([Text(self.span(node), self.text(node))])
        if kind == "template_string":
            return self.template(node, ctx)
        if kind in ("identifier", "member_expression", "this", "shorthand_property_identifier"):
            key = self.key(node)
            if key is not None:
                found = self.lookup(key, ctx)
                if found is not None:
                    return found
            return Opaque(self.describe(node, ctx))
        if kind == "binary_expression":
            if self._is_plus(node):
                return self.sum(node, ctx)
            return Opaque(self.describe(node, ctx))
        if kind == "ternary_expression":
            condition = node.child_by_field_name("condition")
            span = self.span(condition) if condition is not None else self.span(node)
            blocks: list[Segment] = []
            for branch in ("consequence", "alternative"):
                child = node.child_by_field_name(branch)
                if child is not None:
                    blocks.append(Block("if", span, None,
                                        segments_of(self.eval(child, ctx), self.span(child), self.text(child))))
            return Str(blocks)
        if kind == "array":
            items: list[Item] = []
            for elt in node.named_children:
                if elt.type == "spread_element" and elt.named_children:
                    inner = elt.named_children[0]
                    items.extend(as_list(self.eval(inner, ctx), self.span(inner), self.text(inner)).items)
                elif elt.type != "comment":
                    items.append(self.item(elt, ctx))
            return Lst(items)
        if kind == "call_expression":
            return self.call(node, ctx)
        return Opaque(self.describe(node, ctx))

    def _is_plus(self, node: Node | None) -> bool:
        if node is None or node.type != "binary_expression":
            return False
        operator = node.child_by_field_name("operator")
        return operator is not None and self.text(operator) == "+"

    def sum(self, node: Node, ctx: Ctx) -> Value:
        """``a + b + c``: a tree that leans left, as deep as the chain is long (a prompt of
        500 lines joined with ``+``), folded in a loop, not by recursion."""
        chain: list[Node] = []
        first: Node | None = node
        while first is not None and self._is_plus(first):
            chain.append(first)
            first = first.child_by_field_name("left")
        value = self.eval(first, ctx)
        made = False  # whether ``value`` is a string this fold made (nothing else holds it)
        for link in reversed(chain):
            left, right = link.child_by_field_name("left"), link.child_by_field_name("right")
            right_value = self.eval(right, ctx)
            if made and isinstance(value, Str):
                extend(value, right_value, self.span(right))
            elif isinstance(value, Str | Lst) or isinstance(right_value, Str | Lst):
                value = concat(value, right_value, self.span(left), self.span(right))
                made = isinstance(value, Str)
            else:
                value = Opaque(self.describe(link, ctx))
        return value

    def template(self, node: Node, ctx: Ctx, raw: bool = False) -> Str:
        parts: list[Segment] = []
        for child in node.named_children:
            if child.type == "string_fragment":
                parts.append(Text(self.span(child), self.text(child)))
            elif child.type == "escape_sequence":
                parts.append(Text(self.span(child), self.text(child) if raw else _unescape(self.text(child))))
            elif child.type == _TEMPLATE_SUBSTITUTION and child.named_children:
                parts.extend(self.interpolate(child.named_children[0], ctx))
        return Str(parts)

    def interpolate(self, node: Node, ctx: Ctx) -> list[Segment]:
        value = self.eval(node, ctx)
        if isinstance(value, Str):
            return list(value.parts)
        expr = value.expr if isinstance(value, Opaque) else self.describe(node, ctx)
        return [Slot(self.span(node), expr)]

    def call(self, node: Node, ctx: Ctx) -> Value:
        func = _unwrap(node.child_by_field_name("function"))
        args = node.child_by_field_name("arguments")
        if func is None or args is None:
            return Opaque(self.describe(node, ctx))
        if args.type == "template_string":  # a tagged template: String.raw`...`, dedent`...`
            tag = self.text(func)
            if tag == "String.raw":
                return self.template(args, ctx, raw=True)
            if tag.split(".")[-1] in DEDENT_CALLEES:
                return dedent(self.template(args, ctx))
            if tag in ("$", "sh", "shell"):
                return Opaque(self.describe(node, ctx))
            return self.template(args, ctx)
        arguments = [a for a in args.named_children if a.type != "comment"]
        if func.type == "member_expression":
            obj, prop = func.child_by_field_name("object"), func.child_by_field_name("property")
            method = self.text(prop) if prop is not None else ""
            if method == "join" and obj is not None:
                separator = literal_text(self.eval(arguments[0], ctx)) if arguments else ","
                if separator is not None:
                    return join(Text(self.span(arguments[0]) if arguments else self.span(func), separator),
                                self.as_list(obj, ctx))
            if method == "map" and obj is not None and arguments and arguments[0].type in _FUNCTIONS:
                return Lst([self.mapped(obj, arguments[0], ctx)])
            if method in _LIST_METHODS and obj is not None:
                base = self.eval(obj, ctx)
                if isinstance(base, Lst):
                    if method == "concat":
                        for arg in arguments:
                            base = Lst(base.items + as_list(self.eval(arg, ctx), self.span(arg), self.text(arg)).items)
                    return base
            if method in _STRIP_METHODS and obj is not None:
                base = self.eval(obj, ctx)
                if isinstance(base, Str):
                    return strip(base, _STRIP_METHODS[method])
            if method in _PASS_THROUGH_METHODS and obj is not None:
                base = self.eval(obj, ctx)
                if isinstance(base, Str):
                    return base
            if obj is not None and obj.type == "this" and method in self.methods:
                return self.inline(self.methods[method], node, arguments, ctx, method=True)
        if func.type == "identifier":
            name = self.text(func)
            if name in DEDENT_CALLEES and arguments:
                base = self.eval(arguments[0], ctx)
                if isinstance(base, Str):
                    return dedent(base)
            if name == "String" and len(arguments) == 1:
                base = self.eval(arguments[0], ctx)
                if isinstance(base, Str):
                    return base
            if name in self.functions:
                return self.inline(self.functions[name], node, arguments, ctx)
        return Opaque(self.describe(node, ctx))

    def as_list(self, node: Node, ctx: Ctx) -> Lst:
        return as_list(self.eval(node, ctx), self.span(node), self.text(node))

    def mapped(self, collection: Node, fn: Node, ctx: Ctx) -> Each:
        """``tools.map((t) => `- ${t.name}`)``: a loop over ``tools``."""
        collection = _unwrap(collection)
        loop_vars = tuple(_params(fn, self.text))
        base = self.eval(collection, ctx) if collection.type in ("array", "call_expression") else None
        inner_items: list[Item]
        saved = {n: ctx.env.pop(n) for n in loop_vars if n in ctx.env}
        body = fn.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            inner = Ctx(parent=ctx, params=frozenset(loop_vars), inlining=True, depth=ctx.depth,
                         memoised=ctx.memoised, module_level=ctx.module_level, stack=ctx.stack)
            self.run(body.named_children, inner)
            inner_items = [Str(segments_of(v, self.span(r), self.text(r))) for v, r in inner.returns if v is not None]
        else:
            inner_items = [self.item(body, ctx)] if body is not None else []
        ctx.env.update(saved)
        if isinstance(base, Lst) and collection.type == "array":
            # A literal array of sections mapped to text: its order is the code's own.
            return Each("for", self.span(collection), inner_items, None, loop_vars, True)
        expr = self.loop_expr(collection, ctx)
        return Each("for", self.span(collection), inner_items, expr, loop_vars, self.is_sorted(collection, expr, ctx))
