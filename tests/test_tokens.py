"""Offline, exact tokens: shipped BPE files, tiktoken's hashes and model map, and the
stable prefix counted on real token ids."""

from __future__ import annotations

import socket

import pytest

from promptlint.core import tokens
from promptlint.core.analysis import analyze, find_units, render
from promptlint.loaders import load_text

# Token ids published by / reproducible with tiktoken for these encodings.
KNOWN_IDS = {
    "o200k_base": {
        "Hello, world!": [13225, 11, 2375, 0],
        "Today is ": [18449, 382, 220],
        "": [],
    },
    "cl100k_base": {
        "Hello, world!": [9906, 11, 1917, 0],
        "Today is ": [15724, 374, 220],
        "": [],
    },
}


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_known_token_ids(encoding: str) -> None:
    for text, ids in KNOWN_IDS[encoding].items():
        assert tokens.encode(text, encoding) == ids
        assert tokens.count(text, encoding) == len(ids)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_round_trip_and_special_token_text(encoding: str) -> None:
    enc = tokens.get_encoding(encoding)
    text = "Zoë says: 日本語 🎉 <|endoftext|> is plain text here.\r\n"
    ids = tokens.encode(text, encoding)
    assert enc.decode(ids) == text
    # Special-token text is encoded as ordinary text, never as the special token id.
    assert enc.eot_token not in ids


def test_encodings_differ() -> None:
    assert tokens.encode("Hello, world!", "o200k_base") != tokens.encode("Hello, world!", "cl100k_base")
    assert tokens.get_encoding("o200k_base").n_vocab > tokens.get_encoding("cl100k_base").n_vocab


def test_unknown_encoding_is_refused() -> None:
    with pytest.raises(tokens.TokenizerError):
        tokens._build("p50k_base")


def test_sha256_check_rejects_a_wrong_hash() -> None:
    with pytest.raises(tokens.TokenizerError, match="sha256"):
        tokens._shipped_bpe("o200k_base", "0" * 64)


def test_sha256_check_rejects_a_tampered_file(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A shipped file whose bytes changed no longer matches tiktoken's published hash."""
    import inspect
    import re
    from importlib import resources

    from tiktoken_ext import openai_public

    published = re.search(r'expected_hash="([0-9a-f]{64})"', inspect.getsource(openai_public.cl100k_base))
    assert published is not None
    expected = published.group(1)
    real = (resources.files("promptlint") / "data" / "cl100k_base.tiktoken").read_bytes()
    # The real file passes with tiktoken's hash...
    assert len(tokens._shipped_bpe("cl100k_base", expected)) == 100256
    # ...and a copy with one rank changed does not.
    tampered_dir = tmp_path / "promptlint"
    (tampered_dir / "data").mkdir(parents=True)
    first, rest = real.split(b"\n", 1)
    token, rank = first.split()
    (tampered_dir / "data" / "cl100k_base.tiktoken").write_bytes(token + b" " + str(int(rank) + 1).encode() + b"\n" + rest)
    monkeypatch.setattr(resources, "files", lambda package: tampered_dir)
    with pytest.raises(tokens.TokenizerError, match="does not match"):
        tokens._shipped_bpe("cl100k_base", expected)


def test_build_uses_tiktoken_published_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    """_build passes tiktoken's own expected_hash to the shipped-file check."""
    seen: list[tuple[str, str | None]] = []
    original = tokens._shipped_bpe

    def spy(name: str, expected_hash: str | None) -> dict[bytes, int]:
        seen.append((name, expected_hash))
        return original(name, expected_hash)

    monkeypatch.setattr(tokens, "_shipped_bpe", spy)
    monkeypatch.setattr(tokens, "_constructed", {})
    enc = tokens._build("cl100k_base")
    assert seen and seen[0][0] == "cl100k_base"
    assert seen[0][1] is not None and len(seen[0][1]) == 64
    assert enc.encode("Hello, world!") == [9906, 11, 1917, 0]


def test_no_network_is_touched(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:  # type: ignore[no-untyped-def]
    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    # No tiktoken cache may stand in for the shipped files either.
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "tiktoken-cache"))
    monkeypatch.setenv("DATA_GYM_CACHE_DIR", str(tmp_path / "data-gym-cache"))
    for table in ("_encodings", "_constructed", "_small", "_small_left"):
        monkeypatch.setattr(tokens, table, {})
    for name in tokens.SHIPPED_ENCODINGS:
        assert tokens.encode("Hello, world!", name) == KNOWN_IDS[name]["Hello, world!"]  # in Python
        assert tokens.get_encoding(name).encode("Hello, world!") == KNOWN_IDS[name]["Hello, world!"]
    assert set(tokens._encodings) == set(tokens.SHIPPED_ENCODINGS)
    assert not (tmp_path / "tiktoken-cache").exists()
    assert not (tmp_path / "data-gym-cache").exists()


