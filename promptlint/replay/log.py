"""Reading a replay log: one JSONL line per logged request, rendered in its provider's order."""

from __future__ import annotations

import codecs
import itertools
import json
import math
import os
import stat
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, BinaryIO

from promptlint import providers, requestbody
from promptlint.requestbody import Rendered


class ReplayError(Exception):
    """A log that cannot be replayed; the message is one line naming file and line."""


@dataclass
class LogEntry:
    line: int
    body: Mapping[str, Any]
    rendered: Rendered
    time: float | None
    routing_key: str | None
    usage: Mapping[str, Any] | None
    provider: str
    where: str = ""  # "log.jsonl:12", for messages about this request


#: The furthest from 1970 a timestamp may be (seconds): two of them are then apart by a finite
#: number of seconds (JSON's reader takes ``Infinity``, ``NaN`` and ``1e400``, which no clock is).
_FURTHEST = sys.float_info.max / 2


def _timestamp(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ReplayError(f"{where}: timestamp must be an ISO string or epoch seconds")
    if isinstance(value, int | float):
        try:
            seconds = float(value)
        except OverflowError:  # an integer past any float
            seconds = math.inf
        if abs(seconds) <= _FURTHEST:  # False for NaN too
            return seconds
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except (ValueError, OverflowError, OSError):  # a naive year 1 is out of some platforms' local time
            pass
    shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."  # a 400-digit number
    raise ReplayError(f"{where}: timestamp {shown} is not an ISO string or epoch seconds")


def parse_line(text: str, where: str) -> LogEntry:
    """One log line. ReplayError (one line, naming ``where``) if it is not a request."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    except RecursionError:
        raise ReplayError(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:  # e.g. an integer over the interpreter's digit limit
        raise ReplayError(f"{where}: malformed JSON: {exc}") from None
    wrapped = isinstance(value, dict) and isinstance(value.get("request"), dict)
    body = value["request"] if wrapped else value
    try:
        rendered = requestbody.render(body)
    except requestbody.RequestError as exc:
        raise ReplayError(f"{where}: {exc.message}") from None
    except RecursionError:  # read, but too deep to walk (as the loaders: a depth bound, one line)
        raise ReplayError(f"{where}: JSON nested too deeply") from None
    provider = (value.get("provider") if wrapped else None) or rendered.provider
    if isinstance(provider, str):
        provider = provider.strip().lower()  # as --provider reads it: "OpenAI" is openai
    if provider not in providers.known_providers():
        raise ReplayError(f"{where}: unknown provider {provider!r}; known: {', '.join(providers.known_providers())}")
    usage = value.get("usage") if wrapped else None
    key = value.get("routing_key") if wrapped else None
    return LogEntry(
        line=int(where.rsplit(":", 1)[-1]) if ":" in where else 0,
        body=body,
        rendered=rendered,
        time=_timestamp(value.get("timestamp") if wrapped else None, where),
        routing_key=str(key) if key is not None else None,
        usage=usage if isinstance(usage, Mapping) else None,
        provider=str(provider),
        where=where,
    )


#: The longest line read (bytes). A logged request with a 1M-token context is about 5 MB of
#: JSON; a longer line is refused after reading this much of it, not read whole.
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024


def _open(path: str) -> BinaryIO:
    """The log, opened for reading; only a regular file (a FIFO or a device would block or
    never end)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise ReplayError(f"{path}: not a regular file")
        return open(path, "rb")  # noqa: SIM115 (closed by iter_log)
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None


def iter_log(path: str, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[LogEntry]:
    """Every request of a JSONL log, one line at a time (the log is never held whole).

    Blank lines are skipped. Any other line that is not a request is an error (DESIGN.md: a
    malformed input fails the run, exit 2): ReplayError naming the file and line, raised when
    the reader reaches it. A line over ``max_line_bytes`` is refused after reading that much.
    A last line cut short (no newline, not JSON) says so: a log still being written.
    """
    found = False
    # A limit past what a read can be asked for is no limit: the most a read can take.
    reach = min(max_line_bytes + 1, sys.maxsize)
    with _open(path) as handle:
        for number in itertools.count(1):
            raw = handle.readline(reach)
            if not raw:
                break
            where = f"{path}:{number}"
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                raise ReplayError(f"{where}: line longer than {max_line_bytes:,} bytes (--max-line-bytes)")
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise ReplayError(f"{where}: not UTF-8 text (byte {exc.start + 1})") from None
            if not text.strip():
                continue
            try:
                yield parse_line(text, where)
            except ReplayError as exc:
                if not raw.endswith(b"\n") and "malformed JSON" in str(exc):
                    raise ReplayError(f"{exc} (the last line, cut short?)") from None
                raise
            found = True
    if not found:
        raise ReplayError(f"{path}: no requests")


def read_log(path: str, *, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> list[LogEntry]:
    """Every request of a JSONL log, all at once (:func:`iter_log`; ReplayError on a bad line)."""
    return list(iter_log(path, max_line_bytes=max_line_bytes))
