"""A fake OpenAI / Anthropic HTTP server for tests (issue 11): real SDK clients talk to it.

It speaks, non-streaming, well enough for the official ``openai`` and ``anthropic`` clients:

* OpenAI Chat Completions ``POST /v1/chat/completions``
* OpenAI Responses ``POST /v1/responses`` (and ``POST /v1/responses/input_tokens``)
* Anthropic Messages ``POST /v1/messages`` and ``POST /v1/messages/count_tokens``

Usage counters follow the providers' documented cache behaviour because they come from the
project's own cache simulators (see the adapter section below): every successful request is
appended to the server's history, and the whole history of its (cache model, model) partition
is replayed through the simulator, so the second request sharing a long prefix reads from
cache. Arrival times come from an injectable clock (:class:`FakeClock` by default: 0, 1, 2, …
seconds), never from the wall clock, so TTLs are tested by advancing the clock.

    with FakeProvider(api_key="sk-test") as server:
        client = openai.OpenAI(api_key="sk-test", base_url=server.openai_base_url, max_retries=0)
        client.chat.completions.create(model="gpt-4o", messages=[...], max_completion_tokens=1)
        server.requests[-1].body["messages"]   # what was sent
        server.bills[-1].cached_tokens         # what was billed
        server.fail("rate_limit", start=3)     # the 3rd request onward gets a 429

The server binds 127.0.0.1 on an ephemeral port, stops on :meth:`FakeProvider.stop` (or the
end of the ``with`` block), releases any hanging request when it stops, and bounds every wait.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import socket
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

# ============================================================================================
# Adapter: the ONLY place this file touches promptlint internals.
#
# The simulator modules are moving into ``promptlint/providers/``; whoever moves them updates
# the imports and the few calls in this section, and nothing below it. Everything below works
# with the plain values defined here (:class:`SimUsage`, :class:`Prepared`).
from promptlint import providers as provider_table
from promptlint import requestbody
from promptlint.core import tokens as token_counter
from promptlint.providers.base import CacheModelError
from promptlint.replay import analysis as replay_analysis
from promptlint.replay.divergence import Prepared as ReplayPrepared
from promptlint.replay.log import LogEntry

#: Request kinds of this server -> the renderer kinds of ``promptlint.requestbody``.
_KINDS = {
    "openai-chat": requestbody.OPENAI_CHAT,
    "openai-responses": requestbody.OPENAI_RESPONSES,
    "anthropic": requestbody.ANTHROPIC,
}


class SimulatorRejected(ValueError):
    """The cache model (or the renderer) rejects a request: the server answers 400."""


@dataclass(frozen=True)
class SimUsage:
    """One request's input-token accounting, as the simulator computed it."""

    read: int
    write: int
    write_1h: int
    uncached: int
    total: int


@dataclass(frozen=True)
class Prepared:
    """A request body rendered and tokenised for the simulator."""

    input_tokens: int
    sim_request: Any  # the simulator's own request object; opaque outside the adapter


def encode(text: str) -> list[int]:
    """o200k_base token ids (the project's tokenizer)."""
    return token_counter.encode(text, "o200k_base")


def decode(ids: Sequence[int]) -> str:
    return token_counter.get_encoding("o200k_base").decode(list(ids))


def prepare(
    kind: str,
    cache_provider: str,
    body: Mapping[str, Any],
    *,
    time: float,
    routing_key: str | None,
    output_ids: Sequence[int] = (),
) -> Prepared:
    """Render, tokenise and turn ``body`` into a simulator request (the replay path)."""
    try:
        rendered = requestbody.render_as(_KINDS[kind], body)
        ids, ends = requestbody.ChunkTokenizer("o200k_base").request(rendered)
    except (requestbody.RequestError, TypeError, AttributeError) as exc:
        raise SimulatorRejected(f"cannot render the request: {exc}") from None
    model = str(body.get("model") or "")
    entry = LogEntry(
        line=0,
        body=body,
        rendered=rendered,
        time=time,
        routing_key=routing_key,
        usage=None,
        provider=cache_provider,
    )
    sim_request = replay_analysis._sim_request(ReplayPrepared(entry, model, ids, ends, time), cache_provider)
    sim_request = dataclasses.replace(sim_request, output_tokens=tuple(output_ids))
    return Prepared(input_tokens=len(ids), sim_request=sim_request)


