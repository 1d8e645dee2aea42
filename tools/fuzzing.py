"""The command line the fuzz tools share (``fuzz_fix.py``, ``fuzz_tokens.py``): ``--seconds``
and ``--seed``, one summary line, exit 1 when an input failed."""

from __future__ import annotations

import argparse
from collections.abc import Callable


def command_line(description: str, run: Callable[..., tuple[int, int]], what: str) -> int:
    """Parse the arguments, ``run(seed, seconds=…)``, print how many ``what`` failed."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    tried, failed = run(args.seed, seconds=args.seconds)
    print(f"{tried:,} {what}, {failed:,} failed (seed {args.seed}, {args.seconds:g} s)")
    return 1 if failed else 0
