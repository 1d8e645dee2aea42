"""Clocks: the precision a format prints (strftime, moment, ``isoformat``, slices of an ISO
string) and the volatility of an expression that reads the clock."""

from __future__ import annotations

import re
from collections.abc import Iterable

from promptlint.core.ir import Expr
from promptlint.core.kinds import Volatility

PRECISIONS: tuple[str, ...] = ("microsecond", "millisecond", "second", "minute", "hour", "day", "month", "year")

_STRFTIME = {
    "f": "microsecond",
    "S": "second", "T": "second", "X": "second", "c": "second", "s": "second", "r": "second",
    "M": "minute", "R": "minute",
    "H": "hour", "I": "hour", "p": "hour", "k": "hour", "l": "hour",
    "d": "day", "j": "day", "a": "day", "A": "day", "x": "day", "F": "day", "D": "day", "e": "day",
    "u": "day", "w": "day",
    "b": "month", "B": "month", "m": "month", "h": "month", "U": "month", "W": "month", "V": "month",
    "Y": "year", "y": "year", "G": "year", "C": "year",
}
# moment / dayjs / luxon tokens, longest first so "LLLL" is read before "L".
_MOMENT = [
    ("SSS", "millisecond"), ("LTS", "second"), ("LLLL", "minute"), ("llll", "minute"),
    ("LLL", "minute"), ("lll", "minute"), ("LT", "minute"), ("LL", "day"), ("ll", "day"),
    ("ss", "second"), ("mm", "minute"), ("HH", "hour"), ("hh", "hour"), ("kk", "hour"),
    ("dddd", "day"), ("ddd", "day"), ("DD", "day"), ("Do", "day"), ("X", "second"), ("x", "millisecond"),
    ("s", "second"), ("m", "minute"), ("H", "hour"), ("h", "hour"), ("A", "hour"), ("a", "hour"),
    ("D", "day"), ("L", "day"), ("l", "day"), ("MM", "month"), ("M", "month"), ("YYYY", "year"), ("YY", "year"),
]
# Methods whose output precision is fixed.
_TIME_METHODS = {
    "isoformat": "microsecond",
    "toisostring": "millisecond",
    "tojson": "millisecond",
    "tolocalestring": "second",
    "tolocaletimestring": "second",
    "totimestring": "second",
    "toutcstring": "second",
    "tostring": "second",
    "ctime": "second",
    "asctime": "second",
    "gettime": "millisecond",
    "valueof": "millisecond",
    "time": "microsecond",
    "time_ns": "microsecond",
    "perf_counter": "microsecond",
    "tolocaledatestring": "day",
    "todatestring": "day",
}
_CLOCK_CALLS = frozenset({"now", "utcnow", "today", "date", "datetime", "moment", "dayjs", "time", "time_ns", "localtime", "gmtime", "fromtimestamp"})


def _finest(found: Iterable[str]) -> str | None:
    ranked = sorted(set(found), key=PRECISIONS.index)
    return ranked[0] if ranked else None


# Go's reference time, "Mon Jan 2 15:04:05 MST 2006": each part of a layout prints a unit.
_GO_LAYOUT = re.compile(r"2006|15:04|01-02|Jan _?2|Mon Jan|Z07:00|-0700")
_GO_PARTS = (("\\.0+|\\.9+", "millisecond"), ("05", "second"), ("04", "minute"), ("15|03|PM|pm", "hour"),
             ("02|_2|Mon|Monday", "day"), ("01|Jan|January", "month"), ("2006|06", "year"))
# The layout constants of Go's time package, by name.
_GO_CONSTANTS = {"RFC3339": "second", "RFC3339Nano": "microsecond", "RFC1123": "second", "RFC1123Z": "second",
                 "RFC822": "minute", "RFC822Z": "minute", "RFC850": "second", "ANSIC": "second",
                 "UnixDate": "second", "Kitchen": "minute", "DateTime": "second", "DateOnly": "day",
                 "TimeOnly": "second", "Stamp": "second", "StampMilli": "millisecond"}


def _go_precision(layout: str) -> str | None:
    """The finest unit a Go time layout prints ("2006-01-02 15:04" → minute)."""
    found = []
    for pattern, precision in _GO_PARTS:
        if re.search(pattern, layout):
            found.append(precision)
            layout = re.sub(pattern, " ", layout)
    return _finest(found)


def precision_of_format(fmt: str) -> str | None:
    """The finest unit a strftime, moment-style or Go layout string prints."""
    if "%" in fmt:
        return _finest(_STRFTIME[c] for c in re.findall(r"%[-_0^#]?([A-Za-z])", fmt) if c in _STRFTIME)
    if _GO_LAYOUT.search(fmt):
        return _go_precision(fmt)
    if fmt.removeprefix("time.") in _GO_CONSTANTS:
        return _GO_CONSTANTS[fmt.removeprefix("time.")]
    stripped = re.sub(r"\[[^\]]*\]", "", fmt)  # moment's [literal] escapes
    found = []
    for token, precision in _MOMENT:
        if token in stripped:
            found.append(precision)
            stripped = stripped.replace(token, " ")
    # Words like "Today" contain moment letters; only short, token-shaped strings count.
    prose = re.sub(r"\[[^\]]*\]", "", fmt).replace("dddd", "").replace("llll", "")
    if not found or re.search(r"[a-z]{4,}", prose):
        return None
    return _finest(found)


