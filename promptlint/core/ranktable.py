"""The BPE ranks of a shipped encoding, pre-built in a format that loads three times faster
than tiktoken's text format.

A ``.tiktoken`` file is one ``<base64 token> <rank>`` line per token: reading it means
hashing, splitting and base64-decoding 3.6 MB (o200k_base) on every run. The rank table
(``<name>.ranks`` next to it in ``promptlint/data``) is the same ``dict[bytes, int]``,
pickled, with the sha256 of the ``.tiktoken`` file it was built from. It is built from the
shipped ``.tiktoken`` by ``tools/build_rank_tables.py`` (``make ranks``), and a test
rebuilds it and compares it byte for byte with the shipped one.

Only a table built from the file whose sha256 tiktoken publishes is used (the hash is
checked when it loads; else the ``.tiktoken`` file is read), and unpickling it can build
nothing but the builtin containers it holds: it refuses every class or function.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

FORMAT = "promptlint-bpe-ranks"
VERSION = 1
# Pinned so that a rebuild gives the same bytes on every supported Python.
_PROTOCOL = 5


def build(ranks: dict[bytes, int], source_sha256: str) -> bytes:
    """The table of ``ranks`` (read from a ``.tiktoken`` file with that sha256), in rank order."""
    ordered = dict(sorted(ranks.items(), key=lambda item: item[1]))
    return pickle.dumps((FORMAT, VERSION, source_sha256, ordered), protocol=_PROTOCOL)


class _DataOnly(pickle.Unpickler):
    """An unpickler of plain data: a table that names any class or function is refused."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a rank table holds only data, not {module}.{name}")


def load(data: bytes, expected_sha256: str) -> dict[bytes, int] | None:
    """The ranks of a table built from the ``.tiktoken`` file with ``expected_sha256``;
    None when the table is of another format or version, or was built from another file."""
    try:
        loaded = _DataOnly(io.BytesIO(data)).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, MemoryError):
        return None
    if not (isinstance(loaded, tuple) and len(loaded) == 4 and loaded[:2] == (FORMAT, VERSION)):
        return None
    if loaded[2] != expected_sha256 or not isinstance(loaded[3], dict):
        return None
    ranks: dict[bytes, int] = loaded[3]
    return ranks
