"""The provider adapter contract, the registry of adapters, and what they share.

An adapter turns a :class:`~promptlint.probe.prompt.Variant` into the body its API takes
(:meth:`Adapter.body`), sends it through the provider's official SDK (:meth:`Adapter.send`,
after :meth:`Adapter.connect`) and returns the provider's own counters as :class:`Usage`.
:meth:`Adapter.predict` is what the provider's cache model says of the same bodies. Every
failure is a :class:`ProbeError` with one line that never holds the API key.

Adapters are registered by name in :data:`ADAPTERS` as ``"module:Class"`` and imported only
when used, so nothing here imports an SDK: ``openai`` and ``anthropic`` are imported inside
:meth:`connect`. A new backend (the local KV cache) is one more entry with the same contract.
"""

from __future__ import annotations

import importlib
import inspect
import os
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from promptlint.probe import models
from promptlint.probe.prompt import Variant

#: The question every probe request asks: the answer is one token and does not matter.
USER_MESSAGE = "Reply with OK."

ADAPTERS: dict[str, str] = {
    "openai": "promptlint.probe.openai_api:OpenAIAdapter",
    "anthropic": "promptlint.probe.anthropic_api:AnthropicAdapter",
    "local": "promptlint.probe.local_api:LocalAdapter",
}


class ProbeError(Exception):
    """A failed request or setup, said in one line. ``kind`` names the failure."""

    def __init__(self, message: str, kind: str = "error") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind


@dataclass(frozen=True)
class Options:
    """Command-line options an adapter reads."""

    model: str | None = None
    base_url: str | None = None
    api: str = "chat"
    compatible: str | None = None
    timeout: float = 60.0
    max_retries: int = 2
    max_output_tokens: int = 1
    breakpoint: str = "stable"
    ttl: str = "5m"
    run_id: str = "run"
    # The local KV backend (--provider local).
    device: str = "auto"
    dtype: str = "float32"
    block_size: int = 16
    kv_budget: str | None = None
    verify: bool = True
    price_as: str | None = None


@dataclass(frozen=True)
class Usage:
    """One response's usage, in the probe's terms (provider-caching.md §12).

    ``input_tokens`` is all input the provider billed; ``cached_tokens`` the cache read;
    ``cache_write_tokens`` the cache write (``cache_write_1h_tokens`` of it with a 1 h TTL);
    ``uncached_tokens`` the rest. ``details_missing``: the response had no cached-token field
    at all (counted as 0). ``raw`` is the usage object as the SDK parsed it.
    """

    input_tokens: int
    cached_tokens: int
    cache_write_tokens: int
    cache_write_1h_tokens: int
    uncached_tokens: int
    output_tokens: int
    details_missing: bool = False
    raw: Mapping[str, Any] = field(default_factory=dict)


#: More tokens than any model's context window holds: a usage count past it is not real.
MAX_TOKENS = 1_000_000_000


class UsageError(ValueError):
    """A usage object whose counts cannot be a response's (the adapter names the provider)."""


