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
from collections import deque

from promptlint.core.ir import Template
from promptlint.core.volatility import words
from promptlint.loaders.code import PROMPT_WORDS, build_template, is_prompt_name, may_hold_prompt
from promptlint.loaders.code.python.base import PythonBase
from promptlint.loaders.code.python.formats import Formats
from promptlint.loaders.code.python.helpers import Helpers
from promptlint.loaders.code.python.nodes import _COMPOUND, _callee, _memo_decorator, _params
from promptlint.loaders.code.python.nodes import children as _children
from promptlint.loaders.code.python.sites import Sites
from promptlint.loaders.code.python.statements import Statements
from promptlint.loaders.code.python.strings import Strings
from promptlint.loaders.code.reader import Ctx

__all__ = ["load"]


class _Reader(Statements, Sites, Strings, Formats, Helpers, PythonBase):
    def read(self) -> Template:
        # One breadth-first walk of the statements (in ast.walk's order: no statement is under
        # an expression) learns what the reading needs: each method's class, the memoised
        # functions, the functions in order, and the multi-line statements. (The expressions'
        # parents are noted as each statement's are read: a walk of every node took a third
        # of reading a module.)
        functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
        statements: list[tuple[int, int]] = []
        todo: deque[ast.AST] = deque([self.tree])
        while todo:
            node = todo.popleft()
            children = [child for child in _children(node) if isinstance(child, _HOLDS_STATEMENTS)]
            if isinstance(node, ast.ClassDef):
                for child in children:
                    if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                        self.owner[id(child)] = node
            todo.extend(children)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.append(node)
                memo = _memo_decorator(node)
                if memo:
                    self.memoised[id(node)] = memo
            if (isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND)
                    and node.end_lineno is not None and node.end_lineno > node.lineno):
                statements.append((node.lineno, node.end_lineno))
        for stmt in self.tree.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                self.functions[stmt.name] = stmt
            elif isinstance(stmt, ast.ClassDef):
                for item in stmt.body:
                    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                        self.methods.setdefault(item.name, item)
        self.run(self.tree.body, self.module)
        self.finish(self.module)
        data = self.source.encode("utf-8")
        byte_lines = [0]  # where each line starts in ``data`` (its line end included in the one before)
        for start, end in zip(self._line_starts, self._line_starts[1:], strict=False):
            byte_lines.append(byte_lines[-1] + len(self.source[start:end].encode("utf-8")))
        for fn in functions:
            # A function whose text holds no prompt word sends no prompt itself (it is
            # still followed when a prompt calls it): not walked.
            start = byte_lines[fn.lineno - 1] + fn.col_offset
            end = byte_lines[(fn.end_lineno or fn.lineno) - 1] + (fn.end_col_offset or 0)
            owner = self.owner.get(id(fn))
            if may_hold_prompt(data[start:end], self.prompt_names) or self._prompt_decorators(fn) or (
                    owner is not None and is_prompt_name(owner.name, self.prompt_names)):
                self.read_function(fn)
        template = build_template(self.path, "python", self.source, self.prompts)
        # Numbered as findings are (a line ends at "\n" only), not as Python numbers them (a
        # lone CR ends a line too): a suppression comment's statement is where its findings are.
        line_of = template.lines.position
        template.statements = [(line_of(self._line_starts[first - 1]).line, line_of(self._line_starts[last - 1]).line)
                               for first, last in statements]
        return template

    def read_function(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        owner = self.owner.get(id(fn))
        decorators = self._prompt_decorators(fn)
        ctx = Ctx(parent=self.module, params=_params(fn), memoised=self.memoised.get(id(fn)),
                  names=(fn.name, *decorators) + ((owner.name,) if owner else ()), stack=(fn.name,),
                  declared=bool(decorators))
        self.run(fn.body, ctx)
        self.finish(ctx)

    def _prompt_decorators(self, fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
        """The decorators that make a function's return value part of a prompt, by a prompt
        word (pydantic-ai's `@agent.system_prompt`, `@agent.system_prompt(dynamic=True)`,
        `@agent.instructions`: what the function returns is added to the system prompt of
        each run, whatever the function is called)."""
        found = []
        for deco in fn.decorator_list:
            name = _callee(deco.func if isinstance(deco, ast.Call) else deco)
            if name and is_prompt_name(name, self.prompt_names) and _SYSTEM_WORDS.intersection(words(name)):
                found.append(name)
        return tuple(found)


# The nodes a statement may be in: statements, `except` handlers and `match` cases.
_HOLDS_STATEMENTS = (ast.stmt, ast.excepthandler, ast.match_case)

# Words of a decorator that says its function returns system prompt text: a prompt word
# other than `prompt` itself (`@mcp.prompt()` returns a user message).
_SYSTEM_WORDS = PROMPT_WORDS - {"prompt", "prompts"}


def load(path: str, source: str, prompt_names: tuple[str, ...] = ()) -> Template:
    """The prompts a Python module builds (see :mod:`promptlint.loaders.code`)."""
    return _Reader(path, source, prompt_names).read()