def simulate(
    cache_provider: str,
    model: str,
    history: Sequence[Prepared],
    *,
    overrides: Mapping[str, Any] | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[str, list[SimUsage]]:
    """(the cache model's table row, one usage per request) for a partition's whole history.

    The simulators are pure (each run starts cold), so the history is replayed every time.
    ``overrides`` are provider-table rows (``{"openai": {"min_cacheable_tokens": 1024}}``);
    ``options`` are simulator keyword options by table row (``{"openai": {"retention":
    "in_memory"}}``: the ``openai-5.6`` row, which a gpt-5.6 model resolves to, takes none).
    """
    try:
        facts = provider_table.facts(cache_provider, model or None, overrides)
        usages = provider_table.simulate(
            cache_provider,
            model or None,
            [p.sim_request for p in history if p.input_tokens],
            facts=facts,
            **dict((options or {}).get(facts.provider, {})),
        )
    except (CacheModelError, ValueError, TypeError) as exc:
        raise SimulatorRejected(str(exc)) from None
    # Empty prompts are not simulated (nothing to cache); they bill nothing.
    it = iter(usages)
    out = [SimUsage(0, 0, 0, 0, 0) if not p.input_tokens else _sim_usage(next(it)) for p in history]
    return facts.provider, out


def _sim_usage(usage: Any) -> SimUsage:
    return SimUsage(usage.read, usage.write, usage.write_1h, usage.uncached, usage.total)


# ============================================================================================
# Clock, faults, the request log and the bill


class FakeClock:
    """A deterministic clock: each reading returns the time, then moves it on by ``step``.

    ``advance(seconds)`` jumps forward (e.g. past a cache TTL).
    """

    def __init__(self, start: float = 0.0, step: float = 1.0) -> None:
        self._now = float(start)
        self.step = float(step)
        self._lock = threading.Lock()

    def __call__(self) -> float:
        with self._lock:
            now = self._now
            self._now += self.step
            return now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self._now += float(seconds)

    @property
    def now(self) -> float:
        return self._now


#: Fault kinds -> HTTP status (None: no response at all).
FAULTS: dict[str, int | None] = {
    "unauthorized": 401,
    "forbidden": 403,
    "not_found": 404,
    "rate_limit": 429,
    "server_error": 500,
    "unavailable": 503,
    "overloaded": 529,
    "too_large": 413,  # Anthropic's request_too_large: more bytes than the API takes
    "unprocessable": 422,  # an OpenAI-compatible server's validation error (FastAPI)
    "hang": None,  # read the request, answer nothing until hang_seconds pass or the server stops
    "drop": None,  # read the request, close the connection without a response
    "truncate": None,  # send headers and part of the body, then close
}
_FAULT_BY_STATUS = {status: name for name, status in FAULTS.items() if status is not None}

ENDPOINTS = (
    "chat",
    "responses",
    "responses.input_tokens",
    "messages",
    "messages.count_tokens",
)
_ROUTES = {
    "/v1/chat/completions": "chat",
    "/v1/responses": "responses",
    "/v1/responses/input_tokens": "responses.input_tokens",
    "/v1/messages": "messages",
    "/v1/messages/count_tokens": "messages.count_tokens",
}
_ANTHROPIC_ENDPOINTS = frozenset({"messages", "messages.count_tokens"})


@dataclass(frozen=True)
class Fault:
    """A fault for requests number ``start`` (1-based, every request counts) onward.

    ``times`` limits how many requests it hits (None: all later ones); ``endpoints`` limits
    it to some of :data:`ENDPOINTS` (None: all).
    """

    kind: str
    start: int = 1
    times: int | None = None
    endpoints: frozenset[str] | None = None
    retry_after: float | None = 1.0
    message: str | None = None


_SECRET_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "cookie", "x-goog-api-key"}
)
REDACTED = "<redacted>"


