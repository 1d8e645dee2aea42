"""The template IR: every loader turns a file into this.

A :class:`Template` is an ordered tree of segments whose source spans, read in order,
cover the file exactly:

* :class:`Text` -- literal text. ``text`` is what it renders to (escapes decoded,
  whitespace control applied), which may differ from the source slice.
* :class:`Slot` -- a place where a value is substituted (``{{ user.name }}``,
  ``{now:%H:%M}``, ``${cwd}``). ``expr`` describes the expression that fills it.
* :class:`Block` -- a construct with an opening tag, a body and usually a closing
  tag (``{% if %}…{% endif %}``, ``{% for %}``, ``{{#section}}``). Tags inside the
  body that render nothing themselves (``{% else %}``) are :class:`Tag` segments.
* :class:`Tag` -- markup that renders nothing (comments, ``{% set %}``,
  ``{% include %}`` sites, ``{% else %}``, Mustache comments and partials).

Offsets are character offsets into the decoded source text (BOM removed).

Code files (Python, TypeScript, JavaScript prompt builders) are the exception, as request
JSON is: the spans of a prompt built in code point at the string literals and
interpolations it is assembled from, in the order the prompt renders them, and do not tile
the file. One file may build several prompts: each is a :class:`Template` of its own over
the same source, listed in ``Template.prompts`` of the file's template.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator
from dataclasses import InitVar, dataclass, field
from typing import Any, Literal

Syntax = Literal["jinja", "mustache", "go", "format", "placeholders", "placeholders", "dollar", "markdown", "json", "python",
                 "typescript", "javascript"]
SYNTAXES: tuple[str, ...] = ("jinja", "mustache", "go", "format", "dollar", "markdown", "json",
                             "python", "typescript", "javascript")
# Prompt builders in code: read by promptlint.loaders.code, never rewritten by the fixer.
CODE_SYNTAXES = frozenset({"python", "typescript", "javascript"})


# Blocks whose body is rendered where the block stands (a {% set %} or macro body is not).
RENDERED_BLOCKS = frozenset({"if", "for", "raw", "call", "filter", "block", "with", "autoescape", "trans",
                             "section", "inverted", "each", "unless"})

# Renderers that give a loop several items (the fix proof, the probe's variants) give one
# to a loop nested deeper than this: 20 nested loops of two items rendered 2^20 bodies.
LOOP_ITEMS_DEPTH = 6


@dataclass(frozen=True)
class Position:
    """A 1-based line and column."""

    line: int
    column: int


class LineIndex:
    """Maps character offsets in a text to 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self.text = text
        # Where each line starts: the running sum of the line lengths (newline included).
        lines = text.split("\n")
        del lines[-1]
        self._starts = list(itertools.accumulate(map((1).__add__, map(len, lines)), initial=0))

    def position(self, offset: int) -> Position:
        line = bisect.bisect_right(self._starts, offset) - 1
        return Position(line + 1, offset - self._starts[line] + 1)

    def line_of(self, offset: int) -> int:
        """The 1-based line of an offset: ``position(offset).line``, without making a Position
        (asked of every line PC105 reads)."""
        return bisect.bisect_right(self._starts, offset)

    def offset(self, line: int, column: int) -> int:
        """The offset of a 1-based (line, column)."""
        return self._starts[line - 1] + column - 1

    def line_text(self, line: int) -> str:
        start = self._starts[line - 1]
        end = self._starts[line] if line < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def raw_line(self, line: int) -> str:
        """A 1-based line as ``text.split("\\n")`` holds it (a CR before its newline kept)."""
        start = self._starts[line - 1]
        end = self._starts[line] - 1 if line < len(self._starts) else len(self.text)
        return self.text[start:end]

    @property
    def line_count(self) -> int:
        return len(self._starts)


# Not frozen, yet never assigned to (hashed as a frozen one is): a frozen dataclass sets each
# field through ``object.__setattr__``, which more than doubled the cost of the span every
# segment of every file is made with.
@dataclass(unsafe_hash=True, slots=True)
class Span:
    """A half-open range ``[start, end)`` of character offsets into the source."""

    start: int
    end: int

    def __post_init__(self) -> None:
        if self.start > self.end:
            raise ValueError(f"span start {self.start} after end {self.end}")


@dataclass(frozen=True)
class Expr:
    """What promptlint knows of the expression that fills a slot or drives a loop.

    ``path`` is the dotted variable path (``("user", "name")``); ``calls`` names the
    functions and methods called (``("now", "strftime")``); ``filters`` the Jinja or
    Handlebars filters/helpers applied; ``format_spec`` a format string found in the
    expression (a strftime pattern, a moment pattern, a ``str.format`` spec).
    """

    source: str
    path: tuple[str, ...] = ()
    # Every variable path the expression reads (`path` is the first).
    paths: tuple[tuple[str, ...], ...] = ()
    calls: tuple[str, ...] = ()
    filters: tuple[str, ...] = ()
    format_spec: str | None = None
    literals: tuple[str, ...] = ()
    # Set by loaders that read a literal value, not a variable (a timestamp in a request
    # body): what the value is, said in findings instead of "judged by the name …".
    evidence: str | None = None
    # Set by the code loaders for a value computed once per process (a module-level
    # constant, a memoised builder): what pins it, said in findings.
    pinned: str | None = None

    @property
    def name(self) -> str:
        return ".".join(self.path) if self.path else self.source.strip()

    @property
    def root(self) -> str:
        return self.path[0] if self.path else ""


@dataclass
class Text:
    span: Span
    text: str


