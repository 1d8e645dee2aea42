"""TypeScript, TSX and JavaScript prompt builders, read through tree-sitter (never run).

The grammars (``tree-sitter-typescript``, ``tree-sitter-javascript``) are imported when the
first such file is read. Read: string literals, template literals (``String.raw`` and
``dedent`` tags included), ``+`` concatenation, arrays of lines ``.join``-ed,
``lines.push(...)``/``prompt +=`` sequences in statement order (loops and branches kept as
blocks), ``.map(t => ...)`` over a collection, ``.trim()``. Names are followed through
``const``/``let`` bindings, module constants, class fields and helper functions of the
module (two calls deep). See :mod:`promptlint.loaders.code` for which strings are prompts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Template, Text
from promptlint.loaders.base import LoadError
from promptlint.loaders.code import (
    DEDENT_CALLEES,
    FILE_READ_CALLEES,
    ISO_METHODS,
    LOGGING_CALLEES,
    MAX_HELPER_DEPTH,
    OTHER_TURN_CALLEES,
    SHELL_CALLEES,
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
    concat,
    contents,
    date_fns_format,
    dedent,
    file_name_path,
    grown_since,
    intl_format,
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

Node = Any  # tree_sitter.Node, imported lazily

_FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_expression",
                        "function", "arrow_function", "method_definition", "generator_function"})
_WRAPPERS = frozenset({"parenthesized_expression", "as_expression", "satisfies_expression", "non_null_expression",
                       "await_expression", "type_assertion"})
_MEMO_CALLEES = frozenset({"memoize", "memoizeOne", "once", "cache", "lru", "memo", "moize"})
_PASS_THROUGH_METHODS = frozenset({"toUpperCase", "toLowerCase", "replace", "replaceAll", "normalize", "padEnd",
                                   "padStart", "toString"})
_STRIP_METHODS = {"trim": "strip", "trimStart": "lstrip", "trimEnd": "rstrip", "trimLeft": "lstrip",
                  "trimRight": "rstrip"}
_LIST_METHODS = frozenset({"filter", "slice", "flat", "concat", "reverse", "toReversed"})
_SORT_METHODS = frozenset({"sort", "toSorted", "sortBy", "orderBy"})
_QUIET_GLOBALS = frozenset({"Date", "Math", "JSON", "Object", "Array", "Number", "String", "console", "path",
                            "fs", "crypto", "Intl", "window", "globalThis", "this", "child_process", "cp", "util",
                            "Promise", "Reflect", "Bun", "Deno", "dayjs", "moment", "DateTime", "luxon"})
_FORMAT_METHODS = frozenset({"format", "toFormat", "formatDate", "strftime", "formatInTimeZone", "fmt"})
_TEMPLATE_SUBSTITUTION = "template_substitution"
# Methods that say nothing of the value they convert (`execSync(...).toString().trim()` is
# the command's output, not a clock; a clock is known by `new Date()`/`Date.now()`).
_UNTELLING_METHODS = frozenset({"toString", "valueOf", "trim", "trimStart", "trimEnd", "toJSON"})


@cache
def _language(grammar: str) -> Any:
    try:
        import tree_sitter
    except ImportError:  # pragma: no cover - a dependency, installed with promptlint
        raise LoadError("reading TypeScript/JavaScript needs the `tree-sitter` package") from None
    if grammar == "javascript":
        import tree_sitter_javascript as js

        return tree_sitter.Language(js.language())
    import tree_sitter_typescript as ts

    return tree_sitter.Language(ts.language_tsx() if grammar == "tsx" else ts.language_typescript())


def grammar_for(syntax: str, path: str) -> str:
    lower = path.lower()
    if lower.endswith((".tsx", ".jsx")):
        return "tsx" if syntax == "typescript" or lower.endswith(".tsx") else "javascript"
    return "typescript" if syntax == "typescript" else "javascript"


def parse(source: str, grammar: str) -> Any:
    """tree-sitter's tree of a source text (what the throughput benchmark times too)."""
    import tree_sitter

    return tree_sitter.Parser(_language(grammar)).parse(source.encode("utf-8"))


