"""Reading a replay log: one JSONL line per logged request, rendered in its provider's order."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

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


def _timestamp(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise ReplayError(f"{where}: timestamp must be an ISO string or epoch seconds")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return datetime.fromisoformat(value).timestamp()
        except ValueError:
            pass
    raise ReplayError(f"{where}: timestamp {value!r} is not an ISO string or epoch seconds")


def parse_line(text: str, where: str) -> LogEntry:
    """One log line. ReplayError (one line, naming ``where``) if it is not a request."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReplayError(f"{where}: malformed JSON: {exc.msg} (column {exc.colno})") from None
    wrapped = isinstance(value, dict) and isinstance(value.get("request"), dict)
    body = value["request"] if wrapped else value
    try:
        rendered = requestbody.render(body)
    except requestbody.RequestError as exc:
        raise ReplayError(f"{where}: {exc.message}") from None
    provider = (value.get("provider") if wrapped else None) or rendered.provider
    if provider not in providers.known_providers():
        raise ReplayError(f"{where}: unknown provider {provider!r}")
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
    )


def read_log(path: str) -> list[LogEntry]:
    """Every request of a JSONL log; blank lines are skipped. ReplayError on a bad line."""
    try:
        with open(path, encoding="utf-8-sig") as handle:
            lines = handle.read().splitlines()
    except OSError as exc:
        raise ReplayError(f"{path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ReplayError(f"{path}: not UTF-8 text") from None
    entries = [parse_line(text, f"{path}:{number}") for number, text in enumerate(lines, 1) if text.strip()]
    if not entries:
        raise ReplayError(f"{path}: no requests")
    return entries
