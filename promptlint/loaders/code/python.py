"""Python prompt builders, read through the standard ``ast`` (never imported or run).

Read: string constants, f-strings (with their format specs), ``.format(...)``, ``%``
formatting, ``+`` concatenation, ``sep.join([...])`` and ``sep.join(parts)`` of a list
built by ``append``/``extend``/``insert``/``+=`` (in statement order, loops and branches
kept as blocks), generator expressions, ``textwrap.dedent``/``inspect.cleandoc`` and
``.strip()``. Names are followed through assignments of the same scope, module constants
and class attributes, and helper functions of the module (two calls deep). See
:mod:`promptlint.loaders.code` for which strings are prompts.
"""

from __future__ import annotations

import ast
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Template, Text
from promptlint.loaders.base import LoadError
from promptlint.loaders.code import (
    DEDENT_CALLEES,
    FILE_READ_CALLEES,
    ISO_METHODS,
    LOGGING_CALLEES,
    MAX_HELPER_DEPTH,
    OTHER_TURN_CALLEES,
    SYSTEM_CALLEES,
    SYSTEM_ROLES,
    Each,
    Facts,
    Item,
    Lst,
    Opaque,
    Prompt,
    Str,
    Value,
    as_list,
    build_template,
    cleandoc,
    concat,
    contents,
    dedent,
    file_name_path,
    grown_since,
    is_prompt_name,
    is_sink_key,
    iso_prefix_format,
    join,
    literal_text,
    looks_like_instructions,
    may_hold_prompt,
    segments_of,
    shell_command_name,
    strip,
    wrap_tail,
)

_COMPOUND = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.For, ast.AsyncFor, ast.While, ast.If,
             ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match)
_MEMO_DECORATORS = frozenset({"cache", "lru_cache", "cached", "memoize", "memoized", "once"})
_SHELL_ANY_BASE = frozenset({"check_output", "getoutput", "getstatusoutput", "Popen", "popen"})
_SHELL_MODULE_CALLS = frozenset({"run", "call", "check_call", "system"})
_PASS_THROUGH_METHODS = frozenset({"upper", "lower", "title", "capitalize", "casefold", "expandtabs", "replace",
                                   "removeprefix", "removesuffix", "rstrip", "lstrip", "strip"})
# Standard modules whose name says nothing of the value a function of theirs returns.
_QUIET_MODULES = frozenset({"os", "subprocess", "datetime", "time", "uuid", "secrets", "json", "textwrap", "inspect",
                            "socket", "getpass", "shutil", "pathlib", "Path", "functools", "itertools", "re", "math",
                            "np", "pd", "logging", "typing", "dt"})
_SKIPPED_KEYWORDS = frozenset({"description", "help", "usage", "epilog", "docstring"})


@dataclass
class _Ctx:
    """One scope being evaluated: a module, a class body, a function (or a helper inlined
    into a caller's expression)."""

    env: dict[str, Value] = field(default_factory=dict)
    parent: _Ctx | None = None
    params: frozenset[str] = frozenset()
    memoised: str | None = None
    module_level: bool = False
    depth: int = 0
    inlining: bool = False
    names: tuple[str, ...] = ()  # the function's and its class's names
    sorted_names: set[str] = field(default_factory=set)
    assigned: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    returns: list[tuple[Value | None, ast.Return]] = field(default_factory=list)
    stack: tuple[str, ...] = ()
    statement: ast.stmt | None = None

    def lookup(self, key: str) -> Value | None:
        ctx: _Ctx | None = self
        while ctx is not None:
            if key in ctx.env:
                return ctx.env[key]
            ctx = ctx.parent
        return None


