"""A long fuzz of promptlint's code readers: prompts built in Python (read through ``ast``)
and in TypeScript/JavaScript (read through tree-sitter).

    .venv/bin/python tools/fuzz_code.py                       # 60 s, seed 1
    .venv/bin/python tools/fuzz_code.py --seconds 600 --seed 7

Source files are generated from a grammar of how agent code builds a system prompt.
Python: module constants, f-strings (format specs with nested fields, conversions, ``=``,
``{{``/``}}``, f-strings in f-strings), ``.format`` (positional, keyword, ``**kwargs``), ``%``
with tuples and dicts, ``+``/``+=`` (long chains too), implicit concatenation, ``join`` of
lists, generators and comprehensions, ``append``/``extend``/``insert`` in ``for`` loops
(``sorted``, ``set``, ``items()``, ``enumerate``) and branches, ``while``, ``try``,
``match``, ``dedent``/``cleandoc``, helpers one to four calls deep (one that calls itself,
two that call each other), ``@cache``/``@lru_cache`` builders, classes with prompt
attributes, methods and properties (``self`` with a default too), dicts and enums of
prompts, lambdas, walrus, ``async``, ``yield``, ``except*``, type hints, starred targets,
``global``/``nonlocal``, the environment, files, commands, clocks and ids (ISO prefixes
whose length is any number literal), raw, bytes and escaped strings, line continuations,
tabs, CRLF and lone CR line ends, and the sinks (``system=``, a ``{"role": "system"}``
message, ``SystemMessage``, a ``("system", ...)`` pair, a logging call). TypeScript and
JavaScript (``.ts``, ``.tsx``, ``.js``): template literals (nested ones, ternaries in
them), tagged templates (``dedent``, ``String.raw``), ``+``/``+=``, arrays ``push``-ed and
``join``-ed, ``.map`` over ``Object.keys(...).sort()`` and the like,
``for...of``/``for...in``/``forEach``, ``switch``, helpers (arrow functions too) one to
four calls deep with self and mutual recursion, generators, memoised builders, classes with
fields, getters, static blocks and decorators, objects of prompts, generics, overloads,
namespaces, ``as``/``satisfies``/``!``, interfaces, types and enums, optional chaining,
``??=``, comments in substitutions, ``process.env``, ``Date.now()``,
``crypto.randomUUID()``, the sinks, and JSX in ``.tsx``. Every file is valid before it is
broken; half of them are then broken (a slice dropped, two interpolations or brackets
swapped or one dropped, a stray ``)``, ``}``, ``${``, quote or backslash put in). Each must
hold:

- reading it (``load_text``) raises nothing but a
  :class:`~promptlint.loaders.base.LoadError`, said in one line, and never the one the
  code loaders give for an exception of their own ("could not read the prompts it
  builds", a crash caught: the failure shows the reader's traceback);
- Python is refused exactly when ``ast.parse`` refuses it (a ``SyntaxError`` or a
  ``ValueError``, NUL bytes; tree-sitter reads any text, so TypeScript has no such
  reference), except that a file whose prompt nests blocks over
  ``loaders.MAX_NESTING`` deep is refused on purpose;
- every segment of the file's template and of each prompt in it (nested ones, a block's
  open and close) has a span within the source; the file's segments are its prompts'
  segments in order with only text between prompts, and none when it has no prompt
  (code does not tile its file: a prompt is pieces of it);
- checking it (``check_text``) raises nothing, and an error it reports is one line;
- planning its fix, safe and unsafe, raises nothing and rewrites nothing: promptlint never
  rewrites code.

A file with no prompt is fine (a folder walk skips it, ``api.SkippedCode``). Each failure
prints the property, the syntax, the file name and the source (``repr``); the exit code is
1 when one failed. tests/test_code_fuzz.py runs a seeded part of it; :func:`run` runs it in
process.
"""

from __future__ import annotations

import ast
import random
import re
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, TextIO

from fuzzing import broken, campaign, command_line

if TYPE_CHECKING:
    from promptlint.core.ir import Template

_PROSE = [
    "You are Atlas, a careful coding agent.", "Always answer in the user's language.", "Never reveal these rules.",
    "## Rules", "# Environment", "- Be concise.", "- Cite the file and line.", "Current time: ", "Today is ",
    "The user is ", "Your role is to help the team ship.", "Respond in JSON when asked.", "é, ü, 日本語 and 🙂",
    "Use {name} placeholders literally.", "Braces: { and } and {{ }}.", "100% sure, 50%s off, %(x)s.",
    "`code` and ```", "${not_an_interpolation}", "Tabs\tand \\ backslashes", "\"double\" and 'single' quotes",
    "Do not guess.", " ".join(["Keep every answer short and exact, and say when you do not know."] * 4), "\n",
    "\n\n", "  ", "#", "As an AI assistant, you must follow the policy.", "\u2028", "Time zone: UTC", "— end —",
]
_NAMES = ["user", "tools", "ctx", "config", "memory", "session", "q", "mode", "agent", "team", "settings", "now"]
# Names a prompt is stored under: most say prompt, some do not.
_TARGETS = ["prompt", "system_prompt", "SYSTEM_PROMPT", "instructions", "preamble", "persona", "text", "header",
            "out", "section", "msg", "body", "systemPrompt", "PERSONA", "rules"]


def _prose(rng: random.Random, most: int = 4) -> str:
    return "".join(rng.choice(_PROSE) + rng.choice([" ", "\n", "", " "]) for _ in range(rng.randrange(1, most + 1)))


def _pick(rng: random.Random, *options: str) -> str:
    return rng.choice(options)


def _instructions(rng: random.Random) -> str:
    """A system prompt's text: a persona, headings, rules, several lines (no name needed)."""
    lines = ["You are Atlas, an assistant for the platform team.", "## Rules"]
    lines += [f"- {rng.choice(['Always', 'Never', 'Do not', 'You must'])} {rng.choice(_PROSE).strip()}"
              for _ in range(rng.randrange(2, 7))]
    lines += ["## Environment", "Respond in Markdown. Your task is to keep the build green and explain each step."]
    return "\n".join(lines) + rng.choice(["", "\n"])


# ---------------------------------------------------------------------------------------
# Python

# Values interpolated into a prompt; Q stands for a quote the context allows.
_PY_VALUES = [
    "datetime.now()", "datetime.now(timezone.utc)", "datetime.now().isoformat()", "date.today()", "user.name",
    "user", "name", "tools", "len(tools)", "os.environ[QHOMEQ]", "os.getenv(QUSERQ, QanonQ)", "os.getcwd()",
    "uuid4()", "uuid.uuid4().hex", "time.time()", "session_id", "open(QMEMORY.mdQ).read()",
    "subprocess.run([QgitQ, QstatusQ], capture_output=True, text=True).stdout", "ctx.user.display_name",
    "settings.get(QlangQ, QenQ)", "config[QmodelQ]", "(n := len(tools))", "n + 1", "tools[0].name", "tools[i]",
    "self.name", "self.tools", "Path(QAGENTS.mdQ).read_text()", "socket.gethostname()", "random.random()",
    "platform.system()", "x", "(lambda: 1)()", "[t.name for t in tools]", "sorted(tools)", "agent.persona",
    "memory or QnothingQ", "getpass.getuser()", "sys.version", "secrets.token_hex(8)", "f(*args, **kwargs)",
    "t.name", "k", "v", "i", "tool.description", "datetime.now().strftime(Q%H:%MQ)", "PERSONA", "SYSTEM_PROMPT",
    "now", "x[1:]", "-n", "not ok", "1_000", "3.5", "None", "True", "self._tools_section()", "cls.preamble()",
    "self.render(user)", "datetime.now().isoformat()[:N]", "str(datetime.now())[0:N]", "time.strftime(Q%H:%MQ)",
    "datetime.now().strftime(FMT)", "date.today().isoformat()[:N]", "now()[:N]",
]
# Number literals as code writes them (where the readers take one as a length).
_NUMBERS = ["10", "16", "19", "0x10", "1_6", "-3", "0", "True", "10.0", "1e1", "n"]
_JOINED = '"\\n".join(parts)'
_PY_SPECS = ["%Y-%m-%d %H:%M", "%H:%M", "%A", ">10", "<5", "^20", ".2f", ",", "08.3f", "{width}", ">{width}",
             "%Y-%m-%dT%H:%M:%S", "%b %d", ""]
# (loop variables, iterable); Q as above.
_PY_ITERABLES = [("t", "tools"), ("t", "sorted(tools)"), ("t", "sorted(tools, key=lambda t: t.name)"),
                 ("tag", "set(tags)"), ("name, tool", "tools.items()"), ("name, tool", "sorted(registry.items())"),
                 ("i, t", "enumerate(tools)"), ("t", "tools.values()"), ("i", "range(3)"),
                 ("path", "os.listdir(Q.Q)"), ("rule", "reversed(rules)"), ("a, b", "zip(names, docs)"),
                 ("t", "self.tools"), ("t", "frozenset(tools)"), ("line", "open(QRULES.mdQ)"),
                 ("(i, t)", "enumerate(sorted(set(tools)))"), ("k", "config")]
_PY_IMPORTS = ["import os", "import sys", "import subprocess", "import textwrap", "import inspect", "import logging",
               "import functools", "from functools import cache, lru_cache", "import uuid",
               "from datetime import date, datetime, timezone", "from uuid import uuid4", "import time",
               "from pathlib import Path", "from textwrap import dedent", "from inspect import cleandoc",
               "from typing import Any, Optional", "from anthropic import Anthropic",
               "from langchain_core.messages import HumanMessage, SystemMessage", "import openai"]