def key_fingerprint(key: str) -> str:
    """How the log remembers an API key: a sha256, never the key itself."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass
class RecordedRequest:
    """One request as the server received it (secret headers redacted, the key hashed).

    ``status`` is what it answered (None: no response, a hang or a drop); ``fault`` the fault
    that hit it; ``bill`` the usage billed for it (successful generation requests only).
    """

    index: int
    time: float
    method: str
    path: str
    endpoint: str | None
    headers: dict[str, str]
    body: Any
    api_key_sha256: str | None
    status: int | None = None
    fault: str | None = None
    bill: Bill | None = None

    def sent_key(self, key: str) -> bool:
        """Whether the request carried exactly ``key`` as its API key."""
        return self.api_key_sha256 == key_fingerprint(key)


@dataclass(frozen=True)
class Bill:
    """The usage the server returned for one request, in provider-neutral terms.

    ``input_tokens`` = ``cached_tokens + cache_write_tokens + uncached_tokens`` (all prompt
    tokens); ``cache_write_1h_tokens`` is the 1 h part of the writes (Anthropic). ``usage`` is
    the exact JSON usage object sent. ``cache_model`` is the simulator's table row.
    """

    request_index: int
    endpoint: str
    model: str
    cache_model: str
    input_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    cache_write_1h_tokens: int
    uncached_tokens: int
    output_tokens: int
    usage: dict[str, Any] = field(repr=False)


_BILL_SUMS = (
    "input_tokens",
    "cached_tokens",
    "cache_write_tokens",
    "cache_write_1h_tokens",
    "uncached_tokens",
    "output_tokens",
)

#: Usage dialects of the Chat Completions endpoint -> (cache model, how cached tokens show).
CHAT_DIALECTS: dict[str, tuple[str, str]] = {
    "openai": ("openai", "details"),  # prompt_tokens_details.cached_tokens, always
    "deepseek": ("deepseek", "hit-miss"),  # prompt_cache_hit_tokens / prompt_cache_miss_tokens
    "vllm": ("vllm", "details-when-cached"),  # --enable-prompt-tokens-details: only when > 0
    "no-details": ("vllm", "none"),  # vLLM default: prompt_tokens_details never sent
}


class _Reply(Exception):
    """Internal: answer with this status and JSON body."""

    def __init__(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = dict(headers or {})


# ============================================================================================
# The server


class FakeProvider:
    """The fake provider. Use as a context manager, or :meth:`start` / :meth:`stop`.

    ``api_key``: when set, a request whose key differs gets the provider's 401 (OpenAI:
    ``Authorization: Bearer``; Anthropic: ``x-api-key`` or ``Authorization: Bearer``).
    ``clock``: arrival times in seconds (default :class:`FakeClock`). ``chat_dialect``: one of
    :data:`CHAT_DIALECTS` for the Chat Completions endpoint. ``facts_overrides``: provider
    table rows for the simulators (e.g. ``{"openai": {"min_cacheable_tokens": 1024}}``).
    ``simulator_options``: per provider-table row, keyword options of its simulator
    (``{"openai": {"retention": "in_memory"}}``). ``known_models``: when set, other models get
    404. Cache partitions are (cache model, model): Chat and Responses share OpenAI's.
    ``reply``: the assistant text (cut to the request's max tokens). ``hang_seconds``: how long
    a ``hang`` fault holds a request (released at once when the server stops).
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        clock: Callable[[], float] | None = None,
        chat_dialect: str = "openai",
        facts_overrides: Mapping[str, Any] | None = None,
        simulator_options: Mapping[str, Mapping[str, Any]] | None = None,
        known_models: Iterable[str] | None = None,
        reply: str = "OK, noted.",
        hang_seconds: float = 5.0,
        max_body_bytes: int = 32 * 1024 * 1024,
    ) -> None:
        if chat_dialect not in CHAT_DIALECTS:
            raise ValueError(f"chat_dialect {chat_dialect!r}; known: {sorted(CHAT_DIALECTS)}")
        self.api_key = api_key
        self.clock: Callable[[], float] = clock if clock is not None else FakeClock()
        self.chat_dialect = chat_dialect
        self.facts_overrides = dict(facts_overrides or {})
        self.simulator_options = {k: dict(v) for k, v in (simulator_options or {}).items()}
        self.known_models = frozenset(known_models) if known_models is not None else None
        self.reply = reply
        self.hang_seconds = float(hang_seconds)
        self.max_body_bytes = max_body_bytes
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._log: list[RecordedRequest] = []
        self._faults: list[Fault] = []
        self._fault_hits: dict[int, int] = {}
        self._history: dict[tuple[str, str], list[Prepared]] = {}
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> Self:
        if self._server is not None:
            return self
        self._stopping.clear()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        server.daemon_threads = False  # server_close() joins the handler threads
        server.block_on_close = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if server is None:
            return
        self._stopping.set()  # releases hanging requests
        server.shutdown()
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._server is None:
            raise RuntimeError("the fake provider is not running")
        return int(self._server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.url}/v1"

    @property
    def anthropic_base_url(self) -> str:
        return self.url

    # -- faults -----------------------------------------------------------------------------

    def fail(
        self,
        kind: str | int,
        *,
        start: int | None = None,
        times: int | None = None,
        endpoints: Iterable[str] | None = None,
        retry_after: float | None = 1.0,
        message: str | None = None,
    ) -> Fault:
        """Inject a fault from request number ``start`` onward (default: the next request).

        ``kind`` is one of :data:`FAULTS` or its HTTP status (401, 403, 404, 429, 500, 503,
        529). ``retry_after`` (seconds) is sent as ``retry-after`` on 429/503/529 (None: no
        header). The first matching fault wins.
        """
        name = _FAULT_BY_STATUS.get(kind) if isinstance(kind, int) else kind
        if name not in FAULTS:
            raise ValueError(
                f"fault {kind!r}; known: {sorted(FAULTS)} or {sorted(_FAULT_BY_STATUS)}"
            )
        chosen = frozenset(endpoints) if endpoints is not None else None
        if chosen is not None and not chosen <= set(ENDPOINTS):
            raise ValueError(f"endpoints {sorted(chosen - set(ENDPOINTS))}; known: {ENDPOINTS}")
        with self._lock:
            fault = Fault(
                name,
                start if start is not None else len(self._log) + 1,
                times,
                chosen,
                retry_after,
                message,
            )
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()
            self._fault_hits.clear()

    # -- what happened ----------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received, in arrival order (a copy of the list)."""
        with self._lock:
            return list(self._log)

    @property
    def bills(self) -> list[Bill]:
        """The usage billed, one per successful generation request, in order."""
        with self._lock:
            return [r.bill for r in self._log if r.bill is not None]

    def billed_total(self) -> dict[str, int]:
        """Sums of every :class:`Bill` field that counts tokens, plus ``requests``."""
        bills = self.bills
        totals = {name: sum(getattr(b, name) for b in bills) for name in _BILL_SUMS}
        totals["requests"] = len(bills)
        return totals

    def forget_cache(self) -> None:
        """Start every cache partition cold (the request log and faults stay)."""
        with self._lock:
            self._history.clear()

    def reset(self) -> None:
        """Forget requests, bills, faults and caches."""
        with self._lock:
            self._log.clear()
            self._faults.clear()
            self._fault_hits.clear()
            self._history.clear()

    # -- request handling (called from handler threads) -------------------------------------

    def _record(
        self, method: str, path: str, headers: Mapping[str, str], body: Any
    ) -> tuple[RecordedRequest, Fault | None]:
        route = path.split("?", 1)[0].rstrip("/")
        endpoint = _ROUTES.get(route)
        key = _api_key(endpoint, headers)
        shown = {
            name: (REDACTED if name in _SECRET_HEADERS else value)
            for name, value in headers.items()
        }
        with self._lock:
            record = RecordedRequest(
                index=len(self._log) + 1,
                time=self.clock(),
                method=method,
                path=path,
                endpoint=endpoint,
                headers=shown,
                body=body,
                api_key_sha256=key_fingerprint(key) if key is not None else None,
            )
            self._log.append(record)
            fault = self._fault_for(record)
            if fault is not None:
                record.fault = fault.kind
        return record, fault

    def _fault_for(self, record: RecordedRequest) -> Fault | None:
        for number, fault in enumerate(self._faults):
            if record.index < fault.start:
                continue
            if fault.endpoints is not None and record.endpoint not in fault.endpoints:
                continue
            hits = self._fault_hits.get(number, 0)
            if fault.times is not None and hits >= fault.times:
                continue
            self._fault_hits[number] = hits + 1
            return fault
        return None

    def _handle(self, record: RecordedRequest, headers: Mapping[str, str]) -> _Reply:
        """The reply to a recorded request that no fault hit."""
        endpoint = record.endpoint
        anthropic = endpoint in _ANTHROPIC_ENDPOINTS or record.path.startswith("/v1/messages")
        if record.method != "POST" or endpoint is None:
            raise _not_found_route(record.method, record.path, anthropic)
        key = _api_key(endpoint, headers)
        if self.api_key is not None and key != self.api_key:
            raise _error_reply("unauthorized", anthropic, key=key)
        body = record.body
        if not isinstance(body, dict):
            raise _invalid(anthropic, "the request body is not a JSON object")
        if anthropic and "anthropic-version" not in headers:
            raise _invalid(anthropic, "anthropic-version: header is required")
        model = body.get("model")
        if not isinstance(model, str) or not model:
            raise _invalid(
                anthropic,
                "model: Field required" if anthropic else "you must provide a model parameter",
            )
        if self.known_models is not None and model not in self.known_models:
            raise _error_reply("not_found", anthropic, model=model)
        if body.get("stream"):
            raise _invalid(
                anthropic, "stream: the fake provider answers non-streaming requests only"
            )
        if endpoint == "chat":
            return self._chat(record, body, model)
        if endpoint == "responses":
            return self._responses(record, body, model)
        if endpoint == "responses.input_tokens":
            count = self._count(record, "openai-responses", "openai", body, anthropic=False)
            return _Reply(200, {"object": "response.input_tokens", "input_tokens": count})
        if endpoint == "messages":
            return self._messages(record, body, model)
        count = self._count(record, "anthropic", "anthropic", body, anthropic=True)
        return _Reply(200, {"input_tokens": count})

    def _count(
        self,
        record: RecordedRequest,
        kind: str,
        provider: str,
        body: dict[str, Any],
        *,
        anthropic: bool,
    ) -> int:
        try:
            return prepare(kind, provider, body, time=record.time, routing_key=None).input_tokens
        except SimulatorRejected as exc:
            raise _invalid(anthropic, str(exc)) from None

    def _output(self, limit: Any) -> tuple[list[int], str, bool]:
        """(output ids, text, whether max tokens cut it) for a max-tokens value."""
        ids = encode(self.reply)
        if isinstance(limit, int) and not isinstance(limit, bool) and limit < len(ids):
            kept = ids[: max(0, limit)]
            return kept, decode(kept), True
        return ids, self.reply, False

    def _bill(
        self,
        record: RecordedRequest,
        kind: str,
        cache_provider: str,
        body: dict[str, Any],
        model: str,
        output_ids: Sequence[int],
        *,
        anthropic: bool,
    ) -> tuple[str, SimUsage]:
        """Add the request to its partition's history and simulate it: (cache row, usage)."""
        key = body.get("prompt_cache_key") if not anthropic else None
        routing_key = str(key) if isinstance(key, str) else None
        with self._lock:
            try:
                prepared = prepare(
                    kind,
                    cache_provider,
                    body,
                    time=record.time,
                    routing_key=routing_key,
                    output_ids=output_ids,
                )
                history = self._history.get((cache_provider, model), [])
                row, usages = simulate(
                    cache_provider,
                    model,
                    [*history, prepared],
                    overrides=self.facts_overrides,
                    options=self.simulator_options,
                )
            except SimulatorRejected as exc:
                raise _invalid(anthropic, str(exc)) from None
            self._history[(cache_provider, model)] = [*history, prepared]
        return row, usages[-1]

    def _chat(self, record: RecordedRequest, body: dict[str, Any], model: str) -> _Reply:
        if not isinstance(body.get("messages"), list):
            raise _invalid(False, "Missing required parameter: 'messages'.", param="messages")
        limit = body.get("max_completion_tokens", body.get("max_tokens"))
        output_ids, text, cut = self._output(limit)
        cache_provider, shown = CHAT_DIALECTS[self.chat_dialect]
        row, usage = self._bill(
            record, "openai-chat", cache_provider, body, model, output_ids, anthropic=False
        )
        out = len(output_ids)
        usage_json: dict[str, Any] = {
            "prompt_tokens": usage.total,
            "completion_tokens": out,
            "total_tokens": usage.total + out,
        }
        details: dict[str, Any] = {"cached_tokens": usage.read, "audio_tokens": 0}
        if row == "openai-5.6":
            details["cache_write_tokens"] = usage.write
        if shown == "details" or (shown == "details-when-cached" and usage.read > 0):
            usage_json["prompt_tokens_details"] = details
        if shown == "hit-miss":
            usage_json["prompt_cache_hit_tokens"] = usage.read
            usage_json["prompt_cache_miss_tokens"] = usage.total - usage.read
        usage_json["completion_tokens_details"] = {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        }
        self._keep_bill(record, "chat", model, row, usage, out, usage_json)
        return _Reply(
            200,
            {
                "id": f"chatcmpl-fake{record.index:08d}",
                "object": "chat.completion",
                "created": _epoch(record.time),
                "model": model,
                "choices": [
                    {
                        "index": 0,
                        "message": {
                            "role": "assistant",
                            "content": text,
                            "refusal": None,
                            "annotations": [],
                        },
                        "logprobs": None,
                        "finish_reason": "length" if cut else "stop",
                    }
                ],
                "usage": usage_json,
                "service_tier": "default",
                "system_fingerprint": "fp_fakeprovider",
            },
            {"x-request-id": f"req_fake{record.index:08d}"},
        )

    def _responses(self, record: RecordedRequest, body: dict[str, Any], model: str) -> _Reply:
        if body.get("input") is None and body.get("instructions") is None:
            raise _invalid(False, "Missing required parameter: 'input'.", param="input")
        limit = body.get("max_output_tokens")
        output_ids, text, cut = self._output(limit)
        row, usage = self._bill(
            record, "openai-responses", "openai", body, model, output_ids, anthropic=False
        )
        out = len(output_ids)
        input_details: dict[str, Any] = {
            "cached_tokens": usage.read,
            "cache_write_tokens": usage.write,
        }
        if row == "openai-5.6":
            input_details["cache_write_tokens_details"] = {
                "ttl_30m_tokens": usage.write,
                "ttl_12h_tokens": 0,
            }
        usage_json = {
            "input_tokens": usage.total,
            "input_tokens_details": input_details,
            "output_tokens": out,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.total + out,
        }
        self._keep_bill(record, "responses", model, row, usage, out, usage_json)
        status = "incomplete" if cut else "completed"
        created = _epoch(record.time)
        return _Reply(
            200,
            {
                "id": f"resp_fake{record.index:08d}",
                "object": "response",
                "created_at": created,
                "completed_at": None if cut else created,
                "status": status,
                "background": False,
                "error": None,
                "incomplete_details": {"reason": "max_output_tokens"} if cut else None,
                "instructions": body.get("instructions"),
                "max_output_tokens": limit if isinstance(limit, int) else None,
                "metadata": body.get("metadata") or {},
                "model": model,
                "output": [
                    {
                        "id": f"msg_fake{record.index:08d}",
                        "type": "message",
                        "role": "assistant",
                        "status": status,
                        "content": [
                            {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
                        ],
                    }
                ],
                "parallel_tool_calls": bool(body.get("parallel_tool_calls", True)),
                "previous_response_id": body.get("previous_response_id"),
                "prompt_cache_key": body.get("prompt_cache_key"),
                "prompt_cache_retention": body.get("prompt_cache_retention"),
                "reasoning": {"effort": None, "summary": None},
                "service_tier": "default",
                "store": bool(body.get("store", True)),
                "temperature": 1.0,
                "text": {"format": {"type": "text"}, "verbosity": "medium"},
                "tool_choice": body.get("tool_choice", "auto"),
                "tools": body.get("tools") or [],
                "top_logprobs": 0,
                "top_p": 1.0,
                "truncation": "disabled",
                "usage": usage_json,
                "user": None,
            },
            {"x-request-id": f"req_fake{record.index:08d}"},
        )

    def _messages(self, record: RecordedRequest, body: dict[str, Any], model: str) -> _Reply:
        limit = body.get("max_tokens")
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 0:
            raise _invalid(True, "max_tokens: Field required")
        if not isinstance(body.get("messages"), list):
            raise _invalid(True, "messages: Field required")
        output_ids, text, cut = self._output(limit)
        row, usage = self._bill(
            record, "anthropic", "anthropic", body, model, output_ids, anthropic=True
        )
        out = len(output_ids)
        usage_json = {
            "input_tokens": usage.uncached,
            "cache_creation_input_tokens": usage.write,
            "cache_read_input_tokens": usage.read,
            "cache_creation": {
                "ephemeral_5m_input_tokens": usage.write - usage.write_1h,
                "ephemeral_1h_input_tokens": usage.write_1h,
            },
            "output_tokens": out,
            "service_tier": "standard",
        }
        self._keep_bill(record, "messages", model, row, usage, out, usage_json)
        return _Reply(
            200,
            {
                "id": f"msg_fake{record.index:08d}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": text}] if text else [],
                "stop_reason": "max_tokens" if cut else "end_turn",
                "stop_sequence": None,
                "usage": usage_json,
            },
            {"request-id": f"req_fake{record.index:08d}"},
        )

    def _keep_bill(
        self,
        record: RecordedRequest,
        endpoint: str,
        model: str,
        row: str,
        usage: SimUsage,
        output_tokens: int,
        usage_json: dict[str, Any],
    ) -> None:
        bill = Bill(
            request_index=record.index,
            endpoint=endpoint,
            model=model,
            cache_model=row,
            input_tokens=usage.total,
            cached_tokens=usage.read,
            cache_write_tokens=usage.write,
            cache_write_1h_tokens=usage.write_1h,
            uncached_tokens=usage.uncached,
            output_tokens=output_tokens,
            usage=json.loads(json.dumps(usage_json)),
        )
        with self._lock:
            record.bill = bill


