"""Go templates (``text/template``): prompts that Go agents fill with ``{{.Time}}``.

Go's own parser is not reachable from Python, so actions are read here, following the
``text/template`` documentation: ``{{ pipeline }}`` actions with ``{{-``/``-}}`` trim
markers, ``{{/* comments */}}``, ``if``/``else if``/``else``/``end``, ``range`` (with
``$i, $e :=``), ``with``, ``block``, ``define`` and ``template``. ``.`` is the cursor:
inside ``range`` and ``with`` a field (``.Title``) is read on the element, so it is named
``(".", "Title")`` and judged by the loop, not by its own name.
"""

from __future__ import annotations

import re
import shlex

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Tag, Template, Text
from promptlint.loaders.base import LoadError

# Sprig's sorting functions; Go itself visits a map's keys in sorted order, a slice in its
# own order (which the template cannot see, so a range stays unsorted unless it says).
_SORTING = frozenset({"sortAlpha", "sort", "sortBy"})
# The first of two range variables that names a slice's index (`range $i, $t := .Tools`);
# any other (`$name`, `$key`, `$k`) names a map's key, and text/template visits a map in
# sorted key order ("If the value is a map and the keys are of basic type with a defined
# order, the elements will be visited in sorted key order": pkg.go.dev/text/template).
_INDEX_VARS = frozenset({"$i", "$j", "$n", "$idx", "$index", "$ix", "$pos", "$num", "$no", "$_", "$"})
_KEYWORDS = frozenset({"if", "range", "with", "block", "define"})
_RANGE_VARS = re.compile(r"^\s*(\$\w*)\s*(?:,\s*(\$\w*)\s*)?:?=\s*")
_FIELD = re.compile(r"^(\$\w*)?((?:\.[A-Za-z_]\w*)*)$")


def load(path: str, source: str) -> Template:
    return Template(path=path, syntax="go", source=source, segments=_Parser(source).parse())