def number(value: Any, name: str = "a count") -> int:
    """A usage count; a missing or null one is 0. UsageError for a value that is no count
    (a string, a negative, fractional, nan or infinite number, one past :data:`MAX_TOKENS`):
    read as it came, it made hit rates over 100 %, negative costs or a crash."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= MAX_TOKENS \
            or value != int(value):
        raise UsageError(f"{name} is {value!r}, not a token count")
    return int(value)


class Adapter:
    """Base of every adapter; subclasses set the class attributes and implement the methods."""

    name = "provider"
    key_variables: tuple[str, ...] = ()

    def __init__(self, options: Options) -> None:
        if options.model is not None and not options.model.strip():
            # Read as "no --model", an empty one (`--model "$UNSET"`) probed the default model.
            raise ProbeError(f"--model {options.model!r}: the model name is empty: name one, or leave --model "
                             "out for the default", "usage")
        if options.model is not None and options.model != options.model.strip():
            # Sent as written, no provider knows it, and no price was found for the report.
            raise ProbeError(f"--model {options.model!r}: white space around the model name", "usage")
        self.options = options
        self.kind = models.OPENAI_CHAT
        self.cache_provider = self.name
        self.model = options.model or ""
        if options.base_url is not None:
            check_base_url(options.base_url)
        self.base_url = options.base_url or ""
        self.output_tokens = max(1, options.max_output_tokens)
        self.notes: list[str] = []
        self._secrets: list[str] = []

    # -- the contract ----------------------------------------------------------------------

    def body(self, variant: Variant) -> dict[str, Any]:
        raise NotImplementedError

    def connect(self) -> None:
        """Read the key from the environment and build the SDK client (ProbeError if none)."""
        raise NotImplementedError

    def send(self, body: Mapping[str, Any]) -> Usage:
        raise NotImplementedError

    def close(self) -> None:
        """Release the SDK client, if :meth:`connect` made one."""
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
            self._client = None

    #: Whether requests cost money (a budget applies); the local backend's do not.
    billed = True
    #: Whether the price data's own notes belong in the report (the local backend's stand-in
    #: prices are zeros whose note, "vllm is self-hosted", would name a server not used).
    price_notes = True

    def price_target(self) -> tuple[str, str]:
        """(provider, model) whose list prices the report uses."""
        return self.cache_provider, self.model

    def predict(self, bodies: Sequence[Mapping[str, Any]], times: Sequence[float],
                overrides: Mapping[str, Any] | None = None) -> list[models.Predicted]:
        return models.predict(self.kind, self.cache_provider, self.model, bodies, times, overrides=overrides)

    # -- shared helpers --------------------------------------------------------------------

    def key_from_env(self) -> tuple[str, str]:
        """(variable, key) from the first set variable; ProbeError naming it when none is."""
        for variable in self.key_variables:
            value = os.environ.get(variable, "").strip()
            if value:
                self._secrets.append(value)
                return variable, value
        raise ProbeError(f"{self.name}: no API key: set {self.key_variables[0]} in the environment "
                         "(the probe reads keys only from there)", "key")

    def scrub(self, text: str) -> str:
        """``text`` without any key, masked key fragment or credential in a URL, on one line."""
        for secret in self._secrets:
            if secret:
                text = text.replace(secret, "<redacted>")
                if len(secret) > 12:
                    text = text.replace(secret[-6:], "<redacted>")
        text = re.sub(r"\b(sk|key|token)[-_A-Za-z0-9]*\*{2,}[-_A-Za-z0-9*]*", "<redacted>", text)
        text = _URL_CREDENTIALS.sub("", text)
        return " ".join(text.split())[:300]

    def usage_of(self, response: Any) -> Usage:
        """The :class:`Usage` of a response, through :meth:`read_usage`; ProbeError when the
        response has no usage object or counts that cannot be real."""
        usage = getattr(response, "usage", None)
        if usage is None:
            raise ProbeError(f"{self.name}: the response carries no usage; cannot measure caching", "bad_response")
        # The SDK builds responses without validating them: a count sent as a string would
        # warn on stderr for every field; the check below says it once.
        raw = usage.model_dump(exclude_unset=True, warnings=False) if hasattr(usage, "model_dump") else usage
        if not isinstance(raw, Mapping):
            raise ProbeError(f"{self.name}: the response's usage is {type(raw).__name__}, not an object; cannot "
                             "measure caching", "bad_response")
        try:
            return self.read_usage(raw)
        except UsageError as exc:
            raise ProbeError(f"{self.name}: malformed usage in the response: {self.scrub(str(exc))}",
                             "bad_response") from None

    def read_usage(self, raw: Mapping[str, Any]) -> Usage:
        """The probe's counters from a usage object (UsageError for impossible ones)."""
        raise NotImplementedError

    def not_json(self) -> ProbeError:
        """The one-line error for a response body the SDK could not parse as JSON."""
        return ProbeError(f"{self.name}: the server at {self.base_url} answered with a body that is not JSON: "
                          "is --base-url the API's?", "bad_response")

    def call(self, create: Callable[..., Any], body: Mapping[str, Any]) -> Any:
        """``create(**body)``: parameters the SDK method lacks go in ``extra_body``."""
        accepted = set(inspect.signature(create).parameters)
        known = {k: v for k, v in body.items() if k in accepted}
        extra = {k: v for k, v in body.items() if k not in accepted}
        if extra:
            known["extra_body"] = extra
        return create(**known)

    def failure(self, exc: Exception, sdk: Any) -> ProbeError:
        """The one-line error for an SDK exception (same class names in both SDKs)."""
        who = self.name
        retries = self.options.max_retries
        after = f" after {retries} retr{'y' if retries == 1 else 'ies'}" if retries else ""
        if isinstance(exc, sdk.APITimeoutError):
            return ProbeError(f"{who}: no response within {self.options.timeout:g} s{after} (--timeout)", "timeout")
        if isinstance(exc, sdk.APIConnectionError):
            return ProbeError(f"{who}: cannot reach {self.base_url}: connection refused or dropped{after}",
                              "connection")
        if not isinstance(exc, sdk.APIStatusError):
            return ProbeError(f"{who}: {type(exc).__name__}: {self.scrub(str(exc))}")
        status = exc.status_code
        said = self.scrub(_message(exc))
        if status == 401:
            return ProbeError(f"{who}: 401 unauthorized: the API key in the environment was rejected", "auth")
        if status == 403:
            return ProbeError(f"{who}: 403 forbidden: the key may not use model {self.model!r} from here ({said})",
                              "permission")
        if status == 404:
            return ProbeError(f"{who}: 404 not found: unknown model {self.model!r} or wrong URL {self.base_url} "
                              f"({said})", "not_found")
        if status == 429:
            return ProbeError(f"{who}: 429 rate limited{after}: try again later or send fewer --variants",
                              "rate_limit")
        if status >= 500:
            return ProbeError(f"{who}: {status} server error{after} ({said})", "server")
        # The status's own name (413 payload too large, 422 unprocessable entity: what vLLM
        # answers a prompt longer than its context), not "bad request" for every other 4xx.
        try:
            phrase = HTTPStatus(status).phrase.lower()
        except ValueError:
            phrase = "client error"
        return ProbeError(f"{who}: {status} {phrase}: {said}", "bad_request")


