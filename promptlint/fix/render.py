"""Rendering for the proof: a template rendered with generated values, the same values
for the old and the new source. Jinja renders in promptlint's sandbox with values that
print their own path; other syntaxes (and Jinja the values cannot satisfy) render from
the IR (:func:`render_ir`).
"""

from __future__ import annotations

import datetime as _dt
import random
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from typing import Any

from promptlint.core.ir import (LOOP_ITEMS_DEPTH, RENDERED_BLOCKS, Block, Segment, Slot, Tag, Template, Text,
                                finished_walk)


class _Loops:
    """How many loops over generated values are open in one render: a loop nested deeper
    than ``LOOP_ITEMS_DEPTH`` iterates once, not twice (a body's lines still render, and a
    line moved in or out of a loop is still caught above that depth)."""

    def __init__(self) -> None:
        self.open = 0

    def items(self, value: _Value) -> Iterator[_Value]:
        twice = self.open < LOOP_ITEMS_DEPTH
        self.open += 1
        try:
            yield value[0]
            if twice:
                yield value[1]
        finally:
            self.open -= 1


class _Value:
    """A template value for the rendering proof: prints its own path, has every
    attribute, iterates to two items (none when falsy; one when nested deeper than
    ``LOOP_ITEMS_DEPTH`` loops), and can be called."""

    unsafe_callable = False
    alters_data = False
    jinja_pass_arg = None

    def __init__(self, path: str, salt: str, truthy: bool = True, loops: _Loops | None = None) -> None:
        self._path = path
        self._salt = salt
        self._truthy = truthy
        self._loops = loops or _Loops()

    def __str__(self) -> str:
        return f"{self._path}~{self._salt}"

    def __getattr__(self, name: str) -> _Value:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Value(f"{self._path}.{name}", self._salt, self._truthy, self._loops)

    def __getitem__(self, key: object) -> _Value:
        if isinstance(key, str):
            return self.__getattr__(key)
        return _Value(f"{self._path}[{key}]", self._salt, self._truthy, self._loops)

    def __call__(self, *args: object, **kwargs: object) -> _Value:
        return _Value(f"{self._path}()", self._salt, self._truthy, self._loops)

    def __iter__(self) -> Iterator[_Value]:
        return self._loops.items(self) if self._truthy else iter([])

    def __len__(self) -> int:
        return 2 if self._truthy else 0

    def __bool__(self) -> bool:
        return self._truthy

    def __lt__(self, other: object) -> bool:
        return str(self) < str(other)

    def __gt__(self, other: object) -> bool:
        return str(self) > str(other)


class _Clock(_dt.datetime):
    """``now`` for the proof: a fixed datetime that can also be called (``now()``), and
    whose ``now()``, ``utcnow()`` and ``today()`` are itself (``datetime.now()``): the old and
    the new source must read the same time, never the machine's clock."""

    def __call__(self, *args: object, **kwargs: object) -> _Clock:
        return self

    def now(self, *args: object, **kwargs: object) -> _Clock:  # type: ignore[override]
        return self

    def utcnow(self) -> _Clock:  # type: ignore[override]
        return self

    def today(self) -> _Clock:  # type: ignore[override]
        return self


_CLOCK_NAMES = frozenset({"now", "utcnow", "today", "datetime", "current_time", "current_datetime", "clock"})


def _jinja_values(names: Iterable[str], round_: int, salt: str, abstract_clock: bool) -> dict[str, Any]:
    rng = random.Random(f"{salt}-{round_}")
    values: dict[str, Any] = {}
    loops = _Loops()  # one render's
    for name in sorted(names):
        truthy = True if round_ == 0 else (False if round_ == 1 else rng.random() < 0.6)
        if name in _CLOCK_NAMES and not abstract_clock:
            values[name] = _Clock(2026, 11, 30 - round_ % 3, 14, 3 + round_, 27 + round_)
        else:
            values[name] = _Value(name, f"{salt}{round_}", truthy, loops)
    return values


def render_jinja(sources: Sequence[str], rounds: int, salt: str, abstract_clock: bool,
                 trees: Sequence[Any] | None = None) -> list[list[str]] | None:
    """Each source rendered with the same values per round; None if one cannot render.

    ``trees``: jinja2's parse tree of each source where the loader kept one (a Jinja
    :class:`Template`'s ``jinja_tree``), compiled instead of parsing the source again; the
    caller no longer uses a tree it gives (compiling folds constants in it)."""
    from promptlint.loaders.jinja import environment, parse_tree

    env = environment()
    try:
        names: set[str] = set()
        compiled = []
        for index, source in enumerate(sources):
            tree = trees[index] if trees is not None and index < len(trees) else None
            code, undeclared = _compile(env, tree if tree is not None else parse_tree(source))
            names |= undeclared
            compiled.append(env.template_class.from_code(env, code, env.make_globals(None), None))
        return [
            [t.render(_jinja_values(names, r, salt, abstract_clock)) for r in range(rounds)] for t in compiled
        ]
    except Exception:  # noqa: BLE001 - generated values cannot satisfy every expression
        return None


