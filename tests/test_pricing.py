"""Prices from genai-prices' bundled snapshot, with derivations and user overrides."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import genai_prices
import pytest

from promptlint.providers import price_data_releases, simulate
from promptlint.providers.base import Breakpoint, Request, cost
from promptlint.providers.pricing import PriceError, prices_for

AT = datetime(2026, 11, 1, tzinfo=UTC)


def test_anthropic_prices_come_from_the_library() -> None:
    # §9.3: Sonnet 4.5 3 / 3.75 (5 m) / 6 (1 h) / 0.30 / 15 per million tokens.
    prices = prices_for("anthropic", "claude-sonnet-4-5-20250929", at=AT)
    assert (
        prices.input,
        prices.cache_write,
        prices.cache_write_1h,
        prices.cache_read,
        prices.output,
    ) == (3.0, 3.75, 6.0, 0.3, 15.0)
    assert "genai-prices" in prices.source


def test_anthropic_missing_cache_prices_are_derived_and_noted() -> None:
    # claude-2 has only input/output ($8/$24) in the data: read 0.1x, 5 m write 1.25x,
    # 1 h write 2x input.
    prices = prices_for("anthropic", "claude-2", at=AT)
    assert (prices.cache_read, prices.cache_write, prices.cache_write_1h) == (0.8, 10.0, 16.0)
    assert any(note.startswith("cache_write_1h = 2 x input") for note in prices.notes)


def test_openai_pre56_has_no_write_fee() -> None:
    # gpt-4o: 2.50 input, 1.25 cached; a written token costs the input price.
    prices = prices_for("openai", "gpt-4o", at=AT)
    assert (prices.input, prices.cache_read, prices.cache_write, prices.output) == (
        2.5,
        1.25,
        2.5,
        10.0,
    )
    assert any("cache_write = 1 x input" in note for note in prices.notes)


def test_gemini_maps_to_google() -> None:
    # §9.4: gemini-2.5-flash 0.30 input, 0.03 cached, 2.50 output.
    prices = prices_for("gemini", "gemini-2.5-flash", at=AT)
    assert (prices.input, prices.cache_read, prices.output) == (0.3, 0.03, 2.5)
    assert "google" in prices.source


def test_overrides_win_over_the_library() -> None:
    prices = prices_for("anthropic", "claude-sonnet-4-5", {"input": 10.0, "cache_read": 1.0}, at=AT)
    assert (prices.input, prices.cache_read, prices.cache_write) == (10.0, 1.0, 3.75)
    assert any("overridden by user config: cache_read, input" in n for n in prices.notes)


def test_unknown_model_raises_price_error_naming_it() -> None:
    with pytest.raises(PriceError, match="'gpt-nonexistent' of provider 'openai'"):
        prices_for("openai", "gpt-nonexistent", at=AT)


def test_unknown_model_with_an_input_override_is_priced() -> None:
    prices = prices_for("anthropic", "claude-private", {"input": 4.0}, at=AT)
    # Derived from the Anthropic multipliers: 0.1x, 1.25x, 2x of 4.0.
    assert (prices.cache_read, prices.cache_write, prices.cache_write_1h) == pytest.approx(
        (0.4, 5.0, 8.0)
    )
    assert prices.as_of is None


def test_self_hosted_is_free_unless_overridden() -> None:
    prices = prices_for("vllm", "meta-llama/Llama-3.1-8B")
    assert (prices.input, prices.cache_read, prices.output) == (0.0, 0.0, 0.0)
    assert any("self-hosted" in note for note in prices.notes)
    assert prices_for("sglang", "x", {"input": 0.05}).input == 0.05


def test_bad_provider_or_override_key_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="unknown provider"):
        prices_for("mistral", "mistral-large")
    with pytest.raises(ValueError, match="unknown price override keys"):
        prices_for("openai", "gpt-4o", {"inputs": 1.0})


def test_as_of_is_the_genai_prices_release_date() -> None:
    assert price_data_releases()["0.2.3"] == "2026-11-10"
    prices = prices_for("openai", "gpt-4o", at=AT)
    assert prices.as_of == price_data_releases().get(genai_prices.__version__)
    assert genai_prices.__version__ in prices.as_of_source


def test_per_token_prices_feed_cost() -> None:
    # Sonnet 4.5: write 2,000 tokens at 3.75/M and 100 uncached at 3/M = 7,800e-6 USD.
    per_token = prices_for("anthropic", "claude-sonnet-4-5", at=AT).per_token()
    assert per_token.cache_write == pytest.approx(3.75e-6)
    request = Request(list(range(2100)), segments=[2000, 2100], breakpoints=[Breakpoint(2000)])
    (usage,) = simulate("anthropic", "claude-sonnet-4-5", [request])
    assert cost(usage, per_token) == pytest.approx(7800e-6)


def test_importing_the_engine_does_not_import_genai_prices() -> None:
    code = (
        "import sys, promptlint.providers.pricing, promptlint.providers.base, promptlint.providers; "
        "print('genai_prices' in sys.modules)"
    )
    repo_root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": repo_root}
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        cwd=repo_root,
    )
    assert result.stdout.strip() == "False"


# -- context windows: the shipped table and the library agree ---------------------------------

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))

import build_context_windows  # noqa: E402

from promptlint.providers import pricing  # noqa: E402


def test_shipped_context_window_table_is_what_the_build_makes_of_the_installed_library() -> None:
    import json

    shipped = build_context_windows.PATH.read_text(encoding="utf-8")
    if json.loads(shipped)["genai-prices"] != genai_prices.__version__:
        # Made from another release (genai-prices is not pinned): it is not used, and every
        # lookup asks the library, so the answers stay right; `make data` makes it fast again.
        pricing._shipped_windows.cache_clear()
        assert pricing._shipped_windows() == {}
        return
    assert shipped == build_context_windows.table()


def test_a_context_window_is_read_from_the_table_without_loading_the_library(tmp_path: Path) -> None:
    # The table the build makes of the installed release (the shipped one may be of another).
    (tmp_path / "windows.json").write_text(build_context_windows.table(), encoding="utf-8")
    code = (
        "import sys, pathlib; from promptlint.providers import pricing; "
        "pricing._WINDOWS_PATH = pathlib.Path(sys.argv[1]); "
        "print(pricing.context_window('openai', 'gpt-4o'), pricing.context_window('anthropic', 'claude-sonnet-4-5'), "
        "'genai_prices' in sys.modules)"
    )
    repo_root = str(Path(__file__).resolve().parents[1])
    result = subprocess.run([sys.executable, "-c", code, str(tmp_path / "windows.json")], capture_output=True,
                            text=True, check=True, env={**os.environ, "PYTHONPATH": repo_root}, cwd=repo_root)
    expected = (pricing.library_context_window("openai", "gpt-4o"),
                pricing.library_context_window("anthropic", "claude-sonnet-4-5"))
    assert None not in expected
    assert result.stdout.split() == [str(expected[0]), str(expected[1]), "False"]


@pytest.mark.parametrize("content", [
    '{"genai-prices": "0.0.1", "windows": {"openai": {"gpt-4o": 7}}}',  # made from another version
    "{not json",
    '{"genai-prices": "%s", "windows": {"openai": {"gpt-4o": "7"}}}' % genai_prices.__version__,
])
def test_a_table_from_another_version_or_unreadable_is_not_used(content: str, tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "windows.json").write_text(content)
    monkeypatch.setattr(pricing, "_WINDOWS_PATH", tmp_path / "windows.json")
    monkeypatch.delitem(sys.modules, "genai_prices")  # as in a fresh `check`
    pricing._shipped_windows.cache_clear()
    try:
        assert pricing.context_window("openai", "gpt-4o") == pricing.library_context_window("openai", "gpt-4o")
        assert pricing.context_window("openai", "gpt-4o") not in (None, 7)
    finally:
        pricing._shipped_windows.cache_clear()


def test_a_model_the_table_does_not_name_is_looked_up_in_the_library(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "windows.json").write_text(build_context_windows.table(), encoding="utf-8")
    monkeypatch.setattr(pricing, "_WINDOWS_PATH", tmp_path / "windows.json")
    monkeypatch.delitem(sys.modules, "genai_prices")
    pricing._shipped_windows.cache_clear()
    dated = "gpt-4o-2024-08-06"  # matched by the library's rules, not an id of its own
    assert "gpt-4o" in pricing._shipped_windows()["openai"] and dated not in pricing._shipped_windows()["openai"]
    try:
        assert pricing.context_window("openai", dated) == pricing.library_context_window("openai", dated) == 128_000
        assert pricing.context_window("openai", "no-such-model") is None
    finally:
        pricing._shipped_windows.cache_clear()
