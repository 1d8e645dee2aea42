"""Formatting: ``template.format(...)`` and ``"..." % args``."""

from __future__ import annotations

import ast
import re
import string
from dataclasses import replace

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Text
from promptlint.loaders.code import (
    Opaque, Str,
)
from promptlint.loaders.code.python.base import PythonBase
from promptlint.loaders.code.reader import Ctx


class Formats(PythonBase):
    def format(self, base: Str, call: ast.Call, ctx: Ctx) -> Str:
        """``template.format(...)``: each replacement field takes its argument's value."""
        positional = [a for a in call.args if not isinstance(a, ast.Starred)]
        keywords = {kw.arg: kw.value for kw in call.keywords if kw.arg}
        mapping = next((kw.value for kw in call.keywords if kw.arg is None), None)
        auto = 0
        out: list[Segment] = []
        for part in base.parts:
            if isinstance(part, Block):
                # `(custom or DEFAULT).format(...)`: each branch is filled the same way.
                body = self.format(Str(part.body), call, ctx).parts
                out.append(Block(part.kind, part.open, part.close, body, expr=part.expr,
                                 loop_vars=part.loop_vars, sorted=part.sorted))
                continue
            if not isinstance(part, Text):
                out.append(part)
                continue
            try:
                fields = list(string.Formatter().parse(part.text))
            except ValueError:
                out.append(part)
                continue
            cursor = part.span.start
            for literal, field_name, spec, _conversion in fields:
                if literal:
                    out.append(Text(part.span, literal))
                if field_name is None:
                    continue
                head = re.split(r"[.\[]", field_name, maxsplit=1)[0]
                rest = tuple(p for p in re.split(r"[.\[\]]", field_name[len(head):]) if p)
                arg: ast.AST | None = None
                if head == "":
                    arg = positional[auto] if auto < len(positional) else None
                    auto += 1
                elif head.isdecimal():  # an index, as str.format reads one: `{²}` (a digit) is a name
                    arg = positional[int(head)] if int(head) < len(positional) else None
                else:
                    arg = keywords.get(head)
                where = self.source.find("{" + field_name, cursor, part.span.end)
                if where >= 0:
                    cursor = where + 1
                    span = Span(where, where + len(field_name) + 2)
                else:
                    span = self.span(arg) if arg is not None else part.span
                if arg is not None:
                    value = self.eval(arg, ctx)
                    if isinstance(value, Str) and not rest:
                        out.extend(value.parts)
                        continue
                    expr = value.expr if isinstance(value, Opaque) else self.describe(arg, ctx)
                else:
                    source = self.text(mapping) + f"[{head!r}]" if mapping is not None else head
                    expr = Expr(source=source, path=(head,), paths=((head,),))
                if rest:
                    path = expr.path + rest
                    expr = replace(expr, source=f"{expr.source}.{'.'.join(rest)}", path=path,
                                   paths=(path, *expr.paths[1:]))
                if spec:
                    expr = replace(expr, format_spec=spec)
                out.append(Slot(span, expr))
        return Str(out)

    def percent(self, base: Str, left: ast.AST, right: ast.AST, ctx: Ctx) -> Str:
        """``"..." % args``: each conversion takes its argument's value."""
        if isinstance(right, ast.Tuple):
            positional: list[ast.AST] = list(right.elts)
        elif isinstance(right, ast.Dict):
            positional = []
        else:
            positional = [right]
        named = {k.value: v for k, v in zip(right.keys, right.values, strict=True)
                 if isinstance(k, ast.Constant)} if isinstance(right, ast.Dict) else {}
        index = 0
        out: list[Segment] = []
        for part in base.parts:
            if not isinstance(part, Text):
                out.append(part)
                continue
            position = 0
            cursor = part.span.start
            for match in re.finditer(r"%(?:\((\w+)\))?[-#0 +]*(?:\d+|\*)?(?:\.\d+)?[sdifrauxXeEgGcob%]", part.text):
                out.append(Text(part.span, part.text[position : match.start()]))
                position = match.end()
                if match.group(0) == "%%":
                    out.append(Text(part.span, "%"))
                    continue
                arg: ast.AST | None
                if match.group(1):
                    arg = named.get(match.group(1))
                else:
                    arg = positional[index] if index < len(positional) else None
                    index += 1
                where = self.source.find(match.group(0), cursor, part.span.end)
                span = Span(where, where + len(match.group(0))) if where >= 0 else part.span
                if where >= 0:
                    cursor = where + 1
                if arg is None:
                    out.append(Slot(span, Expr(source=match.group(0), path=(match.group(1) or "value",))))
                    continue
                value = self.eval(arg, ctx)
                out.extend(value.parts if isinstance(value, Str) else
                           [Slot(span, value.expr if isinstance(value, Opaque) else self.describe(arg, ctx))])
            out.append(Text(part.span, part.text[position:]))
        return Str(out)
