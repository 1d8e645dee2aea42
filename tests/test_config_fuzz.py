"""A short seeded run of tools/fuzz_config.py: one config key path set to one kind of TOML
value, through check (text, JSON, SARIF, a folder), fix and probe --dry-run (see the tool for
what each must hold).

Seed 1's first 1,500 configs held 39 that 618a6d2 failed: `[providers]` facts accepted by
their kind and then raised as an internal error where the cost line ran the cache model
(`model`/`provider` keys, `notes = 0`, `models = 3`, `block_size = 0`, an unknown
`simulator` or `default_ttl`), and prices of nan or inf printed as `$nan` and `$inf`.
``tools/fuzz_config.py --seconds 600`` runs the long version.
"""

from __future__ import annotations

import io
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import fuzz_config  # noqa: E402


def test_a_seeded_fuzz_of_the_config_finds_nothing() -> None:
    out = io.StringIO()
    tried, failed = fuzz_config.run(1, count=1500, out=out)
    assert (tried, failed) == (1500, 0), out.getvalue()
