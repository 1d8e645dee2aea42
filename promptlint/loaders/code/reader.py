"""What the Python and TypeScript/JavaScript readers share: a scope's state (:class:`Ctx`)
and :class:`Reader`, the language-free half of a reader (prompt-named variables at a
scope's end, prompts sent at a site, bindings, branches and loops kept as blocks, helper
results). A language's reader supplies the node-reading hooks (``span``, ``text``,
``lines``, ``key``, ``sorts``, ``block``, ``eval``, ``describe``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from promptlint.core.ir import Block, Expr, Slot, Span, Text
from promptlint.loaders.code import (
    Each, Facts, Item, Lst, Opaque, Prompt, Str, Value, contents, grown_since, is_prompt_name,
    join, literal_text, segments_of, wrap_tail,
)


@dataclass
class Ctx:
    """One scope being evaluated: a module, a class body, a function (or a helper inlined
    into a caller's expression)."""

    env: dict[str, Value] = field(default_factory=dict)
    parent: Ctx | None = None
    params: frozenset[str] = frozenset()
    memoised: str | None = None
    module_level: bool = False
    class_body: bool = False  # a class's own statements (its fields and class attributes)
    declared: bool = False  # a function its decorator says returns prompt text (`@agent.system_prompt`)
    depth: int = 0
    inlining: bool = False
    names: tuple[str, ...] = ()  # the function's and its class's names
    sorted_names: set[str] = field(default_factory=set)
    assigned: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    returns: list[tuple[Value | None, Any]] = field(default_factory=list)
    stack: tuple[Any, ...] = ()  # the helpers being inlined (names or node ids)
    statement: Any = None  # the statement being run (Python)

    def lookup(self, key: str) -> Value | None:
        ctx: Ctx | None = self
        while ctx is not None:
            if key in ctx.env:
                return ctx.env[key]
            ctx = ctx.parent
        return None


class Reader:
    """The language-free half of a code reader; ``Node`` is the language's syntax node."""

    prompt_names: tuple[str, ...]
    prompts: list[Prompt]

    # ----------------------------------------------------------------- hooks

    def span(self, node: Any) -> Span:
        raise NotImplementedError

    def text(self, node: Any) -> str:
        raise NotImplementedError

    def lines(self, stmt: Any) -> tuple[int, int]:
        """A statement's first and last line (1-based)."""
        raise NotImplementedError

    def key(self, node: Any) -> str | None:
        """The name a value is stored under (``parts``, ``self.parts``)."""
        raise NotImplementedError

    def sorts(self, expr: Expr) -> bool:
        """Whether an expression sorts the collection it gives."""
        raise NotImplementedError

    def block(self, body: Any, ctx: Ctx) -> None:
        raise NotImplementedError

    def eval(self, node: Any, ctx: Ctx) -> Value:
        raise NotImplementedError

    def describe(self, node: Any, ctx: Ctx) -> Expr:
        raise NotImplementedError

    # ----------------------------------------------------------------- prompts

    def finish(self, ctx: Ctx) -> None:
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

    def sink(self, value: Value | None, name: str, where: Any, stmt: Any, named: bool = True,
             declared: bool = False) -> None:
        """A prompt sent at ``where`` (in statement ``stmt``); ``declared`` when the code
        itself marks it as prompt text (kept however short)."""
        if value is None:
            return
        span = self.span(where)
        if isinstance(value, Lst):
            value = join(Text(Span(span.start, span.start), "\n"), value)
        self.prompts.append(Prompt(name, span.start, segments_of(value, span, self.text(where)),
                                   self.lines(stmt), named, declared))

    # ----------------------------------------------------------------- bindings

    def assign(self, key: str, value: Value, stmt: Any, ctx: Ctx) -> None:
        ctx.env[key] = value
        first_line, last_line = self.lines(stmt)
        first = ctx.assigned.get(key, (first_line, 0, 0))[0]
        ctx.assigned[key] = (first, last_line, self.span(stmt).start)
        if not (isinstance(value, Opaque) and self.sorts(value.expr)):
            ctx.sorted_names.discard(key)

    def item(self, node: Any, ctx: Ctx) -> Item:
        value = self.eval(node, ctx)
        if isinstance(value, Lst):
            return Str([Slot(self.span(node), self.describe(node, ctx))])
        return Str(segments_of(value, self.span(node), self.text(node)))

    # ----------------------------------------------------------------- branches and loops

    def snapshot(self, ctx: Ctx) -> dict[str, list]:  # type: ignore[type-arg]
        return {k: c for k, v in ctx.env.items() if (c := contents(v)) is not None}

    def wrap(self, ctx: Ctx, before: dict[str, list], each: Each) -> None:  # type: ignore[type-arg]
        for key, value in list(ctx.env.items()):
            if grown_since(value, before.get(key)):
                ctx.env[key] = wrap_tail(value, before[key],
                                         Each(each.kind, each.open, [], each.expr, each.loop_vars, each.sorted))

    def branch(self, body: Any, ctx: Ctx, kind: str, open_span: Span) -> None:
        if body is None or (isinstance(body, list) and not body):
            return
        before = self.snapshot(ctx)
        self.block(body, ctx)
        self.wrap(ctx, before, Each(kind, open_span, []))

    def is_sorted(self, node: Any, expr: Expr, ctx: Ctx) -> bool:
        key = self.key(node)
        return self.sorts(expr) or (key is not None and key in ctx.sorted_names)

    # ----------------------------------------------------------------- helpers

    def returned_value(self, returned: list[tuple[Value, Any]], name: str, call: Any) -> Value:
        """A helper's value from its returns (``returned``: the ones with a value)."""
        if len(returned) == 1:
            return returned[0][0]
        if all(isinstance(v, Opaque) for v, _ in returned):
            facts = Facts()
            for v, _ in returned:
                assert isinstance(v, Opaque)
                facts.merge(v.expr)
            facts.calls.insert(0, name)
            return Opaque(facts.expr(self.text(call)))
        return Str([Block("if", self.span(r), None, segments_of(v, self.span(self.returned(r)), self.text(self.returned(r))))
                    for v, r in returned])

    def returned(self, stmt: Any) -> Any:
        """The node a return statement (or an arrow function's body) gives its value by."""
        return stmt


def merge_value(facts: Facts, value: Value) -> None:
    """What an inlined helper's value says of where it comes from."""
    if isinstance(value, Opaque):
        facts.merge(value.expr)
    elif isinstance(value, Str):
        for seg in value.parts:
            if isinstance(seg, Slot):
                facts.merge(seg.expr)


def pin(facts: Facts, ctx: Ctx, memo_label: str) -> None:
    """Computed values that stay the same for a process: a module-level value, a memoised
    builder's (``memo_label`` names its decorator: ``@{}``)."""
    if not facts.pinned and facts.calls:
        if ctx.module_level:
            facts.pinned = "computed once per process, at import (a module-level value)"
        elif ctx.memoised and not any(p and p[0] in ctx.params for p in facts.paths):
            facts.pinned = f"computed once per process ({memo_label.format(ctx.memoised)} builder)"


# Classes of plain values: what their methods return is as fixed as the value (a `new
# Date()` made at import prints the same time on every call).
_VALUE_CLASSES = frozenset({"Date", "String", "Number", "Boolean", "BigInt", "URL", "RegExp", "Map", "Set", "Array",
                            "Object", "Intl", "DateTimeFormat", "Path", "PurePath", "Decimal", "Fraction", "Template"})


def made_by_a_class(value: Value | None) -> bool:
    """Whether ``value`` is an object a class made (``MemoryClient(...)``, ``new OpenAI()``):
    made once at import, it is a service whose methods answer anew on each call (what a
    client's ``search`` returns is not computed at import), not a value such as a clock read
    at import, whose ``isoformat()`` is as fixed as the clock."""
    return isinstance(value, Opaque) and any(call[:1].isupper() and call not in _VALUE_CLASSES
                                             for call in value.expr.calls)


def bound_facts(facts: Facts, path: tuple[str, ...], lookup: Callable[[str], Value | None]) -> bool:
    """What the value bound to ``path``'s longest bound prefix says of it; False when
    nothing is bound, or the value says nothing (a list, a string with slots)."""
    for size in range(len(path), 0, -1):
        bound = lookup(".".join(path[:size]))
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
    return False
