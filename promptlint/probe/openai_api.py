"""OpenAI Chat Completions and Responses, and OpenAI-compatible servers (``--base-url``).

The system prompt goes whole into one system message (Chat) or ``instructions``
(Responses), followed by one short user message; OpenAI caches the longest identical prefix
on its own. ``prompt_cache_key`` (one per run and version) keeps a version's requests on one
route. Output is one token (``max_completion_tokens``; ``max_tokens`` on compatible servers);
the Responses API refuses ``max_output_tokens`` below 16, so Responses requests ask for 16.

Counters read (provider-caching.md §12): Chat ``prompt_tokens`` and
``prompt_tokens_details.cached_tokens`` (``cache_write_tokens`` on GPT-5.6+), or DeepSeek's
``prompt_cache_hit_tokens``; Responses ``input_tokens`` and ``input_tokens_details``. A
missing details field counts as 0 cached tokens (vLLM and SGLang omit it without a hit, or
without ``--enable-prompt-tokens-details`` / ``--enable-cache-report``).
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

#: The Responses API's smallest max_output_tokens.
RESPONSES_MIN_OUTPUT_TOKENS = 16
DEFAULT_MODEL = "gpt-4.1-mini"
OFFICIAL_URL = "https://api.openai.com/v1"
#: Compatible servers recognised by host; others take --compatible.
_HOSTS = {
    "api.deepseek.com": "deepseek",
    "generativelanguage.googleapis.com": "gemini",
    "api.x.ai": "xai",
    "api.fireworks.ai": "fireworks",
}
#: Cache models whose servers take OpenAI's prompt_cache_key.
_KEYED = frozenset({"openai", "xai", "fireworks"})


class OpenAIAdapter(Adapter):
    name = "openai"
    key_variables = ("OPENAI_API_KEY",)

    def __init__(self, options: Options) -> None:
        super().__init__(options)
        if options.api not in ("chat", "responses"):
            raise ProbeError(f"--api {options.api!r}: chat or responses", "usage")
        host = (urlsplit(options.base_url).hostname or "") if options.base_url else "api.openai.com"
        self.official = host == "api.openai.com"
        self.cache_provider = options.compatible or _HOSTS.get(host, "openai")
        self.kind = models.OPENAI_RESPONSES if options.api == "responses" else models.OPENAI_CHAT
        self.base_url = shown_url(options.base_url) if options.base_url else OFFICIAL_URL
        if options.model:
            self.model = options.model
        elif self.cache_provider in models.SELF_HOSTED:
            raise ProbeError(f"--model: name the model the {self.cache_provider} server serves", "usage")
        elif self.cache_provider == "openai":
            self.model = DEFAULT_MODEL
        else:
            self.model, _ = models.resolve_model(self.cache_provider, None)
        if self.kind == models.OPENAI_RESPONSES and self.output_tokens < RESPONSES_MIN_OUTPUT_TOKENS:
            self.output_tokens = RESPONSES_MIN_OUTPUT_TOKENS
            self.notes.append("Responses API: max_output_tokens is 16, the API's minimum")
        if self.cache_provider == "openai" and models.facts("openai", self.model).row == "openai-5.6":
            self.notes.append(
                f"{self.model} caches at breakpoints: implicit caching writes at the end of the latest user "
                "message, which a one-turn probe never repeats, and the probe sends no explicit "
                "prompt_cache_breakpoint; expect no reads (probe a model before GPT-5.6 to see the layout)")
        self._client: Any = None
        self._sdk: Any = None

    def _key(self, version: str) -> str | None:
        if self.cache_provider not in _KEYED:
            return None
        return f"promptlint-probe-{self.options.run_id}-{version}"

    def body(self, variant: Variant) -> dict[str, Any]:
        if variant.body is not None:
            return self._own_body(variant)
        body: dict[str, Any] = {"model": self.model}
        if self.kind == models.OPENAI_RESPONSES:
            body.update(instructions=variant.text, input=USER_MESSAGE, max_output_tokens=self.output_tokens,
                        store=False)
        else:
            body["messages"] = [{"role": "system", "content": variant.text},
                                {"role": "user", "content": USER_MESSAGE}]
            body["max_completion_tokens" if self.official else "max_tokens"] = self.output_tokens
        key = self._key(variant.version)
        if key is not None:
            body["prompt_cache_key"] = key
        return body

    def _own_body(self, variant: Variant) -> dict[str, Any]:
        """A request-body file's body, with the probe's model, output limit and routing key."""
        assert variant.body is not None
        body = copy.deepcopy(variant.body)
        kind = models.body_kind(body)
        if kind == models.ANTHROPIC:
            raise ProbeError("the request body is an Anthropic Messages body: probe it with --provider anthropic",
                             "usage")
        if kind is not None:
            self.kind = kind
        for key in ("stream", "stream_options", "n", "max_tokens", "max_completion_tokens", "max_output_tokens"):
            body.pop(key, None)
        if self.options.model or not body.get("model"):
            body["model"] = self.model
        self.model = str(body["model"])
        if self.kind == models.OPENAI_RESPONSES:
            self.output_tokens = max(self.output_tokens, RESPONSES_MIN_OUTPUT_TOKENS)
            body["max_output_tokens"] = self.output_tokens
            body.setdefault("store", False)
        else:
            body["max_completion_tokens" if self.official else "max_tokens"] = self.output_tokens
        cache_key = self._key(variant.version)
        if cache_key is not None:
            body.setdefault("prompt_cache_key", cache_key)
        return body

    def connect(self) -> None:
        _, key = self.key_from_env()
        import openai

        self._sdk = openai
        self._client = openai.OpenAI(api_key=key, base_url=self.options.base_url or None,
                                     timeout=self.options.timeout, max_retries=self.options.max_retries)

    def send(self, body: Mapping[str, Any]) -> Usage:
        assert self._client is not None, "connect() first"
        try:
            if self.kind == models.OPENAI_RESPONSES:
                response = self.call(self._client.responses.create, body)
            else:
                response = self.call(self._client.chat.completions.create, body)
        except self._sdk.OpenAIError as exc:
            raise self.failure(exc, self._sdk) from None
        except json.JSONDecodeError:
            raise self.not_json() from None
        return self.usage_of(response)

    def read_usage(self, raw: Mapping[str, Any]) -> Usage:
        """The probe's counters from a Chat or Responses usage object (any compatible server)."""
        responses = "input_tokens" in raw and "prompt_tokens" not in raw
        field = "input_tokens" if responses else "prompt_tokens"
        total = number(raw.get(field), field)
        details = raw.get("input_tokens_details" if responses else "prompt_tokens_details")
        details = details if isinstance(details, Mapping) else None
        missing = details is None or "cached_tokens" not in details
        cached = number(details.get("cached_tokens"), "cached_tokens") if details else 0
        written = number(details.get("cache_write_tokens"), "cache_write_tokens") if details else 0
        if "prompt_cache_hit_tokens" in raw:  # DeepSeek
            cached, missing = number(raw.get("prompt_cache_hit_tokens"), "prompt_cache_hit_tokens"), False
        if cached + written > total:  # a hit rate over 100 %
            raise UsageError(f"{cached:,} cached and {written:,} written tokens of {total:,} {field}")
        output = number(raw.get("output_tokens" if responses else "completion_tokens"), "output tokens")
        return Usage(total, cached, written, 0, total - cached - written, output, missing, dict(raw))
