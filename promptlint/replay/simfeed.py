"""Feeding a log's requests to a provider's cache model one at a time, in time order.

The cache sees requests in time order, per model; a log written by several workers may not be
in that order. :class:`Feed` takes them as the log gives them and hands each to the model's
simulator when its turn comes: at once when the log is in order, or, given the time order
beforehand (``order``), after the requests before it in time, holding only those that came
early. A simulator without a streaming form gets them all at the end.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from typing import Any

from promptlint import providers
from promptlint.providers.base import Request, Usage
from promptlint.providers.registry import stream


class OutOfOrder(Exception):
    """A request earlier in time than one already simulated for its model (no ``order`` given)."""


class _Mailbox:
    """An iterator that yields the one request put in it: a streaming simulator draws from it
    exactly when it is asked for the next usage, so it is never empty when drawn."""

    def __init__(self) -> None:
        self.item: Request | None = None

    def __iter__(self) -> Iterator[Request]:
        return self

    def __next__(self) -> Request:
        item, self.item = self.item, None
        if item is None:
            raise StopIteration
        return item


class Feed:
    """One model's simulation: :meth:`add` each request (log order), :meth:`finish` at the end.

    ``usages`` maps log index to the simulated usage. ``order``: the log indices of this
    model's requests in simulation order (time, then log order); without it, a request that
    goes back in time raises :class:`OutOfOrder`.
    """

    def __init__(self, provider: str, model: str, facts: Any, order: Iterable[int] | None = None) -> None:
        self.provider, self.model, self.facts = provider, model, facts
        self.usages: dict[int, Usage] = {}
        self._mailbox = _Mailbox()
        self._stream = stream(provider, model, self._mailbox, facts=facts)
        self._all: list[tuple[int, Request]] = []  # for a simulator with no streaming form
        self._order = deque(order) if order is not None else None
        self._early: dict[int, Request] = {}
        self._last_time = float("-inf")

    def add(self, index: int, request: Request) -> None:
        """Simulate ``request`` (log index ``index``) now, or when its turn comes."""
        if self._order is None:
            if request.time < self._last_time:
                raise OutOfOrder
            self._last_time = request.time
            self._run(index, request)
            return
        self._early[index] = request
        while self._order and self._order[0] in self._early:
            turn = self._order.popleft()
            self._run(turn, self._early.pop(turn))

    def _run(self, index: int, request: Request) -> None:
        if self._stream is None:
            self._all.append((index, request))
            return
        self._mailbox.item = request
        self.usages[index] = next(self._stream)

    def finish(self) -> None:
        """Simulate what a simulator without a streaming form was given (CacheModelError)."""
        if self._all:
            indices = [i for i, _ in self._all]
            results = providers.simulate(self.provider, self.model, [r for _, r in self._all], facts=self.facts)
            self.usages.update(zip(indices, results, strict=True))
            self._all = []
