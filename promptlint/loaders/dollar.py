"""``${var}`` / ``${expr}`` templates (JavaScript template literals, shell-style prompts)."""

from __future__ import annotations

import re
from functools import lru_cache

from promptlint.core.ir import Expr, Segment, Slot, Span, Template, Text
from promptlint.loaders.base import LoadError

_IDENT = re.compile(r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*")
_STRING = re.compile(r"\"([^\"]*)\"|'([^']*)'|`([^`$]*)`")
# The parameters of an arrow function (`(a, b) => …`, `t => …`): each item of a list, named
# inside the expression, not a value the template is given.
_ARROW_PARAMS = re.compile(r"\(([^()]*)\)\s*=>|\b([A-Za-z_$][\w$]*)\s*=>")


@lru_cache(maxsize=4096)
def describe(source: str) -> Expr:
    """Identifiers, calls and string literals of a small JavaScript expression (described
    once per source text: a template repeats its placeholders, a project its templates')."""
    literals = tuple(next(g for g in m.groups() if g is not None) for m in _STRING.finditer(source))
    bare = _STRING.sub("''", source)
    local = {name.strip() for m in _ARROW_PARAMS.finditer(bare) for group in m.groups() if group
             for name in group.split(",") if name.strip()}
    paths: list[tuple[str, ...]] = []
    calls: list[str] = []
    for match in _IDENT.finditer(bare):
        parts = tuple(p.strip() for p in match.group().split("."))
        called = bare[match.end() :].lstrip().startswith("(")
        if parts[0] == "new" or parts[0] in local or parts[0] == "$":
            continue
        if called:
            calls.append(parts[-1])
            parts = parts[:-1]
        if parts:
            paths.append(parts)
    return Expr(
        source=source.strip(),
        path=paths[0] if paths else (),
        paths=tuple(paths),
        calls=tuple(calls),
        format_spec=literals[0] if literals else None,
        literals=literals,
    )


def load(path: str, source: str) -> Template:
    segments: list[Segment] = []
    cursor = text_start = 0
    while (start := source.find("${", cursor)) >= 0:
        if start > 0 and source[start - 1] == "\\":
            # An escaped \${ renders as ${: the backslash is markup, the rest is text.
            if start - 1 > text_start:
                segments.append(Text(Span(text_start, start - 1), source[text_start : start - 1]))
            segments.append(Text(Span(start - 1, start + 2), "${"))
            cursor = text_start = start + 2
            continue
        depth, i = 0, start + 1
        close = source.find("}", start + 2)
        if close >= 0 and source.find("{", start + 2, close) < 0:
            depth, i = 1, close  # no brace nested in it (most): the first `}` closes it
        while i < len(source):
            if source[i] == "{":
                depth += 1
            elif source[i] == "}":
                depth -= 1
                if depth == 0:
                    break
            i += 1
        else:
            raise LoadError("unclosed '${'", line=source.count("\n", 0, start) + 1)
        if start > text_start:
            segments.append(Text(Span(text_start, start), source[text_start:start]))
        segments.append(Slot(Span(start, i + 1), describe(source[start + 2 : i])))
        cursor = text_start = i + 1
    if text_start < len(source):
        segments.append(Text(Span(text_start, len(source)), source[text_start:]))
    return Template(path=path, syntax="dollar", source=source, segments=segments)
