"""A short seeded run of tools/fuzz_replay.py: generated replay logs (growing conversations in
each body shape, cache-breaking edits, wrapped lines with odd timestamps, providers and usage,
hostile lines) through ``replay``, ``replay --format json`` and ``replay --provider P`` (see the
tool for what each must hold).

Seed 1's first 600 logs held 23 that 4a3be29 failed, each with an internal error or output no
JSON reader takes: usage counts that are no number (a word, an array, NaN, Infinity) read by
``int()`` (14), bodies nested some 500 deep whose walk for a ``cache_control`` overflowed the
stack (5), a lone surrogate escaped in a body and quoted in the JSON report (2), and
timestamps of ``Infinity`` (a gap of ``Infinity`` seconds printed) or of an integer no float
holds (2).
``tools/fuzz_replay.py --seconds 600`` runs the long version.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import fuzz_replay  # noqa: E402


def test_a_seeded_fuzz_of_replay_finds_nothing() -> None:
    out = io.StringIO()
    tried, failed = fuzz_replay.run(1, count=600, out=out)
    assert (tried, failed) == (600, 0), out.getvalue()