@dataclass
class Slot:
    span: Span
    expr: Expr
    # Names bound by {% set %} are resolved to their source expression by the loaders
    # where they can be; `alias_of` keeps the chain for messages.
    alias_of: Expr | None = None
    # Every source a name may hold when it is set in several branches
    # (`{% if %}{% set c = a %}{% else %}{% set c = b %}{% endif %}`); judged by the worst.
    alias_options: tuple[Expr, ...] = ()
    # The `{% set name %}…{% endset %}` block whose rendered body the slot prints.
    capture: Block | None = None


@dataclass
class Tag:
    span: Span
    tag: str
    expr: Expr | None = None
    # A {% set %} tag binds `target` to `expr`; an include/partial names `target`.
    target: str | None = None


@dataclass
class Block:
    """``{% if %}``, ``{% for %}``, ``{% raw %}``, ``{% block %}``, Mustache sections."""

    kind: str
    open: Span
    close: Span | None
    body: list[Segment] = field(default_factory=list)
    expr: Expr | None = None
    # Loops: the loop variable names and whether the iterable is sorted.
    loop_vars: tuple[str, ...] = ()
    sorted: bool = False
    # `{% set name %}…{% endset %}`: the name the body is captured into; `{% block name %}`:
    # the block's name.
    target: str | None = None
    # Handlebars: the helper that opened the block (`list` for `{{#list items join=", "}}`),
    # whose meaning `kind` gives (each, if, unless, with).
    helper: str | None = None
    # Text the opening/closing tags render (Mustache/Jinja tags render nothing; kept
    # for symmetry with Text so every segment answers "what do you render").
    @property
    def span(self) -> Span:
        end = self.close.end if self.close else (self.body[-1].span.end if self.body else self.open.end)
        return Span(self.open.start, end)


Segment = Text | Slot | Tag | Block


@dataclass
class Template:
    """A parsed prompt file."""

    path: str
    syntax: str
    source: str
    segments: list[Segment]
    has_bom: bool = False
    newline: str = "\n"
    # What decided `syntax` (the extension, `--syntax`, config, or the placeholders found in
    # the content), said in the JSON output and, when the content decided, in the text output.
    syntax_evidence: str | None = None
    # The message the rendered text is sent in: "system" (or "developer"), which the chat
    # history follows, or "user" (the latest user turn: nothing after it is cached).
    role: str = "system"
    role_evidence: str | None = None
    # A code file: each prompt it builds, as a Template over the same source, in source
    # order (empty when it builds none); a prompt's `name` says where it is built; and the
    # (first, last) lines of each statement that builds one, for suppression comments.
    prompts: list[Template] = field(default_factory=list)
    name: str | None = None
    statements: list[tuple[int, int]] = field(default_factory=list)
    lines: LineIndex = field(init=False, repr=False)
    # A line index of the same source to share (a code file's prompts are templates over
    # the whole file: 5,000 prompts held 5,000 copies of its line starts).
    shared_lines: InitVar[LineIndex | None] = None
    # What `promptlint fix` would do to it, computed once per mode, tokenizer and overrides
    # and asked by every rule (:func:`promptlint.core.fixability.outlook`).
    fix_outlooks: list[tuple[Any, Any]] = field(default_factory=list, init=False, repr=False, compare=False)
    # Its volatile units per overrides, found once (:func:`promptlint.core.analysis.units_of`).
    units_found: list[tuple[Any, Any]] = field(default_factory=list, init=False, repr=False, compare=False)
    # Its :class:`~promptlint.core.layout.Layout`, built once and shared by the move plan and
    # the draft (:func:`promptlint.core.layout.layout_of`).
    layout: Any = field(default=None, init=False, repr=False, compare=False)
    # A Jinja template's parse tree, as jinja2's parser made it when the file was loaded: the
    # fix's proof compiles it instead of parsing the file again (see
    # :func:`promptlint.fix.render.render_jinja`, which takes it: compiling folds constants in it).
    jinja_tree: Any = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self, shared_lines: LineIndex | None) -> None:
        self.lines = shared_lines if shared_lines is not None and shared_lines.text is self.source \
            else LineIndex(self.source)

    def position(self, offset: int) -> Position:
        return self.lines.position(offset)

    def walk(self) -> Iterator[Segment]:
        """Every segment, depth first, in source order (blocks before their body)."""
        yield from walk(self.segments)

    def slots(self) -> Iterator[Slot]:
        return (s for s in self.walk() if isinstance(s, Slot))

    def blocks(self) -> Iterator[Block]:
        return (s for s in self.walk() if isinstance(s, Block))


def finished_walk(*_args: Any, **_kwargs: Any) -> Any:
    """What the name of a recursive nested function is bound to once its walk is done. A
    nested function that calls itself holds itself (its own name is a cell of its closure): a
    cycle that kept all it closes over (a template, its segments, a rendering's pieces) until
    the garbage collector ran, and a run's settled heap could keep it to the run's end.
    Rebinding the name breaks the cycle (``del`` would too, but linters then misread the
    walk's own calls as undefined names)."""
    raise AssertionError("a finished walk was called again")


def walk(segments: list[Segment]) -> Iterator[Segment]:
    for seg in segments:
        yield seg
        if isinstance(seg, Block):
            yield from walk(seg.body)


def leaf_spans(segments: list[Segment]) -> Iterator[Span]:
    """The spans that tile the source: leaves, and the open/close tags of blocks."""
    for seg in segments:
        if isinstance(seg, Block):
            yield seg.open
            yield from leaf_spans(seg.body)
            if seg.close is not None:
                yield seg.close
        else:
            yield seg.span
