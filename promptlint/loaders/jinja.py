"""Jinja2 templates, read with jinja2's own lexer and parser.

jinja2's lexer (``Lexer.tokeniter``) gives the token stream from which segments and their
exact offsets are built, and every expression is parsed by jinja2 into its AST, from which
the variable paths, calls, filters and format strings are read. jinja2's parser validates
the template: each tag alone where every tag is an ``if``, ``for`` or ``set`` (the builder
checks the block structure, see :class:`_Checks`), else the whole template
(``Environment.parse``). Nothing is rendered.
"""

from __future__ import annotations

import sys

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import cache, lru_cache
from itertools import accumulate
from operator import itemgetter
from typing import TYPE_CHECKING

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Tag, Template, Text
from promptlint.loaders.base import LoadError

if TYPE_CHECKING:
    from jinja2 import nodes
    from jinja2.lexer import Lexer
    from jinja2.sandbox import SandboxedEnvironment

# Tags that open a block, and the tag that closes each.
_BLOCK_TAGS = {
    "if": "endif",
    "for": "endfor",
    "macro": "endmacro",
    "call": "endcall",
    "filter": "endfilter",
    "block": "endblock",
    "with": "endwith",
    "autoescape": "endautoescape",
    "trans": "endtrans",
}
_SORTING_FILTERS = frozenset({"sort", "dictsort"})
_SORTING_CALLS = frozenset({"sorted"})


@cache
def environment() -> SandboxedEnvironment:
    """The one sandboxed environment used to lex, parse and (for proofs) render."""
    from jinja2.sandbox import SandboxedEnvironment

    return SandboxedEnvironment(extensions=["jinja2.ext.i18n", "jinja2.ext.loopcontrols"])


# jinja2 finds the next tag with the rule ``(.*?)(?:<tag openers>)``: a lazy match that
# tries every opener at every character of the text, most of the time of a check of a large
# template. With the default delimiters every opener is ``{`` and one of ``%{#``, so the
# text before the first one is what this matches, scanning runs of other characters.
_ROOT_TEXT = r"((?>(?:[^{]+|\{(?![%{#]))*))"
_LAZY_TEXT = "(.*?)"


@cache
def lexer() -> Lexer:
    """jinja2's own lexer for :func:`environment`, with its rule for the text before a tag
    compiled in a form that ``re`` runs in one pass (``_ROOT_TEXT``): the same group, the
    same openers after it, at the same place, so the same tokens; 6 times faster on a 5 MB
    template. Every other rule, and the state machine, are jinja2's (its newline
    normalisation, for the parser, skips texts without a carriage return). When the environment's
    delimiters are not the defaults, it uses line statements, or the rule is not of that
    shape (another jinja2 release), jinja2's lexer is used as it is. tests/test_loaders.py
    compares the two on generated templates."""
    from jinja2.lexer import Lexer

    env = environment()
    own = Lexer(env)  # a lexer of its own: jinja2 shares the one ``env.lexer`` returns
    rule = own.rules["root"][0]
    defaults = (env.block_start_string, env.variable_start_string, env.comment_start_string) == ("{%", "{{", "{#")
    if (not defaults or env.line_statement_prefix or env.line_comment_prefix
            or not rule.pattern.pattern.startswith(_LAZY_TEXT + "(?:")):
        return env.lexer
    pattern = re.compile(_ROOT_TEXT + rule.pattern.pattern[len(_LAZY_TEXT):], rule.pattern.flags)
    own.rules["root"][0] = rule._replace(pattern=pattern)
    if env.newline_sequence == "\n" and callable(getattr(own, "_normalize_newlines", None)):
        own._normalize_newlines = _newlines_normalised  # type: ignore[method-assign]
    return own


def _newlines_normalised(value: str) -> str:
    """jinja2's ``Lexer._normalize_newlines`` for the default ``"\\n"``: each ``\\r\\n`` and
    lone ``\\r`` made ``\\n``. A text without a ``\\r`` is returned as it is, without the
    regex substitution jinja2 runs on every text and string token (a sixth of the parse)."""
    if "\r" not in value:
        return value
    return value.replace("\r\n", "\n").replace("\r", "\n")


