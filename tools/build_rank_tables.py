"""Build the pre-built BPE rank tables (``promptlint/data/<name>.ranks``) from the shipped
``.tiktoken`` files; ``make ranks`` runs it. Run it after replacing a ``.tiktoken`` file:
tests/test_rank_tables.py fails until the tables match the files again.

    .venv/bin/python tools/build_rank_tables.py          # write the tables
    .venv/bin/python tools/build_rank_tables.py --check  # exit 1 when one is stale
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path

from promptlint.core import ranktable, tokens

DATA = Path(__file__).resolve().parent.parent / "promptlint" / "data"


def table_for(name: str) -> bytes:
    """The table of the shipped ``<name>.tiktoken``, checked against tiktoken's published hash."""
    expected = tokens.published_hash(name)
    if expected is None:
        raise SystemExit(f"tiktoken publishes no sha256 for {name}")
    source = (DATA / f"{name}.tiktoken").read_bytes()
    actual = hashlib.sha256(source).hexdigest()
    if actual != expected:
        raise SystemExit(f"{name}.tiktoken: sha256 {actual} is not tiktoken's published {expected}")
    return ranktable.build(tokens.read_tiktoken_file(name, expected), expected)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    stale = []
    for name in tokens.SHIPPED_ENCODINGS:
        path = DATA / f"{name}.ranks"
        table = table_for(name)
        if args.check:
            if not path.exists() or path.read_bytes() != table:
                stale.append(path.name)
            continue
        path.write_bytes(table)
        print(f"wrote {path.relative_to(DATA.parent.parent)} ({len(table):,} bytes)")
    if stale:
        print(f"stale: {', '.join(stale)} (run tools/build_rank_tables.py)", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