# ============================================================================================
# Error bodies, in each provider's shape

_OPENAI_ERRORS = {
    "unauthorized": ("invalid_request_error", "invalid_api_key"),
    "forbidden": ("request_forbidden", "unsupported_country_region_territory"),
    "not_found": ("invalid_request_error", "model_not_found"),
    "rate_limit": ("requests", "rate_limit_exceeded"),
    "server_error": ("server_error", None),
    "unavailable": ("server_error", "service_unavailable"),
    "overloaded": ("server_error", "overloaded"),
    "too_large": ("invalid_request_error", "request_too_large"),
    "unprocessable": ("invalid_request_error", None),
}
_ANTHROPIC_ERRORS = {
    "unauthorized": "authentication_error",
    "forbidden": "permission_error",
    "not_found": "not_found_error",
    "rate_limit": "rate_limit_error",
    "server_error": "api_error",
    "unavailable": "api_error",
    "overloaded": "overloaded_error",
    "too_large": "request_too_large",
    "unprocessable": "invalid_request_error",
}


def _default_message(kind: str, anthropic: bool, model: str | None, key: str | None) -> str:
    if kind == "unauthorized":
        if anthropic:
            return "invalid x-api-key"
        shown = f"{key[:3]}***{key[-4:]}" if key and len(key) > 8 else "***"
        return (
            f"Incorrect API key provided: {shown}. You can find your API key at "
            "https://platform.openai.com/account/api-keys."
        )
    if kind == "forbidden":
        return (
            "Your API key does not have permission to use the specified resource."
            if anthropic
            else "Country, region, or territory not supported"
        )
    if kind == "not_found":
        name = model or "unknown"
        return (
            f"model: {name}"
            if anthropic
            else f"The model `{name}` does not exist or you do not have access to it."
        )
    if kind == "rate_limit":
        return (
            "This request would exceed the rate limit for your organization."
            if anthropic
            else "Rate limit reached for requests. Please try again later."
        )
    if kind == "overloaded":
        return "Overloaded"
    if kind == "unavailable":
        return "The server is temporarily unavailable. Please try again later."
    return (
        "Internal server error"
        if anthropic
        else "The server had an error while processing your request."
    )


