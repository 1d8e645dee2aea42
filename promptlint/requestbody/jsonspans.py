"""JSON with source spans: every value's ``[start, end)`` in the file, by JSON path.

So findings on a request body point at the exact string in the file. Provider-independent.
"""

from __future__ import annotations

import json
import re
import sys
from bisect import bisect_right
from json.decoder import scanstring  # type: ignore[attr-defined]
from collections.abc import Mapping
from typing import Any

from promptlint.core.ir import finished_walk

JsonPath = tuple[str | int, ...]
# What a JSON object is, for isinstance: a dict, checked before the slower Mapping ABC.
JSON_OBJECT = (dict, Mapping)


class RequestError(ValueError):
    """JSON that cannot be read, or that is not a request body. ``line``/``column`` 1-based."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column


_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def format_path(path: JsonPath) -> str:
    """``("messages", 0, "content")`` -> ``messages[0].content``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _no_constant(name: str) -> Any:
    raise RequestError(f"malformed JSON: {name} is not a JSON number")


def parse(source: str) -> Any:
    """``json.loads`` with a one-line :class:`RequestError` (line, column) on bad JSON:
    also for what Python's reader accepts and JSON does not (``NaN``, ``Infinity``), a
    number too long to convert, and nesting deeper than the reader's recursion bound."""
    try:
        return json.loads(source, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise RequestError(f"malformed JSON: {exc.msg}", exc.lineno, exc.colno) from None
    except RecursionError:
        raise RequestError("malformed JSON: nested too deeply to read") from None
    except ValueError as exc:  # int() of a number over sys.get_int_max_str_digits() digits
        if isinstance(exc, RequestError):
            raise
        raise RequestError(f"malformed JSON: a number too long to read ({sys.get_int_max_str_digits()} digits at most)") from None


def scan(source: str) -> dict[JsonPath, tuple[int, int]]:
    """The source span ``[start, end)`` of every value of valid JSON ``source``, by path.

    A string's span includes its quotes. Call after :func:`parse` has accepted the text.
    """
    spans: dict[JsonPath, tuple[int, int]] = {}

    def value(at: int, path: JsonPath) -> int:
        at = _WS.match(source, at).end()  # type: ignore[union-attr]
        ch = source[at]
        start = at
        if ch == '"':
            _, at = scanstring(source, at + 1)
        elif ch == "{":
            at = _WS.match(source, at + 1).end()  # type: ignore[union-attr]
            if source[at] == "}":
                at += 1
            else:
                while True:
                    key, at = scanstring(source, at + 1)
                    at = _WS.match(source, at).end() + 1  # type: ignore[union-attr]  # the colon
                    at = value(at, (*path, key))
                    at = _WS.match(source, at).end()  # type: ignore[union-attr]
                    if source[at] == "}":
                        at += 1
                        break
                    at = _WS.match(source, at + 1).end()  # type: ignore[union-attr]  # the comma
        elif ch == "[":
            at = _WS.match(source, at + 1).end()  # type: ignore[union-attr]
            index = 0
            if source[at] == "]":
                at += 1
            else:
                while True:
                    at = value(at, (*path, index))
                    index += 1
                    at = _WS.match(source, at).end()  # type: ignore[union-attr]
                    if source[at] == "]":
                        at += 1
                        break
                    at += 1
        elif source.startswith("true", at):
            at += 4
        elif source.startswith("false", at) or source.startswith("null", at):
            at += 5 if ch == "f" else 4
        else:
            match = _NUMBER.match(source, at)
            at = match.end() if match else at + 1
        spans[path] = (start, at)
        return at

    value(0, ())
    value = finished_walk  # it recurses: a cycle holding the source (see finished_walk)
    return spans


class StringOffsets:
    """Source offset of each decoded character of a JSON string: ``offsets[i]`` for ``i`` up
    to its length, that of the closing quote at the length. An escape maps its decoded
    character to the backslash (a surrogate pair counts once).

    Kept as the runs between escapes (where each starts, decoded and in the source), not as
    a list of every offset: that made an int per character of a system prompt, twice per
    file, for the two or three offsets its values ask."""

    def __init__(self, source: str, start: int) -> None:
        self._starts: list[int] = []  # the decoded index at which each run starts
        self._offsets: list[int] = []  # where it starts in the source
        decoded, at, quote = 0, start + 1, -1
        while True:
            # The first quote from here is the one found last, until an escape passes it
            # (searched again after every escape, a string of 300,000 short lines was read
            # to its end 300,000 times: 6 s).
            if quote < at:
                quote = source.find('"', at)
                if quote < 0:
                    raise IndexError("unterminated JSON string")
            self._starts.append(decoded)
            self._offsets.append(at)
            slash = source.find("\\", at, quote)
            if slash < 0:
                self._length = decoded + quote - at
                return
            decoded += slash + 1 - at  # the run, and the escape's character
            if source[slash + 1] == "u":
                code = int(source[slash + 2 : slash + 6], 16)
                at = slash + 6
                if 0xD800 <= code < 0xDC00 and source.startswith("\\u", at):
                    low = int(source[at + 2 : at + 6], 16)
                    if 0xDC00 <= low < 0xE000:
                        at += 6
            else:
                at = slash + 2

    def __getitem__(self, index: int) -> int:
        if not 0 <= index <= self._length:
            raise IndexError(f"no character {index} in a JSON string of {self._length}")
        run = bisect_right(self._starts, index) - 1
        return self._offsets[run] + index - self._starts[run]


def string_offsets(source: str, start: int) -> StringOffsets:
    """Source offset of each decoded character of the JSON string opening at ``start``
    (:class:`StringOffsets`)."""
    return StringOffsets(source, start)
