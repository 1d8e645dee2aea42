"""Price data pinned for tests whose expected values hold prices: the replay goldens.

genai-prices is not pinned (its data is what keeps the cost figures current), so a clean
install takes its newest release. The goldens hold costs, the date of the price data and
its release in a note, so each release of the library broke them (0.2.5 did, with nothing
changed in promptlint). Here the library's answers for the models the goldens price are
recorded once, in ``data/replay_golden/prices.json``, and the tests that compare with the
goldens read them instead of the library.

    python tests/pinned_prices.py   # record anew from the installed genai-prices

The recording is checked against the library while the installed release is the recorded
one (tests/test_replay_stream.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from promptlint.providers import pricing
from promptlint.providers.base import Provider

RECORDING = Path(__file__).resolve().parent / "data" / "replay_golden" / "prices.json"
# (provider, model): what the replay goldens ask prices of.
PRICED = (("anthropic", "claude-haiku-4-5"), ("anthropic", "claude-sonnet-4-5"), ("openai", "gpt-4.1"),
          ("openai", "gpt-4o"), ("openai", "gpt-5.6"), ("openai", "gpt-5.6-mini"))


def _answer(provider: str, model: str) -> dict[str, Any]:
    """The installed library's answer for one model, as the recording holds it."""
    from promptlint.providers import registry

    known = registry.find(provider)
    assert known is not None, provider
    try:
        values, source, as_of, as_of_source, notes = pricing._library_prices(known, model, None)
    except pricing.PriceError as exc:
        return {"error": str(exc)}
    return {"values": values, "source": source, "as_of": as_of, "as_of_source": as_of_source, "notes": notes}


def record(priced: Iterable[tuple[str, str]] = PRICED) -> dict[str, Any]:
    """The recording's content, made from the installed genai-prices."""
    import genai_prices

    return {"genai-prices": genai_prices.__version__,
            "prices": {f"{provider}/{model}": _answer(provider, model) for provider, model in priced}}


def recorded() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(RECORDING.read_text(encoding="utf-8"))
    return data


def pin(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``pricing`` answer from the recording: a model it does not hold fails the test."""
    table = recorded()["prices"]

    def library_prices(provider: Provider, model: str, at: datetime | None) -> tuple[Any, ...]:
        key = f"{provider.name}/{model}"
        if key not in table:
            pytest.fail(f"{key} is not in {RECORDING.name}: add it to PRICED in {Path(__file__).name} and record")
        found = table[key]
        if "error" in found:
            raise pricing.PriceError(found["error"])
        return dict(found["values"]), found["source"], found["as_of"], found["as_of_source"], list(found["notes"])

    monkeypatch.setattr(pricing, "_library_prices", library_prices)


if __name__ == "__main__":
    RECORDING.write_text(json.dumps(record(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {RECORDING}", file=sys.stderr)
