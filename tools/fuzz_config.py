"""A fuzz of promptlint's configuration: every key it reads, set to every kind of TOML value,
through the commands that read it.

    .venv/bin/python tools/fuzz_config.py                       # 60 s, seed 1
    .venv/bin/python tools/fuzz_config.py --seconds 600 --seed 7

Each input is one config file (``promptlint.toml``, or ``pyproject.toml`` with the same keys
under ``[tool.promptlint]``) that sets one key path to one value, beside a small Jinja prompt
with a clock in it. The key paths are the config's own (every top-level key, ``assembly``'s,
``code``'s, a glob of ``syntax`` and ``role``, a name of ``volatile`` and its ``kind`` and
``frequency``, every price key flat and per model, every fact of a ``providers`` row and of a
model rule, and a rule's selectors); the values are each kind TOML has (integers at their
edges, floats with nan and inf, booleans, strings, lists, tables, dates and times). Where the
key is a provider's, the file also names that provider half the time, so that the check's
cost line runs its cache model. The command is ``check`` (text, JSON or SARIF), ``check``
of the folder, ``fix`` or ``probe --dry-run``, run in process. Each must hold:

- the exit code is 0, 1 or 2, and nothing says "internal error" or prints a traceback;
- a refusal (exit 2) says so in an error line that names a file (the config, the prompt or
  the folder checked);
- ``fix`` that exits 2 leaves the prompt as it was;
- no cost is printed as ``$nan`` or ``$inf``.

Each failure prints the property, the command and the config file (``repr``); the exit code is
1 when one failed. tests/test_config_fuzz.py runs a seeded part of it; :func:`run` runs it in
process.
"""

from __future__ import annotations

import random
import tempfile
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from fuzzing import campaign, command_line, run_cli

_VALUES = ["3", "-1", "0", "1", "0.5", "1.5", "1e308", "nan", "inf", "-inf", "9223372036854775807", "true", "false",
           '"x"', '""', '"2MB"', '"PC101"', '"system"', '"jinja"', '"per-request"', '"timestamp"', '"5m"', '"*"',
           '"../../etc"', '"/"', '"\\u0000"', "[]", "[1]", '["a"]', '["PC101"]', "[[1]]", "[{a=1}]", '[1, "a"]',
           "{}", "{a=1}", '{a="b"}', "{a=[1]}", "{a={b=1}}", '{"5m"=-1}', '{"5m"=0}', '{"5m"="x"}',
           "1979-05-27T07:32:00Z", "1979-05-27", "07:32:00"]
# A row of each cache model, and the provider that runs it.
_ROWS = {"openai": "openai", "anthropic": "anthropic", "vllm": "vllm", "gemini-implicit": "gemini"}
_PROMPT = "You are Atlas.\nCurrent time: {{ now }}\n" + "Answer in plain words and cite the policy.\n" * 40
_COMMANDS = [["check", "p.j2"], ["check", "--format", "json", "p.j2"], ["check", "--format", "sarif", "p.j2"],
             ["check", "--no-cache", "."], ["fix", "p.j2"], ["probe", "--provider", "openai", "--dry-run", "p.j2"]]


# A key path: (the table it is in, None for a top-level key; whether that table is a table
# of an array, ``[[…]]``; the key; the provider whose cache model reads it, if any).
KeyPath = tuple[str | None, bool, str, str | None]


def _key_paths() -> list[KeyPath]:
    from promptlint import config
    from promptlint.providers.pricing import PRICE_KEYS
    from promptlint.providers.table import _FIELD_NAMES

    paths: list[KeyPath] = [(None, False, key, None) for key in sorted(config._KEYS)]
    paths += [("assembly", False, key, None) for key in sorted(config._ASSEMBLY_KEYS)]
    paths += [("volatile", False, "now", None), ("volatile.now", False, "kind", None),
              ("volatile.now", False, "frequency", None), ("code", False, "prompt-names", None),
              ("syntax", False, '"*.j2"', None), ("role", False, '"*.j2"', None)]
    paths += [(table, False, key, "openai") for table in ("prices", 'prices."gpt-4.1-mini"') for key in sorted(PRICE_KEYS)]
    for row, provider in _ROWS.items():
        paths += [(f"providers.{row}", False, key, provider) for key in sorted(_FIELD_NAMES | {"models"})]
        paths += [(f"providers.{row}.models", True, key, provider) for key in sorted(_FIELD_NAMES | {"models", "prefixes"})]
    return paths


_PATHS: list[KeyPath] = []


def config_case(rng: random.Random) -> tuple[str, str, list[str]]:
    """(the config file's name, its text, the command line)."""
    if not _PATHS:
        _PATHS.extend(_key_paths())
    table, array, key, provider = rng.choice(_PATHS)
    name = rng.choice(["promptlint.toml", "pyproject.toml"])
    prefix = "tool.promptlint." if name == "pyproject.toml" else ""
    top = ["[tool.promptlint]"] if name == "pyproject.toml" else []
    if provider is not None and rng.random() < 0.5:
        top.append(f'provider = "{provider}"')
    setting = f"{key} = {rng.choice(_VALUES)}"
    if table is None:
        lines = [*top, setting]
    else:
        lines = [*top, f"[[{prefix}{table}]]" if array else f"[{prefix}{table}]", setting]
    return name, "\n".join(lines) + "\n", list(rng.choice(_COMMANDS))


def _problems(name: str, text: str, command: list[str]) -> Iterator[str]:
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        yield f"the fuzz wrote invalid TOML ({exc})"
        return
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / name).write_text(text, encoding="utf-8")
        prompt = root / "p.j2"
        prompt.write_text(_PROMPT, encoding="utf-8")
        result, output, broken = run_cli(root, command)
        yield from broken
        if result.exit_code == 2:
            # Text says it on an error line; JSON and SARIF inside the document.
            errors = [line for line in output.splitlines() if "error" in line or "--format" in command]
            if not any(name in line or "p.j2" in line or line.startswith("error: .:") for line in errors):
                yield f"exit 2 without an error that names the config or the prompt: {output.strip()[:200]!r}"
            if command[0] == "fix" and prompt.read_text(encoding="utf-8") != _PROMPT:
                yield "fix exited 2 and changed the prompt"
        if "$nan" in output or "$inf" in output:
            yield "a cost of nan or inf: " + next(line for line in output.splitlines() if "$nan" in line or "$inf" in line)


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` configs (or for ``seconds``); (configs tried, configs that failed)."""
    return campaign(seed, count, seconds, out, config_case, lambda case: _problems(*case),
                    lambda case: f"{' '.join(case[2])} with {case[0]}: {case[1]!r}")


def main() -> int:
    return command_line(__doc__ or "", run, "configs")


if __name__ == "__main__":
    raise SystemExit(main())