@pytest.mark.parametrize(
    ("model", "encoding", "exact"),
    [
        ("gpt-4o", "o200k_base", True),
        ("gpt-4o-mini", "o200k_base", True),
        ("gpt-5.5", "o200k_base", True),
        ("gpt-4", "cl100k_base", True),
        ("gpt-3.5-turbo", "cl100k_base", True),
        ("claude-sonnet-4-5", "o200k_base", False),
        ("gemini-2.5-pro", "o200k_base", False),
        ("totally-unknown-model", "o200k_base", False),
    ],
)
def test_model_to_encoding(model: str, encoding: str, exact: bool) -> None:
    assert tokens.encoding_name_for_model(model) == encoding
    assert tokens.is_exact_for(model) is exact


def test_default_model_is_an_openai_model() -> None:
    assert tokens.encoding_name_for_model(tokens.DEFAULT_MODEL) == "o200k_base"


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ([], [], 0),
        ([1, 2, 3], [], 0),
        ([1, 2, 3], [1, 2, 3], 3),
        ([1, 2, 3], [1, 2, 4], 2),
        ([1, 2], [1, 2, 3, 4], 2),
        ([5, 2, 3], [1, 2, 3], 0),
        ((1, 2, 3), [1, 2, 9], 2),
    ],
)
def test_common_prefix_length(a, b, expected: int) -> None:  # type: ignore[no-untyped-def]
    assert tokens.common_prefix_length(a, b) == expected
    assert tokens.common_prefix_length(b, a) == expected


def _lcp(a: list[int], b: list[int]) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
@pytest.mark.parametrize("slot", ["{{ date }}", "{{ user_name }}", "{{ now() }}"])
def test_stable_prefix_is_measured_on_real_token_ids(encoding: str, slot: str) -> None:
    """The BPE boundary trap: the space before a value may merge into its first token,
    so the stable prefix is not simply the tokens of the text before the slot."""
    template = load_text("p.j2", f"Today is {slot}", "jinja")
    analysis = analyze(template, encoding)
    units = find_units(template)
    assert len(units) == 1
    first = tokens.encode(render(template, units, 0), encoding)
    second = tokens.encode(render(template, units, 1), encoding)
    assert first != second
    assert analysis.tokens == len(first)
    assert analysis.stable_prefix_tokens == _lcp(first, second)
    naive = tokens.encode("Today is ", encoding)
    if first[: len(naive)] != naive:  # the space merged into the value's first token
        assert analysis.stable_prefix_tokens < len(naive)
    else:
        assert analysis.stable_prefix_tokens >= len(naive)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_space_merges_into_a_word_value(encoding: str) -> None:
    """With a name as the value, " Alice" is one token: the prefix stops before the space."""
    template = load_text("p.j2", "Today is {{ user_name }}", "jinja")
    analysis = analyze(template, encoding)
    naive = tokens.encode("Today is ", encoding)
    assert naive[-1] == tokens.encode(" ", encoding)[0]
    rendered = tokens.encode(analysis.rendered, encoding)
    assert rendered[: len(naive)] != naive
    assert analysis.stable_prefix_tokens == len(tokens.encode("Today is", encoding)) == len(naive) - 1


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_short_texts_kept_once_encoded_are_encoded_as_ever(encoding: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # A short text is encoded once and looked up after: each answer is the encoding's own,
    # a list of the caller's (changing it changes no later answer), also once the kept
    # texts were let go for being too many.
    monkeypatch.setattr(tokens, "_SHORT_KEPT", 3)
    built = tokens.get_encoding(encoding)
    texts = ["Context: \n\n-", "\n\n#", "héllo 🎉", "a\ud800b", "x" * tokens._SHORT_TEXT, "y" * (tokens._SHORT_TEXT + 1)]
    for _ in range(3):
        for text in texts:
            for _asked in range(2):  # the second time, from what was kept (unless too long)
                ids = tokens.encode(text, encoding)
                assert ids == built.encode_ordinary(text)
                ids.append(-1)


@pytest.mark.parametrize("encoding", tokens.SHIPPED_ENCODINGS)
def test_token_lengths_are_each_tokens_byte_length(encoding: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # The shipped tables are read in one pass (their tokens in rank order); a table whose
    # order is another is read rank by rank, with the same answer.
    table = tokens.ranks(encoding)
    by_rank = {rank: len(token) for token, rank in table.items()}
    lengths = tokens._all_lengths.__wrapped__(encoding)
    assert lengths == [by_rank[rank] for rank in range(len(lengths))]
    shuffled = dict(reversed(list(table.items())))
    monkeypatch.setattr(tokens, "ranks", lambda _name: shuffled)
    assert tokens._all_lengths.__wrapped__(encoding) == lengths
    with_a_gap = {b"ab": 0, b"c": 2}
    monkeypatch.setattr(tokens, "ranks", lambda _name: with_a_gap)
    assert tokens._all_lengths.__wrapped__(encoding) == [2, 0, 1]
