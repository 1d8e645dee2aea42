"""Build ``promptlint/data/context_windows.json``: every model's context window in the price
data of the installed genai-prices, for the providers promptlint knows. ``make data`` runs it.

`check` warns when a prompt is over its model's context window. Loading genai-prices' data
costs about 0.15 s (pydantic, and 2,000 models built at import): more than the rest of a
check of one large file. The table holds the same answers for a small JSON read. It names the
genai-prices version it was made from and is used only while that version is installed
(``promptlint.providers.pricing.context_window``); a model it does not name is looked up in
the library itself. tests/test_pricing.py fails while the table is stale.

    .venv/bin/python tools/build_context_windows.py          # write the table
    .venv/bin/python tools/build_context_windows.py --check  # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from promptlint.providers import pricing, registry

PATH = Path(__file__).resolve().parent.parent / "promptlint" / "data" / "context_windows.json"


def table() -> str:
    """The table's text: ``{"genai-prices": version, "windows": {provider id: {model id: tokens
    or null}}}``, each window what the library's own lookup of that model id gives."""
    import json

    import genai_prices
    from genai_prices import data_snapshot

    ids = {p.genai_prices_id for p in registry.PROVIDERS if p.genai_prices_id is not None}
    windows = {
        provider.id: {model.id: pricing.library_context_window(provider.id, model.id) for model in provider.models}
        for provider in data_snapshot.get_snapshot().providers if provider.id in ids
    }
    return json.dumps({"genai-prices": genai_prices.__version__, "windows": windows}, indent=1, sort_keys=True) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="compare, write nothing")
    args = parser.parse_args()
    text = table()
    if args.check:
        if not PATH.exists() or PATH.read_text(encoding="utf-8") != text:
            print(f"stale: {PATH.name} (run tools/build_context_windows.py)", file=sys.stderr)
            raise SystemExit(1)
        return
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH.relative_to(PATH.parent.parent.parent)} ({len(text):,} bytes)")


if __name__ == "__main__":
    main()
