"""What `promptlint fix` gains on the fixable fail cases of fixtures/rules/*.yaml.

Each case is written to a temporary folder, fixed (unsafe fixes for the rules whose fix
is unsafe), and checked again. Prints, per rule and in all: cases fixed, the mean
stable-prefix gain in tokens and in percentage points of the prompt, and how many
still have an error-level finding of their rule after the fix. Figures, not assertions.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

from promptlint.api import check_paths
from promptlint.fix import fix_paths
from promptlint.testing import load_cases, materialize

ROOT = Path(__file__).resolve().parent.parent
UNSAFE = {"PC102", "PC103"}


def main() -> int:
    rows: dict[str, list[tuple[int, int, int, bool]]] = {}
    for file in sorted((ROOT / "fixtures" / "rules").glob("*.yaml")):
        data = load_cases(file)
        for case in data["cases"]:
            if not (case.get("fixable") and case.get("expect")):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                targets = materialize(case, Path(tmp) / "case")
                report = fix_paths(targets, unsafe=data["rule"] in UNSAFE)
                fixed = [r for r in report.files if r.written]
                before = sum(r.stable_before for r in fixed)
                after = sum(r.stable_after for r in fixed)
                total = sum(r.tokens_after for r in fixed) or 1
                clean = not [
                    f for f in check_paths(targets).findings if f.rule == data["rule"] and f.severity == "error"
                ]
                rows.setdefault(data["rule"], []).append((before, after, total, bool(fixed) and clean))
    print(f"{'rule':6} {'cases':>5} {'fixed+clean':>11} {'mean gain':>10} {'mean gain %':>11}")
    everything = []
    for rule, cases in rows.items():
        everything += cases
        _row(rule, cases)
    _row("all", everything)
    return 0


def _row(label: str, cases: list[tuple[int, int, int, bool]]) -> None:
    gains = [after - before for before, after, _, _ in cases]
    points = [100 * (after - before) / total for before, after, total, _ in cases]
    ok = sum(1 for *_, clean in cases if clean)
    print(
        f"{label:6} {len(cases):5} {ok:11} {statistics.mean(gains):10.1f} {statistics.mean(points):10.1f}%"
    )


if __name__ == "__main__":
    sys.exit(main())