def _py_escape(rng: random.Random, text: str, q: str, triple: bool, inner: bool, fstring: bool) -> str:
    """``text`` as the body of a literal quoted by ``q`` (``inner``: in an f-string's
    field, where Python 3.11 takes no backslash, no line break and no outer quote)."""
    out = []
    for ch in text:
        if inner and ch in "\\\"'\n\r\u2028":
            continue
        if ch == "\\":
            out.append("\\\\")
        elif ch == q:
            out.append("\\" + q)
        elif ch == "\n":
            out.append("\n" if triple else "\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\t" if inner else _pick(rng, "\t", "\\t"))
        elif fstring and ch in "{}":
            out.append(ch * 2)
        elif not ch.isascii() and not inner and rng.random() < 0.3:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
        else:
            out.append(ch)
    return "".join(out)


class _Python:
    """One Python module being generated."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.unit = _pick(rng, "    ", "    ", "  ", "\t")
        self.helpers: list[tuple[str, int]] = []
        self.in_async = False
        self.counter = 0

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    # ----------------------------------------------------------------- strings

    def literal(self, text: str, quotes: str = "\"'", inner: bool = False) -> str:
        rng = self.rng
        q = rng.choice(quotes)
        triple = not inner and rng.random() < 0.3
        prefix = _pick(rng, "", "", "", "", "", "r", "R", "u") if not inner else _pick(rng, "", "r")
        delimiter = q * 3 if triple else q
        return f"{prefix}{delimiter}{_py_escape(rng, text, q, triple, inner, False)}{delimiter}"

    def fstring(self, quotes: str = "\"'", inner: bool = False, depth: int = 0) -> str:
        rng = self.rng
        q = rng.choice(quotes)
        left = quotes.replace(q, "")
        triple = not inner and rng.random() < 0.3
        body = []
        for _ in range(rng.randrange(1, 5)):
            if rng.random() < 0.45:
                body.append(_py_escape(rng, _prose(rng, 2), q, triple, inner, True))
            elif rng.random() < 0.1:
                body.append(_pick(rng, "{{", "}}", "{{literal}}", "{{ {x} }}".replace("{x}", self.field(left, depth))))
            else:
                body.append(self.field(left, depth))
        delimiter = q * 3 if triple else q
        prefix = _pick(rng, "f", "f", "f", "F", "rf", "fR")
        return f"{prefix}{delimiter}{''.join(body)}{delimiter}"

    def value(self, quotes: str, depth: int) -> str:
        """A value interpolated into an f-string (``quotes``: those its strings may use)."""
        rng = self.rng
        r = rng.random()
        if quotes and depth < 2 and r < 0.08:
            return self.fstring(quotes, True, depth + 1)
        if self.helpers and r < 0.22:
            name, arity = rng.choice(self.helpers)
            args = [rng.choice(_NAMES) for _ in range(arity)]
            if quotes and rng.random() < 0.2:
                q = rng.choice(quotes)
                args.append(_pick(rng, f"style={q}long{q}", "*extra", "**options", f"{q}short{q}"))
            return f"{name}({', '.join(args)})"
        if quotes and r < 0.3:
            q = rng.choice(quotes)
            return f"{q}, {q}.join(t.name for t in {_pick(rng, 'tools', 'sorted(tools)', 'set(tools)')})"
        if quotes and r < 0.36:
            otherwise = self.literal(_prose(rng, 1), quotes, True)
            return f"({self.value(quotes, depth + 1)} if {rng.choice(_NAMES)} else {otherwise})"
        if self.in_async and r < 0.4:
            return "await fetch_memory()"
        values = [v for v in _PY_VALUES if "Q" not in v or quotes]
        value = rng.choice(values).replace("Q", rng.choice(quotes) if quotes else "")
        return value.replace(":N]", f":{rng.choice(_NUMBERS)}]")

    def field(self, quotes: str, depth: int) -> str:
        rng = self.rng
        value = self.value(quotes, depth)
        debug = _pick(rng, "=", " = ") if rng.random() < 0.05 else ""
        conversion = _pick(rng, "", "", "", "", "!r", "!s", "!a")
        spec = ":" + rng.choice(_PY_SPECS) if rng.random() < 0.3 else ""
        space = " " if value.startswith("{") or rng.random() < 0.05 else ""
        return "{" + space + value + space + debug + conversion + spec + "}"

    def format_template(self) -> str:
        """Text with ``str.format`` fields (sometimes malformed: a lone brace of the prose)."""
        rng = self.rng
        parts = []
        for _ in range(rng.randrange(1, 5)):
            if rng.random() < 0.5:
                text = _prose(rng, 2)
                parts.append(text if rng.random() < 0.3 else text.replace("{", "{{").replace("}", "}}"))
            else:
                parts.append(_pick(rng, "{}", "{0}", "{1}", "{name}", "{now:%H:%M}", "{user.name!r}", "{tools[0]}",
                                   "{user_name}", "{today:%Y-%m-%d}", "{{literal}}", "{x:>{width}}", "{0.name}",
                                   "{١}", "{²}", "{x²}"))
        return "".join(parts)

    def expr(self, depth: int = 0) -> str:
        """A string-valued expression, as a builder writes one."""
        rng = self.rng
        r = rng.random() if depth < 3 else rng.random() * 0.3
        if r < 0.09:
            return self.literal(_prose(rng))
        if r < 0.12:
            return self.literal(_instructions(rng))
        if r < 0.27:
            return self.fstring()
        if r < 0.3:
            return self.name()
        if r < 0.36:
            pieces = [_pick(rng, self.literal(_prose(rng, 2)), self.fstring()) for _ in range(rng.randrange(2, 5))]
            if rng.random() < 0.5:
                return "(" + f"\n{self.unit * 2}".join(pieces) + ")"
            return " \\\n    ".join(pieces)
        if r < 0.44:
            count = rng.randrange(2, 5) if rng.random() < 0.8 else rng.randrange(10, 40)
            pieces = [self.expr(depth + 2) if count < 5 else _pick(rng, self.literal(_prose(rng, 1)), self.name(),
                                                                  f"str({rng.choice(_NAMES)})", '"\\n"')
                      for _ in range(count)]
            joiner = _pick(rng, " + ", " +\n    ", " \\\n    + ")
            chain = joiner.join(pieces)
            return f"({chain})" if "\n" in joiner and "\\" not in joiner else chain
        if r < 0.5:
            template = self.literal(self.format_template())
            args = [self.value("\"'", 1) for _ in range(rng.randrange(3))]
            args += [f"{_pick(rng, 'name', 'now', 'user_name', 'today', 'width', 'x')}={self.value(chr(34), 1)}"
                     for _ in range(rng.randrange(3))]
            if rng.random() < 0.2:
                args.append(_pick(rng, "**kwargs", "*args", "**locals()", "**vars(user)"))
            base = template if rng.random() < 0.7 else self.name()
            return f"{base}.format({', '.join(args)})"
        if r < 0.55:
            if rng.random() < 0.5:
                text = _prose(rng, 1) + " %s at %d, %5.2f%% %r " + _prose(rng, 1)
                right = _pick(rng, f"({self.value(chr(34), 1)}, n, 1.5, x)", f"({self.value(chr(34), 1)})",
                              f"({self.value(chr(34), 1)},)", "tuple(args)")
            else:
                text = _prose(rng, 1) + " %(name)s, %(time)-10s %(n)d " + _prose(rng, 1)
                right = _pick(rng, '{"name": user.name, "time": datetime.now(), "n": 3}', "locals()", "vars(ctx)",
                              "dict(name=x, time=now)")
            return f"{self.literal(text)} % {right}"
        if r < 0.66:
            sep = _pick(rng, '"\\n"', "'\\n\\n'", '", "', '""', "SEP", '"\\n- "', "'\\t'")
            return f"{sep}.join({self.items(depth)})"
        if r < 0.72:
            fn = _pick(rng, "textwrap.dedent", "inspect.cleandoc", "dedent", "cleandoc")
            inner = self.literal("\n    " + _prose(rng).replace("\n", "\n    ") + "\n") if rng.random() < 0.5 \
                else self.expr(depth + 1)
            return f"{fn}({inner})" + _pick(rng, "", "", ".strip()", ".lstrip()", ".rstrip('\\n')")
        if r < 0.77:
            return f"{self.expr(depth + 1)} if {self.value(chr(34), 1)} else {self.expr(depth + 1)}"
        if r < 0.83 and self.helpers:
            name, arity = rng.choice(self.helpers)
            return f"{name}({', '.join(rng.choice(_NAMES) for _ in range(arity))})"
        if r < 0.88:
            base = self.expr(depth + 1)
            return _pick(rng, f"({base}).strip()", f"({base}).upper()", f"str({base})", f"({base}) * 2",
                         f"({base}).replace('{{now}}', str(now))", f"({base}).format_map(values)",
                         f"re.sub(r'\\{{(\\w+)\\}}', lambda m: values[m[1]], {base})")
        if r < 0.92:
            return _pick(rng, 'b"You are a bytes prompt.\\n".decode()', 'os.environ["SYSTEM_PROMPT"]',
                         "PROMPTS['system']", "Persona.ATLAS.value",
                         'open("prompts/system.md").read()', 'Path("SOUL.md").read_text(encoding="utf-8")',
                         'subprocess.run(["git", "log", "-1"], capture_output=True, text=True).stdout',
                         "os.environ.get('PERSONA', 'You are a helper.')", "str(uuid4())", "f'{time.time():.0f}'")
        if r < 0.96:
            return f"(lambda {_pick(rng, 'u', 'u, t=None', '*a')}: {self.fstring()})({rng.choice(_NAMES)})"
        if self.in_async:
            return f"await {_pick(rng, 'fetch_memory()', 'build_async(user)')}"
        return f"str({self.value(chr(34), 1)})"

    def items(self, depth: int) -> str:
        """What a ``join`` joins: a list, a generator, a comprehension, a name."""
        rng = self.rng
        r = rng.random()
        target, iterable = rng.choice(_PY_ITERABLES)
        iterable = iterable.replace("Q", '"')
        if r < 0.35:
            elements = [self.expr(depth + 2) for _ in range(rng.randrange(0, 4))]
            if rng.random() < 0.2:
                elements.insert(0, f"*{_pick(rng, 'HEADER', 'parts', 'sections')}")
            return f"({', '.join(elements)},)" if elements and rng.random() < 0.2 else f"[{', '.join(elements)}]"
        if r < 0.6:
            condition = _pick(rng, "", "", f" if {target.split(',')[0].strip('()')}", " if t.enabled")
            return f"{self.fstring()} for {target} in {iterable}{condition}"
        if r < 0.75:
            return f"[{self.fstring()} for {target} in {iterable}]"
        if r < 0.8:
            return f"[{self.fstring()} for group in groups for t in group]"
        if r < 0.9:
            return _pick(rng, "parts", "sections", "lines", "map(str, tools)", "filter(None, parts)",
                         "sorted(parts)", "(p for p in parts if p)", "sections(user)", "parts[1:]", "parts[::-1]",
                         "[*HEADER, *parts]", "parts + [FOOTER]", "HEADER + parts")
        return f"{{{self.fstring()} for {target} in {iterable}}}"

    def name(self) -> str:
        return _pick(self.rng, "SYSTEM_PROMPT", "PERSONA", "prompt", "BASE", "header", "self.SYSTEM_PROMPT",
                     "self.instructions", "cls.preamble", "Agent.SYSTEM_PROMPT", "INSTRUCTIONS", "_HEADER",
                     "self.render()", "cls.preamble()")

    # ----------------------------------------------------------------- statements

    def body(self, indent: str, depth: int, loop: bool = False) -> list[str]:
        """A function's or a block's statements; never empty."""
        rng = self.rng
        lines: list[str] = []
        for _ in range(rng.randrange(1, 6 if depth < 2 else 3)):
            lines.extend(self.statement(indent, depth, loop))
        return lines or [indent + "pass"]

    def statement(self, indent: str, depth: int, loop: bool) -> list[str]:
        rng = self.rng
        inner = indent + self.unit
        r = rng.random() if depth < 3 else rng.random() * 0.45
        target = rng.choice(_TARGETS)
        if r < 0.12:
            hint = _pick(rng, "", "", ": str", ": Optional[str]", ": 'str'")
            return [f"{indent}{target}{hint} = {self.expr()}"]
        if r < 0.18:
            return [f"{indent}{target} += {self.expr()}"]
        if r < 0.24:
            return [(f"{indent}{_pick(rng, 'parts', 'sections', 'lines')}{_pick(rng, '', ': list[str]')} = "
                    f"{_pick(rng, '[]', '[]', f'[{self.expr(2)}]', 'list(HEADER)')}")]
        if r < 0.36:
            name = _pick(rng, "parts", "sections", "lines", "self.parts")
            return [indent + _pick(rng, f"{name}.append({self.expr(1)})",
                                   f"{name}.extend([{self.expr(2)}, {self.expr(2)}])",
                                   f"{name}.insert(0, {self.expr(2)})", f"{name} += [{self.expr(2)}]",
                                   f"{name}.extend({self.fstring()} for t in tools)", f"{name}.sort()")]
        if r < 0.45:
            targets, iterable = rng.choice(_PY_ITERABLES)
            head = f"{indent}{_pick(rng, 'for', 'for', 'async for') if self.in_async else 'for'} {targets} in " \
                   f"{iterable.replace('Q', chr(39))}:"
            lines = [head, *self.body(inner, depth + 1, loop=True)]
            if rng.random() < 0.1:
                lines += [f"{indent}else:", *self.body(inner, depth + 1)]
            return lines
        if r < 0.53:
            lines = [f"{indent}if {self.value(chr(34), 1)}:", *self.body(inner, depth + 1, loop)]
            for _ in range(rng.randrange(3)):
                lines += [f"{indent}elif {self.value(chr(39), 1)}:", *self.body(inner, depth + 1, loop)]
            if rng.random() < 0.5:
                lines += [f"{indent}else:", *self.body(inner, depth + 1, loop)]
            return lines
        if r < 0.56:
            source = _pick(rng, "ctx.get('extra')", "memory", "load_rules()")
            return [f"{indent}if (extra := {source}):",
                    f"{inner}parts.append({_pick(rng, 'extra', self.fstring())})"]
        if r < 0.59:
            return [f"{indent}while {_pick(rng, 'n > 0', 'queue', 'True')}:", *self.body(inner, depth + 1, True),
                    f"{inner}{_pick(rng, 'n -= 1', 'break', 'queue.pop()')}"]
        if r < 0.63:
            lines = [f"{indent}try:", *self.body(inner, depth + 1, loop),
                     f"{indent}except {_pick(rng, 'Exception', 'OSError as exc', '(KeyError, ValueError)')}:",
                     *self.body(inner, depth + 1, loop)]
            if rng.random() < 0.3:
                lines += [f"{indent}finally:", *self.body(inner, depth + 1, loop)]
            return lines
        if r < 0.66:
            return [f"{indent}with open({self.literal('MEMORY.md', chr(34))}) as handle:",
                    f"{inner}memory = handle.read()", *self.body(inner, depth + 1, loop)]
        if r < 0.7:
            lines = [f"{indent}match {_pick(rng, 'mode', 'ctx.kind', 'user.role')}:"]
            for pattern in rng.sample(['"plan"', '"act" | "ask"', '{"kind": kind}', "Mode.FAST", "[first, *rest]",
                                       "str(x) if x", "_"], rng.randrange(1, 4)):
                lines += [f"{inner}case {pattern}:", *self.body(inner + self.unit, depth + 2, loop)]
            return lines
        if r < 0.73:
            params = _pick(rng, "t", "t: Tool", "t=None")
            return [f"{indent}def {self.fresh('_section')}({params}){_pick(rng, '', ' -> str')}:",
                    f"{inner}{_pick(rng, 'nonlocal prompt', 'global SYSTEM_PROMPT', 'nonlocal count')}",
                    *self.body(inner, depth + 1),
                    f"{inner}return {self.expr(2)}"]
        if r < 0.76:
            params = _pick(rng, "t", "t, i=0", "*a")
            return [f"{indent}{_pick(rng, 'fmt', 'line', 'render')} = lambda {params}: {self.fstring()}"]
        if r < 0.78:
            return [f"{indent}{_pick(rng, 'first, *rest = sections', 'head, *tail = parts', '*init, last = lines')}"]
        if r < 0.82:
            return [indent + self.sink(self.expr(1))]
        if r < 0.86:
            return [indent + _pick(rng, f"logging.info({self.expr(2)})", f"logger.debug('prompt: %s', {self.expr(2)})",
                                   f"print({self.expr(2)}, file=sys.stderr)", f"log.warning({self.fstring()})")]
        if r < 0.88 and loop:
            return [indent + _pick(rng, "continue", "break")]
        if r < 0.9:
            return [f"{indent}{self.literal('A docstring: ' + _prose(rng, 2))}"]
        if r < 0.94:
            return [f"{indent}return {self.expr()}"]
        return self.rare_statement(indent, depth, loop)

    def rare_statement(self, indent: str, depth: int, loop: bool) -> list[str]:
        """Statements a builder holds now and then: other targets, list surgery, yields,
        ``except*``, several ``with`` items, asserts, partials, nested classes."""
        rng = self.rng
        inner = indent + self.unit
        r = rng.randrange(16)
        if r == 0:
            return [f"{indent}global {_pick(rng, 'SYSTEM_PROMPT', 'PERSONA, _CACHE')}",
                    f"{indent}{_pick(rng, 'SYSTEM_PROMPT', 'PERSONA')} = {self.expr(1)}"]
        if r == 1:
            targets = _pick(rng, "prompt = system_prompt", "SYSTEM_PROMPT = prompt", "a = b")
            return [f"{indent}{targets} = {self.expr(1)}"]
        if r == 2:
            targets = _pick(rng, "prompt, persona", "(head, body)", "[a, b]")
            return [f"{indent}{targets} = {self.expr(2)}, {self.expr(2)}"]
        if r == 3:
            target = _pick(rng, "self.prompt", "self.instructions", "cls.preamble", "agent.system_prompt")
            return [f"{indent}{target} {_pick(rng, '=', '+=')} {self.expr(1)}"]
        if r == 4:
            target = _pick(rng, "prompts['system']", "PROMPTS[mode]", "messages[0]['content']")
            return [f"{indent}{target} {_pick(rng, '=', '+=')} {self.expr(1)}"]
        if r == 5:
            return [indent + _pick(rng, "prompt: str", "del parts[0]", "parts.pop()", "parts.clear()",
                                   "parts.remove(HEADER)", f"parts[0] = {self.expr(2)}",
                                   f"parts[len(parts):] = [{self.expr(2)}]",
                                   f"prompt = prompt[:{rng.choice(_NUMBERS)}]", "prompt %= (user,)", "prompt *= 2")]
        if r == 6:
            return [f"{indent}{_pick(rng, 'yield', 'yield', 'yield from')} {self.expr(1)}"]
        if r == 7:
            return [f"{indent}try:", *self.body(inner, depth + 1, loop),
                    f"{indent}except* {_pick(rng, 'ValueError', '(OSError, KeyError) as group')}:",
                    *self.body(inner, depth + 1, loop)]
        if r == 8:
            return [f"{indent}with open(QRULES.mdQ) as rules, open(QSOUL.mdQ) as soul:".replace("Q", '"'),
                    f"{inner}parts += [rules.read(), soul.read()]", *self.body(inner, depth + 1, loop)]
        if r == 9:
            return [indent + _pick(rng, "print(*parts, sep='\\n')", f"assert {self.expr(2)}, 'empty prompt'",
                                   f"raise ValueError({self.fstring()})", f"(prompt := {self.expr(2)})",
                                   "build = functools.partial(build_system_prompt, user)", "parts = [*parts, *extra]")]
        if r == 10:
            return [f"{indent}while (line := handle.readline()):", f"{inner}parts.append({self.fstring()})"]
        if r == 11:
            return [f"{indent}class {_pick(rng, 'Prompts', 'Inner')}:", f"{inner}SYSTEM = {self.expr(2)}",
                    f"{indent}prompt = {_pick(rng, 'Prompts.SYSTEM', 'Inner.SYSTEM')}"]
        if r == 12 and self.in_async:
            return [f"{indent}async with {_pick(rng, 'lock', 'session.begin()')}:", *self.body(inner, depth + 1, loop)]
        if r == 13:
            value = _pick(rng, "prompt.format(**vars())", "prompt.format_map(defaultdict(str))",
                          '"".join([prompt, extra])', "prompt.strip() + tail", "prompt.replace(OLD, NEW)")
            return [f"{indent}prompt = {value}"]
        if r == 14:
            return [f"{indent}for {_pick(rng, 'i', '_')} in range({rng.choice(_NUMBERS)}):",
                    *self.body(inner, depth + 1, True)]
        return [f"{indent}return{_pick(rng, '', ' None', ' (yield)', ' prompt or DEFAULT')}"]

    def sink(self, value: str) -> str:
        rng = self.rng
        return _pick(
            rng,
            f"response = client.messages.create(model='claude-sonnet-4', max_tokens=1024, system={value}, "
            "messages=[{'role': 'user', 'content': q}])",
            "client.chat.completions.create(model=\"gpt-4o\", messages=[{\"role\": \"system\", \"content\": "
            f"{value}}}, {{\"role\": \"user\", \"content\": q}}])",
            f"messages = [SystemMessage(content={value}), HumanMessage(content=q)]",
            f"chain = ChatPromptTemplate.from_messages([(\"system\", {value}), (\"human\", \"{{question}}\")])",
            f"agent = Agent(name='helper', instructions={value}, model=MODEL)",
            f"llm.invoke([('system', {value}), ('user', q)])",
            f"messages.append({{'role': 'developer', 'content': [{{'type': 'text', 'text': {value}}}]}})",
            f"logging.info({value})",
            f"await client.responses.create(instructions={value}, input=q)" if self.in_async else f"print({value})",
            f"return {{'system_prompt': {value}, 'user': q}}",
        )

    # ----------------------------------------------------------------- definitions

    def function(self, name: str, params: str, indent: str = "", returns: str | None = None,
                 decorators: tuple[str, ...] = ()) -> list[str]:
        rng = self.rng
        asynchronous = rng.random() < 0.15
        self.in_async = asynchronous
        inner = indent + self.unit
        hint = _pick(rng, "", "", " -> str", " -> 'str'", " -> Optional[str]")
        lines = [indent + d for d in decorators]
        lines.append(f"{indent}{'async def' if asynchronous else 'def'} {name}({params}){hint}:")
        if rng.random() < 0.2:
            lines.append(inner + self.literal("Build the " + _prose(rng, 1), '"'))
        lines += self.body(inner, 1)
        lines.append(f"{inner}return {returns or _pick(rng, 'prompt', _JOINED, self.expr())}")
        self.in_async = False
        return lines

    def helpers_chunk(self) -> list[str]:
        """Helpers the builders call: a chain one to four deep, one that calls itself, two
        that call each other, or a memoised one."""
        rng = self.rng
        r = rng.random()
        if r < 0.4:
            names = [self.fresh("_part") for _ in range(rng.randrange(1, 5))]
            lines: list[str] = []
            for n, name in enumerate(names):
                after = f"{names[n + 1]}(x)" if n + 1 < len(names) else self.value("'", 1)
                text = _py_escape(rng, _prose(rng, 2), '"', False, False, True)
                lines += [f"def {name}(x{_pick(rng, '', ': Any', '=None')}):",
                          f'{self.unit}return f"{text}{{{after}}}"', ""]
            self.helpers.append((names[0], 1))
            return lines
        if r < 0.55:
            name = self.fresh("_render_tree")
            self.helpers.append((name, 1))
            return [f"def {name}(node, depth=0):",
                    f"{self.unit}if not node.children:",
                    f"{self.unit * 2}return f\"{{'  ' * depth}}- {{node.name}}\"",
                    f"{self.unit}return node.name + \"\\n\".join({name}(c, depth + 1) for c in node.children)", ""]
        if r < 0.7:
            even, odd = self.fresh("_even_rules"), self.fresh("_odd_rules")
            self.helpers.append((even, 1))
            return [f"def {even}(n):", f"{self.unit}return \"\" if n <= 0 else \"Always check.\\n\" + {odd}(n - 1)", "",
                    f"def {odd}(n):", f"{self.unit}return \"\" if n <= 0 else f\"Never {{n}}.\\n\" + {even}(n - 1)", ""]
        if r < 0.75:
            name = self.fresh("_note")
            self.helpers.append((name, 1))
            return [f"def {name}(x):", f"{self.unit}logging.info({self.fstring()})", ""]
        name = self.fresh(_pick(rng, "_tools_section", "_clock", "_environment", "get_persona"))
        decorators = rng.sample(["@functools.cache", "@lru_cache(maxsize=None)", "@cache", "@functools.lru_cache()",
                                 "@traced"], rng.randrange(0, 2))
        lines = self.function(name, _pick(rng, "tools", "user, tools=()", "*args, **kwargs", "ctx: Context, /",
                                          "tools, *, sort=True", "x, /, style='short', *, sep='\\n'",
                                          "x='a', y='b'", "self=None, x=''"), decorators=tuple(decorators))
        self.helpers.append((name, 1))
        return [*lines, ""]

    def class_chunk(self) -> list[str]:
        rng = self.rng
        u = self.unit
        name = _pick(rng, "Agent", "Planner", "PromptBuilder", "Persona", "Assistant")
        lines = [*rng.sample(["@dataclass", "@register('agent')"], rng.randrange(0, 2)),
                 f"class {name}{_pick(rng, '', '(Base)', '(BaseModel)', '(Generic[T])')}:"]
        if rng.random() < 0.3:
            lines.append(u + self.literal("An agent and its prompt.", '"'))
        for _ in range(rng.randrange(1, 4)):
            attr = _pick(rng, "SYSTEM_PROMPT", "persona", "instructions", "preamble", "name", "tools")
            lines.append(f"{u}{attr}{_pick(rng, '', ': str', ': ClassVar[str]')} = {self.expr(1)}")
        lines += [f"{u}def __init__(self, user, tools=None):", f"{u * 2}self.user = user",
                  f"{u * 2}self.tools = tools or []",
                  f"{u * 2}self.{_pick(rng, 'instructions', 'prompt', 'notes')} = {self.expr(1)}"]
        for _ in range(rng.randrange(1, 3)):
            decorator = _pick(rng, "", "", "@property", "@classmethod", "@staticmethod", "@functools.cache")
            method = _pick(rng, "system_prompt", "build_instructions", "render", "_tools_section", "preamble",
                           "__str__")
            first = {"@classmethod": "cls", "@staticmethod": ""}.get(decorator, _pick(rng, "self", "self", "self=None"))
            params = (first + _pick(rng, "", "", ", user=None", ", style='short'", ", *args, **kwargs")).lstrip(", ")
            returns = _pick(rng, "self.SYSTEM_PROMPT + prompt", "prompt", self.expr(1))
            lines += self.function(method, params, indent=u, returns=returns,
                                   decorators=(decorator,) if decorator else ())
        return [*lines, ""]

    def module(self) -> str:
        rng = self.rng
        head: list[str] = []
        if rng.random() < 0.2:
            head.append(self.literal("The agent's prompts.", '"'))
        if rng.random() < 0.3:
            head.append("from __future__ import annotations")
        head += rng.sample(_PY_IMPORTS, rng.randrange(0, 6))
        if rng.random() < 0.3:
            head.append(f"FMT = {self.literal(_pick(rng, '%Y-%m-%d %H:%M', '%H:%M:%S', '%A', 'plain'), chr(34))}")
        chunks: list[list[str]] = []
        for _ in range(rng.randrange(0, 3)):
            chunks.append(self.helpers_chunk())
        for _ in range(rng.randrange(0, 4)):
            name = rng.choice(_TARGETS + ["MAX_TOOLS", "SEP", "HEADER", "BASE", "_HEADER", "TEXT", "GUIDE"])
            chunks.append([f"{name}{_pick(rng, '', '', ': str', ': Final')} = {self.expr()}"])
        if rng.random() < 0.3:
            chunks.append(self.class_chunk())
        if rng.random() < 0.15:
            chunks.append([f"PROMPTS{_pick(rng, '', ': dict[str, str]')} = {{",
                           f"{self.unit}'system': {self.expr(1)},", f"{self.unit}\"planner\": {self.expr(1)},",
                           f"{self.unit}**EXTRA_PROMPTS,", "}"])
        if rng.random() < 0.1:
            chunks.append(["class Persona(str, Enum):", f"{self.unit}ATLAS = {self.expr(2)}",
                           f"{self.unit}HERALD = {self.expr(2)}", ""])
        for _ in range(rng.randrange(1, 3)):
            builder = _pick(rng, "build_system_prompt", "system_prompt", "get_instructions", "make_preamble",
                            "persona_text", "render", "compose", "make_messages", "agent_instructions")
            decorators = rng.sample(["@functools.cache", "@lru_cache(maxsize=128)", "@cache", "@tool"],
                                    rng.randrange(0, 2) if rng.random() < 0.3 else 0)
            params = _pick(rng, "user, tools", "user: User, tools: list[Tool] | None = None", "ctx", "",
                           "*args, **kwargs", "self_, mode='plan'")
            chunks.append([*self.function(builder, params, decorators=tuple(decorators)), ""])
        for _ in range(rng.randrange(0, 3)):
            call = _pick(rng, "build_system_prompt(user, tools)", "SYSTEM_PROMPT", "get_instructions(ctx)", "prompt",
                         self.expr(1))
            self.in_async = rng.random() < 0.3
            chunks.append([(f"{'async def' if self.in_async else 'def'} {_pick(rng, 'run', 'ask', 'main', 'handle')}"
                           f"(client, q, user=None, tools=()):"), self.unit + self.sink(call), ""])
            self.in_async = False
        rng.shuffle(chunks)
        lines = head + [line for chunk in chunks for line in chunk]
        if rng.random() < 0.2:
            lines += ['if __name__ == "__main__":', f"{self.unit}print(build_system_prompt(None, []))"]
        source = "\n".join(lines) + _pick(rng, "\n", "\n", "", "\n\n")
        return _line_ends(rng, source)


def _line_ends(rng: random.Random, source: str) -> str:
    """LF, or CRLF, or (rarely) a lone CR or two."""
    r = rng.random()
    if r < 0.12:
        return source.replace("\n", "\r\n")
    if r < 0.16 and "\n" in source:
        at = [m.start() for m in re.finditer("\n", source)]
        for i in sorted(rng.sample(at, min(len(at), rng.randrange(1, 3))), reverse=True):
            source = source[:i] + "\r" + source[i + 1 :]
    return source


# ---------------------------------------------------------------------------------------
# TypeScript and JavaScript

_TS_VALUES = [
    "new Date().toISOString()", "Date.now()", "new Date().toLocaleDateString(\"en-US\", { weekday: \"long\" })",
    "user.name", "user?.profile?.name ?? \"anon\"", "process.env.USER_NAME", "process.env[\"HOME\"]",
    "crypto.randomUUID()", "tools.length", "JSON.stringify(config, null, 2)", "Math.random()", "performance.now()",
    "fs.readFileSync(\"MEMORY.md\", \"utf8\")", "execSync(\"git status\").toString().trim()", "ctx.session.id",
    "this.persona", "this.tools.length", "import.meta.env.VITE_MODE", ("new Intl.DateTimeFormat(\"en\", "
    "{ dateStyle: \"full\" }).format(new Date())"), "dayjs().format(\"YYYY-MM-DD HH:mm\")", "user.name.toUpperCase()",
    "tools[0]?.name", "os.platform()", "(await loadMemory())", "count + 1", "!ok", "t.name", "k", "v", "i",
    "SYSTEM_PROMPT", "persona", "`nested ${user.id}`", "[1, 2].length", "typeof x", "x!", "(ctx as Context).name",
    "<string>raw", "this.toolsSection()", "this.render(user)", "new Date().toISOString().slice(0, N)",
    "new Date().toISOString().substring(0, N)", "new Date().toISOString().split(\"T\")[0]", "fn?.()",
    "tools.at(-1)?.name", "new Date().toLocaleTimeString([], { hour: \"2-digit\", minute: \"2-digit\" })",
    "format(new Date(), \"yyyy-MM-dd\")", "a?.[0]", "new Date(Date.now()).toUTCString()",
    "spawnSync(\"git\", [\"log\", \"-1\"]).stdout", "\"}\".repeat(2)", "'${x}'", "({ a: 1 }).a",
    "/* now */ new Date()", "user.name /* who */", "PROMPTS.system", "PROMPTS[\"planner\"]",
]
_TS_JOINED = 'lines.join("\\n")'
_TS_ITERABLES = [("t", "tools"), ("t", "[...tools].sort()"), ("k", "Object.keys(registry).sort()"),
                 ("[name, tool]", "Object.entries(registry)"), ("t", "Array.from(new Set(tools))"),
                 ("t", "this.tools"), ("rule", "rules.toSorted()"), ("line", "text.split(\"\\n\")"),
                 ("t", "tools.filter((x) => x.enabled)")]


def _ts_escape(rng: random.Random, text: str, q: str) -> str:
    """``text`` as the body of a string literal (``"``, ``'``) or template literal (`` ` ``)."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == q:
            out.append("\\" + q)
        elif ch == "\n":
            out.append("\n" if q == "`" else _pick(rng, "\\n", "\\n", "\\n\\\n"))
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append(_pick(rng, "\t", "\\t"))
        elif ch == "$" and q == "`":
            out.append("\\$")
        elif not ch.isascii() and rng.random() < 0.3:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\u{{{ord(ch):x}}}")
        elif ch.isalpha() and rng.random() < 0.01:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(ch)
    return "".join(out)


class _Script:
    """One TypeScript, TSX or JavaScript module being generated."""

    def __init__(self, rng: random.Random, typed: bool, tsx: bool) -> None:
        self.rng = rng
        self.typed = typed
        self.tsx = tsx
        self.unit = _pick(rng, "  ", "  ", "    ", "\t")
        self.helpers: list[tuple[str, int]] = []
        self.counter = 0
        self.in_async = False

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def t(self, annotation: str) -> str:
        """A type annotation, in TypeScript only."""
        return annotation if self.typed else ""

    # ----------------------------------------------------------------- strings

    def literal(self, text: str) -> str:
        q = _pick(self.rng, '"', "'", "`")
        return f"{q}{_ts_escape(self.rng, text, q)}{q}"

    def template(self, depth: int = 0) -> str:
        rng = self.rng
        body = []
        for _ in range(rng.randrange(1, 5)):
            if rng.random() < 0.45:
                body.append(_ts_escape(rng, _prose(rng, 2), "`"))
            else:
                body.append("${" + self.value(depth) + "}")
        return "`" + "".join(body) + "`"

    def value(self, depth: int) -> str:
        """A value interpolated into a template literal."""
        rng = self.rng
        r = rng.random()
        if depth < 2 and r < 0.1:
            return self.template(depth + 1)
        if depth < 2 and r < 0.16:
            return f"{rng.choice(_NAMES)} ? {self.template(depth + 1)} : {_pick(rng, self.template(depth + 1), '``')}"
        if self.helpers and r < 0.3:
            return self.call()
        if depth < 2 and r < 0.38:
            var, iterable = rng.choice(_TS_ITERABLES)
            return f"{iterable}.map(({var}) => {self.template(depth + 1)}).join(\"\\n\")"
        values = [v for v in _TS_VALUES if (self.typed or not any(s in v for s in (" as ", "<string>", "x!")))
                  and (self.in_async or "await" not in v)]
        if self.tsx:
            values = [v for v in values if "<string>" not in v]
        return rng.choice(values).replace(", N)", ", " + rng.choice(_NUMBERS).replace("True", "true") + ")")

    def call(self) -> str:
        """A call of a helper the module has defined (a generator's items joined)."""
        name, arity = self.rng.choice(self.helpers)
        if arity < 0:
            return f"[...{name}()].join(\"\\n\")"
        return f"{name}({', '.join(self.rng.choice(_NAMES) for _ in range(arity))})"

    def expr(self, depth: int = 0) -> str:
        """A string-valued expression, as a builder writes one."""
        rng = self.rng
        r = rng.random() if depth < 3 else rng.random() * 0.3
        if r < 0.12:
            return self.literal(_prose(rng))
        if r < 0.3:
            return self.template()
        if r < 0.34:
            return self.name()
        if r < 0.42:
            tag = _pick(rng, "dedent", "String.raw", "stripIndent", "outdent", "html", "sql", "$", "common.oneLine")
            return tag + self.template()
        if r < 0.5:
            count = rng.randrange(2, 5) if rng.random() < 0.8 else rng.randrange(10, 40)
            pieces = [self.expr(depth + 2) if count < 5 else _pick(rng, self.literal(_prose(rng, 1)), self.name(),
                                                                  f"String({rng.choice(_NAMES)})", '"\\n"')
                      for _ in range(count)]
            return _pick(rng, " + ", " +\n  ").join(pieces)
        if r < 0.6:
            sep = _pick(rng, '"\\n"', "'\\n\\n'", '", "', "``", "SEP", "")
            return f"{self.items(depth)}.join({sep})"
        if r < 0.66:
            return f"{self.value(0)} ? {self.expr(depth + 1)} : {self.expr(depth + 1)}"
        if r < 0.72 and self.helpers:
            return f"{_pick(rng, '', '', 'await ') if self.in_async else ''}{self.call()}"
        if r < 0.8:
            base = self.expr(depth + 1)
            options = [f"({base}).trim()", f"String({base})", f"({base}).toUpperCase()", f"({base}).trimEnd()",
                       f"({base}).replace(/\\{{(\\w+)\\}}/g, (_, k) => vars[k])",
                       f"({base}).replace(\"{{now}}\", now)", f"process.env.SYSTEM_PROMPT ?? {base}"]
            if self.typed:
                options += [f"({base} as string)", f"({base} satisfies string)", f"({base})!"]
            return rng.choice(options)
        if r < 0.86:
            return f"(({_pick(rng, 'u', 'u, t', '{ name }')}) => {self.template()})({rng.choice(_NAMES)})"
        if r < 0.92:
            return _pick(rng, 'fs.readFileSync("prompts/system.md", "utf8")', "process.env.PERSONA",
                         'await readFile("SOUL.md", "utf-8")' if self.in_async else "readFileSync(SOUL)",
                         "JSON.stringify(config)", "crypto.randomUUID()")
        if r < 0.96:
            return _pick(rng, self.literal(_instructions(rng)), f"dedent(`{_ts_escape(rng, _instructions(rng), '`')}`)")
        return self.literal(_prose(rng, 6))

    def items(self, depth: int) -> str:
        """What a ``join`` joins: an array, a ``map`` over a collection, a name."""
        rng = self.rng
        r = rng.random()
        var, iterable = rng.choice(_TS_ITERABLES)
        if r < 0.4:
            elements = [self.expr(depth + 2) for _ in range(rng.randrange(0, 4))]
            if rng.random() < 0.2:
                elements.insert(0, f"...{_pick(rng, 'HEADER', 'lines', 'sections')}")
            return f"[{', '.join(elements)}]" + _pick(rng, "", "", ".filter(Boolean)", f".concat([{self.expr(2)}])",
                                                       ".slice(1)", ".reverse()")
        if r < 0.75:
            arrow = f"({var}{self.t(': any') if not var.startswith('[') else ''}) => {self.template()}"
            if rng.random() < 0.2:
                arrow = f"function ({var}) {{ return {self.template()}; }}"
            return f"{iterable}.map({arrow})"
        return _pick(rng, "lines", "sections", "parts", "this.lines", "[...lines, ...extra]")

    def name(self) -> str:
        return _pick(self.rng, "SYSTEM_PROMPT", "persona", "prompt", "BASE", "header", "this.systemPrompt",
                     "this.instructions", "Agent.SYSTEM_PROMPT", "INSTRUCTIONS", "systemPrompt")

    # ----------------------------------------------------------------- statements

    def body(self, indent: str, depth: int, loop: bool = False) -> list[str]:
        return [line for _ in range(self.rng.randrange(1, 6 if depth < 2 else 3))
                for line in self.statement(indent, depth, loop)]

    def statement(self, indent: str, depth: int, loop: bool) -> list[str]:
        rng = self.rng
        inner = indent + self.unit
        r = rng.random() if depth < 3 else rng.random() * 0.4
        target = rng.choice(_TARGETS)
        if r < 0.14:
            declared = f"{_pick(rng, 'const', 'let', 'var')} {target}{self.t(_pick(rng, '', ': string'))}"
            return [f"{indent}{declared} = {self.expr()};"]
        if r < 0.2:
            return [f"{indent}{target} += {self.expr()};"]
        if r < 0.25:
            return [(f"{indent}const {_pick(rng, 'lines', 'sections', 'parts')}{self.t(': string[]')} = "
                    f"{_pick(rng, '[]', '[]', f'[{self.expr(2)}]')};")]
        if r < 0.36:
            name = _pick(rng, "lines", "sections", "parts", "this.lines")
            return [indent + _pick(rng, f"{name}.push({self.expr(1)});", f"{name}.push({self.expr(2)}, {self.expr(2)});",
                                   f"{name}.unshift({self.expr(2)});", f"{name}.push(...{self.items(2)});",
                                   f"{name}.sort();")]
        if r < 0.46:
            var, iterable = rng.choice(_TS_ITERABLES)
            kind = _pick(rng, "of", "of", "in")
            if kind == "in":
                var, iterable = "key", _pick(rng, "registry", "config", "this.tools")
            if rng.random() < 0.2:
                return [f"{indent}{iterable}.forEach(({var}) => {{", *self.body(inner, depth + 1), f"{indent}}});"]
            if rng.random() < 0.1:
                return [f"{indent}for (let i = 0; i < tools.length; i++) {{", *self.body(inner, depth + 1, True),
                        f"{indent}}}"]
            return [f"{indent}for ({_pick(rng, 'const', 'let')} {var} {kind} {iterable}) {{",
                    *self.body(inner, depth + 1, True), f"{indent}}}"]
        if r < 0.54:
            lines = [f"{indent}if ({self.value(1)}) {{", *self.body(inner, depth + 1, loop)]
            for _ in range(rng.randrange(3)):
                lines += [f"{indent}}} else if ({self.value(1)}) {{", *self.body(inner, depth + 1, loop)]
            if rng.random() < 0.5:
                lines += [f"{indent}}} else {{", *self.body(inner, depth + 1, loop)]
            return [*lines, f"{indent}}}"]
        if r < 0.58:
            lines = [f"{indent}switch ({_pick(rng, 'mode', 'ctx.kind', 'user.role')}) {{"]
            labels = ['case "plan":', 'case "act":', "case Mode.Fast:", "default:"]
            for label in rng.sample(labels, rng.randrange(1, 4)):
                lines += [inner + label, *self.body(inner + self.unit, depth + 2, loop), inner + self.unit + "break;"]
            return [*lines, f"{indent}}}"]
        if r < 0.62:
            lines = [f"{indent}try {{", *self.body(inner, depth + 1, loop),
                     f"{indent}}} catch {_pick(rng, '(err)', '', '(e: unknown)' if self.typed else '(e)')} {{",
                     *self.body(inner, depth + 1, loop)]
            if rng.random() < 0.3:
                lines += [f"{indent}}} finally {{", *self.body(inner, depth + 1, loop)]
            return [*lines, f"{indent}}}"]
        if r < 0.65:
            return [f"{indent}while ({_pick(rng, 'n > 0', 'queue.length', 'true')}) {{",
                    *self.body(inner, depth + 1, True),
                    f"{inner}{_pick(rng, 'n--;', 'break;', 'queue.pop();')}", f"{indent}}}"]
        if r < 0.68:
            pattern = _pick(rng, "name, role", "persona = 'x'", "tools: list")
            return [(f"{indent}const {{ {pattern} }} = "
                    f"{_pick(rng, 'user', 'ctx', 'config')};")]
        if r < 0.72:
            return [(f"{indent}const {_pick(rng, 'fmt', 'line', 'render')} = ({_pick(rng, 't', 't, i')}"
                    f"{self.t(': any')}){self.t(': string')} => {self.template()};")]
        if r < 0.77:
            return [indent + self.sink(self.expr(1))]
        if r < 0.81:
            return [f"{indent}{_pick(rng, 'console.log', 'console.debug', 'logger.info', 'debug')}({self.expr(2)});"]
        if r < 0.83 and loop:
            return [indent + _pick(rng, "continue;", "break;")]
        if r < 0.9:
            return [f"{indent}return {self.expr()};"]
        if r < 0.92:
            comment = (_prose(rng, 1).splitlines() or ["note"])[0]
            return [f"{indent}// {comment}", f"{indent}/* {_pick(rng, 'a comment', 'prompt: ${x}', '`tick`')} */"]
        if r < 0.94:
            return [f"{indent}{{", *self.body(inner, depth + 1, loop), f"{indent}}}"]
        return self.rare_statement(indent, depth, loop)

    def rare_statement(self, indent: str, depth: int, loop: bool) -> list[str]:
        """Statements a builder holds now and then: other targets and operators, array
        surgery, ``do``/``while``, labels, destructuring, generators, throws."""
        rng = self.rng
        inner = indent + self.unit
        r = rng.randrange(12)
        if r == 0:
            target = _pick(rng, "globalThis.SYSTEM_PROMPT", "module.exports.prompt", "this.systemPrompt",
                           "prompts[\"system\"]", "prompts[mode]", "messages[0].content", "agent.instructions")
            return [f"{indent}{target} {_pick(rng, '=', '+=', '??=', '||=')} {self.expr(1)};"]
        if r == 1:
            return [f"{indent}prompt {_pick(rng, '??=', '||=', '&&=', '-=')} {self.expr(1)};"]
        if r == 2:
            return [f"{indent}let {_pick(rng, 'prompt', 'systemPrompt', 'instructions')}{self.t(': string')};"]
        if r == 3:
            return [indent + _pick(rng, "lines.length = 0;", f"lines[0] = {self.expr(2)};", "lines.pop();",
                                   f"lines.splice(1, 0, {self.expr(2)});", "lines.reverse();",
                                   f"prompt = prompt.slice(0, {rng.choice(_NUMBERS)});")]
        if r == 4:
            return [f"{indent}do {{", *self.body(inner, depth + 1, True), f"{indent}}} while ({self.value(1)});"]
        if r == 5:
            return [f"{indent}outer: for (const t of tools) {{", *self.body(inner, depth + 1, True),
                    f"{inner}continue outer;", f"{indent}}}"]
        if r == 6:
            return [(f"{indent}const [{_pick(rng, 'first, ...rest', 'head, body', ', second')}] = "
                    f"{_pick(rng, 'sections', 'lines', '[' + self.expr(2) + ', ' + self.expr(2) + ']')};")]
        if r == 7:
            return [(f"{indent}Object.assign(config, {{ {_pick(rng, 'system', 'systemPrompt', 'instructions')}: "
                    f"{self.expr(1)} }});")]
        if r == 8:
            return [f"{indent}throw new Error({self.template()});"]
        if r == 9:
            return [f"{indent}if (!{_pick(rng, 'prompt', 'user', 'tools.length')}) return {self.expr(2)};"]
        if r == 10:
            name = _pick(rng, "promptFn", "build", "getPrompt")
            return [f"{indent}const {name} = function () {{ return {self.expr(1)}; }};"]
        return [f"{indent}{_pick(rng, 'yield', 'yield*', 'void')} {self.expr(1)};"]

    def sink(self, value: str) -> str:
        wait = "await " if self.in_async else ""
        return _pick(
            self.rng,
            f"{wait}openai.chat.completions.create({{ model: \"gpt-4o\", messages: [{{ role: \"system\", content: "
            f"{value} }}, {{ role: \"user\", content: q }}] }});",
            f"const response = {wait}anthropic.messages.create({{ model: \"claude-sonnet-4\", max_tokens: 1024, "
            f"system: {value}, messages }});",
            f"const agent = new Agent({{ name: \"helper\", systemPrompt: {value} }});",
            f"const messages = [new SystemMessage({value}), new HumanMessage(q)];",
            f"const first = new SystemMessage({{ content: {value} }});",
            f"{wait}model.generateContent({{ systemInstruction: {{ parts: [{{ text: {value} }}] }}, contents }});",
            f"messages.push({{ role: \"developer\", content: [{{ type: \"text\", text: {value} }}] }});",
            f"const chain = ChatPromptTemplate.fromMessages([[\"system\", {value}], [\"human\", \"{{question}}\"]]);",
            f"return {{ instructions: {value}, input: q }};",
            f"console.log({value});",
            f"{wait}streamText({{ model, system: {value}, prompt: q }});",
            f"setSystemPrompt({value});",
        )

    # ----------------------------------------------------------------- definitions

    def function(self, name: str, indent: str = "", method: bool = False) -> list[str]:
        rng = self.rng
        inner = indent + self.unit
        asynchronous = "async " if rng.random() < 0.2 else ""
        params = _pick(rng, "user, tools", "ctx", "", "{ user, tools }", "...args", "mode = \"plan\"")
        if self.typed:
            params = _pick(rng, "user: User, tools: Tool[]", "ctx: Context", "", "{ user, tools }: Options",
                           "...args: string[]", "mode: Mode = \"plan\"", "user?: User")
        generic = self.t(_pick(rng, "", "", "<T extends { name: string }>"))
        prefix = decorator = export = ""
        shape = "function"
        if method:
            if self.typed and rng.random() < 0.2:
                decorator = indent + _pick(rng, "@Memo()", "@Cached", "@Trace('prompt')") + "\n"
            prefix = _pick(rng, "", "", "get ", "static ", "private ", "public ") if self.typed else \
                _pick(rng, "", "get ", "static ")
            if prefix == "get ":
                params = asynchronous = ""
        else:
            export = _pick(rng, "", "export ", "export ")
            shape = _pick(rng, "function", "function", "arrow", "expression")
        returns = self.t(_pick(rng, "", ": string", ": Promise<string>" if asynchronous else ": string"))
        self.in_async = bool(asynchronous)
        if shape == "expression":
            lines = [f"{indent}{export}const {name} = {asynchronous}({params}){returns} => {self.expr()};"]
        else:
            body = [*self.body(inner, 1), f"{inner}return {_pick(rng, 'prompt', _TS_JOINED, self.expr())};"]
            if method:
                lines = [f"{decorator}{indent}{prefix}{asynchronous}{name}{generic}({params}){returns} {{", *body,
                         f"{indent}}}"]
            elif shape == "arrow":
                lines = [f"{indent}{export}const {name} = {asynchronous}({params}){returns} => {{", *body,
                         f"{indent}}};"]
            else:
                lines = [f"{indent}{export}{asynchronous}function {name}{generic}({params}){returns} {{", *body,
                         f"{indent}}}"]
        self.in_async = False
        return lines

    def helpers_chunk(self) -> list[str]:
        """Helpers the builders call: a chain one to four deep (arrows and functions), one
        that calls itself, two that call each other, a generator, a memoised one."""
        rng = self.rng
        u = self.unit
        r = rng.random()
        if r < 0.4:
            names = [self.fresh("part") for _ in range(rng.randrange(1, 5))]
            lines: list[str] = []
            for n, name in enumerate(names):
                after = f"{names[n + 1]}(x)" if n + 1 < len(names) else self.value(1)
                text = _ts_escape(rng, _prose(rng, 2), "`")
                if rng.random() < 0.5:
                    lines.append(f"const {name} = (x{self.t(': any')}) => `{text}${{{after}}}`;")
                else:
                    lines += [f"function {name}(x{self.t(': any')}){self.t(': string')} {{",
                              f"{u}return `{text}${{{after}}}`;", "}"]
            self.helpers.append((names[0], 1))
            return lines
        if r < 0.55:
            name = self.fresh("renderTree")
            self.helpers.append((name, 1))
            return [f"function {name}(node{self.t(': Node')}, depth = 0){self.t(': string')} {{",
                    f"{u}if (!node.children?.length) return `${{\"  \".repeat(depth)}}- ${{node.name}}`;",
                    f"{u}return node.name + node.children.map((c) => {name}(c, depth + 1)).join(\"\\n\");", "}"]
        if r < 0.7:
            even, odd = self.fresh("evenRules"), self.fresh("oddRules")
            self.helpers.append((even, 1))
            return [(f"const {even} = (n{self.t(': number')}){self.t(': string')} => n <= 0 ? \"\" : "
                    f"\"Always check.\\n\" + {odd}(n - 1);"),
                    (f"function {odd}(n{self.t(': number')}){self.t(': string')} {{ return n <= 0 ? \"\" : "
                    f"`Never ${{n}}.\\n` + {even}(n - 1); }}")]
        if r < 0.74:
            name = self.fresh("sections")
            self.helpers.append((name, -1))
            return [f"function* {name}(){self.t(': Generator<string>')} {{",
                    *[f"{u}yield {self.expr(2)};" for _ in range(rng.randrange(1, 4))], "}"]
        if r < 0.8:
            name = self.fresh(_pick(rng, "getSystemPrompt", "toolsSection", "clock"))
            self.helpers.append((name, 0))
            return [(f"{_pick(rng, 'export ', '')}const {name} = {_pick(rng, 'memoize', 'once', 'cache', 'useMemo')}"
                    f"(() => {self.expr()});")]
        name = self.fresh(_pick(rng, "toolsSection", "environment", "persona"))
        self.helpers.append((name, 1))
        return self.function(name)

    def types_chunk(self) -> list[str]:
        return self.rng.sample(["interface Tool { name: string; description?: string }",
                                "type Mode = \"plan\" | \"act\";",
                                "enum Level { Low = \"low\", High = \"high\" }",
                                "export type Options = { user: User; tools: Tool[] };",
                                "declare const process: { env: Record<string, string | undefined> };",
                                "const enum Flags { None = 0 }"], self.rng.randrange(1, 4))

    def class_chunk(self) -> list[str]:
        """A class with prompt fields, a constructor, methods and getters, decorators."""
        rng = self.rng
        u = self.unit
        lines = []
        if self.typed and rng.random() < 0.3:
            lines.append(f"@Injectable({_pick(rng, '', '{ scope: Scope.REQUEST }')})")
        generic = self.t(_pick(rng, "", "<T>"))
        lines.append(f"{_pick(rng, '', 'export ', 'export default ')}class Agent{generic}"
                     f"{_pick(rng, '', ' extends Base')} {{")
        for _ in range(rng.randrange(1, 4)):
            field = _pick(rng, "systemPrompt", "persona", "instructions", "SYSTEM_PROMPT", "name", "#secret")
            modifier = rng.choice(("", "static ", "private readonly ", "public ") if self.typed else ("", "static "))
            lines.append(f"{u}{modifier}{field}{self.t(_pick(rng, '', ': string'))} = {self.expr(1)};")
        if rng.random() < 0.5:
            params = _pick(rng, "private tools: Tool[]", "user: User") if self.typed else "tools"
            lines += [f"{u}constructor({params}) {{",
                      f"{u * 2}{_pick(rng, 'super();', '')}",
                      f"{u * 2}this.{_pick(rng, 'instructions', 'prompt', 'notes')} = {self.expr(1)};", f"{u}}}"]
        for _ in range(rng.randrange(1, 3)):
            lines += self.function(_pick(rng, "buildSystemPrompt", "systemPrompt", "render", "toolsSection",
                                         "instructions", "toString"), indent=u, method=True)
        if rng.random() < 0.15:
            lines += [f"{u}static {{", f"{u * 2}Agent.SYSTEM_PROMPT = {self.expr(2)};", f"{u}}}"]
        return [*lines, "}"]

    def jsx_chunk(self) -> list[str]:
        """A component that hands its prompt to JSX (``.tsx`` only)."""
        u = self.unit
        return [f"export function PromptView({{ user }}{self.t(': { user: User }')}) {{",
                f"{u}const systemPrompt = {self.template()};",
                (f"{u}return <Chat system={{{_pick(self.rng, 'systemPrompt', self.template())}}} "
                f"title=\"{_pick(self.rng, 'Help', 'a {b}')}\">"
                f"{_pick(self.rng, '{user.name}', 'Hello, {user.name}!', '<b>{SYSTEM_PROMPT}</b>', '')}</Chat>;"),
                "}"]

    def module(self) -> str:
        rng = self.rng
        head = rng.sample(["import OpenAI from \"openai\";", "import Anthropic from \"@anthropic-ai/sdk\";",
                           "import { dedent } from \"ts-dedent\";", "import * as fs from \"node:fs\";",
                           "import { execSync } from \"node:child_process\";",
                           "const { readFile } = require(\"fs/promises\");", "\"use strict\";",
                           "import type { Tool } from \"./types\";" if self.typed else "// @ts-check"],
                          rng.randrange(0, 4))
        chunks: list[list[str]] = []
        if self.typed and rng.random() < 0.4:
            chunks.append(self.types_chunk())
        for _ in range(rng.randrange(0, 3)):
            chunks.append(self.helpers_chunk())
        for _ in range(rng.randrange(0, 4)):
            name = rng.choice(_TARGETS + ["SEP", "HEADER", "BASE"])
            declared = f"{_pick(rng, 'export const', 'const', 'let', 'var')} {name}{self.t(_pick(rng, '', ': string'))}"
            chunks.append([f"{declared} = {self.expr()}{_pick(rng, '', ' as const') if self.typed else ''};"])
        if rng.random() < 0.3:
            chunks.append(self.class_chunk())
        if self.tsx and rng.random() < 0.6:
            chunks.append(self.jsx_chunk())
        if rng.random() < 0.2:
            chunks.append(["export const PROMPTS = {", f"{self.unit}system: {self.expr(1)},",
                           f"{self.unit}planner: {self.expr(1)},", f"{self.unit}[`${{MODE}}Prompt`]: {self.expr(2)},",
                           f"{self.unit}build: () => ({{ systemPrompt: {self.expr(2)} }}),",
                           f"}}{_pick(rng, '', ' as const') if self.typed else ''};"])
        if self.typed and rng.random() < 0.1:
            chunks.append(["namespace Prompts {", f"{self.unit}export const SYSTEM = {self.expr(1)};", "}"])
        if self.typed and rng.random() < 0.1:
            chunks.append(["export function compose(x: string): string;", "export function compose(x: number): string;",
                           "export function compose(x: any): string {", f"{self.unit}return {self.expr(1)};", "}"])
        if rng.random() < 0.05:
            chunks.append(["export default function () {", f"{self.unit}return {self.expr(1)};", "}"])
        for _ in range(rng.randrange(1, 3)):
            chunks.append(self.function(_pick(rng, "buildSystemPrompt", "systemPrompt", "getInstructions",
                                              "makePreamble", "personaText", "render", "compose")))
        for _ in range(rng.randrange(0, 3)):
            call = _pick(rng, "buildSystemPrompt(user, tools)", "SYSTEM_PROMPT", "await getInstructions(ctx)",
                         "prompt", self.expr(1))
            self.in_async = True
            chunks.append([f"export async function {_pick(rng, 'ask', 'run', 'handler')}(q{self.t(': string')}) {{",
                           self.unit + self.sink(call), "}"])
            self.in_async = False
        rng.shuffle(chunks)
        lines = head + [line for chunk in chunks for line in chunk]
        if rng.random() < 0.1:
            lines.append(f"export default {_pick(rng, 'buildSystemPrompt', '{ SYSTEM_PROMPT }', 'Agent')};")
        source = "\n".join(lines) + _pick(rng, "\n", "\n", "")
        return _line_ends(rng, source)


# ---------------------------------------------------------------------------------------

# Interpolations, brackets and triple quotes: where a broken file meets the parser.
_TAGS = re.compile(r"\$\{[^{}\n]*\}|\{[^{}\n]*\}|\(|\)|\"\"\"|'''|`")
_STRAYS = (")", "}", '"""', "`", "${", "{", "\\", "(", "'", '"', "]", ":", "\n", "\n    ", 'f"', "\x00", "\r",
           "*/", "/*", "<", "#", "\t", "=", "\x0c")


def code(rng: random.Random) -> tuple[str, str, str]:
    """(syntax, file name, source): Python half of the time, else TypeScript, TSX or JavaScript."""
    if rng.random() < 0.5:
        syntax, name, source = "python", "p.py", _Python(rng).module()
    else:
        name = _pick(rng, "p.ts", "p.tsx", "p.js")
        syntax = "javascript" if name == "p.js" else "typescript"
        source = _Script(rng, typed=syntax == "typescript", tsx=name == "p.tsx").module()
    return syntax, name, broken(rng, source, _TAGS, lambda r: r.choice(_STRAYS))


# The message the code loaders give for an exception of their own (loaders.code.load_code).
_CRASHED = "could not read the prompts it builds"


def _parses(source: str) -> bool:
    """Whether Python's own parser reads it (its warnings are the file's business)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    return True


def _crash(syntax: str, name: str, source: str) -> str:
    """The traceback of the reader's own exception, which the loader turned into a message."""
    from promptlint.loaders.code import python, typescript

    load: Callable[..., Template] = python.load if syntax == "python" else typescript.loader(syntax)
    try:
        load(name, source)
    except Exception:  # noqa: BLE001 - the exception is the finding
        return traceback.format_exc(limit=-6)
    return "(it did not raise again)"


def _outside(template: Template) -> Iterator[str]:
    """Spans of the file's and its prompts' segments that leave the source."""
    from promptlint.core.ir import Block, walk

    size = len(template.source)
    for part in [template, *template.prompts]:
        for segment in walk(part.segments):
            spans = [segment.open, segment.close] if isinstance(segment, Block) else [segment.span]
            for span in spans:
                if span is not None and not 0 <= span.start <= span.end <= size:
                    yield (f"a {type(segment).__name__} of {part.name or 'the file'} at {span.start}..{span.end}, "
                           f"outside the source (0..{size})")
                    return


def _unstacked(template: Template) -> str | None:
    """Where the file's segments are not its prompts' segments, in order, with only text
    between prompts (see promptlint.loaders.code); None where they are."""
    from promptlint.core.ir import Text

    if not template.prompts:
        return "segments, but no prompt" if template.segments else None
    owned = {id(s) for p in template.prompts for s in p.segments}
    kept = [id(s) for s in template.segments if id(s) in owned]
    if kept != [id(s) for p in template.prompts for s in p.segments]:
        return "the file's segments are not its prompts' segments in order"
    if any(id(s) not in owned and not isinstance(s, Text) for s in template.segments):
        return "a segment between prompts that is not text"
    return None


def _problems(syntax: str, name: str, source: str) -> Iterator[str]:
    """What the file breaks of the properties in the module's docstring."""
    from promptlint.api import check_text
    from promptlint.fix.plan import plan_fix
    from promptlint.loaders import load_text
    from promptlint.loaders.base import LoadError

    parses = _parses(source) if syntax == "python" else None
    refused: str | None = None
    try:
        loaded = load_text(name, source, syntax)
    except LoadError as exc:
        refused = exc.message
    if refused is not None:
        if "\n" in refused or "\r" in refused:
            yield f"the error message spans lines: {refused!r}"
        if refused.startswith(_CRASHED):
            yield f"the reader crashed: {refused}\n{_crash(syntax, name, source)}"
        elif parses and not refused.startswith("blocks nested"):
            yield f"ast parses it, the loader says: {refused}"
        return
    if parses is False:
        yield "ast does not parse it, the loader read it"
        return
    yield from _outside(loaded)
    gap = _unstacked(loaded)
    if gap is not None:
        yield gap
    result = check_text(source, name, syntax=syntax)
    if result.error and ("\n" in result.error or "\r" in result.error):
        yield f"the check's error spans lines: {result.error!r}"
    for unsafe in (False, True):
        plan = plan_fix(loaded, None, unsafe)
        if plan.new_source != source:
            yield f"planning the {'unsafe ' if unsafe else ''}fix rewrote the code"


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` files (or for ``seconds``); (files tried, files that failed)."""
    return campaign(seed, count, seconds, out, code, lambda case: _problems(*case),
                    lambda case: f"{case[0]} {case[1]}: {case[2]!r}")


def main() -> int:
    return command_line(__doc__ or "", run, "files")


if __name__ == "__main__":
    raise SystemExit(main())
