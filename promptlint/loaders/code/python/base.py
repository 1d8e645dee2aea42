"""The Python reader's state: the parsed module, positions in its text, the helpers
and class attributes found, name lookup; stubs of the methods its parts share."""

from __future__ import annotations

import ast
import re
import warnings

from promptlint.core.ir import Expr, Span
from promptlint.loaders.base import LoadError
from promptlint.loaders.code import (
    Item, Prompt, Str, Value,
)
from promptlint.loaders.code.python.nodes import _key, _sorts
from promptlint.loaders.code.reader import Ctx, Reader

# Where Python ends a line, and so where ast's line numbers count from: a lone CR (an old
# Mac line end) ends one too. Lines split at "\n" alone numbered a file with one past its
# last line index (an IndexError), or put its spans after the source's end.
_LINE_END = re.compile(r"\r\n?|\n")

# CPython 3.11 parses an f-string in a time that grows with the square of its fields (40,000
# took 1.5 s, the 600,000 of a 1.8 MB file minutes): one with more is refused before `ast`.
MAX_FSTRING_FIELDS = 10_000
_FSTRING_OPEN = re.compile(r"(?<![\w'\"])[rRbB]?[fF][rRbB]?('''|\"\"\"|'|\")")


def huge_fstring(source: str) -> tuple[int, int] | None:
    """The line of the first f-string with more than ``MAX_FSTRING_FIELDS`` fields, and
    their number; found from the quotes alone (no f-string holds its own quote in 3.11),
    only in a file with that many braces."""
    if source.count("{") <= MAX_FSTRING_FIELDS:
        return None
    found = _FSTRING_OPEN.search(source)
    while found is not None:
        quote, start = found.group(1), found.end()
        end = source.find(quote, start)
        while end > 0 and _escaped(source, end):
            end = source.find(quote, end + 1)
        end = len(source) if end < 0 else end
        if len(quote) == 1:
            newline = source.find("\n", start, end)
            end = newline if newline >= 0 else end
        fields = source.count("{", start, end) - 2 * source.count("{{", start, end)
        if fields > MAX_FSTRING_FIELDS:
            return source.count("\n", 0, found.start()) + 1, fields
        found = _FSTRING_OPEN.search(source, end + len(quote))
    return None


def _escaped(source: str, at: int) -> bool:
    """Whether the character at ``at`` follows an odd number of backslashes."""
    before = at
    while before > 0 and source[before - 1] == "\\":
        before -= 1
    return (at - before) % 2 == 1


class PythonBase(Reader):
    def __init__(self, path: str, source: str, prompt_names: tuple[str, ...]) -> None:
        self.path = path
        self.source = source
        self.prompt_names = prompt_names
        huge = huge_fstring(source)
        if huge is not None:
            raise LoadError(f"an f-string of {huge[1]:,} fields (at most {MAX_FSTRING_FIELDS:,} are read)", line=huge[0])
        try:
            with warnings.catch_warnings():
                # `"\d"` or `1if x` in a checked file is its author's business: Python's
                # SyntaxWarning would print a stray line, not in promptlint's format.
                warnings.simplefilter("ignore", SyntaxWarning)
                warnings.simplefilter("ignore", DeprecationWarning)
                self.tree = ast.parse(source, filename=path)
        except SyntaxError as exc:
            raise LoadError(f"not valid Python ({exc.msg})", line=exc.lineno, column=exc.offset) from None
        except ValueError as exc:  # null bytes and the like
            raise LoadError(f"not valid Python ({exc})") from None
        self._line_starts = [0] + [m.end() for m in _LINE_END.finditer(source)]
        self._lines = _LINE_END.split(source)  # each line without its line end
        self.functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.methods: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}
        self.memoised: dict[int, str] = {}
        self.class_envs: dict[str, dict[str, Value]] = {}
        self.prompts: list[Prompt] = []
        self.module = Ctx(module_level=True)
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


    def lines(self, stmt: ast.AST) -> tuple[int, int]:
        return (stmt.lineno, stmt.end_lineno or stmt.lineno)  # type: ignore[attr-defined]

    def key(self, node: ast.AST) -> str | None:
        return _key(node)

    def sorts(self, expr: Expr) -> bool:
        return _sorts(expr)

    def returned(self, stmt: ast.Return) -> ast.AST:
        return stmt.value or stmt

    def block(self, body: list[ast.stmt], ctx: Ctx) -> None:
        self.run(body, ctx)

    # ----------------------------------------------------------------- the other parts' methods

    def run(self, body: list[ast.stmt], ctx: Ctx) -> None:
        raise NotImplementedError

    def scan(self, stmt: ast.stmt, ctx: Ctx) -> None:
        raise NotImplementedError

    def inline(self, fn: ast.FunctionDef | ast.AsyncFunctionDef, call: ast.Call, ctx: Ctx,
               method: bool = False) -> Value:
        raise NotImplementedError

    def loop_expr(self, node: ast.AST, ctx: Ctx) -> Expr:
        raise NotImplementedError

    def comprehension(self, node: ast.ListComp | ast.GeneratorExp, generators: list[ast.comprehension],
                      ctx: Ctx) -> Item:
        raise NotImplementedError

    def format(self, base: Str, call: ast.Call, ctx: Ctx) -> Str:
        raise NotImplementedError

    def percent(self, base: Str, left: ast.AST, right: ast.AST, ctx: Ctx) -> Str:
        raise NotImplementedError

    def lookup(self, key: str, node: ast.AST, ctx: Ctx) -> Value | None:
        found = ctx.lookup(key)
        if found is None and key.startswith(("self.", "cls.")):
            attr = key.split(".", 1)[1]
            for env in self.class_envs.values():
                if attr in env:
                    return env[attr]
        return found
