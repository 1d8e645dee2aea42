"""How many machine instructions `promptlint check` spends per prompt file: a figure that
does not move with the machine's load, for telling a 1 % change from noise.

Wall and CPU times of the same run vary by several percent between runs on a shared
machine (more while other processes run beside it), which hides the change a single
commit makes to the per-file cost. Valgrind's callgrind counts the instructions a run
executes: the same code on the same files gives the same count, to the million, however
busy the machine is. Instructions are not time (a cache miss costs more than an add), so
a change kept for its count is timed too (bench/throughput.py).

Run from the repository root (valgrind must be installed: ``apt-get install valgrind``):

    .venv/bin/python bench/instructions.py                      # this checkout, 400 files
    .venv/bin/python bench/instructions.py --files 100          # quicker (about 20 s a tree)
    .venv/bin/python bench/instructions.py --tree /tmp/old      # and a worktree of another commit

The files are bench/throughput.py's small prompt files (all syntaxes; its extremes and
500-slot files left out), generated once and shuffled, both seeded. For each tree,
``check_paths`` (as ``promptlint check -j 1`` with the text report) runs on 10 of them and
on ``--files`` more, in fresh processes under callgrind with ``PYTHONHASHSEED=0``, the
encoding built first in both; the difference is what those files cost, the interpreter's
start, the imports and the encoding left out. A tree other
than this checkout is given as a git worktree (``git worktree add /tmp/old REF``) whose
``promptlint/rules`` links to its ``rules/`` (``ln -s ../rules /tmp/old/promptlint/rules``),
as an editable install maps them. Figures, not assertions: it exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from throughput import generate  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
# Checked first in every run: what they cost (imports and lazy set-up included) is taken
# away from the larger run's count.
BASE_FILES = 10
SAMPLE_SEED = 13

_DRIVER = r"""
import sys
from promptlint.api import check_paths
from promptlint.core import tokens
# Built first in both runs: a run of fewer files than the Python encoder's budget would use
# that encoder instead (a quarter of the speed), and the larger run would count the build.
tokens.get_encoding(tokens.encoding_name_for_model(tokens.DEFAULT_MODEL))
files = open(sys.argv[1], encoding="utf-8").read().split("\n")[: int(sys.argv[2])]
check_paths(files, jobs=1, plan_fixes=False)  # as `check -j 1` with the text report; no result cache
"""


def instructions(tree: Path, listing: Path, count: int) -> int:
    """The instructions of one run that checks the first ``count`` files of ``listing``, with
    ``tree``'s package (``-P``: the current folder, this checkout, is not put before it)."""
    env = dict(os.environ, PYTHONHASHSEED="0", PYTHONPATH=str(tree))
    proc = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
         sys.executable, "-P", "-c", _DRIVER, str(listing), str(count)],
        capture_output=True, text=True, env=env, check=False,
    )
    found = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or found is None:
        raise SystemExit(f"bench/instructions.py: the run under valgrind failed (exit {proc.returncode}): "
                         f"{proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else 'no message'}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=400, help="how many files are counted (default 400)")
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="another checkout to count (a git worktree); repeatable")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("bench/instructions.py: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        raise SystemExit(2)
    trees = [REPO_ROOT, *(tree.resolve() for tree in args.tree)]
    with tempfile.TemporaryDirectory(prefix="promptlint-instructions-") as tmp:
        folder = Path(tmp) / "prompts"
        folder.mkdir()
        small = sorted(str(p) for p in generate(folder, 2000)
                       if not p.name.startswith(("extreme_", "many_slots_")))
        # Shuffled (seeded): in name order, the first hundreds are all `prompt_*` files and
        # the request bodies (`request_*.json`) come last.
        random.Random(SAMPLE_SEED).shuffle(small)
        wanted = BASE_FILES + args.files
        if wanted > len(small):
            raise SystemExit(f"bench/instructions.py: --files is at most {len(small) - BASE_FILES}")
        listing = Path(tmp) / "files.txt"
        listing.write_text("\n".join(small), encoding="utf-8")
        size = sum(os.path.getsize(p) for p in small[BASE_FILES:wanted])
        print(f"{args.files} of bench/throughput.py's small prompt files ({size / 1024:,.0f} KB), "
              f"checked as `promptlint check -j 1`, under callgrind")
        first: int | None = None
        for tree in trees:
            spent = instructions(tree, listing, wanted) - instructions(tree, listing, BASE_FILES)
            first = first if first is not None else spent
            print(f"  {spent / 1e6:8,.0f} M instructions  {spent / args.files / 1e6:6.2f} M a file  "
                  f"{spent / first:5.3f}x  {tree}")


if __name__ == "__main__":
    main()
