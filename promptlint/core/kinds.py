"""Volatility's vocabulary: kinds, frequencies and the :class:`Volatility` judgement."""

from __future__ import annotations

from dataclasses import dataclass

KINDS: tuple[str, ...] = (
    "timestamp",
    "identity",
    "session-id",
    "environment",
    "retrieval",
    "memory",
    "tool-order",
)
FREQUENCIES: tuple[str, ...] = ("per-request", "per-session", "per-day", "per-deploy")

# Kinds whose values differ between users or sessions even when they are stable within
# one: nothing after them is ever shared across users (DESIGN.md severity policy).
CROSS_USER_KINDS = frozenset({"identity", "session-id", "retrieval", "memory", "tool-order"})


@dataclass(frozen=True)
class Volatility:
    kind: str
    frequency: str
    evidence: str
    precision: str | None = None
    # "high" when read from calls/format strings/config, "medium" from a name.
    confidence: str = "medium"
    assumed: str | None = None
    # A list the host application registers in a fixed order (skills, extensions): its
    # order changes only when the set does, so it is a warning at most.
    fixed_order: bool = False

    @property
    def varies_per_request_or_user(self) -> bool:
        """True for the error class of the severity policy."""
        if self.fixed_order:
            return False
        return self.frequency == "per-request" or self.kind in CROSS_USER_KINDS