def _error_reply(
    kind: str,
    anthropic: bool,
    *,
    model: str | None = None,
    key: str | None = None,
    message: str | None = None,
    retry_after: float | None = None,
) -> _Reply:
    status = FAULTS[kind]
    assert status is not None
    text = message or _default_message(kind, anthropic, model, key)
    headers: dict[str, str] = {}
    if retry_after is not None and kind in ("rate_limit", "unavailable", "overloaded"):
        headers["retry-after"] = f"{retry_after:g}"
    if anthropic:
        body: dict[str, Any] = {
            "type": "error",
            "error": {"type": _ANTHROPIC_ERRORS[kind], "message": text},
            "request_id": "req_fake_error",
        }
        headers["request-id"] = "req_fake_error"
    else:
        error_type, code = _OPENAI_ERRORS[kind]
        body = {"error": {"message": text, "type": error_type, "param": None, "code": code}}
        headers["x-request-id"] = "req_fake_error"
    return _Reply(status, body, headers)


def _invalid(anthropic: bool, message: str, *, param: str | None = None) -> _Reply:
    if anthropic:
        body: dict[str, Any] = {
            "type": "error",
            "error": {"type": "invalid_request_error", "message": message},
            "request_id": "req_fake_error",
        }
    else:
        body = {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": param,
                "code": None,
            }
        }
    return _Reply(400, body)


