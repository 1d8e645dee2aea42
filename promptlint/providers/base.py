"""What every provider module declares, and the data types its cache simulator works on.

A provider module (``openai.py``, ``anthropic.py``, …) defines one module-level
``PROVIDER = Provider(...)``; :mod:`promptlint.providers.registry` finds it. The simulator types
below are shared by all of them: a simulator takes an ordered sequence of :class:`Request`
(rendered token ids, block ends, breakpoints, a timestamp) and the provider's
:class:`~promptlint.providers.table.ProviderFacts`, and returns one :class:`Usage` per request:
tokens read from cache, written to it, and uncached. Simulators are pure: each run starts from
an empty cache. :func:`cost` prices a usage.

How ``Request.routing_key`` is read, per provider:

* OpenAI before 5.6 / xAI / Fireworks: part of the routing bucket (with the first ~256 tokens).
* OpenAI 5.6+: a cache partition (Sep-2026 semantics: hits never cross keys).
* DeepSeek: the ``user_id`` partition. vLLM / SGLang: the ``cache_salt``.
* Anthropic and Gemini: ignored (one workspace / project is simulated).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from promptlint.providers.table import ProviderFacts
    from promptlint.requestbody.blocks import Builder

#: A cache simulator: ``(requests, facts, **options) -> one Usage per request``.
Simulator = Callable[..., "list[Usage]"]
#: The same simulator one request at a time: ``(requests, facts, **options) -> Usage`` as each
#: request is drawn from ``requests`` (the replay feeds a log through it without holding it).
StreamSimulator = Callable[..., "Iterator[Usage]"]
#: A render order: adds a request body's blocks to the builder, in the order the provider
#: caches them (see :mod:`promptlint.requestbody`).
Renderer = Callable[["Builder", Mapping[str, Any]], None]
#: A table row chooser: ``(model, table rows) -> row name``, or None for the default row.
RowChooser = Callable[[str, Mapping[str, Any]], "str | None"]
#: What a usage object reports: (cached tokens, total input tokens), either possibly unknown.
Reported = tuple[int | None, int | None]
#: Reads a usage object: ``(fields, usage) -> Reported``, or None if it is not this shape.
UsageReader = Callable[["UsageFields", Mapping[str, Any]], "Reported | None"]

_NO_SIMULATORS: Mapping[str, Simulator] = MappingProxyType({})
_NO_RENDERERS: Mapping[str, Renderer] = MappingProxyType({})
_NO_STREAMS: Mapping[str, StreamSimulator] = MappingProxyType({})


@dataclass(frozen=True)
class UsageFields:
    """Where one API's usage object puts its input-side token counts (provider-caching.md §12).

    Field names are dotted paths inside the usage object (``""``: the API has no such field):
    ``input`` all input tokens, ``cached`` those read from the cache, ``cache_write`` those
    written to it, ``uncached`` those neither read nor written. ``reader`` is the provider
    module's function behind :meth:`read`. ``precedence``: a usage object is matched by shape,
    lowest first, and shapes share field names (Anthropic's ``input_tokens`` is also a
    Responses field, DeepSeek's ``prompt_tokens`` a Chat one), so the order decides how a log's
    usage is read.
    """

    api: str
    cached: str
    reader: UsageReader
    input: str = ""
    cache_write: str = ""
    uncached: str = ""
    precedence: int = 100

    def read(self, usage: Mapping[str, Any]) -> Reported | None:
        """(cached tokens, total input tokens) if ``usage`` has this shape, else None."""
        return self.reader(self, usage)

    @staticmethod
    def value(usage: Mapping[str, Any], path: str) -> Any:
        """The value at dotted ``path`` in ``usage`` (None where a level is missing)."""
        value: Any = usage
        for key in path.split("."):
            if not isinstance(value, Mapping):
                return None
            value = value.get(key)
        return value

    @staticmethod
    def count(value: Any, path: str) -> int:
        """``value``, read from the field at ``path``, as a token count (as ``int`` reads it).
        A logged usage is the client's record, not the API's: ValueError naming the field
        where it is no count at all (a word, an object, an array, NaN, a negative number)."""
        try:
            count = int(value)
        except (TypeError, ValueError, OverflowError):
            from promptlint.core.findings import kind_of_value

            what = repr(value)[:40] if isinstance(value, str | float) else kind_of_value(
                value, mapping="an object", sequence="an array")
            raise ValueError(f"usage field `{path}` must be a token count, not {what}") from None
        if count < 0:  # a reported hit rate below zero
            raise ValueError(f"usage field `{path}` must be a token count, not {count:,}")
        return count


@dataclass(frozen=True)
class Provider:
    """One provider as promptlint knows it: declared once, in its own module.

    ``name`` is what users write (``--provider``, config). ``row`` is its default row of
    ``data/providers.toml`` (default: ``name``); ``choose_row`` picks another row of the table
    from the model (OpenAI: GPT-5.6 and later). ``simulators`` maps the table's ``simulator``
    values this module implements to their functions (a row may name another module's, as
    xAI's names ``"openai"``); ``streams`` the same simulators one request at a time, where
    the module has them (the replay streams a log through them). ``renderers`` maps request-body kinds of
    :mod:`promptlint.requestbody` to the provider's render order. ``usage`` lists the usage
    objects it reports (:class:`UsageFields`). ``default_model`` and ``model_prefixes``: the
    model to simulate and price when the configured one is not this provider's (``None``:
    any model fits). ``genai_prices_id``: the provider id in the genai-prices data;
    ``self_hosted``: no per-token price unless configured. ``tiktoken_exact``: tiktoken's
    counts are this provider's own for models tiktoken knows (not Claude, Gemini, DeepSeek).

    The live probe adapter (``promptlint probe --provider NAME``, DESIGN.md) will be declared
    here too, by the provider module that implements it: sending the controlled requests
    through the provider's SDK (imported only on that path) and reading its own cached-token
    counters through ``usage``. No provider has one yet.
    """

    name: str
    simulators: Mapping[str, Simulator] = field(default_factory=lambda: _NO_SIMULATORS)
    row: str | None = None
    choose_row: RowChooser | None = None
    renderers: Mapping[str, Renderer] = field(default_factory=lambda: _NO_RENDERERS)
    streams: Mapping[str, StreamSimulator] = field(default_factory=lambda: _NO_STREAMS)
    usage: tuple[UsageFields, ...] = ()
    default_model: str = "unknown"
    model_prefixes: tuple[str, ...] | None = None
    genai_prices_id: str | None = None
    self_hosted: bool = False
    tiktoken_exact: bool = True

    @property
    def table_row(self) -> str:
        """The default row of the table for this provider."""
        return self.row or self.name


# --------------------------------------------------------------------------------------------
# Simulator data types


class CacheModelError(ValueError):
    """A request the provider would reject (e.g. 5 Anthropic breakpoints), or bad input."""


@dataclass(frozen=True)
class Breakpoint:
    """A cache breakpoint: the cached prefix ends at token offset ``position``.

    ``ttl`` is a TTL class of the provider (``"5m"``, ``"1h"``, ``"30m"``; ``None`` = its
    default). ``block_index`` optionally names the block (index into ``Request.segments``)
    that ends at ``position``. ``read_only`` marks a GPT-5.6+ marker from an earlier turn,
    which the provider looks up but never writes again.
    """

    position: int
    ttl: str | None = None
    block_index: int | None = None
    read_only: bool = False


@dataclass(frozen=True)
class Request:
    """One request as the simulator sees it.

    ``tokens``: the rendered prompt's token ids (visible tokens; hidden provider tokens are
    ``ProviderFacts.hidden_tokens``). ``segments``: end offsets of the prompt's blocks, in
    order (Anthropic's lookback walks these). ``time``: seconds since any fixed origin.
    ``output_tokens``: generated ids (cached by DeepSeek, vLLM and SGLang).

    GPT-5.6+ only: ``eligible_ends`` are the end offsets of eligible messages (user messages,
    last tool response of a run, last developer message of the initial block), in order; the
    last one is the implicit breakpoint. ``developer_block_end`` ends the initial developer
    block. ``cache_mode`` is ``"implicit"`` (default) or ``"explicit"``.

    Anthropic only: ``auto_breakpoint_ttl`` set means top-level automatic caching with that TTL
    (a breakpoint on the last block that counts as one of the four).
    """

    tokens: Sequence[int]
    segments: Sequence[int] = ()
    breakpoints: Sequence[Breakpoint] = ()
    time: float = 0.0
    routing_key: str | None = None
    output_tokens: Sequence[int] = ()
    eligible_ends: Sequence[int] = ()
    developer_block_end: int | None = None
    cache_mode: str = "implicit"
    auto_breakpoint_ttl: str | None = None


@dataclass(frozen=True)
class Usage:
    """Simulated input-token accounting of one request.

    ``read + write + uncached == total``. ``write`` counts all writes; ``write_1h`` is the part
    written with a 1 h TTL (Anthropic), so ``write_5m = write - write_1h``. Gemini implicit
    caching is a range: ``read_min``..``read_max`` with ``read_expected`` (and ``read`` =
    ``floor(read_expected)``); ``note`` says why a number is uncertain.
    """

    read: int
    write: int
    uncached: int
    total: int
    write_1h: int = 0
    note: str | None = None
    read_min: int | None = None
    read_max: int | None = None
    read_expected: float | None = None

    @property
    def write_5m(self) -> int:
        """Tokens written with the short (5 m / default) TTL."""
        return self.write - self.write_1h


@dataclass(frozen=True)
class TokenPrices:
    """USD per token for each kind of input token.

    Providers without a write fee bill written tokens as ordinary input, so ``cache_write`` is
    the input price there. ``cache_write_1h`` is Anthropic's 1 h write price.
    """

    input: float
    cache_read: float
    cache_write: float
    cache_write_1h: float


def cost(usage: Usage, prices: TokenPrices) -> float:
    """USD for the input side of ``usage`` (§13 cost rules; output tokens are not included).

    One formula covers every provider: ``read·cache_read + write_5m·cache_write +
    write_1h·cache_write_1h + uncached·input``. With OpenAI 5.6+ prices (read 0.1×, write
    1.25×) it is OpenAI's weighted formula; with no write fee it is ``read·cached +
    (input − read)·input``. A Gemini range is priced at its expected read.
    """
    read = usage.read if usage.read_expected is None else usage.read_expected
    uncached = usage.total - read - usage.write
    return (
        read * prices.cache_read
        + usage.write_5m * prices.cache_write
        + usage.write_1h * prices.cache_write_1h
        + uncached * prices.input
    )


def longest_shared_prefix(tokens: Sequence[int], candidates: Sequence[Sequence[int]]) -> int:
    """``max(lcp(tokens, c) for c in candidates)``, 0 when there are none.

    Read newest (last) first: a candidate no longer than the best so far cannot share more,
    and is not compared. In a growing conversation the last request shares the most and every
    older one is shorter, so a request is compared with one candidate, not all of them."""
    best = 0
    for candidate in reversed(candidates):
        if len(candidate) > best:
            best = max(best, lcp(tokens, candidate))
            if best >= len(tokens):
                break
    return best


def lcp(a: Sequence[int], b: Sequence[int]) -> int:
    """Length of the longest common prefix of two token sequences.

    Compares slices (C speed) and bisects inside the first unequal one: each token is compared
    about twice, instead of once in a Python loop, which a growing conversation made the
    replay's hot spot.
    """
    if type(a) is not type(b):  # a list never equals a tuple slice
        a, b = tuple(a), tuple(b)
    limit = min(len(a), len(b))
    if a[:limit] == b[:limit]:
        return limit
    low, high = 0, limit  # a[:low] == b[:low]; a[:high] != b[:high]
    while high - low > 1:
        mid = (low + high) // 2
        if a[low:mid] == b[low:mid]:
            low = mid
        else:
            high = mid
    return low


class PrefixIndex:
    """The token sequences sent so far, each with when it was sent, as a compressed trie (an
    edge per run of tokens where no two of them part): the longest prefix a new sequence
    shares with any of them sent within a window, in time linear in its length.

    Comparing a request with every earlier one was quadratic in the log: 30,000 requests of
    10,000 conversations that share a system prompt did not finish in two minutes. Each node
    keeps the latest time a sequence through it was sent, so a node no live sequence reaches
    stops the walk. ``longest(t, now, w) == longest_shared_prefix(t, [s for s, sent in added
    if sent + w > now])``."""

    def __init__(self) -> None:
        self._root = _TrieNode((), 0.0)

    def add(self, tokens: tuple[int, ...], sent: float) -> None:
        node, i, n = self._root, 0, len(tokens)
        while i < n:
            child = node.children.get(tokens[i])
            if child is None:
                node.children[tokens[i]] = _TrieNode(tokens[i:], sent)
                return
            edge = child.edge
            k = lcp(edge, tokens[i : i + len(edge)])
            if k < len(edge):  # the sequence parts (or ends) inside the edge: split it there
                head = _TrieNode(edge[:k], child.sent)
                child.edge = edge[k:]
                head.children[child.edge[0]] = child
                node.children[tokens[i]] = child = head
            child.sent = max(child.sent, sent)
            node, i = child, i + k

    def longest(self, tokens: tuple[int, ...], now: float, window: float) -> int:
        """The longest prefix of ``tokens`` shared with a sequence sent less than ``window``
        seconds before ``now`` (``math.inf``: ever)."""
        node, i, n = self._root, 0, len(tokens)
        while i < n:
            child = node.children.get(tokens[i])
            if child is None or not child.sent + window > now:
                return i
            edge = child.edge
            k = lcp(edge, tokens[i : i + len(edge)])
            if k < len(edge):
                return i + k
            node, i = child, i + k
        return i


class _TrieNode:
    __slots__ = ("edge", "sent", "children")

    def __init__(self, edge: tuple[int, ...], sent: float) -> None:
        self.edge, self.sent = edge, sent
        self.children: dict[int, _TrieNode] = {}


# --------------------------------------------------------------------------------------------
# The TTL store the simulators share


@dataclass
class Entry:
    """A cache entry (mutable: hits refresh ``expires_at``)."""

    tokens: tuple[int, ...]
    created_at: float
    ready_at: float
    expires_at: float
    ttl_seconds: float
    max_expires_at: float = math.inf

    def live(self, now: float) -> bool:
        # §13: all live checks use expires_at > t; entries are usable once ready.
        return self.ready_at <= now < self.expires_at

    def refresh(self, now: float) -> None:
        self.expires_at = min(max(self.expires_at, now + self.ttl_seconds), self.max_expires_at)


def new_entry(
    tokens: tuple[int, ...], now: float, ttl_seconds: float, facts: ProviderFacts
) -> Entry:
    """An entry written at ``now``: ready after the visibility delay, live for ``ttl_seconds``."""
    return Entry(tokens, now, now + facts.visibility_delay_seconds, now + ttl_seconds, ttl_seconds)


def live(store: Mapping[Any, Entry], key: Any, now: float) -> Entry | None:
    """The entry stored under ``key`` if it is live at ``now``."""
    entry = store.get(key)
    return entry if entry is not None and entry.live(now) else None


def store_entry(
    store: dict[Any, Entry],
    key: Any,
    tokens: tuple[int, ...],
    now: float,
    ttl_seconds: float,
    facts: ProviderFacts,
) -> None:
    """Store ``tokens`` under ``key`` at ``now``: a live entry keeps the longer TTL and is
    refreshed, anything else is replaced by a new entry."""
    entry = live(store, key, now)
    if entry is not None:
        entry.ttl_seconds = max(entry.ttl_seconds, ttl_seconds)
        entry.refresh(now)
    else:
        store[key] = new_entry(tokens, now, ttl_seconds, facts)


def check_requests(requests: Sequence[Request]) -> None:
    """CacheModelError for times that go backwards, or segments/breakpoints off the prompt."""
    for _ in checked(requests):
        pass


def checked(requests: Iterable[Request]) -> Iterator[Request]:
    """``requests`` as they come, each checked as :func:`check_requests` checks them all."""
    previous_time = -math.inf
    for number, request in enumerate(requests):
        if request.time < previous_time:
            raise CacheModelError(f"request {number}: time {request.time} goes backwards")
        previous_time = request.time
        total = len(request.tokens)
        ends = list(request.segments)
        if any(b <= a for a, b in pairwise(ends)) or any(e <= 0 or e > total for e in ends):
            raise CacheModelError(
                f"request {number}: segments must be increasing end offsets in 1..{total}"
            )
        for breakpoint_ in request.breakpoints:
            if not 0 < breakpoint_.position <= total:
                raise CacheModelError(
                    f"request {number}: breakpoint at {breakpoint_.position} outside 1..{total}"
                )
        yield request


class Pruner:
    """Drops expired entries from a store now and then, so a long log does not keep them all.

    Exact: times never go backwards (:func:`checked`), an entry past ``expires_at`` is never
    live again (only live entries are refreshed) and :func:`store_entry` replaces it, so a
    dropped entry and an expired one answer alike. Amortised: a sweep runs when the store has
    doubled since the last one.
    """

    #: The store size below which no sweep runs.
    MIN_SWEEP = 1024

    def __init__(self) -> None:
        self._after = self.MIN_SWEEP

    def __call__(self, store: dict[Any, Entry], now: float) -> None:
        if len(store) < self._after:
            return
        for key in [k for k, e in store.items() if e.expires_at <= now]:
            del store[key]
        self._after = max(self.MIN_SWEEP, 2 * len(store))


def ttl_for(facts: ProviderFacts, ttl_class: str | None, optimistic: bool = False) -> float:
    """``facts.ttl(...)``, with an unknown class reported as a CacheModelError."""
    try:
        return facts.ttl(ttl_class, optimistic=optimistic)
    except ValueError as error:
        raise CacheModelError(str(error)) from error
