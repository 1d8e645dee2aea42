"""Replay a log of real requests through the cache model and find where each one broke.

``promptlint replay LOG``: a JSONL file, one logged request per line, either a bare request
body or ``{"request": body, "timestamp": ISO or epoch seconds, "routing_key": str,
"usage": provider usage, "provider": "openai" | "anthropic"}``. Each body is rendered in its
provider's order (:mod:`promptlint.requestbody`), tokenised (o200k_base; ≈ for Claude),
and replayed through its cache model (:func:`promptlint.providers.simulate`; timestamps drive
TTLs; 1 s apart when absent). For each request: predicted vs reported cached tokens (the
provider modules' usage fields, :func:`promptlint.providers.reported`), the first divergence
from the previous request (JSON path, char and token offset, excerpts) and its likely cause;
then a summary with the tokens and money lost by cause.

Causes: ``timestamp``, ``id``, ``tool-order``, ``key-order``, ``whitespace``,
``model-change``, ``ttl-expiry``, ``history`` (an earlier message re-rendered) and
``content`` (anything else).

Pure apart from :func:`iter_log` / :func:`read_log`: :func:`replay` takes parsed entries (or a
function that streams them, ``lambda: iter_log(path)``) and returns a dict. The log is streamed:
memory grows with the number of conversations and requests, not with the history each resends.

``log.py`` reads the log, ``divergence.py`` finds each break and its cause, ``analysis.py``
runs the cache model and adds up what was lost.
"""

from __future__ import annotations

from promptlint.providers import reported
from promptlint.replay.analysis import DEFAULT_GAP_SECONDS, replay
from promptlint.replay.divergence import classify
from promptlint.replay.log import DEFAULT_MAX_LINE_BYTES, LogEntry, ReplayError, iter_log, parse_line, read_log

__all__ = [
    "DEFAULT_GAP_SECONDS", "DEFAULT_MAX_LINE_BYTES", "LogEntry", "ReplayError", "classify", "iter_log", "parse_line",
    "read_log", "replay", "reported",
]