def _not_found_route(method: str, path: str, anthropic: bool) -> _Reply:
    message = f"Unknown request URL: {method} {path}."
    if anthropic:
        return _Reply(
            404, {"type": "error", "error": {"type": "not_found_error", "message": message}}
        )
    return _Reply(
        404,
        {
            "error": {
                "message": message,
                "type": "invalid_request_error",
                "param": None,
                "code": "unknown_url",
            }
        },
    )


def _api_key(endpoint: str | None, headers: Mapping[str, str]) -> str | None:
    """The API key a request carries: ``x-api-key`` (Anthropic) or ``Authorization: Bearer``."""
    if endpoint in _ANTHROPIC_ENDPOINTS and headers.get("x-api-key"):
        return headers["x-api-key"]
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return headers.get("x-api-key")


def _epoch(time: float) -> int:
    """A plausible Unix timestamp for a clock reading (the fake clock starts at 0)."""
    return 1_767_225_600 + int(time)  # 2026-01-01T00:00:00Z


# ============================================================================================
# HTTP plumbing


def _handler_for(provider: FakeProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # One request per connection: nothing idles in keep-alive when the server stops.
        protocol_version = "HTTP/1.0"
        timeout = 10  # seconds; bounds every socket read and write of a handler thread
        server_version = "FakeProvider/1.0"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

        def _serve(self, method: str) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            try:
                length = int(headers.get("content-length") or 0)
            except ValueError:
                length = -1
            if length < 0 or length > provider.max_body_bytes:
                self._send(_Reply(413, {"error": {"message": "request body too large or invalid"}}))
                return
            raw = self.rfile.read(length) if length else b""
            try:
                body: Any = json.loads(raw) if raw else None
            except (json.JSONDecodeError, UnicodeDecodeError):
                body = None
            record, fault = provider._record(method, self.path, headers, body)
            if fault is not None:
                self._fault(record, fault)
                return
            try:
                reply = provider._handle(record, headers)
            except _Reply as error_reply:
                reply = error_reply
            except Exception as exc:  # noqa: BLE001 (a bug in the fake must not hang the client)
                reply = _Reply(
                    500,
                    {"error": {"message": f"fake provider bug: {exc!r}", "type": "server_error"}},
                )
            record.status = reply.status
            self._send(reply)

        def _fault(self, record: RecordedRequest, fault: Fault) -> None:
            anthropic = record.endpoint in _ANTHROPIC_ENDPOINTS or record.path.startswith(
                "/v1/messages"
            )
            if fault.kind == "hang":
                provider._stopping.wait(provider.hang_seconds)
                self._abort()
                return
            if fault.kind == "drop":
                self._abort()
                return
            if fault.kind == "truncate":
                payload = b'{"id": "chatcmpl-truncated", "object": "chat.completion", "choices": ['
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload) + 500))
                    self.end_headers()
                    self.wfile.write(payload)
                    self.wfile.flush()
                except OSError:
                    pass
                self._abort()
                return
            model = record.body.get("model") if isinstance(record.body, dict) else None
            reply = _error_reply(
                fault.kind,
                anthropic,
                model=model if isinstance(model, str) else None,
                key=None,
                message=fault.message,
                retry_after=fault.retry_after,
            )
            record.status = reply.status
            self._send(reply)

        def _abort(self) -> None:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def _send(self, reply: _Reply) -> None:
            data = json.dumps(reply.body).encode("utf-8")
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()
            except OSError:
                pass  # the client went away (e.g. it timed out)

    return Handler


__all__ = [
    "CHAT_DIALECTS",
    "ENDPOINTS",
    "FAULTS",
    "REDACTED",
    "Bill",
    "FakeClock",
    "FakeProvider",
    "Fault",
    "RecordedRequest",
    "SimUsage",
    "SimulatorRejected",
    "key_fingerprint",
]
