"""The severity policy of DESIGN.md, in one place."""

from __future__ import annotations

from promptlint.core.kinds import Volatility

# "Substantial stable content after it": roughly 100+ tokens or 10 %+ of the prompt.
SUBSTANTIAL_TOKENS = 100
SUBSTANTIAL_SHARE = 0.10


# "At the tail": so little stable text after a value that moving it gains nothing worth a
# warning (a closing line or two). Session- and day-stable values before more than this are
# warnings (DESIGN.md: "with stable content after it"), not only before 100+ tokens.
TAIL_TOKENS = 30


def is_substantial(stable_after: int, total: int) -> bool:
    return stable_after >= SUBSTANTIAL_TOKENS or (total > 0 and stable_after >= SUBSTANTIAL_SHARE * total)


def at_tail(stable_after: int) -> bool:
    return stable_after < TAIL_TOKENS


def severity_for(volatility: Volatility, stable_after: int, total: int) -> str:
    """DESIGN.md's policy: error for per-request/per-user values before substantial stable
    content (else warning: the chat history after the system prompt still pays); warning
    for session- or day-stable values with stable content after them, info at the tail;
    info for per-deploy values."""
    if volatility.frequency == "per-deploy":
        return "info"
    if volatility.varies_per_request_or_user:
        if is_substantial(stable_after, total):
            return "error"
        return "warning" if history_pays(volatility) or not at_tail(stable_after) else "info"
    return "info" if at_tail(stable_after) else "warning"


def history_pays(volatility: Volatility) -> bool:
    """Whether the chat history after a value at the tail of a system prompt is re-billed
    because of it. A user's name is the same on every call of that user's conversation,
    and the history after it is that user's own: no other user's cache could have served
    it. Anything else that varies (a request id, a session id, which a new process or a
    resumed conversation may change, retrieval, memory, a tool order) still costs it."""
    return not (volatility.kind == "identity" and volatility.frequency != "per-request")


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
    if volatility.kind == "tool-order" and volatility.fixed_order:
        return "changes when the registered set does"
    if volatility.kind == "tool-order":
        return "can come in a different order in each process"
    if volatility.precision == "hour":
        return "changes every hour"
    return HOW_OFTEN[volatility.frequency]


REBILLED = {
    "per-request": "re-billed on every call",
    "per-session": "re-billed in every new session",
    "per-day": "re-billed every day",
    "per-deploy": "re-billed after each deploy",
}


def rebilled(volatility: Volatility) -> str:
    """How often the stable tokens after a value are paid for again, in the value's own
    frequency: a user's name costs each new user, not every call."""
    if volatility.kind == "tool-order" and volatility.fixed_order:
        return "re-billed whenever the registered set changes"
    if volatility.kind == "tool-order":
        return "re-billed whenever the order changes"
    if volatility.kind == "identity" and volatility.frequency != "per-request":
        return "re-billed for every user (one user's cache never serves another)"
    if volatility.precision == "hour":
        return "re-billed every hour"
    return REBILLED[volatility.frequency]


def stable_tokens(count: int) -> str:
    """``1 stable token``, ``1,234 stable tokens``."""
    return f"{count:,} stable token{'' if count == 1 else 's'}"


def is_or_are(count: int) -> str:
    """The verb that agrees with ``count`` tokens: ``1 stable token … is``, ``2 … are``."""
    return "is" if count == 1 else "are"


def only_stable_tokens_follow(count: int) -> str:
    """``only 1 stable token follows it``, ``only 12 stable tokens follow it``."""
    return f"only {stable_tokens(count)} follow{'s' if count == 1 else ''} it"