def load(path: str, source: str) -> Template:
    from jinja2 import TemplateSyntaxError

    env = environment()
    try:
        lexed = list(lexer().tokeniter(source, None))
        try:
            # Most templates hold only the tags whose reading the builder checks itself,
            # each tag parsed alone by jinja2 (see _Checks): the whole parse is spared.
            segments, tree = _Builder(path, source, lexed, _Checks()).build(), None
        except (_Unsure, LoadError, TemplateSyntaxError):
            # jinja2's own parse (and its message for a malformed template), then the
            # builder as it reads a template jinja2 accepts
            tree = _parse(env, lexed)
            segments = _Builder(path, source, lexed).build()
    except TemplateSyntaxError as exc:
        raise LoadError(f"malformed Jinja template: {exc.message}", line=exc.lineno) from None
    except ValueError as exc:  # jinja2's lexer calls int() on a literal of any length
        if "digits" not in str(exc):
            raise
        raise LoadError(f"malformed Jinja template: an integer literal longer than "
                        f"{sys.get_int_max_str_digits()} digits") from None
    template = Template(path=path, syntax="jinja", source=source, segments=segments)
    template.jinja_tree = tree
    return template


def parse_tree(source: str) -> nodes.Template:
    """``environment().parse(source)``, lexed by :func:`lexer` (what a template's
    ``jinja_tree`` holds where the loader parsed it whole)."""
    return _parse(environment(), list(lexer().tokeniter(source, None)))


def _parse(env: SandboxedEnvironment, lexed: list[tuple[int, str, str]]) -> nodes.Template:
    """jinja2's parse tree of a template's raw tokens: the parser reads them through the
    stream ``env.parse`` would build from them."""
    from jinja2.lexer import TokenStream
    from jinja2.parser import Parser

    parser = Parser(env, "")  # its own stream (of nothing) is replaced by the tokens lexed here
    stream = TokenStream(lexer().wrap(iter(lexed)), None, None)
    for extension in env.iter_extensions():
        filtered = extension.filter_stream(stream)
        stream = filtered if isinstance(filtered, TokenStream) else TokenStream(filtered, None, None)
    parser.stream = stream
    return parser.parse()


class _Unsure(Exception):
    """A template :class:`_Checks` cannot vouch for: jinja2 parses it whole."""


# Deeper than this, a template is parsed whole: jinja2's parser recurses, and a template
# too deep for it is one promptlint does not read either.
_CHECKED_DEPTH = 64


class _Checks:
    """What jinja2's parser would check of a template, checked as the builder reads it, for
    templates whose tags are all ``if``/``elif``/``else``, ``for``/``else``, ``set`` (both
    forms) and their end tags. Each tag is parsed alone by jinja2, in the smallest template
    that holds it (once per tag text: prompts repeat their tags); output tags are parsed
    alone by the builder already (``_described``); what remains is the block structure:
    each end tag closing the innermost block, ``elif`` only in an ``if`` before its
    ``else``, one ``else``, every block closed. Anything else raises :class:`_Unsure`.
    jinja2's parser reads ``subparse``'s tokens the same way in any block, so a tag parsed
    alone is parsed as in its template. tools/fuzz_jinja.py and tests/test_jinja_fuzz.py
    hold the loader to jinja2's own parse on generated templates, valid and broken."""

    def __init__(self) -> None:
        self.open: list[list[str]] = []  # each open block: [its tag, "else" once one is met]

    def statement(self, tag: str, bare: bool, inner: str, assign: bool) -> None:
        """A tag: its name, whether it is nothing else (``{% else %}``), its text between
        the delimiters, and whether it is a ``set`` that assigns."""
        top = self.open[-1] if self.open else ["", ""]
        if bare and tag in ("else", "endif", "endfor", "endset"):
            if tag == "else" and top[0] in ("if", "for") and not top[1]:
                top[1] = "else"
            elif tag[3:] == top[0]:
                self.open.pop()
            else:
                raise _Unsure
            return
        if tag == "elif" and top[0] == "if" and not top[1]:
            _parses("{% if 1 %}{%" + inner + "%}{% endif %}")
        elif tag in ("if", "for") or (tag == "set" and not assign):
            _parses("{%" + inner + "%}{% end" + tag + " %}")
            self.open.append([tag, ""])
            if len(self.open) > _CHECKED_DEPTH:
                raise _Unsure
        elif tag == "set":
            _parses("{%" + inner + "%}")
        else:
            raise _Unsure

    def end(self) -> None:
        if self.open:
            raise _Unsure


