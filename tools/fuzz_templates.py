"""A long fuzz of promptlint's own template readers (Mustache, Handlebars, Go
``text/template``), which no reference parser in Python can be compared with.

    .venv/bin/python tools/fuzz_templates.py                       # 60 s, seed 1
    .venv/bin/python tools/fuzz_templates.py --seconds 600 --seed 7

Templates are generated from a grammar of each syntax as prompts use it (Mustache: variables,
triple and ``&`` variables, sections, inverted sections, partials, comments, set-delimiter
tags, standalone lines; Handlebars: ``#each``/``#if``/``#unless``/``#with`` with ``else``,
helpers with arguments, hash options and sub-expressions, block parameters, ``~``
whitespace control, ``@index``/``this``/``../``, raw blocks; Go: fields, pipelines with
functions and methods, variables, ``if``/``else if``/``else``, ``range`` with one or two
variables and ``else``, ``with``, ``define``/``template``/``block``, ``break``/
``continue``, comments, ``{{-``/``-}}`` trims, raw strings), with text, clocks and names
around them, CRLF and lone CRs; half of them are then broken (a slice dropped, two tags
swapped, a tag dropped, a stray closing or ``else`` tag put in). Each must hold:

- reading it raises nothing but a :class:`~promptlint.loaders.base.LoadError` (a
  malformed template, said in one line);
- a template it reads has segments that tile the source;
- checking it (with fixes planned, as JSON and SARIF reports do) and planning its fix
  raise nothing.

Each failure prints the property, the syntax and the template (``repr``); the exit code is
1 when one failed. tests/test_template_fuzz.py runs a seeded part of it; :func:`run` runs
it in process.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from typing import TextIO

from fuzzing import broken, campaign, command_line, untiled

_TEXTS = ["You are Atlas. ", "\n", "Rules:\r\n", " { x } ", "}}", "{", "é ", "\r", "Now: ", "  ", "- item\n",
          "Current time: ", "a: b\n", "}", "{{", "\t"]


def _pick(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


# ---------------------------------------------------------------------------------------
# Mustache and Handlebars

_MUSTACHE_NAMES = ["name", "user.name", "now", "current_time", "session_id", "tools", "this", ".", "@index",
                   "../agent", "items.[0]", "user/name", "a-b", "", " ", "date", "@root.x", "user.name.first"]


def _hbs_expression(rng: random.Random) -> str:
    name = rng.choice(_MUSTACHE_NAMES)
    r = rng.random()
    if r < 0.5:
        return name
    if r < 0.7:
        helper = rng.choice(["formatDate", "upper", "lookup", "json"])
        argument = rng.choice(["", '"%H:%M"', "x=1", 'fmt="YYYY"', "(now)", "'a b'"])
        return f"{helper} {name} {argument}"
    if r < 0.8:
        return name + " " + rng.choice(['"unclosed', "(sub", "a=(b c)", "=", '"a\\"b"'])
    return name + _pick(rng, "", " ", "  ")


def _mustache_node(rng: random.Random, depth: int, handlebars: bool) -> str:
    r = rng.random()
    tilde = (lambda: _pick(rng, "", "", "~")) if handlebars else (lambda: "")
    if depth > 4 or r < 0.3:
        return rng.choice(_TEXTS)
    if r < 0.5:
        return f"{{{{{tilde()}{_hbs_expression(rng) if handlebars else rng.choice(_MUSTACHE_NAMES)}{tilde()}}}}}"
    if r < 0.56:
        return _pick(rng, "{{{", "{{{~") + rng.choice(_MUSTACHE_NAMES) + _pick(rng, "}}}", "~}}}", "}}")
    if r < 0.6:
        return "{{&" + rng.choice(_MUSTACHE_NAMES) + "}}"
    if r < 0.75:
        name = rng.choice(_MUSTACHE_NAMES)
        if handlebars and rng.random() < 0.7:
            helper = _pick(rng, "each", "if", "unless", "with", "sortBy", "custom", "each")
            head = f"{helper} {name}" + _pick(rng, "", "", " as |item i|", " as |x|", " key=\"v\"")
            parts = ["{{" + tilde() + "#" + head + tilde() + "}}", _mustache_body(rng, depth, handlebars)]
            if rng.random() < 0.4:
                parts += [_pick(rng, "{{else}}", "{{^}}", "{{else if x}}", "{{~else~}}"),
                          _mustache_body(rng, depth, handlebars)]
            close = helper if rng.random() < 0.9 else _pick(rng, "other", name, "")
            return "".join(parts) + "{{" + tilde() + "/" + close + tilde() + "}}"
        sigil = _pick(rng, "#", "^")
        close = name if rng.random() < 0.9 else _pick(rng, "other", "")
        standalone = rng.random() < 0.4
        head = f"{{{{{sigil}{name}}}}}" + ("\n" if standalone else "")
        tail = ("\n" if standalone else "") + f"{{{{/{close}}}}}" + ("\n" if standalone else "")
        return head + _mustache_body(rng, depth, handlebars) + tail
    if r < 0.8:
        return "{{!" + _pick(rng, " a comment ", "-- long {{x}} comment --", "", "}") + "}}"
    if r < 0.84:
        return "{{>" + _pick(rng, " partial", "partial", " a/b.hbs", "", " (lookup . 'x')") + "}}"
    if r < 0.88:
        return "{{=" + _pick(rng, "<% %>", "[[ ]]", "| |", "<%", "{{ }}", "") + "=}}" + _pick(
            rng, "<% name %>", "[[#a]]x[[/a]]", "{{x}}", "<%={{ }}=%>{{y}}", "")
    if r < 0.92 and handlebars:
        return "{{{{raw}}}}" + _pick(rng, "{{x}}", "", "{{{{/x}}}}") + _pick(rng, "{{{{/raw}}}}", "")
    if r < 0.95 and handlebars:
        return "{{#>" + _pick(rng, " layout", "layout", "") + "}}" + _mustache_body(rng, depth, handlebars) + "{{/" + _pick(rng, "layout", "x") + "}}"
    return "{{" + _pick(rng, "#", "/", "^", "else", "#each", "/each", "", "!", ">", "=", "&", "{") + "}}"


def _mustache_body(rng: random.Random, depth: int, handlebars: bool) -> str:
    return "".join(_mustache_node(rng, depth + 1, handlebars) for _ in range(rng.randrange(4)))


# ---------------------------------------------------------------------------------------
# Go text/template

_GO_PIPELINES = [".", ".Time", ".User.Name", "$", "$t", "$t.Name", ".Tools", "now", "now | date \"2006-01-02\"",
                 ".Time.Format \"15:04\"", "printf \"%s-%d\" .A 3", "index .Items 0", "len .Tools",
                 "(.Now).Format `Jan 2`", "call .F 1", "$x := .Now", "$x = 1", "not .Ok", "and .A .B", "eq .A \"b\"",
                 "", "nil", "\"str\"", "`raw\nline`", "1.5", "true", ".Tools | sortAlpha", "html .X", "js .Y",
                 "slice .S 1 2", "(", "\"unclosed", ". Name", "..Bad", "$1x", "'c'"]


def _go_action(rng: random.Random, body: str) -> str:
    left = _pick(rng, "{{", "{{- ", "{{ ")
    right = _pick(rng, "}}", " -}}", " }}")
    return f"{left}{body}{right}"


def _go_node(rng: random.Random, depth: int, in_loop: bool) -> str:
    r = rng.random()
    if depth > 4 or r < 0.3:
        return rng.choice(_TEXTS)
    if r < 0.5:
        return _go_action(rng, rng.choice(_GO_PIPELINES))
    if r < 0.62:
        parts = [_go_action(rng, "if " + rng.choice(_GO_PIPELINES)), _go_body(rng, depth, in_loop)]
        for _ in range(rng.randrange(3)):
            parts += [_go_action(rng, "else if " + rng.choice(_GO_PIPELINES)), _go_body(rng, depth, in_loop)]
        if rng.random() < 0.5:
            parts += [_go_action(rng, "else"), _go_body(rng, depth, in_loop)]
        return "".join(parts) + _go_action(rng, "end")
    if r < 0.74:
        head = "range " + _pick(rng, "", "$t := ", "$i, $t := ", "$k, $v := ", "$a, $b, $c := ", "$t = ") + rng.choice(
            _GO_PIPELINES)
        parts = [_go_action(rng, head), _go_body(rng, depth, True)]
        if rng.random() < 0.3:
            parts += [_go_action(rng, "else"), _go_body(rng, depth, in_loop)]
        return "".join(parts) + _go_action(rng, "end")
    if r < 0.8:
        parts = [_go_action(rng, "with " + rng.choice(_GO_PIPELINES)), _go_body(rng, depth, in_loop)]
        if rng.random() < 0.3:
            parts += [_go_action(rng, _pick(rng, "else", "else with .X")), _go_body(rng, depth, in_loop)]
        return "".join(parts) + _go_action(rng, "end")
    if r < 0.84:
        return (_go_action(rng, f"{_pick(rng, 'define', 'block')} \"{_pick(rng, 'tools', 'x', '')}\""
                           + _pick(rng, "", " .", " .Tools"))
                + _go_body(rng, depth, False) + _go_action(rng, "end"))
    if r < 0.88:
        return _go_action(rng, f"template \"{_pick(rng, 'tools', '')}\"" + _pick(rng, "", " .", " .User"))
    if r < 0.92:
        return _pick(rng, "{{/* a comment */}}", "{{- /* trimmed */ -}}", "{{/* open", "{{/**/}}", "{{ /* spaced */ }}")
    if r < 0.95:
        return _go_action(rng, _pick(rng, "break", "continue") if in_loop or rng.random() < 0.3 else "continue")
    return _go_action(rng, _pick(rng, "end", "else", "if", "range", "define", "nope .X", "block"))


def _go_body(rng: random.Random, depth: int, in_loop: bool) -> str:
    return "".join(_go_node(rng, depth + 1, in_loop) for _ in range(rng.randrange(4)))


# ---------------------------------------------------------------------------------------

_TAG = re.compile(r"\{\{.*?\}\}", re.DOTALL)


_SYNTAXES: dict[str, tuple[str, Callable[[random.Random], str], tuple[str, ...]]] = {
    "mustache": ("p.mustache", lambda rng: _mustache_body(rng, 0, False), ("{{/name}}", "{{^x}}", "{{#x}}", "{{/}}")),
    "handlebars": ("p.hbs", lambda rng: _mustache_body(rng, 0, True),
                   ("{{/each}}", "{{else}}", "{{/if}}", "{{#if x}}", "{{^}}", "{{~/with~}}")),
    "go": ("p.gotmpl", lambda rng: _go_body(rng, 0, False), ("{{end}}", "{{else}}", "{{- end -}}", "{{if .X}}")),
}


def template(rng: random.Random) -> tuple[str, str, str]:
    """(syntax, file name, template): Handlebars is read as Mustache (one reader)."""
    grammar = rng.choice(sorted(_SYNTAXES))
    name, body, strays = _SYNTAXES[grammar]
    return ("mustache" if grammar == "handlebars" else grammar), name, broken(rng, body(rng), _TAG, lambda r: r.choice(strays))


def _problems(syntax: str, name: str, source: str) -> Iterator[str]:
    from promptlint.api import check_text
    from promptlint.fix.plan import plan_fix
    from promptlint.loaders import load_text
    from promptlint.loaders.base import LoadError

    try:
        loaded = load_text(name, source, syntax)
    except LoadError as exc:
        if "\n" in exc.message or "\r" in exc.message:
            yield f"the error message spans lines: {exc.message!r}"
        return
    gap = untiled(loaded)
    if gap is not None:
        yield gap
    result = check_text(source, name, syntax=syntax)
    if result.error:
        yield f"read, but the check says: {result.error}"
    plan_fix(load_text(name, source, syntax), None, False)


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` templates (or for ``seconds``); (templates tried, templates that failed)."""
    return campaign(seed, count, seconds, out, template, lambda case: _problems(*case),
                    lambda case: f"{case[0]} template: {case[2]!r}")


def main() -> int:
    return command_line(__doc__ or "", run, "templates")


if __name__ == "__main__":
    raise SystemExit(main())
