"""The Python byte-pair encoder that spares a small check tiktoken's Rust encoder gives
tiktoken's own token ids: on every shipped fixture, on generated text, and across the
hand-over to tiktoken once the budget is spent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.core import smallbpe, tokens

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _encoder(encoding: str) -> smallbpe.SmallEncoder:
    return smallbpe.SmallEncoder(tokens.ranks(encoding), tokens.split_pattern(encoding),
                                 tokens.token_length(encoding))


def _tiktoken(text: str, encoding: str) -> list[int]:
    return tokens.get_encoding(encoding).encode(text, disallowed_special=())


def _fixture_texts() -> list[str]:
    texts = []
    for path in sorted(FIXTURES.rglob("*")):
        if path.is_file() and path.stat().st_size < 200_000:
            try:
                texts.append(path.read_text(encoding="utf-8"))
            except UnicodeDecodeError:
                continue
    return texts


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_every_fixture_encodes_as_tiktoken_does(encoding: str) -> None:
    small = _encoder(encoding)
    texts = _fixture_texts()
    assert len(texts) > 500
    compared = 0
    for text in texts:
        ids = small.encode(text)
        if ids is None:  # a piece too long to merge in Python: tiktoken encodes it
            continue
        assert ids == _tiktoken(text, encoding)
        # Every returned id has its byte length recorded: the suffix counter reads them.
        assert sum(map(small.lengths.__getitem__, ids)) == len(text.encode("utf-8"))
        compared += 1
    assert compared > len(texts) * 0.9


# Pieces of text glued together: letters, digits, spaces, contractions, joiners, marks,
# emoji, a lone surrogate, special-token text and any character at all.
_TEXT = st.lists(
    st.one_of(
        st.sampled_from(list("aeiou xyzAEZ0123456789 \n\r\t.,;:'\"!?{}[]()<>$%#_-/\\")),
        st.sampled_from(["'s", "'LL", " the", "\u00e9", "\u65e5\u672c", "\U0001f389", "\u200d", "\ufeff",
                         "\u0301", "\u0663", "\ud800", "<|endoftext|>", "  ", "\r\n"]),
        st.characters(),
    ),
    max_size=80,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=_TEXT, encoding=st.sampled_from(tokens.SHIPPED_ENCODINGS))
def test_generated_text_encodes_as_tiktoken_does(text: str, encoding: str) -> None:
    ids = _encoder(encoding).encode(text)
    if ids is not None:
        assert ids == _tiktoken(text, encoding)


def test_a_piece_too_long_to_merge_is_left_to_tiktoken() -> None:
    long_word = "q" * (smallbpe.MAX_PIECE + 1)  # one letter run: one piece of the split
    assert _encoder("o200k_base").encode(f"Hello {long_word}") is None
    assert tokens.encode(f"Hello {long_word}") == _tiktoken(f"Hello {long_word}", "o200k_base")


def test_lone_surrogates_are_replaced_as_tiktoken_replaces_them() -> None:
    text = "bad \ud83d half"
    assert _encoder("o200k_base").encode(text) == _tiktoken(text, "o200k_base")


def test_the_budget_hands_over_to_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "_small", {})
    monkeypatch.setattr(tokens, "_small_left", {})
    monkeypatch.setattr(tokens, "SMALL_TEXT_BUDGET", 40)
    first = tokens.encode("Today is a fine day for a walk.")  # 31 characters: in Python
    assert "o200k_base" in tokens._small and "o200k_base" not in tokens._encodings
    assert tokens.token_length()(first[0]) == len("Today")
    second = tokens.encode("Tomorrow is too.")  # over the budget: tiktoken is built
    assert "o200k_base" in tokens._encodings
    assert first == _tiktoken("Today is a fine day for a walk.", "o200k_base")
    assert second == _tiktoken("Tomorrow is too.", "o200k_base")
    assert tokens.token_length()(first[0]) == len("Today")  # ids from before still have lengths


def test_a_run_that_will_encode_more_than_the_budget_goes_to_tiktoken_at_once(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tokens, "_encodings", {})
    monkeypatch.setattr(tokens, "_small", {})
    monkeypatch.setattr(tokens, "_small_left", {})
    monkeypatch.setattr(tokens, "SMALL_TEXT_BUDGET", 100)
    tokens.expect_text(100)  # within the budget: nothing changes
    tokens.encode("A small text.")
    assert "o200k_base" in tokens._small and "o200k_base" not in tokens._encodings
    tokens.expect_text(101)
    tokens.encode("Another small text.")
    assert "o200k_base" in tokens._encodings
    # check_paths says how much a run over several files will read: over the budget, the
    # Python encoder is not even built.
    monkeypatch.setattr(tokens, "SMALL_TEXT_BUDGET", 1000)
    from promptlint.api import check_paths

    for n in range(5):
        (tmp_path / f"p{n}.md").write_text("Stable words. " * 20, encoding="utf-8")  # 280 characters each
    for paths, python_encoder in (([str(tmp_path / "p0.md")], True), ([str(tmp_path)], False)):
        monkeypatch.setattr(tokens, "_encodings", {})
        monkeypatch.setattr(tokens, "_small", {})
        monkeypatch.setattr(tokens, "_small_left", {})
        assert len(check_paths(paths).files) == len(paths) * (1 if python_encoder else 5)
        assert ("o200k_base" in tokens._small) is python_encoder


def test_a_character_newer_than_pythons_unicode_tables_is_left_to_tiktoken() -> None:
    """U+3D000 is unassigned in Python 3.11's tables; the `regex` module calls it a letter and
    tiktoken's Rust regex does not, so the two would split `<it>'s` differently."""
    text = "\U0003d000's"
    assert smallbpe.has_unknown_characters(text) and not smallbpe.has_unknown_characters("Zoë 日本 🎉")
    assert _encoder("o200k_base").encode(text) is None
    assert tokens.encode(text) == _tiktoken(text, "o200k_base")


def test_the_length_of_a_token_it_never_returned_is_the_encodings_own() -> None:
    # Its table of lengths answers for every id it returned, and asks the encoding's whole
    # table for any other (tiktoken's tokens, once a run has outgrown the Python encoder).
    encoder = _encoder("o200k_base")
    ids = encoder.encode("Keep answers short.")
    assert ids is not None and all(token in encoder.lengths for token in ids)
    other = _tiktoken("Zyzzyva quokka", "o200k_base")
    assert [encoder.lengths[token] for token in other] == [len(tokens.get_encoding("o200k_base").decode_single_token_bytes(t))
                                                           for t in other]
