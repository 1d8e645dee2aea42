"""A short seeded run of tools/fuzz_cli.py: random command lines of every command, with odd
option values, run in a git repository whose files are put back after each (see the tool for
what each must hold).

Seed 1's first 2,000 command lines held one that c3b108f failed: `check --select float16
--fix p.j2` fixed the file and then refused the rule code (exit 2 with the file changed).
Seed 2's held two more, `replay --max-line-bytes 99999999999999999999` (an internal error).
``tools/fuzz_cli.py --seconds 600`` runs the long version.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import fuzz_cli  # noqa: E402


def test_a_seeded_fuzz_of_the_command_line_finds_nothing() -> None:
    out = io.StringIO()
    tried, failed = fuzz_cli.run(1, count=2000, out=out)
    assert (tried, failed) == (2000, 0), out.getvalue()
