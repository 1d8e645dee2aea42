"""The TypeScript/JavaScript reader's state: the parsed tree, positions in its text,
the helpers and class fields found, names and lookup; stubs of the methods its parts share."""

from __future__ import annotations

from itertools import accumulate

from promptlint.core.ir import Expr, Span
from promptlint.loaders.code import (
    Prompt, Value,
)
from promptlint.loaders.code.reader import Ctx, Reader
from promptlint.loaders.code.typescript.nodes import (
    _WRAPPERS, Node, _sorts, _unescape, _unwrap, parse,
)

# 1 for a byte that starts a UTF-8 character, 0 for a continuation byte (0x80-0xBF).
_STARTS_CHARACTER = bytes(0 if 0x80 <= b <= 0xBF else 1 for b in range(256))


class TsBase(Reader):
    def __init__(self, path: str, source: str, grammar: str, syntax: str, prompt_names: tuple[str, ...]) -> None:
        self.path, self.source, self.syntax, self.prompt_names = path, source, syntax, prompt_names
        self.grammar = grammar
        self.data = source.encode("utf-8")
        self.tree = parse(source, grammar)
        if len(self.data) == len(source):
            self._chars: list[int] | None = None
        else:
            # The character each byte belongs to: the bytes up to it that start a character,
            # less one (the first byte starts character 0), summed by `accumulate` (a loop over
            # the characters took half a second on a test file of a megabyte).
            starts = bytearray(self.data.translate(_STARTS_CHARACTER))
            starts[0] = 0
            chars = list(accumulate(starts))
            chars.append(len(source))
            self._chars = chars
        self.functions: dict[str, Node] = {}
        self.methods: dict[str, Node] = {}
        self.memoised: dict[int, str] = {}
        self.class_env: dict[str, Value] = {}
        self.prompts: list[Prompt] = []
        self.module = Ctx(module_level=True)
        self.statements: list[tuple[int, int]] = []

    # ----------------------------------------------------------------- positions

    def char(self, byte: int) -> int:
        return byte if self._chars is None else self._chars[min(byte, len(self._chars) - 1)]

    def span(self, node: Node) -> Span:
        return Span(self.char(node.start_byte), self.char(node.end_byte))

    def text(self, node: Node) -> str:
        return self.data[node.start_byte : node.end_byte].decode("utf-8", errors="replace")


    def lines(self, stmt: Node) -> tuple[int, int]:
        return (stmt.start_point[0] + 1, stmt.end_point[0] + 1)

    def sorts(self, expr: Expr) -> bool:
        return _sorts(expr)

    # ----------------------------------------------------------------- the other parts' methods

    def run(self, statements: list[Node], ctx: Ctx) -> None:
        raise NotImplementedError

    def statement(self, stmt: Node, ctx: Ctx) -> None:
        raise NotImplementedError

    def scan(self, stmt: Node, ctx: Ctx) -> None:
        raise NotImplementedError

    def run_body(self, fn: Node, ctx: Ctx) -> None:
        raise NotImplementedError

    def inline(self, fn: Node, call: Node, arguments: list[Node], ctx: Ctx, method: bool = False) -> Value:
        raise NotImplementedError

    def loop_expr(self, node: Node, ctx: Ctx) -> Expr:
        raise NotImplementedError

    def block(self, node: Node | None, ctx: Ctx) -> None:
        if node is None:
            return
        if node.type in ("statement_block", "else_clause"):
            self.run(node.named_children, ctx)
        else:
            self.statement(node, ctx)

    def key(self, node: Node) -> str | None:
        node = _unwrap(node)
        if node.type in ("identifier", "shorthand_property_identifier"):
            return self.text(node)
        if node.type == "member_expression":
            obj, prop = node.child_by_field_name("object"), node.child_by_field_name("property")
            if obj is not None and prop is not None and obj.type in ("identifier", "this"):
                return f"{self.text(obj)}.{self.text(prop)}"
        return None

    def lookup(self, key: str, ctx: Ctx) -> Value | None:
        found = ctx.lookup(key)
        if found is None and key.startswith("this."):
            found = self.class_env.get(key[5:])
        return found

    def cooked(self, node: Node, raw: bool = False) -> str:
        """The value of a string or template literal's text (substitutions left out)."""
        out = []
        for child in node.named_children:
            if child.type == "string_fragment":
                out.append(self.text(child))
            elif child.type == "escape_sequence":
                out.append(self.text(child) if raw else _unescape(self.text(child)))
        return "".join(out)

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
