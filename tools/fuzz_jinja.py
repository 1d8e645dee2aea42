"""A long fuzz of the Jinja loader against jinja2's own parser.

    .venv/bin/python tools/fuzz_jinja.py                       # 60 s, seed 1
    .venv/bin/python tools/fuzz_jinja.py --seconds 600 --seed 7

Templates are generated from a small grammar of what prompt templates hold (text, output
tags with expressions of many shapes, ``if``/``elif``/``else``, ``for`` with ``else``,
filters and ``recursive``, ``set`` in both forms, comments, ``raw``, loop controls,
``include``/``import``/``extends``, ``macro``, ``with``, ``block``, ``filter``, unknown
tags), with whitespace control, Python's colon before a body, CRLF and lone CRs; half of
them are then broken (a slice dropped, two tags swapped, a stray ``else`` or end tag put
in). Each must hold:

- the loader reads the template exactly when jinja2's ``Environment.parse`` does, and says
  why it cannot (a :class:`~promptlint.loaders.base.LoadError`) otherwise: no other
  exception;
- a template it reads checks without an exception (``check_text``), its segments tiling the
  source.

Each failure prints the property and the template (``repr``); the exit code is 1 when one
failed. tests/test_jinja_fuzz.py runs a seeded part of it; :func:`run` runs it in process.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import TextIO

from fuzzing import broken, campaign, command_line, untiled

_EXPRESSIONS = [
    "a", "a.b", "a[0]", "a|upper", "a | sort(attribute='n')", "a if b else c", "a, b", "'s'", '"%H:%M"', "1_0",
    "f(x=1)", "not a", "a is defined", "a ~ b", "(a", "", "a b", "now().strftime('%H')", "ns.x", "loop.index",
    "x.y()", "{'k': v}", "[1, 2]", "a + 1", "true", "None", "a[1:]", "a[1:2]", "-a", "a.0", "a | default('x')",
    "user.name | e", "a == '='", "(a, b)",
]
_TARGETS = ["x", "x, y", "ns.x", "true", "1", "(a, b)", "x.y", ""]
_TEXTS = ["text ", "\n", "Hello\r\n", " {x} ", "}}", "%}", "é", "\r", "a: b\n", "  ", "{", "#}"]


def _tag(rng: random.Random, body: str) -> str:
    opener = rng.choice(["{%", "{%-", "{%+", "{% "])
    closer = rng.choice(["%}", "-%}", " %}", "+%}"])
    return f"{opener} {body} {closer}" if rng.random() < 0.9 else f"{opener}{body}{closer}"


def _colon(rng: random.Random) -> str:
    return rng.choice(["", "", "", ":", " :"])


def _node(rng: random.Random, depth: int, in_loop: bool, simple: bool) -> str:
    r = rng.random() * (0.77 if simple else 1.0)
    if depth > 4 or r < 0.3:
        return rng.choice(_TEXTS)
    if r < 0.45:
        return f"{rng.choice(['{{', '{{-', '{{+'])} {rng.choice(_EXPRESSIONS)} {rng.choice(['}}', '-}}', '+}}'])}"
    if r < 0.55:
        parts = [_tag(rng, "if " + rng.choice(_EXPRESSIONS) + _colon(rng)), _body(rng, depth, in_loop, simple)]
        for _ in range(rng.randrange(3)):
            parts += [_tag(rng, "elif " + rng.choice(_EXPRESSIONS) + _colon(rng)), _body(rng, depth, in_loop, simple)]
        if rng.random() < 0.5:
            parts += [_tag(rng, "else" + _colon(rng)), _body(rng, depth, in_loop, simple)]
        return "".join(parts) + _tag(rng, "endif")
    if r < 0.65:
        head = (f"for {rng.choice(_TARGETS)} in {rng.choice(_EXPRESSIONS)}"
                + rng.choice(["", " if a", " recursive", " if a recursive"]) + _colon(rng))
        parts = [_tag(rng, head), _body(rng, depth, True, simple)]
        if rng.random() < 0.3:
            parts += [_tag(rng, "else" + _colon(rng)), _body(rng, depth, in_loop, simple)]
        return "".join(parts) + _tag(rng, "endfor")
    if r < 0.72:
        return _tag(rng, f"set {rng.choice(_TARGETS)} = {rng.choice(_EXPRESSIONS)}")
    if r < 0.77:
        head = f"set {rng.choice(_TARGETS)}" + rng.choice(["", " | upper", " | indent(width=2)"]) + _colon(rng)
        return _tag(rng, head) + _body(rng, depth, in_loop, simple) + _tag(rng, "endset")
    if r < 0.8:
        return "{# c " + rng.choice(["", "{{ x }}", "%}"]) + " #}"
    if r < 0.83:
        return _tag(rng, "raw") + rng.choice(["{{ x }}", "{% if %}", ""]) + _tag(rng, "endraw")
    if r < 0.86:
        return _tag(rng, rng.choice(["break", "continue"]) if in_loop or rng.random() < 0.2 else "continue")
    if r < 0.89:
        return _tag(rng, rng.choice(["include 'a.j2'", "import 'm' as m", "from 'm' import x", "extends 'b.j2'"]))
    if r < 0.92:
        return _tag(rng, "macro m(a, b=1)" + _colon(rng)) + _body(rng, depth, False, simple) + _tag(rng, "endmacro")
    if r < 0.94:
        return _tag(rng, "with a = 1") + _body(rng, depth, in_loop, simple) + _tag(rng, "endwith")
    if r < 0.96:
        return _tag(rng, "block b" + _colon(rng)) + _body(rng, depth, in_loop, simple) + _tag(rng, "endblock")
    if r < 0.98:
        return _tag(rng, "filter upper") + _body(rng, depth, in_loop, simple) + _tag(rng, "endfilter")
    return _tag(rng, rng.choice(["trans", "do x", "autoescape true", "call m()", "unknown", "", "endif", "else"]))


def _body(rng: random.Random, depth: int, in_loop: bool, simple: bool = False) -> str:
    return "".join(_node(rng, depth + 1, in_loop, simple) for _ in range(rng.randrange(4)))


_TAGS = re.compile(r"\{%.*?%\}")


def _stray(rng: random.Random) -> str:
    return _tag(rng, rng.choice(["else", "elif b", "endif", "endfor", "endset", "else"]))


def template(rng: random.Random) -> str:
    """A template; half of them hold only text, output tags, ``if``, ``for`` and ``set``."""
    return broken(rng, _body(rng, 0, False, simple=rng.random() < 0.5), _TAGS, _stray)


def _problems(source: str) -> Iterator[str]:
    from jinja2 import TemplateSyntaxError

    from promptlint.api import check_text
    from promptlint.loaders import jinja
    from promptlint.loaders.base import LoadError

    try:
        jinja.environment().parse(source)
        valid = True
    except TemplateSyntaxError:
        valid = False
    try:
        loaded = jinja.load("fuzz.j2", source)
    except LoadError as exc:
        if valid:
            yield f"jinja2 parses it, the loader says: {exc.message}"
        return
    if not valid:
        yield "jinja2 does not parse it, the loader read it"
        return
    gap = untiled(loaded)
    if gap is not None:
        yield gap
    result = check_text(source, "fuzz.j2", syntax="jinja")
    if result.error:
        yield f"the check says: {result.error}"


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` templates (or for ``seconds``); (templates tried, templates that failed)."""
    return campaign(seed, count, seconds, out, template, _problems, lambda source: f"template: {source!r}")


def main() -> int:
    return command_line(__doc__ or "", run, "templates")


if __name__ == "__main__":
    raise SystemExit(main())