class _Reader:
    def __init__(self, path: str, source: str, prompt_names: tuple[str, ...]) -> None:
        self.path = path
        self.source = source
        self.prompt_names = prompt_names
        try:
            self.tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            raise LoadError(f"not valid Python ({exc.msg})", line=exc.lineno, column=exc.offset) from None
        except ValueError as exc:  # null bytes and the like
            raise LoadError(f"not valid Python ({exc})") from None
        self._line_starts = [0]
        for i, ch in enumerate(source):
            if ch == "\n":
                self._line_starts.append(i + 1)
        self._lines = source.split("\n")
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.memoised: dict[int, str] = {}
        self.class_envs: dict[str, dict[str, Value]] = {}
        self.prompts: list[Prompt] = []
        self.module = _Ctx(module_level=True)
        self.parents: dict[int, ast.AST] = {}
        self.owner: dict[int, ast.ClassDef] = {}

    # ----------------------------------------------------------------- positions

    def offset(self, line: int, col: int) -> int:
        """Character offset of ast's (1-based line, UTF-8 byte column)."""
        text = self._lines[line - 1] if line - 1 < len(self._lines) else ""
        if not text.isascii():
            col = len(text.encode("utf-8")[:col].decode("utf-8", errors="replace"))
        return self._line_starts[line - 1] + col

    def span(self, node: ast.AST) -> Span:
        start = self.offset(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        end_line = getattr(node, "end_lineno", None) or node.lineno  # type: ignore[attr-defined]
        end_col = getattr(node, "end_col_offset", None)
        end = self.offset(end_line, end_col) if end_col is not None else start
        return Span(start, max(start, end))

    def text(self, node: ast.AST) -> str:
        span = self.span(node)
        return self.source[span.start : span.end]

    # ----------------------------------------------------------------- reading

    def read(self) -> Template:
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[id(child)] = node
                if isinstance(node, ast.ClassDef) and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    self.owner[id(child)] = node
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                for item in stmt.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        self.methods.setdefault(item.name, item)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                memo = _memo_decorator(node)
                if memo:
                    self.memoised[id(node)] = memo
        self.run(self.tree.body, self.module)
        self.finish(self.module)
        data = self.source.encode("utf-8")
        byte_lines = [0]
        for line in self._lines:
            byte_lines.append(byte_lines[-1] + len(line.encode("utf-8")) + 1)
        for node in ast.walk(self.tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                # A function whose text holds no prompt word sends no prompt itself (it is
                # still followed when a prompt calls it): not walked.
                start = byte_lines[node.lineno - 1] + node.col_offset
                end = byte_lines[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)
                owner = self.owner.get(id(node))
                if may_hold_prompt(data[start:end], self.prompt_names) or (
                        owner is not None and is_prompt_name(owner.name, self.prompt_names)):
                    self.read_function(node)
        template = build_template(self.path, "python", self.source, self.prompts)
        template.statements = [(n.lineno, n.end_lineno) for n in ast.walk(self.tree)
                               if isinstance(n, ast.stmt) and not isinstance(n, _COMPOUND)
                               and n.end_lineno is not None and n.end_lineno > n.lineno]
        return template

    def read_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        owner = self.owner.get(id(fn))
        ctx = _Ctx(parent=self.module, params=_params(fn), memoised=self.memoised.get(id(fn)),
                   names=(fn.name,) + ((owner.name,) if owner else ()), stack=(fn.name,))
        self.run(fn.body, ctx)
        self.finish(ctx)

    def finish(self, ctx: _Ctx) -> None:
        """Prompt-named variables of a scope, as they stand at its end."""
        if ctx.inlining:
            return
        for key, value in ctx.env.items():
            if key not in ctx.assigned or not is_prompt_name(key.rsplit(".", 1)[-1], self.prompt_names):
                continue
            first, last, at = ctx.assigned[key]
            if isinstance(value, Lst):
                value = join(Text(Span(at, at), "\n"), value)
            if isinstance(value, Str):
                self.prompts.append(Prompt(key, at, list(value.parts), (first, last)))

    def sink(self, value: Value | None, name: str, where: ast.AST, stmt: ast.stmt, named: bool = True) -> None:
        if value is None:
            return
        span = self.span(where)
        if isinstance(value, Lst):
            value = join(Text(Span(span.start, span.start), "\n"), value)
        segments = segments_of(value, span, self.text(where))
        self.prompts.append(Prompt(name, span.start, segments, (stmt.lineno, stmt.end_lineno or stmt.lineno), named))

    # ----------------------------------------------------------------- statements

    def run(self, body: list[ast.stmt], ctx: _Ctx) -> None:
        for stmt in body:
            ctx.statement = stmt
            if not ctx.inlining:
                self.scan(stmt, ctx)
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            if isinstance(stmt, ast.ClassDef):
                if ctx.module_level and not ctx.inlining:
                    class_ctx = _Ctx(parent=ctx, module_level=True, names=(stmt.name,))
                    self.run(stmt.body, class_ctx)
                    self.finish(class_ctx)
                    self.class_envs[stmt.name] = class_ctx.env
                continue
            if isinstance(stmt, ast.Assign):
                value = self.eval(stmt.value, ctx)
                for target in stmt.targets:
                    self.bind(target, value, stmt, ctx)
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                self.bind(stmt.target, self.eval(stmt.value, ctx), stmt, ctx)
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
                    self.sink(returned, f"{ctx.names[0]}()", stmt.value or stmt, stmt)

    def header(self, stmt: ast.stmt, last: ast.AST) -> Span:
        return Span(self.span(stmt).start, self.span(last).end)

    def bind(self, target: ast.AST, value: Value, stmt: ast.stmt, ctx: _Ctx) -> None:
        key = _key(target)
        if key is not None:
            self.assign(key, value, stmt, ctx)
        elif isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                if isinstance(elt, ast.Name):
                    ctx.env[elt.id] = Opaque(self.describe(stmt.value, ctx)) if hasattr(stmt, "value") else value
                    ctx.sorted_names.discard(elt.id)

    def assign(self, key: str, value: Value, stmt: ast.stmt, ctx: _Ctx) -> None:
        ctx.env[key] = value
        first = ctx.assigned.get(key, (stmt.lineno, 0, 0))[0]
        ctx.assigned[key] = (first, stmt.end_lineno or stmt.lineno, self.span(stmt).start)
        if not (isinstance(value, Opaque) and _sorts(value.expr)):
            ctx.sorted_names.discard(key)

    def lookup(self, key: str, node: ast.AST, ctx: _Ctx) -> Value | None:
        found = ctx.lookup(key)
        if found is None and key.startswith(("self.", "cls.")):
            attr = key.split(".", 1)[1]
            for env in self.class_envs.values():
                if attr in env:
                    return env[attr]
        return found

    def mutate(self, call: ast.Call, stmt: ast.stmt, ctx: _Ctx) -> None:
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

    def item(self, node: ast.AST, ctx: _Ctx) -> Item:
        value = self.eval(node, ctx)
        if isinstance(value, Lst):
            return Str([Slot(self.span(node), self.describe(node, ctx))])
        return Str(segments_of(value, self.span(node), self.text(node)))

    def snapshot(self, ctx: _Ctx) -> dict[str, list]:  # type: ignore[type-arg]
        return {k: c for k, v in ctx.env.items() if (c := contents(v)) is not None}

    def wrap(self, ctx: _Ctx, before: dict[str, list], each: Each) -> None:  # type: ignore[type-arg]
        for key, value in list(ctx.env.items()):
            if grown_since(value, before.get(key)):
                ctx.env[key] = wrap_tail(value, before[key],
                                         Each(each.kind, each.open, [], each.expr, each.loop_vars, each.sorted))

    def branch(self, body: list[ast.stmt], ctx: _Ctx, kind: str, open_span: Span) -> None:
        if not body:
            return
        before = self.snapshot(ctx)
        self.run(body, ctx)
        self.wrap(ctx, before, Each(kind, open_span, []))

    def loop(self, stmt: ast.For | ast.AsyncFor, ctx: _Ctx) -> None:
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

    def loop_expr(self, node: ast.AST, ctx: _Ctx) -> Expr:
        expr = self.describe(node, ctx)
        key = _key(node)
        if key is not None and (key,) not in expr.paths:
            # The local name of a collection says what it holds (`tools = registry.values()`).
            path = tuple(key.split("."))
            expr = replace(expr, source=self.text(node), path=path, paths=(path, *expr.paths))
        return expr

    def is_sorted(self, node: ast.AST, expr: Expr, ctx: _Ctx) -> bool:
        key = _key(node)
        return _sorts(expr) or (key is not None and key in ctx.sorted_names)

    # ----------------------------------------------------------------- sinks

    def scan(self, stmt: ast.stmt, ctx: _Ctx) -> None:
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
                for kw in node.keywords:
                    if kw.arg and is_sink_key(kw.arg, self.prompt_names):
                        self.sink(self.content(kw.value, ctx), f"{kw.arg}=", kw.value, stmt)
                callee = _callee(node.func)
                if callee in SYSTEM_CALLEES or (callee == "from_template" and _base_name(node.func) in SYSTEM_CALLEES):
                    arg = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in
                                                               ("content", "template")), None)
                    if arg is not None:
                        self.sink(self.eval(arg, ctx), f"{callee}(...)", arg, stmt)
            elif isinstance(node, ast.Tuple) and len(node.elts) == 2:
                head = node.elts[0]
                if isinstance(head, ast.Constant) and head.value in SYSTEM_ROLES:
                    self.sink(self.eval(node.elts[1], ctx), f"({head.value!r}, ...)", node.elts[1], stmt)
            elif isinstance(node, ast.Constant | ast.JoinedStr):
                literal = node.value if isinstance(node, ast.Constant) else "".join(
                    v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
                if isinstance(literal, str) and looks_like_instructions(literal):
                    top = self.climb(node)
                    name = _target_name(stmt) or (f"{ctx.names[0]}()" if isinstance(stmt, ast.Return) and ctx.names
                                                  else f"text at line {node.lineno}")
                    self.sink(self.eval(top, ctx), name, top, stmt, named=False)

    def content(self, node: ast.AST, ctx: _Ctx) -> Value:
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
            children = list(ast.iter_child_nodes(node))
            if isinstance(node, ast.Call):
                children = [c for c in children if not (isinstance(c, ast.keyword) and c.arg in _SKIPPED_KEYWORDS)]
            if isinstance(node, ast.Dict):
                children = [v for k, v in zip(node.keys, node.values, strict=True)  # type: ignore[assignment]
                            if not (isinstance(k, ast.Constant) and k.value in _SKIPPED_KEYWORDS)] + \
                           [k for k in node.keys if k is not None]
            stack.extend(reversed(children))

    # ----------------------------------------------------------------- expressions

    def eval(self, node: ast.AST | None, ctx: _Ctx) -> Value:
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
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Add):
                left, right = self.eval(node.left, ctx), self.eval(node.right, ctx)
                if isinstance(left, Str | Lst) or isinstance(right, Str | Lst):
                    return concat(left, right, self.span(node.left), self.span(node.right))
            elif isinstance(node.op, ast.Mod):
                left = self.eval(node.left, ctx)
                if isinstance(left, Str):
                    return self.percent(left, node.left, node.right, ctx)
            elif isinstance(node.op, ast.Mult):
                left, right = self.eval(node.left, ctx), self.eval(node.right, ctx)
                times = literal_text(right) if isinstance(left, Str) else literal_text(left)
                repeated = left if isinstance(left, Str) else right
                if isinstance(repeated, Str) and times is not None and times.isdigit() and len(times) < 7:
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

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, generators: list[ast.comprehension],
                      ctx: _Ctx) -> Item:
        gen = generators[0]
        loop_vars = tuple(_names(gen.target))
        expr = self.loop_expr(gen.iter, ctx)
        saved = {n: ctx.env.pop(n) for n in loop_vars if n in ctx.env}
        inner = self.comprehension(node, generators[1:], ctx) if len(generators) > 1 else self.item(node.elt, ctx)
        ctx.env.update(saved)
        return Each("for", self.span(gen.iter), [inner], expr, loop_vars, self.is_sorted(gen.iter, expr, ctx))

    def fstring(self, node: ast.JoinedStr, ctx: _Ctx) -> Str:
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

    def interpolate(self, node: ast.AST, ctx: _Ctx, spec: str | None = None) -> list[Segment]:
        value = self.eval(node, ctx)
        if isinstance(value, Str):
            return list(value.parts)
        expr = value.expr if isinstance(value, Opaque) else self.describe(node, ctx)
        if spec:
            expr = replace(expr, format_spec=spec)
        return [Slot(self.span(node), expr)]

    def call(self, node: ast.Call, ctx: _Ctx) -> Value:
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

    def inline(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, ctx: _Ctx,
               method: bool = False) -> Value:
        """A helper's return value, evaluated with the caller's arguments."""
        if ctx.depth >= MAX_HELPER_DEPTH or fn.name in ctx.stack:
            return Opaque(self._describe_call_only(call, ctx))
        inner = _Ctx(parent=self.module, params=_params(fn), memoised=self.memoised.get(id(fn)) or ctx.memoised,
                     module_level=ctx.module_level, depth=ctx.depth + 1, inlining=True, names=(fn.name,),
                     stack=ctx.stack + (fn.name,))
        args = [a.arg for a in fn.args.posonlyargs + fn.args.args]
        if method and args and args[0] in ("self", "cls"):
            args = args[1:]
        defaults = fn.args.defaults
        for name, default in zip(args[len(args) - len(defaults):], defaults, strict=True):
            if isinstance(default, ast.Constant) and isinstance(default.value, str):
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
        if len(returned) == 1:
            return returned[0][0]
        if all(isinstance(v, Opaque) for v, _ in returned):
            facts = Facts()
            for v, _ in returned:
                assert isinstance(v, Opaque)
                facts.merge(v.expr)
            facts.calls.insert(0, fn.name)
            return Opaque(facts.expr(self.text(call)))
        return Str([Block("if", self.span(r), None, segments_of(v, self.span(r.value or r), self.text(r.value or r)))
                    for v, r in returned])

    def format(self, base: Str, call: ast.Call, ctx: _Ctx) -> Str:
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
                elif head.isdigit():
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

    def percent(self, base: Str, left: ast.AST, right: ast.AST, ctx: _Ctx) -> Str:
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

    # ----------------------------------------------------------------- describing

    def describe(self, node: ast.AST, ctx: _Ctx) -> Expr:
        facts = Facts()
        self.facts(node, ctx, facts)
        return self.finish_facts(facts, node, ctx)

    def _describe_call_only(self, call: ast.Call, ctx: _Ctx) -> Expr:
        facts = Facts()
        facts.calls.append(_callee(call.func) or "call")
        for arg in call.args:
            self.facts(arg, ctx, facts)
        return self.finish_facts(facts, call, ctx)

    def finish_facts(self, facts: Facts, node: ast.AST, ctx: _Ctx) -> Expr:
        if not facts.pinned and facts.calls:
            if ctx.module_level:
                facts.pinned = "computed once per process, at import (a module-level value)"
            elif ctx.memoised and not any(p and p[0] in ctx.params for p in facts.paths):
                facts.pinned = f"computed once per process (an `@{ctx.memoised}` builder)"
        return facts.expr(self.text(node))

    def facts(self, node: ast.AST, ctx: _Ctx, facts: Facts) -> None:
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
        for child in ast.iter_child_nodes(node):
            self.facts(child, ctx, facts)

    def path_facts(self, node: ast.AST, ctx: _Ctx, facts: Facts) -> None:
        path = _path(node)
        if path is None:
            for child in ast.iter_child_nodes(node):
                self.facts(child, ctx, facts)
            return
        if path[:2] == ("os", "environ") and len(path) > 2:
            facts.paths.append(path[2:])
            return
        head = path[0]
        for size in range(len(path), 0, -1):
            bound = self.lookup(".".join(path[:size]), node, ctx)
            if bound is None:
                continue
            if isinstance(bound, Opaque):
                facts.merge(bound.expr)
                if size < len(path):
                    facts.paths.insert(0, path)
                return
            text = literal_text(bound)
            if text is not None:
                facts.literals.append(text)
                return
            break
        if head in self.functions:
            facts.calls.append(head)
            return
        if head in _QUIET_MODULES:
            return  # `os.getcwd()`, `datetime.now()`: the function's name speaks, not the module's
        facts.paths.append(path)

    def call_facts(self, node: ast.Call, ctx: _Ctx, facts: Facts) -> None:
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
                if isinstance(value, Opaque):
                    facts.merge(value.expr)
                elif isinstance(value, Str):
                    for seg in value.parts:
                        if isinstance(seg, Slot):
                            facts.merge(seg.expr)
                return
            bound = self.lookup(callee, func, ctx) if isinstance(func, ast.Name) else None
            if isinstance(bound, Opaque):
                facts.merge(bound.expr)
            facts.calls.append(callee)
        if isinstance(func, ast.Attribute):
            self.facts(func.value, ctx, facts)
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