@lru_cache(maxsize=4096)
def _parses(source: str) -> None:
    """Raises jinja2's error where it does not parse ``source``."""
    environment().parse(source)


# ---------------------------------------------------------------------------------------
# Expressions


def parse_expression(source: str) -> nodes.Expr:
    """jinja2's AST for one expression."""
    from jinja2 import nodes as n

    tree = environment().parse("{{ " + source + " }}")
    output = tree.body[0]
    assert isinstance(output, n.Output)
    expr = output.nodes[0]
    assert isinstance(expr, n.Expr)
    return expr


@lru_cache(maxsize=4096)
def _described(source: str) -> Expr:
    """An expression parsed and described once per source text: a prompt repeats the same
    few (``user.name``), and the fixer's drafts parse the file again."""
    return describe(parse_expression(source), source)


@lru_cache(maxsize=4096)
def _loop_parts(rest: str) -> tuple[tuple[str, ...], Expr]:
    """A ``{% for %}`` tag's loop variables and its iterable, parsed and described once per
    tag text (the same loop recurs across a project's templates, and in the fixer's drafts)."""
    from jinja2 import nodes as n

    tree = environment().parse("{% for " + rest + " %}{% endfor %}")
    loop = tree.body[0]
    assert isinstance(loop, n.For)
    names = [loop.target] if isinstance(loop.target, n.Name) else list(getattr(loop.target, "items", []))
    iter_source = rest.split(" in ", 1)[1] if " in " in rest else rest
    return tuple(x.name for x in names if isinstance(x, n.Name)), describe(loop.iter, iter_source)


def describe(node: nodes.Node, source: str) -> Expr:
    """Read the variable paths, calls, filters and format strings of an expression."""
    from jinja2 import nodes as n

    paths: list[tuple[str, ...]] = []
    calls: list[str] = []
    filters: list[str] = []
    literals: list[str] = []
    format_spec: str | None = None

    def path_of(node: nodes.Node) -> tuple[str, ...] | None:
        if isinstance(node, n.Name):
            return (node.name,)
        if isinstance(node, n.Getattr):
            base = path_of(node.node)
            return base + (node.attr,) if base is not None else None
        if isinstance(node, n.Getitem) and isinstance(node.arg, n.Const):
            base = path_of(node.node)
            return base + (str(node.arg.value),) if base is not None else None
        return None

    def callee_name(node: nodes.Node) -> str | None:
        if isinstance(node, n.Name):
            return node.name
        if isinstance(node, n.Getattr):
            return node.attr
        return None

    def visit(node: nodes.Node) -> None:
        nonlocal format_spec
        if isinstance(node, n.Const) and isinstance(node.value, str):
            literals.append(node.value)
            return
        if isinstance(node, n.Filter | n.Test) and node.name:
            if isinstance(node, n.Filter):
                filters.append(node.name)
            for arg in list(node.args) + [kw.value for kw in node.kwargs]:
                if format_spec is None and isinstance(arg, n.Const) and isinstance(arg.value, str) and "%" in arg.value:
                    format_spec = arg.value
            for child in node.iter_child_nodes():
                visit(child)
            return
        if isinstance(node, n.Call):
            name = callee_name(node.node)
            if name:
                calls.append(name)
            # The object a method is called on is still data: `user.name.upper()`.
            if isinstance(node.node, n.Getattr):
                base = path_of(node.node.node)
                if base is not None:
                    paths.append(base)
                else:
                    visit(node.node.node)
            elif not isinstance(node.node, n.Name):
                visit(node.node)
            for arg in list(node.args) + [kw.value for kw in node.kwargs]:
                if format_spec is None and isinstance(arg, n.Const) and isinstance(arg.value, str):
                    format_spec = arg.value
                visit(arg)
            return
        found = path_of(node)
        if found is not None:
            paths.append(found)
            return
        for child in node.iter_child_nodes():
            visit(child)

    visit(node)
    return Expr(
        source=source.strip(),
        path=paths[0] if paths else (),
        paths=tuple(paths),
        calls=tuple(calls),
        filters=tuple(filters),
        format_spec=format_spec,
        literals=tuple(literals),
    )


