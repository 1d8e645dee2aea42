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

from collections.abc import Callable

from promptlint.core.ir import Template
from promptlint.loaders.code import build_template, is_prompt_name, may_hold_prompt
from promptlint.loaders.code.reader import Ctx
from promptlint.loaders.code.typescript.base import TsBase
from promptlint.loaders.code.typescript.helpers import Helpers
from promptlint.loaders.code.typescript.nodes import (
    _COLLECTED_SUFFIXES, _FUNCTIONS, _MEMO_CALLEES, Node, _callee, _params, _unwrap, collected,
)
from promptlint.loaders.code.typescript.sites import Sites
from promptlint.loaders.code.typescript.statements import Statements
from promptlint.loaders.code.typescript.strings import Strings

__all__ = ["grammar_for", "loader", "parse"]

from promptlint.loaders.code.typescript.nodes import grammar_for, parse  # noqa: E402


class _Reader(Statements, Sites, Strings, Helpers, TsBase):
    # ----------------------------------------------------------------- reading

    def read(self) -> Template:
        root = self.tree.root_node
        found = collected(root, self.grammar)
        self.collect(found)
        self.run(root.named_children, self.module)
        self.finish(self.module)
        for fn in (node for node, _ in found if node.type in _FUNCTIONS):  # in document order
            # A function whose text and names hold no prompt word sends no prompt itself
            # (it is still followed when a prompt calls it): not walked, which keeps
            # ordinary modules that mention `prompt` once cheap.
            if may_hold_prompt(self.data[fn.start_byte : fn.end_byte], self.prompt_names) or any(
                    is_prompt_name(n, self.prompt_names) for n in self.function_names(fn)):
                self.read_function(fn)
        template = build_template(self.path, self.syntax, self.source, self.prompts)
        template.statements = self.statements
        return template

    def collect(self, found: list[tuple[Node, int]]) -> None:
        """Helper functions, class methods and memoised builders of the module; multi-line
        statements (for suppression comments). ``found``: :func:`collected`, taken in the
        order a walk from the last child to the first meets them (which of two functions of
        one name is kept, the statements' order)."""
        for node, _depth in sorted(found, key=lambda pair: (-pair[0].end_byte, pair[0].start_byte, pair[1])):
            kind = node.type
            if kind.endswith(_COLLECTED_SUFFIXES) and kind not in ("export_statement",) \
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

    def read_function(self, fn: Node) -> None:
        ctx = Ctx(parent=self.module, params=frozenset(_params(fn, self.text)), memoised=self.memoised.get(fn.id),
                   names=self.function_names(fn), stack=(fn.id,))
        self.run_body(fn, ctx)
        self.finish(ctx)



def loader(syntax: str) -> Callable[..., Template]:
    """The reader for one syntax (``typescript`` or ``javascript``); the grammar follows
    the file's extension (``.tsx`` reads as TSX, ``.jsx`` as JavaScript with JSX)."""

    def load(path: str, source: str, prompt_names: tuple[str, ...] = ()) -> Template:
        return _Reader(path, source, grammar_for(syntax, path), syntax, prompt_names).read()

    return load