def _frequency_for(precision: str) -> str:
    if precision in ("microsecond", "millisecond", "second", "minute"):
        return "per-request"
    if precision == "hour":
        return "per-session"
    if precision == "day":
        return "per-day"
    return "per-deploy"



def _clock(expr: Expr) -> Volatility | None:
    """A clock read from calls and format strings: `now().strftime("%H:%M")`."""
    calls = [c.lower() for c in expr.calls]
    fmt = expr.format_spec
    fmt_precision = precision_of_format(fmt) if fmt else None
    method_precisions = [_TIME_METHODS[c] for c in calls if c in _TIME_METHODS]
    is_clock = bool(_CLOCK_CALLS.intersection(calls)) or "strftime" in calls or bool(method_precisions)
    # A strftime pattern as a format spec (`{current_hour:%Y-%m-%d %H:00}`) only formats datetimes.
    is_clock = is_clock or bool(fmt and "%" in fmt and fmt_precision and not calls)
    filters = [f.lower() for f in expr.filters]
    if not is_clock and not ({"strftime", "datetimeformat", "date", "format_datetime", "formatdate"} & set(filters)):
        return None
    if "isoformat" in calls and expr.literals:
        spec = {"hours": "hour", "minutes": "minute", "seconds": "second", "milliseconds": "millisecond"}
        for literal in expr.literals:
            if literal in spec:
                fmt_precision = spec[literal]
    if "today" in calls and not fmt_precision and "date" in (expr.root.lower(), *calls) and "isoformat" in calls:
        fmt_precision = "day"
    precision = fmt_precision or _truncated(expr, calls) or _finest(method_precisions)
    if precision is None and ({"today", "date"} & set(calls)) and not ({"now", "utcnow"} & set(calls)):
        precision = "day"
    if precision is None:
        return Volatility(
            "timestamp", "per-request", f"`{expr.source}` reads the clock", precision=None,
            confidence="medium", assumed="the clock is printed to the minute or finer",
        )
    how = f"format {fmt!r}" if fmt_precision and fmt else f"`{expr.source}`"
    return Volatility(
        "timestamp", _frequency_for(precision), f"{how} prints the time to the {precision}",
        precision=precision, confidence="high",
    )


# Cutting an ISO string after N characters keeps this precision ("2026-11-30T14:03:27.123Z").
_ISO_PREFIX = ((4, "year"), (7, "month"), (10, "day"), (13, "hour"), (16, "minute"), (19, "second"))
_CUT = re.compile(r"\.(?:slice|substring|substr)\(\s*0\s*,\s*(\d+)\s*\)|\[\s*0?\s*:\s*(\d+)\s*\]")
_SPLIT_DATE = re.compile(r"""\.split\(\s*['"][T ]['"]\s*\)\s*\[\s*0\s*\]""")


def _truncated(expr: Expr, calls: list[str]) -> str | None:
    """The precision left after an ISO string is cut (`toISOString().slice(0, 10)`,
    `isoformat()[:16]`, `.split("T")[0]`) or a datetime is reduced to its date
    (`datetime.now().date()`): None when nothing is cut."""
    if _SPLIT_DATE.search(expr.source):
        return "day"
    cut = _CUT.search(expr.source)
    if cut is not None:
        length = int(cut.group(1) or cut.group(2))
        return next((p for n, p in _ISO_PREFIX if length <= n), "millisecond")
    if {"now", "utcnow"} & set(calls) and "date" in calls:
        return "day"  # `now().date()`, and `now().date().isoformat()` prints that date
    part = _PART.search(expr.source)
    if part is not None and _CLOCK_CALLS.intersection(calls):
        return _PARTS[part.group(1).lower()]  # `now().hour < 12` tells the hour, no finer
    return None


# One field of a clock (`now().hour`, `new Date().getHours()`): its precision.
_PARTS = {"microsecond": "microsecond", "second": "second", "minute": "minute", "hour": "hour", "day": "day",
          "weekday": "day", "isoweekday": "day", "month": "month", "year": "year", "getseconds": "second",
          "getminutes": "minute", "gethours": "hour", "getday": "day", "getdate": "day", "getmonth": "month",
          "getfullyear": "year"}
_PART = re.compile(r"\)\s*\.\s*(" + "|".join(_PARTS) + r")\b(?!\s*\.)", re.IGNORECASE)


def _named_clock(expr: Expr, frequency: str, word: str) -> Volatility | None:
    fmt_precision = precision_of_format(expr.format_spec) if expr.format_spec else None
    if fmt_precision:
        freq = _frequency_for(fmt_precision)
        if frequency == "per-session" and freq == "per-request":
            freq = "per-session"  # a session-pinned value does not tick, whatever its format
        return Volatility(
            "timestamp", freq, f"format {expr.format_spec!r} prints `{expr.name}` to the {fmt_precision}",
            precision=fmt_precision, confidence="high",
        )
    if frequency == "per-session":
        return Volatility(
            "timestamp", "per-session", f"`{expr.name}` is pinned when the session starts",
            precision=None, assumed="the value is captured once per session",
        )
    if frequency == "per-day":
        return Volatility(
            "timestamp", "per-day", f"judged by the name `{expr.name}`: a date",
            precision="day", assumed="the value is a date without a time of day",
        )
    return Volatility(
        "timestamp", "per-request", f"judged by the name `{expr.name}`: a clock",
        precision=None, assumed="the value is a time of day to the minute or finer",
    )
