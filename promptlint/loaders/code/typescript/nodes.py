"""The tree-sitter grammars, small readers of their nodes, and the names the
TypeScript/JavaScript reader knows."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

from promptlint.core.ir import Expr
from promptlint.loaders.base import LoadError

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




# What the reader collects before it reads: statements and declarations (each kind of the
# grammar's that ends so), functions, variable declarators and methods.
_COLLECTED_SUFFIXES = ("_statement", "_declaration")


@cache
def _collect_query(grammar: str) -> Any:
    """A query that captures every node of the kinds :func:`collected` returns."""
    import tree_sitter

    language = _language(grammar)
    kinds = set(_FUNCTIONS) | {"variable_declarator", "method_definition"}
    for kind_id in range(language.node_kind_count):
        if language.node_kind_is_named(kind_id) and language.node_kind_is_visible(kind_id):
            kind = language.node_kind_for_id(kind_id)
            if kind is not None and kind.endswith(_COLLECTED_SUFFIXES):
                kinds.add(kind)
    known = [kind for kind in sorted(kinds) if language.id_for_node_kind(kind, True) is not None]
    return tree_sitter.Query(language, "[" + " ".join(f"({kind})" for kind in known) + "] @node")


def collected(root: Node, grammar: str) -> list[tuple[Node, int]]:
    """The statements, declarations, functions, variable declarators and methods under
    ``root``, found by a tree-sitter query (in C: a walk over every node in Python took a
    third of reading a module), in document order, an enclosing node before the nodes in it:
    each with its depth where another node has the same span (a statement that is one
    function expression), else 0."""
    import tree_sitter

    found = tree_sitter.QueryCursor(_collect_query(grammar)).captures(root).get("node", [])
    spans = Counter((node.start_byte, node.end_byte) for node in found)
    ranked = [(node, _depth(node) if spans[node.start_byte, node.end_byte] > 1 else 0) for node in found]
    return sorted(ranked, key=lambda pair: (pair[0].start_byte, -pair[0].end_byte, pair[1]))


def _depth(node: Node) -> int:
    depth = 0
    while node is not None:
        node, depth = node.parent, depth + 1
    return depth


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
        except (ValueError, OverflowError):  # `\u{FFFFFFFFFFFF}`: past any code point (a syntax error in JS)
            return sequence
    if body[0] == "x":
        try:
            return chr(int(body[1:], 16))
        except ValueError:
            return sequence
    if body[0] in "\r\n":
        return ""  # a line continuation
    return body

