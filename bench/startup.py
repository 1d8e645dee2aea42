"""Start-up time of `promptlint check` on one fixture, in fresh processes.

Prints the median wall time over several runs of a check with a warm result cache (the
file unchanged since the last run), with a cold one (`--no-cache`: the BPE encoding is
built), of a warm check of a folder of fixtures with the default `-j` (as a hook or CI
names a folder), the import floor of its libraries (`python -c "import click, rich,
jinja2"`) and `python -c pass`, with the ratios to the floor; and the modules a check
imports that it should never need (openai, anthropic, torch, transformers). Figures, not
assertions: run it with `python bench/startup.py`. The cache lives in a temporary folder
for the run.

It times the installed package (`python -P -m promptlint`, see bench/installed.py), not
the source folder the command happens to be started in, and says which one that is. The
package is byte-compiled first, as pip compiles an installed one (bench/installed.py).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from installed import byte_compiled, describe, promptlint_command, python_command

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "agents" / "templates" / "system.j2"
CORPUS = ROOT / "fixtures" / "corpus"
HEAVY = ("openai", "anthropic", "torch", "transformers")


def median_wall(cmd: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    os.environ["PROMPTLINT_CACHE_DIR"] = tempfile.mkdtemp(prefix="promptlint-startup-")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    python = python_command()
    compiled = byte_compiled()  # before any timing: as an installed package runs
    check = [*promptlint_command(), "check", "--no-frames", str(FIXTURE)]
    # The timed command must work: timing a traceback would be a figure about nothing.
    ran = subprocess.run(check, capture_output=True, text=True, check=False)
    if ran.returncode not in (0, 1):
        print(f"promptlint check failed (exit {ran.returncode}):\n{ran.stderr or ran.stdout}", file=sys.stderr)
        raise SystemExit(2)
    baseline = median_wall([*python, "-c", "pass"], args.runs)
    floor = median_wall([*python, "-c", "import click, rich, jinja2"], args.runs)
    cold = median_wall([*check, "--no-cache"], args.runs)
    warm = median_wall(check, args.runs)  # the check above filled the cache
    # A folder, as a pre-commit hook or CI names one, with the default -j (the cores).
    folder = [*promptlint_command(), "check", "--no-frames", str(CORPUS)]
    subprocess.run(folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)  # fills the cache
    folder_warm = median_wall(folder, args.runs)
    files = sum(1 for p in CORPUS.rglob("*") if p.is_file())
    probe = (
        # The command line in this process (`python -m promptlint` ends its process on the
        # spot, so nothing could be asked after it).
        f"import sys; sys.argv=['promptlint','check','--no-frames',{str(FIXTURE)!r}]\n"
        "from promptlint.cli import main\n"
        "try:\n main()\n"
        "except SystemExit: pass\n"
        f"print('HEAVY:' + ','.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    out = subprocess.run([*python, "-c", probe], capture_output=True, text=True, check=False).stdout
    heavy = next((line[6:] for line in out.splitlines() if line.startswith("HEAVY:")), "?")
    print(f"{describe(ROOT)}; {compiled}")
    print(f"fixture: {FIXTURE.relative_to(ROOT)}  runs: {args.runs}")
    print(f"python -c pass                          median {baseline * 1000:7.1f} ms")
    print(f"python -c 'import click, rich, jinja2'  median {floor * 1000:7.1f} ms  (the import floor)")
    print(f"promptlint check, warm cache (1 file)   median {warm * 1000:7.1f} ms  ({warm / floor:.2f}x the floor)")
    print(f"promptlint check, --no-cache (1 file)   median {cold * 1000:7.1f} ms  ({cold / floor:.2f}x the floor)")
    print(f"promptlint check, warm cache ({CORPUS.relative_to(ROOT)}/, {files} files, default -j)  "
          f"median {folder_warm * 1000:7.1f} ms  ({folder_warm / floor:.2f}x the floor)")
    print(f"heavy modules imported by check: {heavy or 'none'}")


if __name__ == "__main__":
    main()
