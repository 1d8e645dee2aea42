"""A short seeded run of tools/fuzz_code.py: Python, TypeScript, TSX and JavaScript files
that build system prompts as agent code does, generated from a grammar, half of them broken,
read, checked and planned for a fix (see the tool for what each must hold).

Seed 1's first 800 files held 42 that 7e1e152 failed, each a crash of a code reader (said
as "could not read the prompts it builds") or a span outside the source: 26 TypeScript ISO
prefixes of a length written ``0x10``, ``10.0`` or ``1e1`` (``.toISOString().slice(0,
0x10)``: int() raised), 10 ``str.format`` fields named by a digit that is no decimal
(``{²}``), 4 Python files with a lone CR, a line end to ast but not to the reader (spans
past the source's end, or an IndexError), and 2 method calls whose ``self`` had a default
(``def render(self=None)``: more defaults than arguments). ``tools/fuzz_code.py --seconds
600`` runs the long version.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import fuzz_code  # noqa: E402


def test_a_seeded_fuzz_of_the_code_readers_finds_nothing() -> None:
    out = io.StringIO()
    tried, failed = fuzz_code.run(1, count=800, out=out)
    assert (tried, failed) == (800, 0), out.getvalue()