def _message(exc: Any) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, Mapping):
        error = body.get("error", body)
        if isinstance(error, Mapping) and isinstance(error.get("message"), str):
            return str(error["message"])
    return str(getattr(exc, "message", "") or exc)


# `user:password@` after a URL's scheme: never printed.
_URL_CREDENTIALS = re.compile(r"(?<=://)[^/@\s]+@")


def check_base_url(url: str) -> None:
    """ProbeError naming ``--base-url`` unless it is an http(s) URL with a host. Unchecked,
    one without a scheme failed only when sent, as "connection refused"; a bad port or
    bracket failed naming the prompt file; an empty one (``--base-url "$UNSET"``) went to
    the provider's own API."""
    shown = _URL_CREDENTIALS.sub("", url)  # never print credentials in the URL
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a port out of range
    except ValueError as exc:
        raise ProbeError(f"--base-url {shown!r}: {exc}", "usage") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProbeError(f"--base-url {shown!r}: not an http(s) URL with a host, e.g. http://localhost:8000/v1",
                         "usage")


def shown_url(url: str) -> str:
    """A base URL fit to print: no credentials, no query."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<unprintable URL>"
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def adapter_for(provider: str, options: Options) -> Adapter:
    """The adapter registered for ``provider``; ValueError naming the known ones."""
    target = ADAPTERS.get(provider)
    if target is None:
        raise ValueError(f"--provider {provider!r}: unknown provider for probe (known: {', '.join(ADAPTERS)})")
    module, _, cls = target.partition(":")
    made: Adapter = getattr(importlib.import_module(module), cls)(options)
    return made