# ---------------------------------------------------------------------------------------
# Segments


def _normalised(source: str) -> tuple[str, Callable[[int], int] | None]:
    """The source with ``\r\n`` and ``\r`` read as ``\n`` (as the lexer reads it), and the
    map from its offsets back to the source's (None where they are the same: no ``\r``): an
    offset moves one character further for each ``\r\n`` before it (a lone ``\r`` keeps its
    length)."""
    if "\r" not in source:
        return source, None
    # The offset in ``normal`` of each collapsed ``\r\n``'s newline.
    collapsed = [m.start() - i for i, m in enumerate(re.finditer("\r\n", source))]
    normal = source.replace("\r\n", "\n").replace("\r", "\n")
    return normal, lambda offset: offset + bisect_left(collapsed, offset)


def _assignment(tokens: list[tuple[str, str]]) -> int | None:
    """Where a ``{% set %}`` tag's ``=`` is among its tokens (kinds and texts), or None for
    a block ``{% set x | filter %}``: jinja2 reads an assignment where an ``=`` follows the
    target outside brackets (an ``=`` in a filter's arguments is not one)."""
    depth = 0
    for index, (kind, value) in enumerate(tokens):
        if kind != "operator":
            continue
        if value in ("(", "[", "{"):
            depth += 1
        elif value in (")", "]", "}"):
            depth -= 1
        elif value == "=" and depth == 0:
            return index
    return None


# A template's tokens as four lists: their kinds, their texts, and their [start, end) offsets.
_Tokens = tuple[list[str], list[str], list[int], list[int]]

# The token that closes each tag the lexer opens.
_CLOSING = {
    "variable_begin": "variable_end",
    "block_begin": "block_end",
    "comment_begin": "comment_end",
    "raw_begin": "raw_end",
}


