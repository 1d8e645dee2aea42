"""What `promptlint check` costs on a folder tree you have: a monorepo, or clones of public
agent repositories (which this repository cannot ship: their text is theirs).

Run from the repository root:

    .venv/bin/python bench/real_tree.py PATH               # the walk, each kind, -j 1 and -j 2
    .venv/bin/python bench/real_tree.py PATH --jobs 1 2 4  # other job counts
    .venv/bin/python bench/real_tree.py PATH --no-runs     # this process only (quicker)

Printed:

* the folder walk (what ``check PATH`` finds, in the run's own process before any worker
  starts): seconds, how many JSON and code files it leaves to the check to look at (is it a
  request body, does it name a prompt word), and how many files are checked;
* per kind of file (by extension): how many, their size, the time to check them one by one
  in this process (the encoding loaded first; the text report's work: no fix is planned),
  the time to tokenise them alone with the same encoding, and the ratio;
* the slowest files;
* ``promptlint check --no-cache -j N PATH`` for each N, each in a fresh process: wall time,
  CPU time (user + system of the run and its workers) and the largest process's peak RSS;
* the same CPU-heavy Python loop (building and sorting dicts) in one process and in two at
  once: how much slower each of two processes runs on this machine than one alone, which
  bounds how much two jobs can gain here whatever promptlint does.

Figures, not assertions: it exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from installed import describe, promptlint_command  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent

# A run's wall time, the CPU time of it and its children, and the largest child's peak RSS.
_WRAPPER = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_kib": usage.ru_maxrss,
                  "rc": proc.returncode, "err": proc.stderr[-400:]}))
"""

# The machine's own scaling: a dict-and-sort loop, alone and two at once.
_CONTENTION = r"""
import json, sys, time
from multiprocessing import Pool

def work(_=None):
    start = time.process_time()
    for _round in range(3):
        table = {str(i): [i, str(i * 7)] for i in range(400_000)}
        sorted(table.items(), key=lambda item: item[1][1])
    return time.process_time() - start

alone = work()
with Pool(2) as pool:
    together = pool.map(work, [0, 1])
print(json.dumps({"alone": alone, "together": together}))
"""


def walk(path: str) -> tuple[list[str], int, float]:
    """The files ``check PATH`` checks, how many of them its walk left to the check to look
    at (JSON and code files), and the walk's seconds. The looks, made here after the walk
    is timed, leave out what the check would skip."""
    from promptlint.discovery import is_prompt_file
    from promptlint.targets import gather

    start = time.perf_counter()
    targets = gather([path], look_later=True)
    seconds = time.perf_counter() - start
    looks = targets.undecided
    files = [p for p in targets.files if p not in looks or is_prompt_file(p, looks[p])]
    return files, len(looks), seconds


def per_kind(files: list[str]) -> tuple[dict[str, list[float]], list[tuple[float, str]]]:
    """Per extension: [files, bytes, check seconds, tokenise seconds]; and each file's time."""
    from promptlint import config
    from promptlint.api import _check_or_skip
    from promptlint.core import tokens

    encoding = tokens.get_encoding("o200k_base")
    kinds: dict[str, list[float]] = defaultdict(lambda: [0, 0, 0.0, 0.0])
    timed: list[tuple[float, str]] = []
    with config.one_lookup_per_folder():
        for path in files:
            kind = kinds[os.path.splitext(path)[1].lower() or "(none)"]
            try:
                data = Path(path).read_bytes()
            except OSError:
                continue
            start = time.perf_counter()
            encoding.encode_ordinary(data.decode("utf-8", errors="replace"))
            kind[3] += time.perf_counter() - start
            start = time.perf_counter()
            _check_or_skip(path, None, None, {"plan_fixes": False}, None, None)
            spent = time.perf_counter() - start
            kind[0] += 1
            kind[1] += len(data)
            kind[2] += spent
            timed.append((spent, path))
    return dict(kinds), sorted(timed, reverse=True)


def run(argv: list[str]) -> dict[str, float | int | str]:
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True, check=True)
    result: dict[str, float | int | str] = json.loads(proc.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", help="the folder to check")
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="job counts to run (default: 1 2)")
    parser.add_argument("--top", type=int, default=8, help="how many of the slowest files to show")
    parser.add_argument("--no-runs", action="store_true", help="skip the command-line runs and the machine's scaling")
    args = parser.parse_args()
    if not os.path.isdir(args.path):
        parser.error(f"{args.path}: not a folder")

    print(describe(REPO_ROOT))
    files, looked, seconds = walk(args.path)
    print(f"folder walk: {seconds:.2f} s (in the run's own process), {looked:,} JSON and code files left to "
          f"the check to look at; {len(files):,} files checked")

    kinds, timed = per_kind(files)
    print("per kind, one process, encoding loaded (text report: no fix planned):")
    print(f"  {'kind':10} {'files':>7} {'MB':>8} {'check s':>9} {'tokenise s':>11} {'ratio':>7}")
    total = [0.0, 0.0, 0.0, 0.0]
    for name, (count, size, check, tokenise) in sorted(kinds.items(), key=lambda item: -item[1][2]):
        total = [a + b for a, b in zip(total, (count, size, check, tokenise), strict=True)]
        ratio = f"{check / tokenise:6.1f}x" if tokenise > 0 else "      -"
        print(f"  {name:10} {int(count):7,} {size / 1e6:8.1f} {check:9.2f} {tokenise:11.2f} {ratio}")
    if total[3] > 0:
        print(f"  {'all':10} {int(total[0]):7,} {total[1] / 1e6:8.1f} {total[2]:9.2f} {total[3]:11.2f} "
              f"{total[2] / total[3]:6.1f}x")
    print("slowest files:")
    for spent, path in timed[: args.top]:
        print(f"  {spent:7.3f} s  {path}")

    if args.no_runs:
        return
    for jobs in args.jobs:
        result = run([*promptlint_command(), "check", "--no-cache", "-j", str(jobs), args.path])
        print(f"promptlint check --no-cache -j {jobs}: wall {float(result['wall']):.2f} s, "
              f"CPU {float(result['cpu']):.2f} s, peak RSS {int(result['rss_kib']) / 1024:.0f} MiB (exit {result['rc']})")
    proc = subprocess.run([sys.executable, "-c", _CONTENTION], capture_output=True, text=True, check=True)
    scaling = json.loads(proc.stdout)
    slower = max(scaling["together"]) / scaling["alone"] - 1
    print(f"this machine: a dict-and-sort loop takes {scaling['alone']:.2f} s of CPU alone, "
          f"{' and '.join(f'{t:.2f}' for t in scaling['together'])} s in two processes at once "
          f"(the slower of the two {100 * slower:+.0f}% against alone)")


if __name__ == "__main__":
    main()