# ---------------------------------------------------------------------------------------
# Small readers of ast nodes


def _callee(func: ast.AST) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _base_name(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        path = _path(func.value)
        return path[-1] if path else ""
    return ""


def _path(node: ast.AST) -> tuple[str, ...] | None:
    if isinstance(node, ast.Name):
        return (node.id,)
    if isinstance(node, ast.Attribute):
        base = _path(node.value)
        return base + (node.attr,) if base is not None else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) \
            and isinstance(node.slice.value, str | int):
        base = _path(node.value)
        return base + (str(node.slice.value),) if base is not None else None
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and _path(node.value) is not None:
        # `tools[name]` is one item, named by its key (a loop variable, `user_id`): not the collection.
        return (node.slice.id,)
    return None


def _key(node: ast.AST) -> str | None:
    """The name a value is stored under: ``parts``, ``self.parts``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return f"{node.value.id}.{node.attr}"
    return None


def _names(target: ast.AST) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        return [n for elt in target.elts for n in _names(elt)]
    return []


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    a = fn.args
    names = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return frozenset(names)


def _memo_decorator(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> str | None:
    for deco in fn.decorator_list:
        target = deco.func if isinstance(deco, ast.Call) else deco
        name = _callee(target)
        if name in _MEMO_DECORATORS:
            return name
    return None


def _sorts(expr: Expr) -> bool:
    return bool({"sorted", "sort", "sort_by", "sortby"} & {c.lower() for c in expr.calls})


def _dict_get(node: ast.AST, key: str) -> ast.AST | None:
    if not isinstance(node, ast.Dict):
        return None
    for k, v in zip(node.keys, node.values, strict=True):
        if isinstance(k, ast.Constant) and k.value == key:
            return v
    return None


def _target_name(stmt: ast.stmt) -> str | None:
    if isinstance(stmt, ast.Assign):
        key = _key(stmt.targets[0])
        return key
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign):
        return _key(stmt.target)
    return None


def _command(node: ast.AST) -> str | None:
    """A shell command given as a string or a list of strings."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        parts = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
        return " ".join(parts) if parts else None
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    return None


def _constants(node: ast.AST) -> list[str]:
    found = []
    for child in ast.walk(node):
        if isinstance(child, ast.Constant) and isinstance(child.value, str):
            found.append(child.value)
        elif isinstance(child, ast.JoinedStr):
            found.append("".join(str(v.value) for v in child.values if isinstance(v, ast.Constant)))
    return found


def load(path: str, source: str, prompt_names: tuple[str, ...] = ()) -> Template:
    """The prompts a Python module builds (see :mod:`promptlint.loaders.code`)."""
    return _Reader(path, source, prompt_names).read()