def _compile(env: Any, tree: Any) -> tuple[Any, set[str]]:
    """``env.compile(tree)`` (the code ``env.from_string(tree)`` builds its template from),
    and the names the template reads but never sets: what ``jinja2.meta.
    find_undeclared_variables(tree)`` returns, read as jinja2's own does (its code generator's
    frames, as each is entered), from this compile instead of one more pass of the generator."""
    generator = _tracking_generator(env.code_generator_class)(env, None, None, None, False, env.optimized)
    generator.visit(tree)
    return compile(generator.stream.getvalue(), "<template>", "exec"), generator.undeclared


@cache
def _tracking_generator(base: type) -> type:
    """``base`` (the environment's code generator), noting every name a frame loads from the
    context and the environment's globals do not hold, as ``jinja2.meta``'s
    ``TrackingCodeGenerator`` does."""

    class Tracking(base):  # type: ignore[misc]
        def __init__(self, *args: Any) -> None:
            super().__init__(*args)
            self.undeclared: set[str] = set()

        def enter_frame(self, frame: Any) -> None:
            super().enter_frame(frame)
            for _, (action, param) in frame.symbols.loads.items():
                if action == "resolve" and param not in self.environment.globals:
                    self.undeclared.add(param)

    return Tracking


_SORT_FILTER = re.compile(r"\s*\|\s*(?:sort|dictsort)\s*(?:\([^()]*\))?\s*$")
_ITEMS = re.compile(r"\s*\.\s*items\s*\(\s*\)\s*$")


def collection_key(source: str) -> str:
    """The collection a loop iterates, whether or not it is sorted: ``tools``, ``tools |
    sort(attribute="name")`` and ``(tools) | sort`` are ``tools``; ``servers.items()`` and
    ``servers | dictsort`` are ``servers``. What the unsafe sort
    (:func:`promptlint.core.loopsort.sort_edit`) writes, undone."""
    key = _SORT_FILTER.sub("", source.strip())
    while key.startswith("(") and key.endswith(")") and _closes_at_end(key):
        key = key[1:-1].strip()
    return _ITEMS.sub("", key)


def _closes_at_end(text: str) -> bool:
    """Whether the parenthesis that opens ``text`` is the one that ends it."""
    depth = 0
    for i, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            return i == len(text) - 1
    return False


def render_ir(template: Template, round_: int, salt: str = "", abstract_clock: bool = False) -> str:
    """Render a template from its IR with random values: the same value for the same
    slot source, every loop twice (once nested deeper than ``LOOP_ITEMS_DEPTH`` loops, or
    never), every condition by one random draw per
    expression. Used for syntaxes without a renderer here (Mustache, format, ``${}``).
    ``abstract_clock`` (the proof of unsafe rewrites) keys slots without their format
    string and loops by their collection (:func:`collection_key`), so that what a clock
    coarsening or a loop sort changed on purpose renders the same, and nothing else may."""
    rng_cache: dict[str, bool] = {}

    def truth(key: str) -> bool:
        if round_ == 0:
            return True
        if key not in rng_cache:
            rng_cache[key] = random.Random(f"{salt}-{round_}-{key}").random() < 0.6
        return rng_cache[key]

    out: list[str] = []

    def visit(segments: list[Segment], scope: str, loops: int = 0) -> None:
        for seg in segments:
            if isinstance(seg, Text):
                out.append(seg.text)
            elif isinstance(seg, Slot):
                key = seg.expr.source
                if abstract_clock and seg.expr.format_spec:
                    key = key.replace(seg.expr.format_spec, "")
                out.append(f"{key}{scope}~{salt}{round_}")
            elif isinstance(seg, Block):
                if seg.kind not in RENDERED_BLOCKS:
                    continue
                key = seg.expr.source if seg.expr is not None else seg.kind
                if abstract_clock and seg.kind == "for":
                    key = collection_key(key)
                branches: list[list[Segment]] = [[]]
                conditions: list[str] = [key]
                for inner in seg.body:
                    if isinstance(inner, Tag) and inner.tag in ("else", "elif"):
                        branches.append([])
                        conditions.append(inner.expr.source if inner.expr is not None else "")
                    else:
                        branches[-1].append(inner)
                if seg.kind in ("for", "each", "section"):
                    if truth(key):
                        for i in range(2 if loops < LOOP_ITEMS_DEPTH else 1):
                            visit(branches[0], f"{scope}[{key}:{i}]", loops + 1)
                    elif len(branches) > 1:
                        visit(branches[-1], scope, loops)
                elif seg.kind in ("inverted", "unless"):
                    visit(branches[0] if not truth(key) else (branches[1] if len(branches) > 1 else []), scope, loops)
                elif seg.kind == "if":
                    for condition, branch in zip(conditions, branches):
                        if not condition or truth(condition):
                            visit(branch, scope, loops)
                            break
                else:
                    visit(seg.body, scope, loops)

    visit(template.segments, "")
    visit = finished_walk  # it recurses: a cycle holding the pieces (see finished_walk)
    return "".join(out)
