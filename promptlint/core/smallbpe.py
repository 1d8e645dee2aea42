"""Byte-pair encoding of small texts in Python, so that a one-file check need not build
tiktoken's ``CoreBPE``.

Building the Rust encoder of ``o200k_base`` takes about 0.11 s (it copies 200,000 ranks
into its own tables), more than a check of a small prompt spends on everything else. The
tokens of a few kilobytes are found here instead, from the same ranks and the same split
pattern, by the algorithm tiktoken's ``byte_pair_encode`` runs (``src/lib.rs``; its
``_educational.py`` writes it in Python): the text is split into pieces with the
encoding's regex; a piece that is itself a token is that token; else its bytes are merged,
pair by pair, always the adjacent pair of lowest rank, the leftmost of equals, until no
adjacent pair is a token. The ids are the ranks of the parts left. The result is exactly
tiktoken's (``tests/test_smallbpe.py`` compares them on every shipped fixture and on
generated text).

The merge loop is quadratic in a piece's length, so a piece longer than :data:`MAX_PIECE`
bytes (a long run of letters: a base64 blob, a hash) is not encoded here: the caller hands
the text to tiktoken (``None``). So is a text holding a character this Python's Unicode
tables do not know (:func:`has_unknown_characters`): the ``regex`` module and tiktoken's Rust
regex may each have newer tables, and a character one calls a letter and the other does not
splits the text differently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

# Longest piece merged here (bytes): 64 bytes cost at most about 2,000 rank look-ups.
MAX_PIECE = 64


class _Lengths(dict[int, int]):
    """The byte length of every token id the Python encoder returned so far; any other id's
    is asked of ``fallback``. A caller that took the lookup while this encoder served may
    be handed tokens of tiktoken's once the run has outgrown it."""

    def __init__(self, fallback: Callable[[int], int]) -> None:
        super().__init__()
        self._fallback = fallback

    def __missing__(self, token: int) -> int:
        return self._fallback(token)


class SmallEncoder:
    """Ordinary-text encoding with an encoding's ranks and split pattern, in Python."""

    def __init__(self, ranks: Mapping[bytes, int], pattern: str, length: Callable[[int], int]) -> None:
        """``length``: the byte length of any token id of the encoding (its whole table)."""
        import regex  # type: ignore[import-untyped]  # no stubs; tiktoken depends on it

        self._ranks = ranks
        self._split: Callable[[str], list[str]] = regex.compile(pattern).findall
        self._pieces: dict[str, list[int]] = {}  # prompts repeat their words
        self.lengths: dict[int, int] = _Lengths(length)  # byte length of every token id returned so far

    def encode(self, text: str) -> list[int] | None:
        """The token ids of ``text``, or None when it holds a piece too long to merge here
        or a character whose class the regex engines may disagree on."""
        if has_unknown_characters(text):
            return None
        ids: list[int] = []
        known = self._pieces
        for piece in self._split(_utf8_safe(text)):
            found = known.get(piece)
            if found is None:
                found = self.encode_piece(piece)
                if found is None:
                    return None
                known[piece] = found
            ids.extend(found)
        return ids

    def encode_piece(self, piece: str) -> list[int] | None:
        """The tokens of one piece of the split (None when it is longer than MAX_PIECE bytes)."""
        data = piece.encode("utf-8")
        ranks = self._ranks
        whole = ranks.get(data)
        if whole is not None:
            self.lengths[whole] = len(data)
            return [whole]
        if len(data) > MAX_PIECE:
            return None
        parts = [data[i : i + 1] for i in range(len(data))]
        while len(parts) > 1:
            best = -1
            best_rank = 0
            for i in range(len(parts) - 1):
                rank = ranks.get(parts[i] + parts[i + 1])
                if rank is not None and (best < 0 or rank < best_rank):
                    best, best_rank = i, rank
            if best < 0:
                break
            parts[best : best + 2] = [parts[best] + parts[best + 1]]
        ids = [ranks[part] for part in parts]
        for part, token in zip(parts, ids, strict=True):
            self.lengths[token] = len(part)
        return ids


def has_unknown_characters(text: str) -> bool:
    """Whether ``text`` holds a code point unassigned in this Python's Unicode tables (one
    assigned in a later Unicode version, which the two regex engines may class differently)."""
    if text.isascii():
        return False
    from unicodedata import category

    return any(category(c) == "Cn" for c in set(text) if c > "\x7f")


def _utf8_safe(text: str) -> str:
    """``text`` with lone surrogates replaced, as tiktoken's ``Encoding.encode`` does."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return text

