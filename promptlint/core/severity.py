"""The severity policy of DESIGN.md, in one place."""

from __future__ import annotations

from promptlint.core.findings import lower_severity
from promptlint.core.volatility import Volatility

# "Substantial stable content after it": roughly 100+ tokens or 10 %+ of the prompt.
SUBSTANTIAL_TOKENS = 100
SUBSTANTIAL_SHARE = 0.10


def is_substantial(stable_after: int, total: int) -> bool:
    return stable_after >= SUBSTANTIAL_TOKENS or (total > 0 and stable_after >= SUBSTANTIAL_SHARE * total)


def severity_for(volatility: Volatility, stable_after: int, total: int) -> str:
    """error for per-request/per-user values before substantial stable content; a level
    lower for session- or day-stable values, and a level lower again at the tail (where
    only the chat history pays for them)."""
    base = "error" if volatility.varies_per_request_or_user else "warning"
    if volatility.frequency == "per-deploy":
        base = "info"
    return base if is_substantial(stable_after, total) else lower_severity(base)


HOW_OFTEN = {
    "per-request": "changes on every request",
    "per-session": "changes from one session to the next",
    "per-day": "changes every day",
    "per-deploy": "changes with each deploy",
}


def how_often(volatility: Volatility) -> str:
    if volatility.kind == "identity":
        return "differs for every user"
    if volatility.kind == "session-id" and volatility.frequency == "per-session":
        return "differs for every session"
    if volatility.kind == "tool-order":
        return "can come in a different order in each process"
    if volatility.precision == "hour":
        return "changes every hour"
    return HOW_OFTEN[volatility.frequency]


def rebilled(volatility: Volatility) -> str:
    """How often the stable tokens after a value are paid for again, in the value's own
    frequency: a user's name costs each new user, not every call."""
    if volatility.kind == "tool-order":
        return "re-billed whenever the order changes"
    if volatility.kind == "identity" and volatility.frequency != "per-request":
        return "re-billed for every user (one user's cache never serves another)"
    if volatility.precision == "hour":
        return "re-billed every hour"
    return {
        "per-request": "re-billed on every call",
        "per-session": "re-billed in every new session",
        "per-day": "re-billed every day",
        "per-deploy": "re-billed after each deploy",
    }[volatility.frequency]


def stable_tokens(count: int) -> str:
    """``1 stable token``, ``1,234 stable tokens``."""
    return f"{count:,} stable token{'' if count == 1 else 's'}"
