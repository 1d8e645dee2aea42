"""A long fuzz of the exact token counts promptlint reads without re-encoding, against
tiktoken itself.

    .venv/bin/python tools/fuzz_tokens.py                       # 60 s, seed 1, both encodings
    .venv/bin/python tools/fuzz_tokens.py --seconds 600 --seed 7

Random texts (letters of several scripts, combining marks, emoji with joiners, digits,
punctuation, contractions, every kind of whitespace, and long runs of spaces, tabs and line
breaks) are checked with the encodings promptlint ships:

- ``tokens.encode`` is tiktoken's ``encode_ordinary``, and so is the Python encoder that
  spares a small check the Rust one (where it takes the text);
- ``SuffixTokens.after(k)`` and ``before(k)``, for a dozen offsets asked in order, are the
  counts of ``text[k:]`` and ``text[:k]`` encoded alone;
- ``spliced_encoding`` of the text with strings put in at random places gives the text's
  and the rendering's own encodings;
- ``shared_prefix_tokens`` of the rendering and another text is the common prefix of their
  encodings.

Each failure prints the check, the encoding and the text (``repr``); the exit code is 1 when
one failed. tests/test_suffix_tokens.py holds what it found; :func:`run` runs it in process.
"""

from __future__ import annotations

import random
import sys
import time
import traceback
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING, TextIO

from fuzzing import command_line

if TYPE_CHECKING:
    from promptlint.core.smallbpe import SmallEncoder

_PIECES = [*"ab Z9 0\n\r\t.,'-_{}()[]:;!?/\\\"#@$%^&*+=<>|~`", "é", "ü", "ß", "日", "本", "語", "🎉", "👩\u200d💻",
           "\u0301", "\u00a0", "\u2028", "\u3000", "\x85", "\x0b", "\x0c", "ك", "ש", "Ω", "ﬁ", "'s", "'LL", " the",
           "  ", "\n\n", "\r\n", "123456", "  \n", "//", "/*"]


def _text(rng: random.Random, parts: int) -> str:
    out = []
    for _ in range(parts):
        if rng.random() < 0.03:  # a long run: where the suffix counts read earlier encodings
            out.append(rng.choice([" ", "\n", "\t", "\r\n"]) * rng.randrange(50, 600))
            if rng.random() < 0.3:  # a separator line between runs of blank lines
                out.append(rng.choice("~-#=*/") + rng.choice(["\n", "\r\n"]) * rng.randrange(50, 600))
        else:
            out.append(rng.choice(_PIECES))
    return "".join(out)


@cache
def _small(encoding: str) -> SmallEncoder:
    from promptlint.core import smallbpe, tokens

    return smallbpe.SmallEncoder(tokens.ranks(encoding), tokens.split_pattern(encoding),
                                 tokens.token_length(encoding))


def _problems(rng: random.Random, text: str, encoding: str) -> Iterator[str]:
    from promptlint.core import tokens
    from promptlint.core.suffixtokens import SuffixTokens, shared_prefix_tokens, spliced_encoding

    tiktoken = tokens.get_encoding(encoding)
    whole = tiktoken.encode_ordinary(text)
    if tokens.encode(text, encoding) != whole:
        yield "tokens.encode differs from tiktoken's"
    small = _small(encoding).encode(text)
    if small is not None and small != whole:
        yield "the Python encoder differs from tiktoken"
    offsets = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, 12)))
    after, before = SuffixTokens(text, encoding), SuffixTokens(text, encoding)
    for offset in offsets:
        expected = len(tiktoken.encode_ordinary(text[offset:]))
        if after.after(offset) != expected:
            yield f"after({offset}) is {after.after(offset)}, not {expected}"
    for offset in offsets:
        expected = len(tiktoken.encode_ordinary(text[:offset]))
        if before.before(offset) != expected:
            yield f"before({offset}) is {before.before(offset)}, not {expected}"
    points = sorted(rng.sample(range(len(text) + 1), min(len(text) + 1, rng.randrange(1, 4))))
    pieces, spans, previous, shift = [], [], 0, 0
    for point in points:
        put = _text(rng, rng.randrange(1, 6))
        pieces += [text[previous:point], put]
        spans.append((point + shift, point + shift + len(put)))
        shift += len(put)
        previous = point
    rendered = "".join([*pieces, text[previous:]])
    ids, spliced, cuts, following = spliced_encoding(text, rendered, spans, encoding)
    rendered_ids = tiktoken.encode_ordinary(rendered)
    if ids != whole or spliced != rendered_ids:
        yield "spliced_encoding differs from encoding the text and the rendering whole"
        return
    # The suffix counts read from what splicing found (as an analysis reads them).
    spliced_after = SuffixTokens(text, encoding, ids, cuts, following)
    for point in points:
        expected = len(tiktoken.encode_ordinary(text[point:]))
        if spliced_after.after(point) != expected:
            yield f"after({point}), read from the splicing, is {spliced_after.after(point)}, not {expected}"
    cut = rng.randrange(len(rendered) + 1)
    other = (_text(rng, 3) + rendered[cut:]) if rng.random() < 0.5 else (rendered[:cut] + _text(rng, 3))
    expected = tokens.common_prefix_length(rendered_ids, tiktoken.encode_ordinary(other))
    if shared_prefix_tokens(rendered, spliced, other, encoding) != expected:
        yield f"shared_prefix_tokens is not {expected}"


def run(seed: int, count: int | None = None, seconds: float | None = None,
        out: TextIO | None = None) -> tuple[int, int]:
    """Fuzz ``count`` texts (or for ``seconds``), each with every shipped encoding; (texts
    tried, texts that failed). The first few counts of a text are asked of the table too
    (not answered by encoding the suffix, as a check of a small file does)."""
    from promptlint.core import suffixtokens, tokens

    stream = out if out is not None else sys.stdout
    rng = random.Random(seed)
    tried = failed = 0
    start = time.monotonic()
    direct, suffixtokens._DIRECT_QUERIES = suffixtokens._DIRECT_QUERIES, 0
    try:
        while (count is None or tried < count) and (seconds is None or time.monotonic() - start < seconds):
            text = _text(rng, rng.randrange(0, 120))
            tried += 1
            for encoding in tokens.SHIPPED_ENCODINGS:
                try:
                    found = list(_problems(rng, text, encoding))
                except Exception:  # noqa: BLE001 - every exception is a finding of the fuzz
                    found = ["raised:\n" + traceback.format_exc(limit=6)]
                if found:
                    failed += 1
                    print(f"FAILED ({encoding}): {'; '.join(found)}\n  text: {text!r}", file=stream)
                    break
    finally:
        suffixtokens._DIRECT_QUERIES = direct
    return tried, failed


def main() -> int:
    return command_line(__doc__ or "", run, "texts")


if __name__ == "__main__":
    raise SystemExit(main())
