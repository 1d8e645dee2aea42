"""Exact token counts, offline.

The BPE rank files for ``o200k_base`` and ``cl100k_base`` ship inside the package
(``promptlint/data``). They are checked against the sha256 that tiktoken itself
publishes for them (the ``expected_hash`` its own encoding constructors pass), and the
:class:`tiktoken.Encoding` is built from tiktoken's own constructor, so the split
pattern and special tokens are always the installed tiktoken's. Nothing touches the
network and no tiktoken cache directory is read or written.
"""

from __future__ import annotations

import binascii
import operator
import threading
from collections.abc import Callable, Sequence
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import tiktoken

    from promptlint.core.smallbpe import SmallEncoder

DEFAULT_MODEL = "gpt-5.5"
SHIPPED_ENCODINGS: tuple[str, ...] = ("o200k_base", "cl100k_base")

_lock = threading.Lock()
_encodings: dict[str, tiktoken.Encoding] = {}
# Short texts encoded by a built encoding, by encoding: the stretches between a unit and the
# next line ("Context: \n\n-") recur across a prompt and its project, and a lookup costs a
# tenth of an encoding. Emptied when full.
_SHORT_TEXT = 64
_SHORT_KEPT = 8192
_short_ids: dict[str, dict[str, list[int]]] = {}
_constructed: dict[str, dict[str, Any]] = {}


class TokenizerError(Exception):
    """The shipped BPE file is missing or does not match tiktoken's published hash."""


def _shipped_bpe(name: str, expected_hash: str | None) -> dict[bytes, int]:
    """The ranks of a shipped encoding: from its pre-built rank table when that was built
    from the file tiktoken publishes (:mod:`promptlint.core.ranktable`), else from the
    ``.tiktoken`` file itself, checked against tiktoken's published sha256."""
    if expected_hash is not None:
        from importlib import resources  # not on a cache hit

        table = resources.files("promptlint") / "data" / f"{name}.ranks"
        try:
            data = table.read_bytes()
        except FileNotFoundError:
            pass
        else:
            from promptlint.core import ranktable

            ranks = ranktable.load(data, expected_hash)
            if ranks is not None:
                return ranks
    return read_tiktoken_file(name, expected_hash)


def read_tiktoken_file(name: str, expected_hash: str | None) -> dict[bytes, int]:
    """The ranks in the shipped ``<name>.tiktoken``, checked against ``expected_hash``."""
    import hashlib
    from importlib import resources

    resource = resources.files("promptlint") / "data" / f"{name}.tiktoken"
    try:
        data = resource.read_bytes()
    except FileNotFoundError as exc:
        raise TokenizerError(f"{name}.tiktoken is missing from the promptlint package") from exc
    actual = hashlib.sha256(data).hexdigest()
    if expected_hash is not None and actual != expected_hash:
        raise TokenizerError(
            f"{name}.tiktoken: sha256 {actual} does not match tiktoken's published {expected_hash}"
        )
    # The .tiktoken format: one "<base64 token> <rank>" pair per line. Splitting the
    # whole file once and decoding with binascii is twice as fast as line by line.
    fields = data.split()
    if len(fields) % 2:
        raise TokenizerError(f"{name}.tiktoken is not a BPE rank file")
    return dict(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2]), strict=True))