class _Builder:
    def __init__(self, path: str, source: str, lexed: list[tuple[int, str, str]],
                 checks: _Checks | None = None) -> None:
        self.path = path
        self.checks = checks  # None where jinja2 has parsed the template
        self.source = source
        self.lexed = lexed  # the lexer's raw tokens (``load``)
        self.root: list[Segment] = []
        self.stack: list[tuple[Block, str]] = []
        self.body = self.root  # where segments go: the innermost open block's body, else the root
        self.aliases: dict[str, Expr] = {}
        # Names set inside a conditional may hold any of several sources.
        self.alias_options: dict[str, list[Expr]] = {}
        self.captures: dict[str, Block] = {}

    def _located(self) -> _Tokens:
        """The lexer's tokens with their [start, end) offsets in the source.

        The lexer reads the source with its newlines normalised to ``\n`` and without
        one trailing newline, and drops whitespace that ``{%-``/``{{-`` strip; each
        token is found in the source with its newlines normalised the same way (offsets
        mapped back past each ``\r\n``), and every skipped gap (whitespace by
        construction) is listed as a ``stripped`` token so that the spans still tile the
        source.
        """
        normal, original = _normalised(self.source)
        kinds, values, starts, ends = self._summed(normal) or self._searched(normal)
        if original is not None:
            starts = list(map(original, starts))
            ends = list(map(original, ends))
        return kinds, values, starts, ends

    def _summed(self, normal: str) -> _Tokens | None:
        """:meth:`_located` in ``normal`` where every token starts where the one before
        ended (nothing was stripped but the trailing newline, as in most templates): their
        offsets are the running sum of their lengths. None where they are not."""
        kinds = list(map(itemgetter(1), self.lexed))
        values = list(map(itemgetter(2), self.lexed))
        joined = "".join(values)
        if not (values and all(values) and normal.startswith(joined)) or normal[len(joined):].strip():
            return None
        ends = list(accumulate(map(len, values)))
        starts = [0, *ends[:-1]]
        if len(joined) < len(normal):
            kinds.append("stripped")
            values.append("")
            starts.append(len(joined))
            ends.append(len(normal))
        return kinds, values, starts, ends

    def _searched(self, normal: str) -> _Tokens:
        """:meth:`_located` in ``normal``, each token found after the one before: most
        start where it ended, which is checked before the text after it is searched."""
        located: list[tuple[str, str, int, int]] = []
        cursor = 0  # in ``normal``
        for _lineno, kind, value in self.lexed:
            if not value:
                continue
            if normal.startswith(value, cursor):
                start = cursor
            else:
                start = normal.find(value, cursor)
                if start < 0 or normal[cursor:start].strip():
                    raise LoadError(f"could not locate Jinja token {value!r}")
                located.append(("stripped", "", cursor, start))
            cursor = start + len(value)
            located.append((kind, value, start, cursor))
        if cursor < len(normal):
            if normal[cursor:].strip():  # pragma: no cover - the lexer reads everything
                raise LoadError("could not read the whole Jinja template")
            located.append(("stripped", "", cursor, len(normal)))
        if not located:
            return [], [], [], []
        kinds, values, starts, ends = map(list, zip(*located))
        return kinds, values, starts, ends

    def build(self) -> list[Segment]:
        kinds, values, starts, ends = self._located()
        count = len(kinds)
        i = 0
        while i < count:
            kind = kinds[i]
            start = starts[i]
            if kind == "data":
                self.body.append(Text(Span(start, ends[i]), values[i]))
                i += 1
            elif kind == "stripped":
                end = ends[i]
                # Whitespace removed by whitespace control (or the dropped trailing
                # newline): it renders nothing, and belongs to the text before it.
                last = self.body[-1] if self.body else None
                if isinstance(last, Text) and last.span.end == start:
                    self.body[-1] = Text(Span(last.span.start, end), last.text)
                else:
                    self.body.append(Text(Span(start, end), ""))
                i += 1
            elif kind in _CLOSING:
                try:
                    j = kinds.index(_CLOSING[kind], i + 1)
                except ValueError:
                    j = count
                if j == count and kind in ("comment_begin", "raw_begin"):
                    # An open ``{#`` or ``{% raw %}`` that ends the text (one line break after
                    # it at most): jinja2's lexer stops there, and the template renders
                    # nothing of it, as of a comment.
                    self.body.append(Tag(Span(start, ends[-1]), "comment"))
                    break
                if j == count:
                    line = self.source.count("\n", 0, start) + 1
                    raise LoadError(f"unclosed {self.source[start:start + 2]!r} (no matching close)", line=line)
                span = Span(start, ends[j])
                if kind == "variable_begin":
                    self._slot(span, "".join(values[i + 1 : j]))
                elif kind == "comment_begin":
                    self.body.append(Tag(span, "comment"))
                elif kind == "raw_begin":
                    raw = Block("raw", Span(start, ends[i]), Span(starts[j], ends[j]))
                    raw.body = [Text(Span(starts[k], ends[k]), values[k]) for k in range(i + 1, j)]
                    self.body.append(raw)
                else:
                    self._statement(span, list(zip(kinds[i + 1 : j], values[i + 1 : j])))
                i = j + 1
            else:  # pragma: no cover - the lexer yields nothing else at top level
                i += 1
        if self.checks is not None:
            self.checks.end()
        return self.root

    def _slot(self, span: Span, expr_source: str) -> None:
        expr = _described(expr_source)
        alias: Expr | None = None
        options: tuple[Expr, ...] = ()
        capture: Block | None = None
        if expr.path:
            root = expr.path[0]
            capture = self.captures.get(root)
            if len(expr.path) == 1:  # a plain name: it may be one a {% set %} bound
                alias = self.aliases.get(root)
                options = tuple(self.alias_options.get(root, ()))
        self.body.append(Slot(span, expr, alias_of=alias, alias_options=options, capture=capture))

    def _statement(self, span: Span, tokens: list[tuple[str, str]]) -> None:
        """A tag between ``{%`` and ``%}``: its tokens' kinds and texts."""
        words = [t for t in tokens if t[0] != "whitespace"]
        inner = "".join(t[1] for t in tokens)
        tag = words[0][1] if words else ""
        rest = inner.strip()[len(tag) :].strip()
        if rest.endswith(":"):  # `{% if x: %}`: jinja2 skips a colon before a block's body
            rest = rest[:-1].rstrip()  # (no expression or name ends with one)
        assign = _assignment(tokens) if tag == "set" else None
        if self.checks is not None:
            self.checks.statement(tag, len(words) == 1, inner, assign is not None)
        if tag in _BLOCK_TAGS or (tag == "set" and assign is None):
            block = Block(tag, span, None)
            if tag == "set":
                block.target = rest.split("|", 1)[0].strip()
            elif tag == "block" and rest:
                block.target = rest.split()[0]
            if tag == "for":
                self._describe_loop(block, rest)
            elif tag == "if" and rest:
                block.expr = _described(rest)
            self.body.append(block)
            self.stack.append((block, _BLOCK_TAGS.get(tag, "endset")))
            self.body = block.body
        elif tag.startswith("end"):
            if not self.stack or self.stack[-1][1] != tag:
                raise LoadError(f"unexpected {{% {tag} %}}")
            block, _ = self.stack.pop()
            self.body = self.stack[-1][0].body if self.stack else self.root
            block.close = span
            if block.kind == "set" and block.target:
                self.captures[block.target] = block
        elif tag in ("elif", "else"):
            expr = _described(rest) if tag == "elif" and rest else None
            self.body.append(Tag(span, tag, expr=expr))
        elif tag == "set":
            assert assign is not None
            name = "".join(t[1] for t in tokens[:assign]).strip()[len(tag) :].strip()
            expr = _described("".join(t[1] for t in tokens[assign + 1 :]))
            # A set of a known alias keeps following it to its source.
            if expr.path and len(expr.path) == 1 and expr.root in self.aliases and not expr.calls:
                expr = self.aliases[expr.root]
            self.aliases[name] = expr
            if any(b.kind == "if" for b, _ in self.stack):
                self.alias_options.setdefault(name, []).append(expr)
            else:
                self.alias_options[name] = [expr]
            self.body.append(Tag(span, "set", expr=expr, target=name))
        elif tag in ("include", "import", "from", "extends"):
            named = words[1][1].strip("'\"") if len(words) > 1 and words[1][0] == "string" else None
            self.body.append(Tag(span, tag, target=named))
        else:
            self.body.append(Tag(span, tag or "statement"))

    def _describe_loop(self, block: Block, rest: str) -> None:
        block.loop_vars, own = _loop_parts(rest)
        block.expr = self.aliases.get(own.root, own)
        # Sorted here (`builtin_tools | sort`) or where the alias was set: either orders it.
        block.sorted = any(
            _SORTING_FILTERS.intersection(e.filters) or _SORTING_CALLS.intersection(e.calls) for e in (own, block.expr)
        )
