"""Anthropic Messages: the system prompt as a stable block and a volatile block.

``--breakpoint stable`` (default) ends the stable block (the variants' common prefix, cut
between words) with ``cache_control``, the documented way to cache a system prompt whose
tail changes; ``--breakpoint auto`` sends the top-level automatic marker instead, which
Anthropic places on the last block. ``--ttl 1h`` asks for the one-hour cache (writes 2×).
Output is one token (``max_tokens: 1``).

Counters read (provider-caching.md §2.5): ``input_tokens`` (after the last breakpoint),
``cache_read_input_tokens``, ``cache_creation_input_tokens`` and its
``cache_creation.ephemeral_5m/1h_input_tokens`` split. All input billed = the three summed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from promptlint.probe import models
from promptlint.probe.adapters import USER_MESSAGE, Adapter, Options, ProbeError, Usage, UsageError, number, shown_url
from promptlint.probe.prompt import Variant

DEFAULT_MODEL = "claude-sonnet-5"
OFFICIAL_URL = "https://api.anthropic.com"


class AnthropicAdapter(Adapter):
    name = "anthropic"
    key_variables = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        if options.breakpoint not in ("stable", "auto"):
            raise ProbeError(f"--breakpoint {options.breakpoint!r}: stable or auto", "usage")
        if options.ttl not in ("5m", "1h"):
            raise ProbeError(f"--ttl {options.ttl!r}: 5m or 1h", "usage")
        if options.compatible:
            raise ProbeError("--compatible applies to --provider openai", "usage")
        if options.base_url and urlsplit(options.base_url).path.rstrip("/").endswith("/v1"):
            # The SDK appends /v1/messages itself: an OpenAI-style base URL went to /v1/v1/messages,
            # a 404 after the run had started.
            raise ProbeError(f"--base-url {shown_url(options.base_url)!r}: the Anthropic SDK adds /v1 itself; "
                             "leave it off", "usage")
        self.kind = models.ANTHROPIC
        self.cache_provider = "anthropic"
        self.model = options.model or DEFAULT_MODEL
        self.base_url = shown_url(options.base_url) if options.base_url else OFFICIAL_URL
        self._client: Any = None
        self._sdk: Any = None
        self._variable = ""

    def _marker(self) -> dict[str, str]:
        marker = {"type": "ephemeral"}
        if self.options.ttl != "5m":
            marker["ttl"] = self.options.ttl
        return marker

    def body(self, variant: Variant) -> dict[str, Any]:
        if variant.body is not None:
            return self._own_body(variant)
        blocks: list[dict[str, Any]] = []
        auto = self.options.breakpoint == "auto"
        if variant.stable:
            blocks.append({"type": "text", "text": variant.stable})
            if not auto:
                blocks[-1]["cache_control"] = self._marker()
        if variant.volatile:
            blocks.append({"type": "text", "text": variant.volatile})
        body: dict[str, Any] = {"model": self.model, "max_tokens": self.output_tokens, "system": blocks,
                                "messages": [{"role": "user", "content": USER_MESSAGE}]}
        if auto:
            body["cache_control"] = self._marker()
        return body

    def _own_body(self, variant: Variant) -> dict[str, Any]:
        """A request-body file's body with its own markers, the probe's model and output."""
        assert variant.body is not None
        body = copy.deepcopy(variant.body)
        if models.body_kind(body) != models.ANTHROPIC:
            raise ProbeError("the request body is an OpenAI body: probe it with --provider openai", "usage")
        body.pop("stream", None)
        if self.options.model or not body.get("model"):
            body["model"] = self.model
        self.model = str(body["model"])
        body["max_tokens"] = self.output_tokens
        return body

    def connect(self) -> None:
        self._variable, key = self.key_from_env()
        import anthropic

        self._sdk = anthropic
        bearer = self._variable == "ANTHROPIC_AUTH_TOKEN"
        self._client = anthropic.Anthropic(api_key=None if bearer else key, auth_token=key if bearer else None,
                                           base_url=self.options.base_url or None,
                                           timeout=self.options.timeout, max_retries=self.options.max_retries)

    def send(self, body: Mapping[str, Any]) -> Usage:
        assert self._client is not None, "connect() first"
        try:
            response = self.call(self._client.messages.create, body)
        except self._sdk.AnthropicError as exc:
            raise self.failure(exc, self._sdk) from None
        except json.JSONDecodeError:
            raise self.not_json() from None
        return self.usage_of(response)

    def read_usage(self, raw: Mapping[str, Any]) -> Usage:
        uncached = number(raw.get("input_tokens"), "input_tokens")
        read = number(raw.get("cache_read_input_tokens"), "cache_read_input_tokens")
        written = number(raw.get("cache_creation_input_tokens"), "cache_creation_input_tokens")
        split = raw.get("cache_creation")
        one_hour = number(split.get("ephemeral_1h_input_tokens"), "ephemeral_1h_input_tokens") \
            if isinstance(split, Mapping) else 0
        if one_hour > written:  # a negative 5-minute write, priced below zero
            raise UsageError(f"{one_hour:,} one-hour tokens of {written:,} cache_creation_input_tokens")
        missing = "cache_read_input_tokens" not in raw
        return Usage(uncached + read + written, read, written, one_hour, uncached,
                     number(raw.get("output_tokens"), "output_tokens"), missing, dict(raw))