def published_hash(name: str) -> str | None:
    """The sha256 tiktoken's own constructor for ``name`` passes for its rank file."""
    from tiktoken_ext import openai_public  # type: ignore[import-untyped]

    found: list[str | None] = []

    def record(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        found.append(expected_hash)
        raise _Recorded

    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = record
    try:
        openai_public.ENCODING_CONSTRUCTORS[name]()
    except _Recorded:
        pass
    finally:
        openai_public.load_tiktoken_bpe = original
    return found[0] if found else None


class _Recorded(Exception):
    """Stops a constructor once it named its rank file's hash."""


def _params(name: str) -> dict[str, Any]:
    """tiktoken's constructor arguments for ``name`` (pattern, special tokens, ranks), the
    ranks read from the shipped file; built once per process."""
    with _lock:
        if name not in _constructed:
            _constructed[name] = _construct(name)
        return _constructed[name]


def _construct(name: str) -> dict[str, Any]:
    from tiktoken_ext import openai_public

    if name not in SHIPPED_ENCODINGS:
        raise TokenizerError(f"encoding {name!r} is not shipped (shipped: {', '.join(SHIPPED_ENCODINGS)})")
    constructor = openai_public.ENCODING_CONSTRUCTORS[name]

    def load_shipped(blobpath: str, expected_hash: str | None = None) -> dict[bytes, int]:
        if expected_hash is None:
            raise TokenizerError(f"tiktoken published no sha256 for {blobpath}")
        return _shipped_bpe(blobpath.rsplit("/", 1)[-1].removesuffix(".tiktoken"), expected_hash)

    # The constructor fetches the ranks through this module-level name; pointing it at
    # the shipped file for the duration of the call keeps tiktoken's own pattern,
    # special tokens and published hash while never reaching the network.
    original = openai_public.load_tiktoken_bpe
    openai_public.load_tiktoken_bpe = load_shipped
    try:
        params: dict[str, Any] = constructor()
    finally:
        openai_public.load_tiktoken_bpe = original
    return params


def _build(name: str) -> tiktoken.Encoding:
    import tiktoken

    return tiktoken.Encoding(**_params(name))


def get_encoding(name: str) -> tiktoken.Encoding:
    """The named shipped encoding, built once per process."""
    built = _encodings.get(name)
    if built is None:
        built = _build(name)  # outside the lock, which _params takes itself
        with _lock:
            built = _encodings.setdefault(name, built)
    return built


def split_pattern(name: str) -> str:
    """The regex that splits text into the pieces ``name`` byte-pair encodes one by one."""
    pattern: str = _params(name)["pat_str"]
    return pattern


def ranks(name: str) -> dict[bytes, int]:
    """The ordinary tokens of ``name``: token bytes to id."""
    found: dict[bytes, int] = _params(name)["mergeable_ranks"]
    return found


@lru_cache(maxsize=64)  # asked for every file; tiktoken's map tries each known prefix in turn
def encoding_name_for_model(model: str) -> str:
    """tiktoken's own model map; models it does not know (Claude, Gemini…) use o200k_base."""
    from tiktoken.model import encoding_name_for_model as tiktoken_map

    try:
        name = tiktoken_map(model)
    except KeyError:
        return "o200k_base"
    # gpt-oss uses o200k_harmony: the same ranks as o200k_base plus chat special tokens.
    return "o200k_base" if name == "o200k_harmony" else name


def is_exact_for(model: str) -> bool:
    """Whether the local tokenizer is the model's own (OpenAI models) or an estimate."""
    from tiktoken.model import encoding_name_for_model as tiktoken_map

    try:
        tiktoken_map(model)
    except KeyError:
        return False
    return True


# Model families that are not OpenAI's: their tokenizer is not public, and every count
# for them is an estimate said as "≈" where it is shown. Any other name tiktoken does not
# know is probably a typo, and worth a word.
_OTHER_FAMILIES = ("claude", "gemini", "gemma", "deepseek", "grok", "llama", "qwen", "mistral", "mixtral",
                   "phi", "command", "kimi", "glm", "accounts/")


def unknown_model_note(model: str) -> str | None:
    """A one-line note when ``model`` is neither in tiktoken's model map nor a known other
    family: which tokenizer was assumed instead. None when the model is known."""
    if model == DEFAULT_MODEL or model.lower().startswith(_OTHER_FAMILIES) or is_exact_for(model):
        return None  # the default needs no look-up (a warm check never imports tiktoken)
    return (f"model `{model}` is not in tiktoken's model map: tokens are counted with o200k_base "
            f"(the {DEFAULT_MODEL} tokenizer), an estimate; check the name")


# Characters encoded in Python (:mod:`promptlint.core.smallbpe`) before tiktoken's Rust
# encoder is built: building it costs 0.11 s (o200k_base), about as much as merging 0.5 MB in
# Python, which runs at a quarter of its speed. A one-file check stays under the budget; a
# run over many files builds the encoder once it has spent it.
SMALL_TEXT_BUDGET = 256 * 1024
_small: dict[str, SmallEncoder] = {}
_small_left: dict[str, int] = {}


def expect_text(size: int) -> None:
    """Say that about ``size`` characters will be encoded in this process: when they are
    more than the Python encoder's budget, the Rust encoder is built at the first encoding
    instead of after the budget is spent at a quarter of its speed."""
    if size > SMALL_TEXT_BUDGET:
        with _lock:
            for name in SHIPPED_ENCODINGS:
                _small_left[name] = 0


def _small_encoder(name: str, size: int) -> SmallEncoder | None:
    """The Python encoder, while ``name``'s Rust one is not built and ``size`` more
    characters fit in the budget (they are taken from it)."""
    if name in _encodings or _small_left.get(name, SMALL_TEXT_BUDGET) < size:
        return None
    with _lock:
        _small_left[name] = _small_left.get(name, SMALL_TEXT_BUDGET) - size
    if name not in _small:
        params = _params(name)
        from promptlint.core.smallbpe import SmallEncoder

        _small.setdefault(name, SmallEncoder(params["mergeable_ranks"], params["pat_str"],
                                             lambda token: _all_lengths(name)[token]))
    return _small[name]


def encode(text: str, encoding: str = "o200k_base") -> list[int]:
    """Token ids of ``text``; special-token text is encoded as ordinary text."""
    built = _encodings.get(encoding)
    if built is not None:  # asked for every unit's window: the shortest way there
        if len(text) > _SHORT_TEXT:
            return built.encode_ordinary(text)
        kept = _short_ids.get(encoding)
        if kept is None:
            kept = _short_ids.setdefault(encoding, {})
        ids = kept.get(text)
        if ids is None:
            ids = built.encode_ordinary(text)
            if len(kept) >= _SHORT_KEPT:
                kept.clear()
            kept[text] = ids
        return ids.copy()  # the caller's own list
    small = _small_encoder(encoding, len(text))
    if small is not None:
        ids = small.encode(text)
        if ids is not None:
            return ids
    return get_encoding(encoding).encode(text, disallowed_special=())


def encode_piece(piece: str, encoding: str = "o200k_base") -> list[int]:
    """Token ids of one piece of ``encoding``'s split (see :func:`split_pattern`)."""
    small = _small_encoder(encoding, len(piece))
    if small is not None:
        ids = small.encode_piece(piece)
        if ids is not None:
            return ids
    return get_encoding(encoding)._encode_single_piece(piece)


def token_length(encoding: str = "o200k_base") -> Callable[[int], int]:
    """The byte length of a token id, for every id :func:`encode` has returned so far."""
    small = _small.get(encoding)
    if small is None or encoding in _encodings:
        return _all_lengths(encoding).__getitem__
    return small.lengths.__getitem__  # every id so far came from it


@cache
def _all_lengths(encoding: str) -> list[int]:
    """The byte length of every ordinary token of an encoding, by token id (a list: read a
    token at a time, it answers faster than an array, which makes each int anew)."""
    table = ranks(encoding)
    # The shipped tables hold their tokens in rank order, ranks 0, 1, 2…: the lengths are
    # then the keys' own, read in one pass in C (under half the loop's time: 10 ms less at each
    # run's first file). Any other table is read rank by rank.
    if all(map(operator.eq, table.values(), range(len(table)))):
        return list(map(len, table))
    lengths = [0] * (max(table.values()) + 1)
    for token, rank in table.items():
        lengths[rank] = len(token)
    return lengths


def count(text: str, encoding: str = "o200k_base") -> int:
    return len(encode(text, encoding))


# Tokens compared per slice in ``common_prefix_length``.
_CHUNK = 1024


def common_prefix_length(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences.

    Whole chunks are compared as slices first (one C-level comparison each; two renders of
    a large file share most of their tokens), then the chunk that differs token by token."""
    n = min(len(a), len(b))
    i = 0
    while i + _CHUNK <= n and a[i : i + _CHUNK] == b[i : i + _CHUNK]:
        i += _CHUNK
    while i < n and a[i] == b[i]:
        i += 1
    return i