def describe(content: str, scoped: bool) -> Expr:
    """A pipeline: ``.User.Name``, ``printf "%s" .Name``, ``.Time.Format "15:04"``,
    ``now | date "2006-01-02"``. ``scoped``: inside ``range``/``with``, where ``.`` is an
    element."""
    spaced = content.replace("(", " ").replace(")", " ").replace("|", " | ")
    if not any(quote in content for quote in "\"'\\"):
        words = spaced.split()  # what shlex gives without quotes or escapes, at a tenth of its cost
    else:
        try:
            words = shlex.split(spaced, posix=True)
        except ValueError:
            words = content.split()
    literals = tuple(a or b or c for a, b, c in re.findall(r"\"([^\"]*)\"|`([^`]*)`|'([^']*)'", content))
    paths: list[tuple[str, ...]] = []
    calls: list[str] = []
    for word in words:
        if word in literals or word == "|" or re.fullmatch(r"-?[\d.]+|true|false|nil", word):
            continue
        field = _FIELD.match(word)
        if field is None or word in ("", "$"):
            if word not in ("$", "."):
                calls.append(word)
            continue
        var, chain = field.group(1), [p for p in field.group(2).split(".") if p]
        if var == "$":
            root: tuple[str, ...] = ()  # `$.Field`: the top-level data, whatever the cursor
        elif var:
            root = (var,)
        else:
            root = (".",) if scoped else ()
        if not chain and not var:
            continue
        path = root + tuple(chain)
        # `.Time.Format "15:04"`: a method called with arguments on a field.
        if literals and chain and chain[-1][:1].isupper() and chain[-1] in ("Format", "UTC", "Local", "Unix"):
            calls.append(chain[-1])
            path = path[:-1]
        paths.append(path)
    return Expr(
        source=content.strip(),
        path=paths[0] if paths else (),
        paths=tuple(paths),
        calls=tuple(calls),
        filters=tuple(calls),
        format_spec=literals[0] if literals else None,
        literals=literals,
    )


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source

    def parse(self) -> list[Segment]:
        source = self.source
        root: list[Segment] = []
        stack: list[Block] = []
        cursor = text_start = 0
        scopes = 0  # the open `range` and `with` blocks (a walk over the stack per action was quadratic)

        def body() -> list[Segment]:
            return stack[-1].body if stack else root

        def line(offset: int) -> int:
            # Counted for an error only: counting each action's line cost the file's length per action.
            return source.count("\n", 0, offset) + 1

        while True:
            start = source.find("{{", cursor)
            if start < 0:
                break
            inner_start = start + 2
            trim_left = source.startswith("- ", inner_start) or source.startswith("-\t", inner_start) or (
                source.startswith("-\n", inner_start))
            comment = source.startswith("/*", inner_start + (2 if trim_left else 0))
            if comment:
                close_comment = source.find("*/", inner_start)
                end = source.find("}}", close_comment + 2) if close_comment >= 0 else -1
            else:
                end = _action_end(source, inner_start)
            if end < 0:
                raise LoadError(f"unclosed Go template action {source[start:start + 20]!r}", line=line(start))
            inner = source[inner_start:end]
            trim_right = inner.endswith(" -") or inner.endswith("\t-") or inner.endswith("\n-")
            content = inner[2 if trim_left else 0 : len(inner) - (2 if trim_right else 0)].strip()
            tag_start, tag_end = start, end + 2
            if trim_left:
                while tag_start > text_start and source[tag_start - 1] in " \t\r\n":
                    tag_start -= 1
            if tag_start > text_start:
                body().append(Text(Span(text_start, tag_start), source[text_start:tag_start]))
            if trim_right:
                while tag_end < len(source) and source[tag_end] in " \t\r\n":
                    tag_end += 1
            span = Span(tag_start, tag_end)
            keyword, _, rest = content.partition(" ")
            keyword = keyword.strip()
            if comment:
                body().append(Tag(span, "comment"))
            elif keyword == "end":
                if not stack:
                    raise LoadError("{{end}} with no open action", line=line(start))
                closed = stack.pop()
                closed.close = span
                scopes -= closed.kind in ("each", "with")
            elif keyword == "else":
                if not stack:
                    raise LoadError("{{else}} with no open action", line=line(start))
                body().append(Tag(span, "else"))
            elif keyword in _KEYWORDS:
                block = self._block(keyword, rest, span, scopes > 0)
                body().append(block)
                stack.append(block)
                scopes += block.kind in ("each", "with")
            elif keyword == "template":
                name = re.match(r"\s*\"([^\"]*)\"", rest)
                body().append(Tag(span, "template", target=name.group(1) if name else None))
            elif keyword in ("break", "continue"):
                body().append(Tag(span, "control"))
            elif not content:
                body().append(Tag(span, "comment"))
            elif re.match(r"^\$\w*\s*:?=", content):
                body().append(Tag(span, "set", target=content.split()[0]))  # `$x := .Value`
            else:
                body().append(Slot(span, describe(content, scopes > 0)))
            cursor = text_start = tag_end
        if stack:
            raise LoadError(f"unclosed Go template action {{{{{stack[-1].kind}}}}} (no {{{{end}}}})",
                            line=line(stack[-1].open.start))
        if len(source) > text_start:
            root.append(Text(Span(text_start, len(source)), source[text_start:]))
        return root

    @staticmethod
    def _block(keyword: str, rest: str, span: Span, scoped: bool) -> Block:
        if keyword == "range":
            names = _RANGE_VARS.match(rest)
            variables = tuple(v for v in (names.groups() if names else ()) if v)
            pipeline = rest[names.end():] if names else rest
            expr = describe(pipeline, scoped)
            block = Block("each", span, None, expr=expr, loop_vars=(".", *variables))
            keyed = len(variables) == 2 and variables[0].lower() not in _INDEX_VARS
            block.sorted = keyed or bool(_SORTING.intersection(expr.calls))
            return block
        if keyword == "with":
            return Block("with", span, None, expr=describe(rest, scoped), loop_vars=(".",))
        if keyword in ("block", "define"):
            name = re.match(r"\s*\"([^\"]*)\"", rest)
            # `define` declares a template rendered elsewhere; `block` declares and renders it here.
            return Block("block" if keyword == "block" else "define", span, None,
                         target=name.group(1) if name else None)
        return Block("if", span, None, expr=describe(rest, scoped))


def _action_end(source: str, start: int) -> int:
    """Where the action opened before ``start`` closes: the first ``}}`` outside a quoted
    string (`{{printf "}}" .X}}`)."""
    index = start
    while index < len(source):
        char = source[index]
        if char in "\"`'":
            close = source.find(char, index + 1)
            while char == '"' and close > 0 and source[close - 1] == "\\":
                close = source.find(char, close + 1)
            if close < 0 or "\n" in source[index:close] and char != "`":
                return source.find("}}", index)
            index = close + 1
            continue
        if source.startswith("}}", index):
            return index
        index += 1
    return -1