@dataclass
class _Ctx:
    env: dict[str, Value] = field(default_factory=dict)
    parent: _Ctx | None = None
    params: frozenset[str] = frozenset()
    memoised: str | None = None
    module_level: bool = False
    depth: int = 0
    inlining: bool = False
    names: tuple[str, ...] = ()
    sorted_names: set[str] = field(default_factory=set)
    assigned: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    returns: list[tuple[Value | None, Node]] = field(default_factory=list)
    stack: tuple[int, ...] = ()

    def lookup(self, key: str) -> Value | None:
        ctx: _Ctx | None = self
        while ctx is not None:
            if key in ctx.env:
                return ctx.env[key]
            ctx = ctx.parent
        return None


class _Reader:
    def __init__(self, path: str, source: str, grammar: str, syntax: str, prompt_names: tuple[str, ...]) -> None:
        self.path, self.source, self.syntax, self.prompt_names = path, source, syntax, prompt_names
        self.data = source.encode("utf-8")
        self.tree = parse(source, grammar)
        if len(self.data) == len(source):
            self._chars: list[int] | None = None
        else:
            chars = [0] * (len(self.data) + 1)
            position = 0
            for index, ch in enumerate(source):
                width = len(ch.encode("utf-8"))
                for b in range(width):
                    chars[position + b] = index
                position += width
            chars[position] = len(source)
            self._chars = chars
        self.functions: dict[str, Node] = {}
        self.methods: dict[str, Node] = {}
        self.memoised: dict[int, str] = {}
        self.class_env: dict[str, Value] = {}
        self.prompts: list[Prompt] = []
        self.module = _Ctx(module_level=True)
        self.statements: list[tuple[int, int]] = []

    # ----------------------------------------------------------------- positions

    def char(self, byte: int) -> int:
        return byte if self._chars is None else self._chars[min(byte, len(self._chars) - 1)]

    def span(self, node: Node) -> Span:
        return Span(self.char(node.start_byte), self.char(node.end_byte))

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")

    # ----------------------------------------------------------------- reading

    def read(self) -> Template:
        root = self.tree.root_node
        self.collect(root)
        self.run(root.named_children, self.module)
        self.finish(self.module)
        for fn in self._all_functions(root):
            # A function whose text and names hold no prompt word sends no prompt itself
            # (it is still followed when a prompt calls it): not walked, which keeps
            # ordinary modules that mention `prompt` once cheap.
            if may_hold_prompt(self.data[fn.start_byte : fn.end_byte], self.prompt_names) or any(
                    is_prompt_name(n, self.prompt_names) for n in self.function_names(fn)):
                self.read_function(fn)
        template = build_template(self.path, self.syntax, self.source, self.prompts)
        template.statements = self.statements
        return template

    def collect(self, root: Node) -> None:
        """Helper functions, class methods and memoised builders of the module; multi-line
        statements (for suppression comments)."""
        stack = [root]
        while stack:
            node = stack.pop()
            kind = node.type
            if kind.endswith(("_statement", "_declaration")) and kind not in ("export_statement",) \
                    and node.start_point[0] != node.end_point[0] and kind not in (
                    "if_statement", "for_statement", "for_in_statement", "while_statement", "class_declaration",
                    "function_declaration", "try_statement", "switch_statement", "do_statement"):
                self.statements.append((node.start_point[0] + 1, node.end_point[0] + 1))
            if kind == "function_declaration" and node.parent is not None and node.parent.type in (
                    "program", "export_statement"):
                name = node.child_by_field_name("name")
                if name is not None:
                    self.functions[self.text(name)] = node
            elif kind == "variable_declarator" and node.parent is not None and node.parent.parent is not None \
                    and node.parent.parent.type in ("program", "export_statement"):
                name, value = node.child_by_field_name("name"), _unwrap(node.child_by_field_name("value"))
                if name is not None and value is not None:
                    if value.type == "call_expression" and _callee(value) in _MEMO_CALLEES:
                        args = value.child_by_field_name("arguments")
                        inner = args.named_children[0] if args is not None and args.named_children else None
                        if inner is not None and inner.type in _FUNCTIONS:
                            self.memoised[inner.id] = _callee(value) or "memoize"
                            value = inner
                    if value.type in _FUNCTIONS:
                        self.functions[self.text(name)] = value
            elif kind == "method_definition":
                name = node.child_by_field_name("name")
                if name is not None:
                    self.methods.setdefault(self.text(name), node)
            stack.extend(node.named_children)

    def _all_functions(self, root: Node) -> Iterator[Node]:
        stack = [root]
        while stack:
            node = stack.pop()
            if node.type in _FUNCTIONS:
                yield node
            stack.extend(reversed(node.named_children))

    def function_names(self, fn: Node) -> tuple[str, ...]:
        """A function's own name, the name it is bound to, and its class's name."""
        names = []
        name = fn.child_by_field_name("name")
        if name is not None:
            names.append(self.text(name))
        parent = fn.parent
        while parent is not None and parent.type in _WRAPPERS | {"arguments", "call_expression"}:
            parent = parent.parent
        if parent is not None:
            if parent.type == "variable_declarator":
                target = parent.child_by_field_name("name")
            elif parent.type == "pair":
                target = parent.child_by_field_name("key")
            elif parent.type == "assignment_expression":
                target = parent.child_by_field_name("left")
            elif parent.type in ("public_field_definition", "field_definition"):
                target = parent.child_by_field_name("name") or parent.child_by_field_name("property")
            else:
                target = None
            if target is not None:
                names.append(self.text(target).split(".")[-1].strip("'\""))
        node = fn.parent
        while node is not None:
            if node.type in ("class_declaration", "class", "abstract_class_declaration"):
                cls = node.child_by_field_name("name")
                if cls is not None:
                    names.append(self.text(cls))
                break
            node = node.parent
        return tuple(names) or ("function",)

    def read_function(self, fn: Node) -> None:
        ctx = _Ctx(parent=self.module, params=frozenset(_params(fn, self.text)), memoised=self.memoised.get(fn.id),
                   names=self.function_names(fn), stack=(fn.id,))
        self.run_body(fn, ctx)
        self.finish(ctx)

    def run_body(self, fn: Node, ctx: _Ctx) -> None:
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

    def finish(self, ctx: _Ctx) -> None:
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

    def sink(self, value: Value | None, name: str, where: Node, stmt: Node, named: bool = True) -> None:
        if value is None:
            return
        span = self.span(where)
        if isinstance(value, Lst):
            value = join(Text(Span(span.start, span.start), "\n"), value)
        self.prompts.append(Prompt(name, span.start, segments_of(value, span, self.text(where)),
                                   (stmt.start_point[0] + 1, stmt.end_point[0] + 1), named))

    # ----------------------------------------------------------------- statements

    def run(self, statements: list[Node], ctx: _Ctx) -> None:
        for stmt in statements:
            self.statement(stmt, ctx)

    def block(self, node: Node | None, ctx: _Ctx) -> None:
        if node is None:
            return
        if node.type in ("statement_block", "else_clause"):
            self.run(node.named_children, ctx)
        else:
            self.statement(node, ctx)

    def statement(self, stmt: Node, ctx: _Ctx) -> None:
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
            class_ctx = _Ctx(parent=ctx, module_level=True,
                             names=(self.text(class_name),) if class_name is not None else ())
            for member in body.named_children if body is not None else []:
                if member.type in ("public_field_definition", "field_definition"):
                    name = member.child_by_field_name("name") or member.child_by_field_name("property")
                    value = member.child_by_field_name("value")
                    if name is not None and value is not None and _unwrap(value).type not in _FUNCTIONS:
                        self.scan(member, class_ctx)
                        key = "this." + self.text(name)
                        self.assign(key, self.eval(value, class_ctx), member, class_ctx)
                        self.class_env[self.text(name)] = class_ctx.env[key]
            self.finish(class_ctx)

    def header(self, stmt: Node) -> Span:
        body = stmt.child_by_field_name("body") or stmt.child_by_field_name("consequence")
        end = body.start_byte if body is not None else stmt.end_byte
        return Span(self.char(stmt.start_byte), self.char(end))

    def expression_statement(self, expr: Node, stmt: Node, ctx: _Ctx) -> None:
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

    def key(self, node: Node) -> str | None:
        node = _unwrap(node)
        if node.type in ("identifier", "shorthand_property_identifier"):
            return self.text(node)
        if node.type == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is not None and prop is not None and obj.type in ("identifier", "this"):
                return f"{self.text(obj)}.{self.text(prop)}"
        return None

    def bind(self, target: Node, value: Value, stmt: Node, ctx: _Ctx) -> None:
        key = self.key(target)
        if key is not None:
            self.assign(key, value, stmt, ctx)
            return
        for name in _pattern_names(target, self.text):
            ctx.env[name] = Opaque(replace(value.expr, source=name)) if isinstance(value, Opaque) else value

    def assign(self, key: str, value: Value, stmt: Node, ctx: _Ctx) -> None:
        ctx.env[key] = value
        first = ctx.assigned.get(key, (stmt.start_point[0] + 1, 0, 0))[0]
        ctx.assigned[key] = (first, stmt.end_point[0] + 1, self.char(stmt.start_byte))
        if not (isinstance(value, Opaque) and _sorts(value.expr)):
            ctx.sorted_names.discard(key)

    def lookup(self, key: str, ctx: _Ctx) -> Value | None:
        found = ctx.lookup(key)
        if found is None and key.startswith("this."):
            found = self.class_env.get(key[5:])
        return found

    def mutate(self, call: Node, stmt: Node, ctx: _Ctx) -> None:
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

    def item(self, node: Node, ctx: _Ctx) -> Item:
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

    def branch(self, body: Node | None, ctx: _Ctx, kind: str, open_span: Span) -> None:
        if body is None:
            return
        before = self.snapshot(ctx)
        self.block(body, ctx)
        self.wrap(ctx, before, Each(kind, open_span, []))

    def loop(self, stmt: Node, ctx: _Ctx) -> None:
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

    def loop_expr(self, node: Node, ctx: _Ctx) -> Expr:
        expr = self.describe(node, ctx)
        key = self.key(node)
        if key is not None:
            path = tuple(key.split("."))
            if path not in expr.paths:
                expr = replace(expr, source=self.text(node), path=path, paths=(path, *expr.paths))
        return expr

    def is_sorted(self, node: Node, expr: Expr, ctx: _Ctx) -> bool:
        key = self.key(node)
        return _sorts(expr) or (key is not None and key in ctx.sorted_names)

    # ----------------------------------------------------------------- sinks

    def scan(self, stmt: Node, ctx: _Ctx) -> None:
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
                    self.sink(self.eval(node.named_children[1], ctx), f"[{self.cooked(head)!r}, ...]",
                              node.named_children[1], stmt)
            elif kind in ("string", "template_string"):
                literal = self.cooked(node)
                if looks_like_instructions(literal):
                    top = self.climb(node)
                    name = self._statement_name(stmt) or f"text at line {node.start_point[0] + 1}"
                    self.sink(self.eval(top, ctx), name, top, stmt, named=False)

    def _statement_name(self, stmt: Node) -> str | None:
        if stmt.type in ("lexical_declaration", "variable_declaration"):
            for declarator in stmt.named_children:
                name = declarator.child_by_field_name("name")
                if name is not None:
                    return self.text(name)
        return None

    def content(self, node: Node, ctx: _Ctx) -> Value:
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

    # ----------------------------------------------------------------- expressions

    def cooked(self, node: Node, raw: bool = False) -> str:
        """The value of a string or template literal's text (substitutions left out)."""
        out = []
        for child in node.named_children:
            if child.type == "string_fragment":
                out.append(self.text(child))
            elif child.type == "escape_sequence":
                out.append(self.text(child) if raw else _unescape(self.text(child)))
        return "".join(out)

    def eval(self, node: Node | None, ctx: _Ctx) -> Value:
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
            operator = node.child_by_field_name("operator")
            if operator is not None and self.text(operator) == "+":
                left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
                lv, rv = self.eval(left, ctx), self.eval(right, ctx)
                if isinstance(lv, Str | Lst) or isinstance(rv, Str | Lst):
                    return concat(lv, rv, self.span(left), self.span(right))
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

    def template(self, node: Node, ctx: _Ctx, raw: bool = False) -> Str:
        parts: list[Segment] = []
        for child in node.named_children:
            if child.type == "string_fragment":
                parts.append(Text(self.span(child), self.text(child)))
            elif child.type == "escape_sequence":
                parts.append(Text(self.span(child), self.text(child) if raw else _unescape(self.text(child))))
            elif child.type == _TEMPLATE_SUBSTITUTION and child.named_children:
                parts.extend(self.interpolate(child.named_children[0], ctx))
        return Str(parts)

    def interpolate(self, node: Node, ctx: _Ctx) -> list[Segment]:
        value = self.eval(node, ctx)
        if isinstance(value, Str):
            return list(value.parts)
        expr = value.expr if isinstance(value, Opaque) else self.describe(node, ctx)
        return [Slot(self.span(node), expr)]

    def call(self, node: Node, ctx: _Ctx) -> Value:
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

    def as_list(self, node: Node, ctx: _Ctx) -> Lst:
        return as_list(self.eval(node, ctx), self.span(node), self.text(node))

    def mapped(self, collection: Node, fn: Node, ctx: _Ctx) -> Each:
        """``tools.map((t) => `- ${t.name}`)``: a loop over ``tools``."""
        collection = _unwrap(collection)
        loop_vars = tuple(_params(fn, self.text))
        base = self.eval(collection, ctx) if collection.type in ("array", "call_expression") else None
        inner_items: list[Item]
        saved = {n: ctx.env.pop(n) for n in loop_vars if n in ctx.env}
        body = fn.child_by_field_name("body")
        if body is not None and body.type == "statement_block":
            inner = _Ctx(parent=ctx, params=frozenset(loop_vars), inlining=True, depth=ctx.depth,
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

    def inline(self, fn: Node, call: Node, arguments: list[Node], ctx: _Ctx, method: bool = False) -> Value:
        if ctx.depth >= MAX_HELPER_DEPTH or fn.id in ctx.stack:
            return Opaque(self.describe(call, ctx, follow=False))
        params = _params(fn, self.text)
        inner = _Ctx(parent=self.module, params=frozenset(params),
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
        if len(returned) == 1:
            return returned[0][0]
        if all(isinstance(v, Opaque) for v, _ in returned):
            facts = Facts()
            for v, _ in returned:
                assert isinstance(v, Opaque)
                facts.merge(v.expr)
            facts.calls.insert(0, self.function_names(fn)[0])
            return Opaque(facts.expr(self.text(call)))
        return Str([Block("if", self.span(r), None, segments_of(v, self.span(r), self.text(r))) for v, r in returned])

    # ----------------------------------------------------------------- describing

    def describe(self, node: Node, ctx: _Ctx, follow: bool = True) -> Expr:
        facts = Facts()
        self.facts(node, ctx, facts, follow)
        if not facts.pinned and facts.calls:
            if ctx.module_level:
                facts.pinned = "computed once per process, at import (a module-level value)"
            elif ctx.memoised and not any(p and p[0] in ctx.params for p in facts.paths):
                facts.pinned = f"computed once per process (a `{ctx.memoised}` builder)"
        return facts.expr(self.text(node))

    def facts(self, node: Node, ctx: _Ctx, facts: Facts, follow: bool = True) -> None:
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

    def path_facts(self, node: Node, ctx: _Ctx, facts: Facts, follow: bool) -> bool:
        path = _path(node, self.text, self.cooked)
        if path is None:
            return False
        if path[:2] == ("process", "env") and len(path) > 2:
            facts.paths.append(path[2:])
            return True
        if path[:3] == ("import", "meta", "env") and len(path) > 3:
            facts.paths.append(path[3:])
            return True
        for size in range(len(path), 0, -1):
            key = ".".join(path[:size])
            bound = self.lookup(key, ctx)
            if bound is None:
                continue
            if isinstance(bound, Opaque):
                facts.merge(bound.expr)
                if size < len(path):
                    facts.paths.insert(0, path)
                return True
            text = literal_text(bound)
            if text is not None:
                facts.literals.append(text)
                return True
            break
        if path[0] in self.functions:
            facts.calls.append(path[0])
            return True
        if path[0] in _QUIET_GLOBALS:
            return True
        facts.paths.append(path[1:] if path[0] == "this" and len(path) > 1 else path)
        return True

    def call_facts(self, node: Node, ctx: _Ctx, facts: Facts, follow: bool) -> None:
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
            if isinstance(value, Opaque):
                facts.merge(value.expr)
            elif isinstance(value, Str):
                for seg in value.parts:
                    if isinstance(seg, Slot):
                        facts.merge(seg.expr)
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
                    self.facts(obj, ctx, facts, follow)
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
            facts.format_spec = iso_prefix_format(int(self.text(arguments[1]))) or facts.format_spec
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


# ---------------------------------------------------------------------------------------
# Small readers of tree-sitter nodes


def _unwrap(node: Node) -> Node:
    while node is not None and node.type in _WRAPPERS and node.named_children:
        node = node.named_children[0]
    return node


def _callee(node: Node) -> str | None:
    func = _unwrap(node.child_by_field_name("function") or node.child_by_field_name("constructor"))
    if func is None:
        return None
    if func.type == "identifier":
        return str(func.text.decode("utf-8", errors="replace"))
    if func.type == "member_expression":
        prop = func.child_by_field_name("property")
        return prop.text.decode("utf-8", errors="replace") if prop is not None else None
    return None


def _path(node: Node, text: Callable[[Node], str], cooked: Callable[[Node], str]) -> tuple[str, ...] | None:
    node = _unwrap(node)
    if node is None:
        return None
    if node.type in ("identifier", "this", "shorthand_property_identifier"):
        return (text(node),)
    if node.type == "member_expression":
        obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
        base = _path(obj, text, cooked) if obj is not None else None
        if obj is not None and obj.type == "member_expression" and text(obj) == "import.meta":
            base = ("import", "meta")
        return base + (text(prop),) if base is not None and prop is not None else None
    if node.type == "subscript_expression":
        obj, index = node.child_by_field_name("object"), node.child_by_field_name("index")
        base = _path(obj, text, cooked) if obj is not None else None
        if base is None or index is None:
            return None
        if index.type == "string":
            return base + (cooked(index),)
        if index.type == "number":
            return base + (text(index),)
        if index.type == "identifier":
            # `tools[name]` is one item, named by its key (a loop variable, `userId`).
            return (text(index),)
    return None


def _params(fn: Node, text: Callable[[Node], str]) -> list[str]:
    single = fn.child_by_field_name("parameter")
    if single is not None:
        return [text(single)]
    params = fn.child_by_field_name("parameters")
    names: list[str] = []
    for param in params.named_children if params is not None else []:
        target = param.child_by_field_name("pattern") or param.child_by_field_name("left") or param
        names.extend(_pattern_names(target, text) or ["_"])
    return names


def _defaults(fn: Node, text: Callable[[Node], str]) -> list[tuple[str, Node]]:
    params = fn.child_by_field_name("parameters")
    out = []
    for param in params.named_children if params is not None else []:
        value = param.child_by_field_name("value") or param.child_by_field_name("right")
        target = param.child_by_field_name("pattern") or param.child_by_field_name("left")
        if value is not None and target is not None and target.type == "identifier" and value.type == "string":
            out.append((text(target), value))
    return out


def _pattern_names(node: Node | None, text: Callable[[Node], str]) -> list[str]:
    if node is None:
        return []
    if node.type in ("identifier", "shorthand_property_identifier_pattern"):
        return [text(node)]
    names = []
    for child in node.named_children:
        if child.type in ("type_annotation",):
            continue
        if child.type == "pair_pattern":
            value = child.child_by_field_name("value")
            names.extend(_pattern_names(value, text))
        else:
            names.extend(_pattern_names(child, text))
    return names


def _pair(node: Node, key: str, text: Callable[[Node], str]) -> Node | None:
    if node.type != "object":
        return None
    for pair in node.named_children:
        if pair.type == "pair":
            k = pair.child_by_field_name("key")
            if k is not None and text(k).strip("'\"") == key:
                return pair.child_by_field_name("value")
    return None


def _sorts(expr: Expr) -> bool:
    return bool((_SORT_METHODS | {"localeCompare", "sorted"}) & set(expr.calls))


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v", "0": "\0"}


def _unescape(sequence: str) -> str:
    body = sequence[1:]
    if not body:
        return ""
    if body[0] in _ESCAPES:
        return _ESCAPES[body[0]]
    if body[0] == "u":
        digits = body[1:].strip("{}")
        try:
            return chr(int(digits, 16))
        except ValueError:
            return sequence
    if body[0] == "x":
        try:
            return chr(int(body[1:], 16))
        except ValueError:
            return sequence
    if body[0] in "\r\n":
        return ""  # a line continuation
    return body


def loader(syntax: str) -> Callable[..., Template]:
    """The reader for one syntax (``typescript`` or ``javascript``); the grammar follows
    the file's extension (``.tsx`` reads as TSX, ``.jsx`` as JavaScript with JSX)."""

    def load(path: str, source: str, prompt_names: tuple[str, ...] = ()) -> Template:
        return _Reader(path, source, grammar_for(syntax, path), syntax, prompt_names).read()

    return load
