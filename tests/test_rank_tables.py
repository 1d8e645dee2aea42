"""The pre-built BPE rank tables: rebuilt from the shipped .tiktoken files they match byte
for byte, they hold exactly the ranks tiktoken itself reads, and a table that was not
built from the published file, or that names a class, is not used."""

from __future__ import annotations

import pickle
import sys
from importlib import resources
from pathlib import Path

import pytest
from tiktoken.load import load_tiktoken_bpe

from promptlint.core import ranktable, tokens

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build_rank_tables  # noqa: E402


def _data(name: str) -> Path:
    return Path(str(resources.files("promptlint") / "data" / name))


@pytest.mark.parametrize("name", tokens.SHIPPED_ENCODINGS)
def test_shipped_table_is_what_the_build_makes_of_the_shipped_file(name: str) -> None:
    assert _data(f"{name}.ranks").read_bytes() == build_rank_tables.table_for(name)


@pytest.mark.parametrize("name", tokens.SHIPPED_ENCODINGS)
def test_table_loads_the_ranks_tiktoken_reads_from_the_file(name: str) -> None:
    expected = tokens.published_hash(name)
    assert expected is not None
    loaded = ranktable.load(_data(f"{name}.ranks").read_bytes(), expected)
    assert loaded is not None
    assert loaded == load_tiktoken_bpe(str(_data(f"{name}.tiktoken")), expected)
    assert tokens._shipped_bpe(name, expected) == loaded


def test_table_built_from_another_file_is_not_used() -> None:
    table = ranktable.build({b"a": 0, b"b": 1}, "0" * 64)
    assert ranktable.load(table, "0" * 64) == {b"a": 0, b"b": 1}
    assert ranktable.load(table, "1" * 64) is None


def test_table_that_names_a_class_or_is_not_a_table_is_refused() -> None:
    hostile = pickle.dumps((ranktable.FORMAT, ranktable.VERSION, "0" * 64, {b"a": Path("x")}))
    assert ranktable.load(hostile, "0" * 64) is None
    assert ranktable.load(b"not a pickle", "0" * 64) is None
    assert ranktable.load(pickle.dumps(("other", 1, "0" * 64, {})), "0" * 64) is None


def test_encoding_counts_the_same_from_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "Today is 2026-11-30. Héllo wörld, 🎉 emoji and code: `x = [1, 2]`\n"
    from_table = tokens.encode(text)
    # The same encoding built from the .tiktoken text file alone.
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(ranktable, "load", lambda data, expected: None)
    assert tokens.encode(text) == from_table
