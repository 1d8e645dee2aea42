"""Small readers of ast nodes, and the names the Python reader knows."""

from __future__ import annotations

import ast

from promptlint.core.ir import Expr

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



# Fields whose nodes are the operator and context singletons (``ast.Add()``, ``ast.Load()``):
# no reader looks at them as children (each asks ``node.op``), and they are a third of a
# module's nodes.
_SINGLETON_FIELDS = frozenset({"ctx", "op", "ops"})
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}


def children(node: ast.AST) -> list[ast.AST]:
    """``list(ast.iter_child_nodes(node))`` without the operator and context singletons, in
    the same order: fields read straight, where ``iter_child_nodes`` goes through two
    generators (the walks of a module's tree took a third of reading it)."""
    names = _CHILD_FIELDS.get(type(node))
    if names is None:
        names = _CHILD_FIELDS[type(node)] = tuple(n for n in node._fields if n not in _SINGLETON_FIELDS)
    found: list[ast.AST] = []
    for name in names:
        value = getattr(node, name, None)
        if isinstance(value, list):
            found += [item for item in value if isinstance(item, ast.AST)]
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


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

