"""Where a request stops repeating the one before it, and the likely cause.

Causes: ``timestamp``, ``id``, ``tool-order``, ``key-order``, ``whitespace``,
``model-change``, ``ttl-expiry``, ``history`` (an earlier message re-rendered) and
``content`` (anything else).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from promptlint.providers.base import lcp
from promptlint.replay.log import LogEntry
from promptlint.requestbody import ChunkTokenizer, Rendered

EXCERPT = 40


_TIME_PATTERNS = (
    re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"),
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?\b"),
    re.compile(r"\b1[6-9]\d{8}(?:\d{3})?\b"),  # epoch seconds / milliseconds
)
_ID_PATTERNS = (
    re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"),
    re.compile(r"\b(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{12,}\b"),
    re.compile(r"\b[a-z]{2,8}_[A-Za-z0-9]{10,}\b"),
)


def _common_prefix(a: str, b: str) -> int:
    limit = min(len(a), len(b))
    low, high = 0, limit
    while low < high:  # binary search on slices: fast for long equal prefixes
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def _changed_region(a: str, b: str) -> tuple[int, int, int]:
    """(common prefix, end of the changed part in ``a``, in ``b``)."""
    prefix = _common_prefix(a, b)
    suffix = min(_common_prefix(a[::-1], b[::-1]), min(len(a), len(b)) - prefix)
    return prefix, len(a) - suffix, len(b) - suffix


def _touches(patterns: Sequence[re.Pattern[str]], text: str, start: int, end: int) -> bool:
    end = max(end, start + 1)
    window = text[max(0, start - 40) : end + 40]
    offset = max(0, start - 40)
    return any(
        m.start() + offset < end and m.end() + offset > start for p in patterns for m in p.finditer(window)
    )


def _same_json(a: str, b: str) -> bool:
    try:
        return bool(json.loads(a) == json.loads(b))
    except (json.JSONDecodeError, TypeError):
        return False


def classify(previous: Rendered, current: Rendered, chunk_index: int) -> str:
    """The likely cause of the first difference, which lies in chunk ``chunk_index``."""
    old, new = previous.chunks[chunk_index], current.chunks[chunk_index]
    if new.section == "tools":
        old_names = [c.body for c in previous.chunks if c.section == "tools"]
        new_names = [c.body for c in current.chunks if c.section == "tools"]
        if old_names != new_names and sorted(map(_canonical, old_names)) == sorted(map(_canonical, new_names)):
            return "tool-order" if [_canonical(x) for x in old_names] != [_canonical(x) for x in new_names] else "key-order"
    if old.body != new.body and _same_json(old.body, new.body):
        return "key-order"
    if re.sub(r"\s+", "", old.text) == re.sub(r"\s+", "", new.text):
        return "whitespace"
    prefix, end_old, end_new = _changed_region(old.text, new.text)
    if _touches(_TIME_PATTERNS, new.text, prefix, end_new) or _touches(_TIME_PATTERNS, old.text, prefix, end_old):
        return "timestamp"
    if _touches(_ID_PATTERNS, new.text, prefix, end_new) or _touches(_ID_PATTERNS, old.text, prefix, end_old):
        return "id"
    if new.section == "messages" and new.message_index != current.latest_user_index:
        return "history"
    return "content"


def _canonical(text: str) -> str:
    try:
        return json.dumps(json.loads(text), sort_keys=True)
    except json.JSONDecodeError:
        return text


@dataclass
class Prepared:
    """A log entry tokenised for the replay: its model, token ids, block ends and clock."""

    entry: LogEntry
    model: str
    ids: list[int]
    ends: list[int]
    time: float


def _excerpt(text: str, at: int) -> str:
    start = max(0, at - EXCERPT)
    return ("…" if start else "") + text[start : at + EXCERPT] + ("…" if at + EXCERPT < len(text) else "")


def divergence(
    previous: Prepared, current: Prepared, tokenizer: ChunkTokenizer, ttl_seconds: float | None
) -> dict[str, Any] | None:
    """The first place ``current`` stops repeating ``previous``, or None (a plain extension)."""
    old, new = previous.entry.rendered, current.entry.rendered
    if previous.model != current.model:
        return {"path": "model", "char_offset": 0, "token_offset": 0, "cause": "model-change",
                "before": previous.model, "after": current.model}
    chunk_index = next(
        (i for i, (a, b) in enumerate(zip(old.chunks, new.chunks)) if a.text != b.text or a.path != b.path),
        None,
    )
    if chunk_index is None:
        if ttl_seconds is not None and current.time - previous.time > ttl_seconds:
            path = new.chunks[0].path_text if new.chunks else ""
            return {"path": path, "char_offset": 0, "token_offset": 0, "cause": "ttl-expiry",
                    "gap_seconds": round(current.time - previous.time, 3)}
        return None
    a, b = old.chunks[chunk_index], new.chunks[chunk_index]
    if a.section == "messages" and a.role == "user" and a.message_index == old.latest_user_index and (
        b.message_index == new.latest_user_index
    ):
        return None  # the latest turn is new on every request: not a break
    within = _common_prefix(a.text, b.text)
    chars_before = sum(len(c.text) for c in new.chunks[:chunk_index])
    tokens_before = current.ends[chunk_index - 1] if chunk_index else 0
    token_offset = tokens_before + lcp(tokenizer.encode(a.text), tokenizer.encode(b.text))
    return {
        "path": b.path_text,
        "char_offset": chars_before + within,
        "token_offset": token_offset,
        "cause": classify(old, new, chunk_index),
        "before": _excerpt(a.text, within),
        "after": _excerpt(b.text, within),
    }
