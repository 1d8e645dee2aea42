"""Token counts of the suffixes of one text, from one encoding of it.

The rules ask, for every volatile unit, how many stable tokens follow it: the count of
``text[offset:]`` encoded on its own (:func:`promptlint.core.tokens.count`). Encoding each
suffix again makes a file with n units cost n encodings of the file. Here the text is
encoded once, and each suffix's count is read from it, exactly.

Why it is exact: tiktoken splits text into pieces with its encoding's regex (no
look-behind, so a scan that starts at a position depends only on the text from there on)
and byte-pair encodes each piece alone. The scan of ``text[offset:]`` therefore meets the
scan of the whole text at the first piece start they share, and from there on yields the
same pieces, whose tokens are the whole text's tokens from that position. Before it, the
few pieces of the suffix's own scan are encoded one by one, as tiktoken would.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from functools import cache
from itertools import accumulate
from typing import Any

from promptlint.core import tokens

# Characters between two known byte offsets of a non-ASCII text (see ``_byte_offset``).
_CHECKPOINT = 4096


@cache
def _pattern(source: str) -> Any:
    """tiktoken's split pattern, compiled with ``regex`` (the module tiktoken itself
    depends on, and whose syntax its patterns are written in)."""
    import regex  # type: ignore[import-untyped]  # no stubs; tiktoken depends on it

    return regex.compile(source)


# Suffixes counted by encoding them, before the table is built: most files ask a few times,
# and one encoding of a suffix costs less than the table.
_DIRECT_QUERIES = 1


class SuffixTokens:
    """``after(offset)``: ``tokens.count(text[offset:], encoding)``, without re-encoding."""

    def __init__(self, text: str, encoding: str) -> None:
        self.text = text
        self.encoding = encoding
        self._asked = 0
        self._built = False

    def _build(self) -> None:
        self._built = True
        text, encoding = self.text, self.encoding
        from promptlint.core.smallbpe import has_unknown_characters

        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            # Lone surrogates: tiktoken replaces them before encoding, so byte offsets
            # would not line up; such a text is counted suffix by suffix.
            self._exact = False
            return
        if has_unknown_characters(text):
            # A character the `regex` module and tiktoken's Rust regex may class differently
            # (assigned in a newer Unicode version): the two scans might not split alike.
            self._exact = False
            return
        self._exact = True
        ids = tokens.encode(text, encoding)
        self.total = len(ids)
        # Byte offset where each token starts, and where each piece of the scan starts.
        self._token_starts = array("q", accumulate(map(tokens.token_length(encoding), ids), initial=0))
        self._token_starts.pop()
        self._regex = _pattern(tokens.split_pattern(encoding))
        self._piece_starts = _piece_starts(self._regex, text)
        # Byte offsets of every _CHECKPOINT-th character (non-ASCII text only).
        self._checkpoints: list[int] | None = None
        if len(data) != len(text):
            self._checkpoints = list(accumulate(
                (len(text[i : i + _CHECKPOINT].encode("utf-8")) for i in range(0, len(text), _CHECKPOINT)),
                initial=0,
            ))

    def after(self, offset: int) -> int:
        """Tokens of ``text[offset:]`` encoded on its own."""
        if offset >= len(self.text):
            return 0
        offset = max(0, offset)
        self._asked += 1
        if self._asked <= _DIRECT_QUERIES:
            return tokens.count(self.text[offset:], self.encoding)
        if not self._built:
            self._build()
        if not self._exact:
            return tokens.count(self.text[offset:], self.encoding)
        if self._is_piece_start(offset):
            return self._tokens_from(offset)
        head = 0
        for match in self._regex.finditer(self.text, offset):
            start = match.start()
            if self._is_piece_start(start):
                return head + self._tokens_from(start)
            head += len(tokens.encode_piece(match.group(), self.encoding))
        return head

    def _is_piece_start(self, offset: int) -> bool:
        i = bisect_left(self._piece_starts, offset)
        return i < len(self._piece_starts) and self._piece_starts[i] == offset

    def _tokens_from(self, offset: int) -> int:
        """Tokens of the whole text's encoding from a piece start on."""
        return self.total - bisect_left(self._token_starts, self._byte_offset(offset))

    def _byte_offset(self, offset: int) -> int:
        if self._checkpoints is None:
            return offset
        base = offset - offset % _CHECKPOINT
        return self._checkpoints[base // _CHECKPOINT] + len(self.text[base:offset].encode("utf-8"))


def _piece_starts(regex: Any, text: str) -> array[int]:
    """Where each piece of the scan of ``text`` starts.

    The pieces' lengths are read from ``findall`` (its list is built without a match object
    per piece). When the pieces tile the text (their lengths add up to it, as tiktoken's
    patterns make them do), the starts are the running sums; else each match is asked."""
    if not regex.groups:
        starts = array("q", accumulate(map(len, regex.findall(text)), initial=0))
        if starts[-1] == len(text):
            starts.pop()
            return starts
    return array("q", (m.start() for m in regex.finditer(text)))
