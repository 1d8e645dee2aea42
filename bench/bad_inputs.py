"""The hostile-input corpus (tests/bad_inputs/manifest.toml) as a table of outcomes.

Runs every input through the real command line, as tests/test_bad_inputs_corpus.py does
(same builder, same 1.5 GB address-space limit), and prints one row per input: its name,
the outcome (error / finding / clean, from the exit code), the exit code and what the
manifest expects, wall time and peak RSS; then the counts per outcome, the slowest input
and the largest memory (also outside the known gaps the manifest marks xfail). Figures, not assertions: `python bench/bad_inputs.py`
(`-k WORD` keeps the inputs whose name holds WORD; `--timeout S` stops a hung one).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from support import bad_inputs as corpus  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-k", dest="word", default="", help="only inputs whose name holds this")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before an input counts as hung")
    args = parser.parse_args()
    cases = [c for c in corpus.load() if args.word in c.name]
    unprivileged = corpus.can_run_unprivileged()
    rows = []
    print(f"{'input':<48} {'outcome':<8} {'exit':>4} {'want':>4} {'wall s':>7} {'RSS MB':>7}")
    for case in cases:
        if case.unprivileged and unprivileged is not None:
            print(f"{case.name:<48} skipped: {unprivileged}")
            continue
        base = corpus.workspace(case)
        try:
            result = corpus.run(case, base, timeout=args.timeout)
        finally:
            corpus.cleanup(base)
        rows.append((case, result))
        mark = "" if result.exit == case.exit else "  <- expected " + case.outcome
        if "Traceback" in result.output or "internal error" in result.output:
            mark += "  <- internal error"
        if result.changed:
            mark += f"  <- changed {result.changed}"
        if case.xfail:
            mark += f"  (known gap: {case.xfail})"
        print(f"{case.name:<48} {result.outcome:<8} {result.exit if result.exit is not None else '-':>4} "
              f"{case.exit:>4} {result.wall_s:>7.2f} {result.peak_rss_mb:>7.0f}{mark}", flush=True)
    if not rows:
        return 0
    counts = Counter(result.outcome for _, result in rows)
    print()
    print(f"{len(rows)} inputs: " + ", ".join(f"{counts[k]} {k}" for k in sorted(counts)))
    print(f"as the manifest expects: {sum(1 for c, r in rows if r.exit == c.exit)} of {len(rows)}")
    slow_case, slow = max(rows, key=lambda row: row[1].wall_s)
    big_case, big = max(rows, key=lambda row: row[1].peak_rss_mb)
    print(f"slowest: {slow_case.name} ({slow.wall_s:.2f} s)")
    print(f"largest memory: {big_case.name} ({big.peak_rss_mb:.0f} MB peak RSS)")
    kept = [row for row in rows if not row[0].xfail]
    if kept and len(kept) < len(rows):
        slow_case, slow = max(kept, key=lambda row: row[1].wall_s)
        big_case, big = max(kept, key=lambda row: row[1].peak_rss_mb)
        print(f"outside the {len(rows) - len(kept)} known gaps: slowest {slow_case.name} ({slow.wall_s:.2f} s), "
              f"largest memory {big_case.name} ({big.peak_rss_mb:.0f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
