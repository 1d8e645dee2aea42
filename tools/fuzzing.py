"""What the fuzz tools share: the command line (``--seconds`` and ``--seed``, one summary
line, exit 1 when an input failed), the loop of those that draw an input and check it, for
the template fuzzes how a template is broken and how its segments are checked, and for those
that run the command line (``fuzz_config.py``, ``fuzz_cli.py``, ``fuzz_replay.py``) one run
of it in process with what every run must hold."""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
import traceback
from collections.abc import Callable, Iterable
import re
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, TypeVar

if TYPE_CHECKING:
    from click.testing import Result

    from promptlint.core.ir import Template

Case = TypeVar("Case")


def command_line(description: str, run: Callable[..., tuple[int, int]], what: str) -> int:
    """Parse the arguments, ``run(seed, seconds=…)``, print how many ``what`` failed."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tried, failed = run(args.seed, seconds=args.seconds)
    print(f"{tried:,} {what}, {failed:,} failed (seed {args.seed}, {args.seconds:g} s)")
    return 1 if failed else 0


def campaign(seed: int, count: int | None, seconds: float | None, out: TextIO | None,
             draw: Callable[[random.Random], Case], problems: Callable[[Case], Iterable[str]],
             shown: Callable[[Case], str]) -> tuple[int, int]:
    """Draw ``count`` inputs (or for ``seconds``) from ``random.Random(seed)``, each checked by
    ``problems`` (an exception is one); each failure printed with ``shown(input)``. (inputs
    tried, inputs that failed)."""
    stream = out if out is not None else sys.stdout
    rng = random.Random(seed)
    tried = failed = 0
    start = time.monotonic()
    while (count is None or tried < count) and (seconds is None or time.monotonic() - start < seconds):
        case = draw(rng)
        tried += 1
        try:
            found = list(problems(case))
        except Exception:  # noqa: BLE001 - every exception is a finding of the fuzz
            found = ["raised:\n" + traceback.format_exc(limit=8)]
        if found:
            failed += 1
            print(f"FAILED: {'; '.join(found)}\n  {shown(case)}", file=stream)
    return tried, failed


def untiled(template: Template) -> str | None:
    """Where a template's top-level segments fail to tile its source; None where they do."""
    covered = 0
    for segment in template.segments:
        if segment.span.start != covered:
            return f"the segments do not tile the source at {covered}"
        covered = segment.span.end
    if covered != len(template.source):
        return f"the segments end at {covered} of {len(template.source)}"
    return None


def broken(rng: random.Random, source: str, tags: re.Pattern[str], stray: Callable[[random.Random], str]) -> str:
    """``source``, or (half the time) ``source`` with one thing broken: a slice dropped, two
    tags (``tags`` matches one) swapped, a tag dropped, or a ``stray`` tag put in (mostly
    just before or after a tag, where it meets a block)."""
    if rng.random() < 0.5:
        return source
    way = rng.randrange(5)
    if way == 0 and len(source) > 2:
        i = rng.randrange(len(source))
        return source[:i] + source[min(len(source), i + rng.randrange(1, 12)):]
    spans = [m.span() for m in tags.finditer(source)]
    if way == 1 and len(spans) >= 2:
        a, b = sorted(rng.sample(spans, 2))
        return source[: a[0]] + source[b[0] : b[1]] + source[a[1] : b[0]] + source[a[0] : a[1]] + source[b[1] :]
    if way == 2 and spans:
        a = rng.choice(spans)
        return source[: a[0]] + source[a[1] :]
    put = stray(rng)
    edges = [edge for span in spans for edge in span]
    i = rng.choice(edges) if edges and rng.random() < 0.8 else rng.randrange(len(source) + 1)
    return source[:i] + put + source[i:]


def run_cli(folder: Path, argv: list[str]) -> tuple[Result, str, list[str]]:
    """``promptlint ARGV`` run in process (click's runner) in ``folder``, as a fresh process
    would run it (the configs and ignore files read by earlier runs forgotten): its result,
    its output (stdout and stderr), and what it broke of the contract every run keeps (exit
    0, 1 or 2; no exception, no "internal error", no traceback)."""
    from click.testing import CliRunner

    from promptlint import config, discovery
    from promptlint.cli import main

    here = os.getcwd()
    os.chdir(folder)
    try:
        config._load_file.cache_clear()
        discovery._gitignore_at.cache_clear()
        result = CliRunner().invoke(main, argv, catch_exceptions=True)
    finally:
        os.chdir(here)
    output = result.stdout + (result.stderr or "")
    broken: list[str] = []
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        broken.append(f"raised {type(result.exception).__name__}: {result.exception}")
    if result.exit_code not in (0, 1, 2):
        broken.append(f"exit code {result.exit_code}")
    if "internal error" in output or "Traceback" in output:
        broken.append("internal error: " + output.strip().splitlines()[-1])
    return result, output, broken
