"""A fuzz of promptlint's command line: each command with random options and odd values.

    .venv/bin/python tools/fuzz_cli.py                       # 60 s, seed 1
    .venv/bin/python tools/fuzz_cli.py --seconds 600 --seed 7

Each input is one command line: ``check``, ``fix``, ``probe --dry-run`` (nothing is sent),
``replay`` or ``rules``, with up to four of its options, each given a value of its own kind
or an odd one (empty, zero, negative, past 64 bits, nan, a path that is not there, a folder,
``/dev/null``, an unknown rule code, provider or git ref), and its paths: a Jinja prompt, a
request body, a folder, a replay log, a missing file. It runs in process (click's runner) in
a git repository made once, whose files are put back after each run. Each must hold:

- the exit code is 0, 1 or 2, and nothing says "internal error" or prints a traceback;
- a run that exits 2 has changed no file (a refused run writes nothing), but where a path
  named is not there (a failure of that file alone: the others are fixed, as black does);
- what a run wrote (a fix, a ``--report``) is put back or removed before the next.

A NUL is left out: no command line can hold one (the API's NUL paths are tested on their own).
Each failure prints the property and the command line; the exit code is 1 when one failed.
tests/test_cli_fuzz.py runs a seeded part of it; :func:`run` runs it in process.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from fuzzing import campaign, command_line, run_cli

_REPO = Path(__file__).resolve().parents[1]
_ODD = ["", "0", "-1", "1", "2", "99999999999999999999", "nan", "inf", "-inf", "1e308", "x", "PC101", "PC9", "P*",
        "pc101,PC102", ",", "openai", "anthropic", "vllm", "gpt-4o", "claude-sonnet-5", "HEAD", "HEAD~5", "nope", "--",
        "-", ".", "/", "/dev/null", "p.j2", "d", "missing.j2", "vars.json", "log.jsonl", "b.json", "2MB", "é", "a b",
        "5m", "1h", "stable", "chat", "responses", "cpu", "float16", "http://127.0.0.1:9/v1", "out.html", "out.md",
        "out.json"]
_OPTIONS = {
    "check": ["--format", "--model", "--provider", "--select", "--ignore", "--syntax", "--config", "--fail-on",
              "--exit-zero", "--no-frames", "-j", "--no-cache", "--changed-since", "--fix", "--diff", "--unsafe-fixes",
              "--hook"],
    "fix": ["--diff", "--check", "--unsafe-fixes", "--model", "--provider", "--config", "--syntax", "-j"],
    "probe": ["--provider", "--model", "--base-url", "--api", "--compatible", "--vars", "--variants", "--no-warmup",
              "--compare-fix", "--unsafe-fixes", "--breakpoint", "--ttl", "--calls-per-day", "--report", "--format",
              "--budget", "--timeout", "--max-retries", "--max-output-tokens", "--config", "--syntax", "--price-as"],
    "replay": ["--provider", "--model", "--format", "--max-line-bytes"],
    "rules": [],
}
_FLAGS = {"--exit-zero", "--no-frames", "--no-cache", "--fix", "--diff", "--unsafe-fixes", "--hook", "--check",
          "--no-warmup", "--compare-fix"}
_CHOICES = {"--format": ["text", "json", "sarif", "github"], "--fail-on": ["info", "warning", "error"],
            "--syntax": ["jinja", "mustache", "go", "format", "dollar", "markdown", "json", "python", "typescript"],
            "--api": ["chat", "responses"], "--compatible": ["vllm", "sglang", "deepseek"],
            "--breakpoint": ["stable", "auto"], "--ttl": ["5m", "1h"]}
_PATHS = {"check": ["p.j2", "d", ".", "b.json", "missing.j2"], "fix": ["p.j2", "d", "."], "probe": ["p.j2", "b.json"],
          "replay": ["log.jsonl", "p.j2"]}
# What a run may write, removed after it.
_OUTPUTS = ("out.html", "out.md", "out.json")


def command(rng: random.Random) -> list[str]:
    """One command line (without ``promptlint``)."""
    name = rng.choice(sorted(_OPTIONS))
    argv = [name]
    for _ in range(rng.randint(0, 4) if _OPTIONS[name] else 0):
        option = rng.choice(_OPTIONS[name])
        argv.append(option)
        if option not in _FLAGS:
            kind = _CHOICES.get(option, [])
            argv.append(rng.choice(kind + _ODD) if kind and rng.random() < 0.7 else rng.choice(_ODD))
    if name == "probe":
        argv.append("--dry-run")  # nothing is sent
    if name in _PATHS:
        argv += rng.sample(_PATHS[name], rng.randint(0 if name == "check" else 1, 2 if name in ("check", "fix") else 1))
    if name == "rules" and rng.random() < 0.7:
        argv.append(rng.choice(["PC101", "pc105", "PC999", "", "x"]))
    return argv


_folder: list[tuple[Path, dict[Path, bytes]]] = []


def _workspace() -> tuple[Path, dict[Path, bytes]]:
    """The git repository every run works in (made once), and its files' bytes."""
    if not _folder:
        root = Path(tempfile.mkdtemp(prefix="promptlint-cli-fuzz-"))
        (root / "p.j2").write_text("You are Atlas.\nCurrent time: {{ now }}\n" + "Cite the policy.\n" * 40,
                                   encoding="utf-8")
        (root / "b.json").write_text('{"model": "gpt-4o", "messages": [{"role": "system", "content": "Now: '
                                     '2026-01-01T10:00:00Z. You are Atlas."}, {"role": "user", "content": "hi"}]}',
                                     encoding="utf-8")
        log = (_REPO / "fixtures" / "replay" / "agent_clock.jsonl").read_text(encoding="utf-8")
        (root / "log.jsonl").write_text(log.split("\n", 1)[0] + "\n", encoding="utf-8")
        (root / "vars.json").write_text('[{"now": "1"}, {"now": "2"}]', encoding="utf-8")
        (root / "d").mkdir()
        (root / "d" / "q.md").write_text("Hello {{user_name}}\n", encoding="utf-8")
        git = ["git", "-C", str(root), "-c", "user.email=fuzz@example.invalid", "-c", "user.name=fuzz"]
        for step in (["init", "-q"], ["add", "."], ["commit", "-qm", "fuzz"]):
            subprocess.run([*git, *step], check=True, capture_output=True)
        files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts}
        _folder.append((root, files))
    return _folder[0]


def _problems(argv: list[str]) -> Iterator[str]:
    root, files = _workspace()
    result, _output, broken = run_cli(root, argv)
    yield from broken
    changed = sorted(str(p.relative_to(root)) for p, data in files.items() if not p.exists() or p.read_bytes() != data)
    # A path that is not there fails the run file by file, as black does: the others are
    # still fixed. Any other run that fails has written nothing.
    if changed and result.exit_code == 2 and "missing.j2" not in argv:
        yield f"exited 2 and changed {', '.join(changed)}"
    for path, data in files.items():  # put back what a fix wrote
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)
    for name in _OUTPUTS:
        (root / name).unlink(missing_ok=True)


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` command lines (or for ``seconds``); (lines tried, lines that failed)."""
    return campaign(seed, count, seconds, out, command, _problems, lambda argv: f"promptlint {' '.join(map(repr, argv))}")


def main() -> int:
    return command_line(__doc__ or "", run, "command lines")


if __name__ == "__main__":
    raise SystemExit(main())
