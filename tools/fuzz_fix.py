"""A long fuzz of ``promptlint fix`` on files whose syntax is chosen as a user's is: by the
file's name and content.

    .venv/bin/python tools/fuzz_fix.py                      # 60 s, seed 1
    .venv/bin/python tools/fuzz_fix.py --seconds 600 --seed 7

tests/test_fix_properties.py generates templates in a syntax it names; this writes random
template-like text (fragments of every syntax, Markdown fences and tables, clocks, names,
ids, tool loops, control characters) to a file with a random extension, a BOM or not, CRLF
or LF, a trailing lone CR or not, and runs what a user would: ``check`` with fixes planned
(JSON's ``fixable``), ``fix --diff``, then ``fix`` (safe or ``--unsafe-fixes``). Each input
must hold:

- nothing raises (an unreadable file is an error result, never an exception);
- ``--diff`` and a fix that changes nothing leave the file's bytes as they were;
- a written fix keeps the BOM, the line endings and (safe fixes) every word, and the next
  run reads the file in the same syntax;
- fixing the result again changes nothing.

Each failure prints the check, the extension and the input (``repr``); the exit code is 1
when one failed. :func:`run` is what tests/test_fix_fuzz.py calls for a short seeded run.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from fuzzing import campaign, command_line

ROOT = Path(__file__).resolve().parent.parent

_FRAGMENTS = [
    "{{", "}}", "{{{", "}}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "${", "{", "}", "#each ", "/each", "#if ",
    "/if", "^", ">", "&", "=", "|", ":", ".", ",", "'", '"', "\\", "\n", "\r", "\r\n", "\t", " ", "if ", "endif",
    "for x in y", "endfor", "raw", "endraw", "now()", "user.name", "date", "session_id", "x", "name", "99999",
    "\x00", "\x1b", "é", "\u2028", "\U0001f600", "`", "```", "~~~", "{{.", "{{- ", " -}}", ".Time", "range ",
    "end", "{CURRENT_TIME}", "{search_results}", "{n_id}",
]
_LINES = [
    "You are a helpful assistant.\n", "Current time: {{ now() }}\n", "{% for t in tools %}- {{ t.name }}\n{% endfor %}\n",
    "User: {{ user.name }}\n", "## Rules\n", "- keep diffs small\n", "{{#each tools}}{{name}}{{/each}}\n",
    "Today is {date}.\n", "Session ${session_id}\n", "```\ncode {{x}}\n```\n", "| a | {{b}} |\n", "{% if x %}\n",
    "{% endif %}\n", "{{range .Tools}}- {{.Name}}\n{{end}}\n", "{{.Time}}\n", "```python\n", "```}\n",
    "Reply as JSON: {\"answer\": 1}\n", "being careful, answer each question.\n", "\n",
]
_STABLE = "Always cite the file and line you changed, and explain each step.\n"
_EXTENSIONS = (".j2", ".mustache", ".hbs", ".fmt", ".tmpl", ".md", ".txt", ".prompt", ".gotmpl")


def _text(rng: random.Random) -> str:
    pieces = []
    for _ in range(rng.randrange(1, 60)):
        roll = rng.random()
        if roll < 0.45:
            pieces.append(rng.choice(_FRAGMENTS))
        elif roll < 0.85:
            pieces.append(rng.choice(_LINES))
        else:
            pieces.append("".join(chr(rng.randrange(32, 127)) for _ in range(rng.randrange(1, 5))))
    return "".join(pieces) + "\n" + _STABLE * rng.randrange(0, 30)


def _bytes(rng: random.Random, text: str) -> bytes:
    data = text.encode("utf-8", "surrogatepass")
    if rng.random() < 0.4:
        data = data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")
    if rng.random() < 0.3:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.2:
        data += b"\r"
    return data


def _newlines(data: bytes) -> str:
    """The file's line ending as the fix keeps it: CRLF when every line break is one."""
    return "crlf" if b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"") else "lf"


def _problems(path: Path, rng: random.Random) -> Iterator[str]:
    from promptlint.api import check_paths
    from promptlint.fix import fix_file
    from promptlint.loaders.base import infer_syntax

    unsafe = rng.random() < 0.5
    before = path.read_bytes()
    check_paths([str(path)], plan_fixes=True)
    fix_file(str(path), write=False, unsafe=unsafe)
    if path.read_bytes() != before:
        yield "fix --diff changed the file"
        return
    result = fix_file(str(path), unsafe=unsafe)
    after = path.read_bytes()
    if not result.changed:
        if after != before:
            yield "a fix that changed nothing wrote the file"
        return
    if before.startswith(b"\xef\xbb\xbf") != after.startswith(b"\xef\xbb\xbf"):
        yield "the fix dropped or added a BOM"
    if _newlines(before) != _newlines(after):
        yield f"the fix changed the line endings ({_newlines(before)} -> {_newlines(after)})"
    old, new = before.decode("utf-8-sig", "replace"), after.decode("utf-8-sig", "replace")
    if not unsafe and Counter(old.split()) != Counter(new.split()):
        yield "a safe fix lost or added a word"
    if infer_syntax(str(path), old).syntax != infer_syntax(str(path), new).syntax:
        yield "the next run reads the fixed file in another syntax"
    if fix_file(str(path), write=False, unsafe=unsafe).changed:
        yield "not idempotent: fixing the result changes it again"


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` inputs (or for ``seconds``); (inputs tried, inputs that failed)."""
    with tempfile.TemporaryDirectory(prefix="promptlint-fuzz-") as folder:

        def draw(rng: random.Random) -> tuple[Path, bytes, random.Random]:
            text = _text(rng)
            path = Path(folder) / f"p{rng.choice(_EXTENSIONS)}"
            path.write_bytes(_bytes(rng, text))
            return path, path.read_bytes(), rng  # the checks draw from the same stream

        return campaign(seed, count, seconds, out, draw, lambda case: _problems(case[0], case[2]),
                        lambda case: f"{case[0].suffix} input: {case[1]!r}")


def main() -> int:
    os.environ.setdefault("PROMPTLINT_CACHE_DIR", tempfile.mkdtemp(prefix="promptlint-fuzz-cache-"))
    return command_line(__doc__ or "", run, "inputs")


if __name__ == "__main__":
    raise SystemExit(main())
