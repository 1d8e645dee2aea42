"""The fake provider server (issue 11), driven by the real ``openai`` and ``anthropic`` clients.

Every test talks HTTP to 127.0.0.1 only, with client timeouts of 2 s or less and no retries
unless a test is about retries; cache timing comes from the server's injected clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anthropic
import openai
import pytest
from anthropic.types import Message, MessageTokensCount
from openai.types.chat import ChatCompletion
from openai.types.responses import Response
from support.fake_provider import REDACTED, FakeClock, FakeProvider, encode
from support.fixtures import (
    TEST_KEY,
    anthropic_client,
    fake_provider,
    make_fake_provider,
    openai_client,
)

# Imported fixtures are used by name as test parameters.
__all__ = ["fake_provider", "make_fake_provider"]

MakeServer = Callable[..., FakeProvider]

#: The pre-Jul-2026 OpenAI rule (provider-caching.md §1.1): 1,024-token minimum, 128 steps.
OPENAI_1024 = {"openai": {"min_cacheable_tokens": 1024}}


def rules(count: int) -> str:
    return "\n".join(
        f"Rule {i}: answer the customer politely, cite the handbook section you rely on, "
        "and never invent facts about orders, refunds or shipping."
        for i in range(1, count + 1)
    )


SHORT = rules(12)  # ~300 tokens: under every minimum
LONG = rules(60)  # ~1,500 tokens: over 1,024, under 2,048
VERY_LONG = rules(110)  # ~2,700 tokens: over 2,048


def test_prefix_sizes_are_what_the_tests_assume() -> None:
    assert len(encode(SHORT)) < 512
    assert 1024 + 128 < len(encode(LONG)) < 2048 - 128
    assert 2048 + 128 < len(encode(VERY_LONG)) < 4096


def chat(client: Any, system: str, question: str, **extra: Any) -> Any:
    return client.chat.completions.create(
        model=extra.pop("model", "gpt-4o"),
        messages=[{"role": "system", "content": system}, {"role": "user", "content": question}],
        max_completion_tokens=1,
        **extra,
    )


def usage_dict(usage: Any) -> dict[str, Any]:
    """An SDK usage object as the JSON the server sent (unset fields dropped)."""
    return dict(usage.model_dump(exclude_unset=True))


# ------------------------------------------------------------------------------------------
# OpenAI Chat Completions


def test_openai_second_request_reads_the_shared_prefix_in_128_token_steps(
    make_fake_provider: MakeServer,
) -> None:
    server = make_fake_provider(facts_overrides=OPENAI_1024)
    with openai_client(server) as client:
        first = chat(client, LONG, "Where is my order 1?")
        second = chat(client, LONG, "Can I return a lamp?")

    assert first.usage.prompt_tokens_details.cached_tokens == 0
    cached = second.usage.prompt_tokens_details.cached_tokens
    assert cached % 128 == 0
    assert len(encode(LONG)) // 128 * 128 <= cached < second.usage.prompt_tokens
    assert second.usage.completion_tokens == 1
    assert second.usage.total_tokens == second.usage.prompt_tokens + 1
    assert second.choices[0].finish_reason == "length"
    assert second.choices[0].message.role == "assistant"
    assert second.choices[0].message.content

    # What the client read is what the server billed.
    bills = server.bills
    assert [b.cached_tokens for b in bills] == [0, cached]
    assert bills[1].input_tokens == second.usage.prompt_tokens
    assert bills[1].usage == usage_dict(second.usage)
    assert server.billed_total()["cached_tokens"] == cached


def test_openai_minimum_comes_from_the_provider_table(fake_provider: FakeProvider) -> None:
    # The bundled table says 2,048 for models before GPT-5.6 (Jul-Sep 2026 docs).
    with openai_client(fake_provider) as client:
        chat(client, LONG, "first")
        under = chat(client, LONG, "second")
        chat(client, VERY_LONG, "first")
        over = chat(client, VERY_LONG, "second")
    assert under.usage.prompt_tokens > 1024
    assert under.usage.prompt_tokens_details.cached_tokens == 0
    assert over.usage.prompt_tokens_details.cached_tokens >= 2048


def test_openai_request_below_the_minimum_is_not_cached(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(facts_overrides=OPENAI_1024)
    with openai_client(server) as client:
        chat(client, SHORT, "first")
        again = chat(client, SHORT, "first")  # identical, still too short
    assert again.usage.prompt_tokens < 1024
    assert again.usage.prompt_tokens_details.cached_tokens == 0
    assert server.bills[-1].cached_tokens == 0


def test_openai_prompt_cache_key_is_the_routing_key(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(facts_overrides=OPENAI_1024)
    with openai_client(server) as client:
        chat(client, LONG, "q1", prompt_cache_key="tenant-a")
        other_key = chat(client, LONG, "q2", prompt_cache_key="tenant-b")
        same_key = chat(client, LONG, "q3", prompt_cache_key="tenant-a")
    assert other_key.usage.prompt_tokens_details.cached_tokens == 0
    assert same_key.usage.prompt_tokens_details.cached_tokens >= 1024
    sent = [r.body.get("prompt_cache_key") for r in server.requests]
    assert sent == ["tenant-a", "tenant-b", "tenant-a"]


def test_openai_56_reads_an_exact_message_boundary_and_reports_writes(
    fake_provider: FakeProvider,
) -> None:
    system = {"role": "system", "content": LONG}
    turn_one = [system, {"role": "user", "content": "Where is order 17?"}]
    turn_two = [
        *turn_one,
        {"role": "assistant", "content": "It shipped yesterday."},
        {"role": "user", "content": "And order 18?"},
    ]
    with openai_client(fake_provider) as client:
        first = client.chat.completions.create(
            model="gpt-5.6-terra", messages=turn_one, max_completion_tokens=1
        )
        second = client.chat.completions.create(
            model="gpt-5.6-terra", messages=turn_two, max_completion_tokens=1
        )
    # GPT-5.6+: the implicit breakpoint (end of the latest user message) is written at 1.25x
    # and a later request reads exactly that boundary, without 128-token rounding.
    assert first.usage.prompt_tokens_details.cached_tokens == 0
    assert first.usage.prompt_tokens_details.cache_write_tokens == first.usage.prompt_tokens
    assert second.usage.prompt_tokens_details.cached_tokens == first.usage.prompt_tokens
    assert fake_provider.bills[1].cache_model == "openai-5.6"


def test_openai_cache_expires_on_the_injected_clock(make_fake_provider: MakeServer) -> None:
    clock = FakeClock()
    server = make_fake_provider(
        clock=clock,
        facts_overrides=OPENAI_1024,
        simulator_options={"openai": {"retention": "in_memory"}},
    )
    with openai_client(server) as client:
        chat(client, LONG, "q1")
        clock.advance(4 * 60)  # in_memory: 5 minutes idle (pessimistic)
        within = chat(client, LONG, "q2")
        clock.advance(6 * 60)
        after = chat(client, LONG, "q3")
    assert within.usage.prompt_tokens_details.cached_tokens >= 1024
    assert after.usage.prompt_tokens_details.cached_tokens == 0


# ------------------------------------------------------------------------------------------
# OpenAI Responses


def test_responses_second_request_is_cached(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(facts_overrides=OPENAI_1024)
    with openai_client(server) as client:
        first = client.responses.create(
            model="gpt-4o", instructions=LONG, input="Where is my order?", max_output_tokens=1
        )
        second = client.responses.create(
            model="gpt-4o", instructions=LONG, input="Can I return it?", max_output_tokens=1
        )
    assert first.usage.input_tokens_details.cached_tokens == 0
    cached = second.usage.input_tokens_details.cached_tokens
    assert cached % 128 == 0 and 1024 <= cached < second.usage.input_tokens
    assert second.usage.input_tokens_details.cache_write_tokens == 0
    assert second.usage.output_tokens == 1
    assert second.usage.output_tokens_details.reasoning_tokens == 0
    assert second.usage.total_tokens == second.usage.input_tokens + 1
    assert second.status == "incomplete"
    assert second.incomplete_details.reason == "max_output_tokens"
    assert second.output_text
    assert server.bills[1].usage == usage_dict(second.usage)


def test_responses_input_tokens_count(fake_provider: FakeProvider) -> None:
    with openai_client(fake_provider) as client:
        counted = client.responses.input_tokens.count(model="gpt-4o", instructions=LONG, input="q")
        made = client.responses.create(
            model="gpt-4o", instructions=LONG, input="q", max_output_tokens=1
        )
    assert counted.input_tokens == made.usage.input_tokens
    assert len(fake_provider.bills) == 1  # counting bills nothing


# ------------------------------------------------------------------------------------------
# Anthropic Messages


def anthropic_system(text: str, **cache_control: Any) -> list[dict[str, Any]]:
    return [{"type": "text", "text": text, "cache_control": {"type": "ephemeral", **cache_control}}]


def ask(client: Any, question: str, **params: Any) -> Any:
    return client.messages.create(
        model=params.pop("model", "claude-sonnet-5"),
        max_tokens=params.pop("max_tokens", 1),
        messages=params.pop("messages", [{"role": "user", "content": question}]),
        **params,
    )


def test_anthropic_breakpoint_writes_then_reads(fake_provider: FakeProvider) -> None:
    with anthropic_client(fake_provider) as client:
        first = ask(client, "Where is my order?", system=anthropic_system(LONG))
        second = ask(client, "Can I return it?", system=anthropic_system(LONG))

    written = first.usage.cache_creation_input_tokens
    assert written >= 1024  # claude-sonnet-5's minimum
    assert first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation.ephemeral_5m_input_tokens == written
    assert first.usage.cache_creation.ephemeral_1h_input_tokens == 0
    assert second.usage.cache_read_input_tokens == written
    assert second.usage.cache_creation_input_tokens == 0
    assert 0 < second.usage.input_tokens < 50  # only the part after the breakpoint
    assert second.stop_reason == "max_tokens"
    assert second.content[0].type == "text"

    bill = fake_provider.bills[1]
    total = second.usage.input_tokens + second.usage.cache_read_input_tokens
    assert (bill.input_tokens, bill.cached_tokens, bill.uncached_tokens) == (
        total,
        written,
        second.usage.input_tokens,
    )
    assert bill.usage == usage_dict(second.usage)


def test_anthropic_below_the_model_minimum_is_not_cached(fake_provider: FakeProvider) -> None:
    with anthropic_client(fake_provider) as client:
        ask(client, "q", system=anthropic_system(SHORT))
        again = ask(client, "q", system=anthropic_system(SHORT))
        # The same long prefix is under Haiku 4.5's 4,096-token minimum.
        ask(client, "q", system=anthropic_system(LONG), model="claude-haiku-4-5")
        haiku = ask(client, "q", system=anthropic_system(LONG), model="claude-haiku-4-5")
    for usage in (again.usage, haiku.usage):
        assert usage.cache_read_input_tokens == 0
        assert usage.cache_creation_input_tokens == 0
        assert usage.input_tokens > 0


def test_anthropic_automatic_caching_follows_the_conversation(
    fake_provider: FakeProvider,
) -> None:
    opening = {"role": "user", "content": LONG + "\n\nWhich rule covers refunds?"}
    with anthropic_client(fake_provider) as client:
        first = ask(client, "", messages=[opening], cache_control={"type": "ephemeral"})
        second = ask(
            client,
            "",
            messages=[
                opening,
                {"role": "assistant", "content": "Rule 1."},
                {"role": "user", "content": "And shipping?"},
            ],
            cache_control={"type": "ephemeral"},
        )
    assert fake_provider.requests[0].body["cache_control"] == {"type": "ephemeral"}
    assert first.usage.cache_creation_input_tokens > 1024
    # The automatic breakpoint moved to the new last block; the lookback finds the old one.
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens
    assert second.usage.cache_creation_input_tokens > 0


def test_anthropic_one_hour_ttl_is_reported_apart(fake_provider: FakeProvider) -> None:
    with anthropic_client(fake_provider) as client:
        first = ask(client, "q", system=anthropic_system(LONG, ttl="1h"))
    assert first.usage.cache_creation.ephemeral_1h_input_tokens == (
        first.usage.cache_creation_input_tokens
    )
    assert first.usage.cache_creation.ephemeral_5m_input_tokens == 0
    assert fake_provider.bills[0].cache_write_1h_tokens == first.usage.cache_creation_input_tokens


def test_anthropic_cache_expires_on_the_injected_clock(make_fake_provider: MakeServer) -> None:
    clock = FakeClock(step=1.0)
    server = make_fake_provider(clock=clock)
    with anthropic_client(server) as client:
        ask(client, "q1", system=anthropic_system(LONG))
        within = ask(client, "q2", system=anthropic_system(LONG))
        clock.advance(10 * 60)  # past the 5-minute TTL (the hit above refreshed it)
        after = ask(client, "q3", system=anthropic_system(LONG))
    assert within.usage.cache_read_input_tokens > 0
    assert after.usage.cache_read_input_tokens == 0
    assert after.usage.cache_creation_input_tokens == within.usage.cache_read_input_tokens
    assert [r.time for r in server.requests] == [0.0, 1.0, 602.0]


def test_anthropic_count_tokens(fake_provider: FakeProvider) -> None:
    params = {"system": anthropic_system(LONG), "messages": [{"role": "user", "content": "q"}]}
    with anthropic_client(fake_provider) as client:
        counted = client.messages.count_tokens(model="claude-sonnet-5", **params)
        made = ask(client, "", **params)
    usage = made.usage
    assert isinstance(counted, MessageTokensCount)
    assert counted.input_tokens == (
        usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
    )
    assert [r.endpoint for r in fake_provider.requests] == ["messages.count_tokens", "messages"]
    assert len(fake_provider.bills) == 1


def test_anthropic_five_breakpoints_are_a_bad_request(fake_provider: FakeProvider) -> None:
    blocks = [
        {"type": "text", "text": f"part {i}", "cache_control": {"type": "ephemeral"}}
        for i in range(5)
    ]
    with anthropic_client(fake_provider) as client, pytest.raises(anthropic.BadRequestError):
        ask(client, "q", system=blocks)
    assert fake_provider.requests[0].status == 400
    assert fake_provider.bills == []


# ------------------------------------------------------------------------------------------
# Other usage dialects of the Chat endpoint


def test_deepseek_dialect_reports_hit_and_miss_tokens(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(chat_dialect="deepseek")
    with openai_client(server) as client:
        chat(client, LONG, "q1", model="deepseek-chat")
        second = chat(client, LONG, "q2", model="deepseek-chat")
        third = chat(client, LONG, "q3", model="deepseek-chat")
    # DeepSeek persists the common prefix of two requests once both were seen: the third reads.
    assert second.usage.model_extra["prompt_cache_hit_tokens"] == 0
    usage = third.usage
    assert usage.prompt_tokens_details is None
    hit, miss = (
        usage.model_extra["prompt_cache_hit_tokens"],
        usage.model_extra["prompt_cache_miss_tokens"],
    )
    assert hit > 1024 and miss > 0
    assert hit + miss == usage.prompt_tokens
    assert server.bills[2].cache_model == "deepseek"


def test_no_details_dialect_omits_prompt_tokens_details(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(chat_dialect="no-details")
    with openai_client(server) as client:
        chat(client, LONG, "q1")
        second = chat(client, LONG, "q2")
    assert second.usage.prompt_tokens_details is None
    assert "prompt_tokens_details" not in server.bills[1].usage
    assert second.usage.prompt_tokens > 0
    assert server.bills[1].cached_tokens > 0  # the server's cache worked; it just did not say


def test_vllm_dialect_sends_details_only_with_a_hit(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(chat_dialect="vllm")
    with openai_client(server) as client:
        first = chat(client, LONG, "q1")
        second = chat(client, LONG, "q2")
    assert first.usage.prompt_tokens_details is None
    assert second.usage.prompt_tokens_details.cached_tokens % 16 == 0  # vLLM block size
    assert second.usage.prompt_tokens_details.cached_tokens > 1024


# ------------------------------------------------------------------------------------------
# The responses are valid per the SDKs' own types


def test_responses_validate_against_the_sdk_types(fake_provider: FakeProvider) -> None:
    with openai_client(fake_provider) as client:
        raw_chat = client.chat.completions.with_raw_response.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}], max_tokens=1
        )
        raw_response = client.responses.with_raw_response.create(
            model="gpt-4o", input="hi", max_output_tokens=1
        )
        full = client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}]
        )
    with anthropic_client(fake_provider) as client:
        raw_message = client.messages.with_raw_response.create(
            model="claude-sonnet-5", max_tokens=1, messages=[{"role": "user", "content": "hi"}]
        )
        empty = client.messages.create(
            model="claude-sonnet-5", max_tokens=0, messages=[{"role": "user", "content": "hi"}]
        )
    # model_validate checks every field (the SDKs themselves construct leniently).
    ChatCompletion.model_validate(raw_chat.http_response.json())
    Response.model_validate(raw_response.http_response.json())
    Message.model_validate(raw_message.http_response.json())
    assert raw_chat.http_response.headers["x-request-id"]
    assert raw_message.http_response.headers["request-id"]
    assert full.choices[0].finish_reason == "stop"
    assert full.choices[0].message.content == fake_provider.reply
    assert empty.content == [] and empty.stop_reason == "max_tokens"
    assert empty.usage.output_tokens == 0


# ------------------------------------------------------------------------------------------
# Faults

STATUS_FAULTS = [
    ("unauthorized", "AuthenticationError"),
    ("forbidden", "PermissionDeniedError"),
    ("not_found", "NotFoundError"),
    ("rate_limit", "RateLimitError"),
    ("server_error", "InternalServerError"),
    ("unavailable", "InternalServerError"),
    ("overloaded", "InternalServerError"),
]


def call_openai(server: FakeProvider, timeout: float = 2.0) -> Any:
    with openai_client(server, timeout=timeout) as client:
        return chat(client, "You help.", "hi")


def call_anthropic(server: FakeProvider, timeout: float = 2.0) -> Any:
    with anthropic_client(server, timeout=timeout) as client:
        return ask(client, "hi")


@pytest.mark.parametrize(("fault", "error"), STATUS_FAULTS)
def test_openai_status_faults_raise_the_sdk_error(
    fake_provider: FakeProvider, fault: str, error: str
) -> None:
    fake_provider.fail(fault)
    with pytest.raises(getattr(openai, error)) as raised:
        call_openai(fake_provider)
    assert raised.value.status_code == fake_provider.requests[-1].status
    assert isinstance(raised.value.body, dict) and raised.value.body["message"]
    assert fake_provider.requests[-1].fault == fault
    assert fake_provider.bills == []


@pytest.mark.parametrize(("fault", "error"), STATUS_FAULTS)
def test_anthropic_status_faults_raise_the_sdk_error(
    fake_provider: FakeProvider, fault: str, error: str
) -> None:
    fake_provider.fail(fault)
    with pytest.raises(getattr(anthropic, error)) as raised:
        call_anthropic(fake_provider)
    body = raised.value.body
    assert isinstance(body, dict) and body["type"] == "error" and body["error"]["message"]
    assert fake_provider.bills == []


def test_error_bodies_have_each_providers_shape(make_fake_provider: MakeServer) -> None:
    server = make_fake_provider(known_models={"gpt-4o", "claude-sonnet-5"})
    with openai_client(server) as client, pytest.raises(openai.NotFoundError) as openai_error:
        chat(client, "You help.", "hi", model="gpt-nope")
    assert openai_error.value.code == "model_not_found"
    assert openai_error.value.type == "invalid_request_error"
    assert "gpt-nope" in openai_error.value.message
    with anthropic_client(server) as client, pytest.raises(anthropic.NotFoundError) as error:
        ask(client, "hi", model="claude-nope")
    body = error.value.body
    assert isinstance(body, dict)
    assert body["error"] == {"type": "not_found_error", "message": "model: claude-nope"}
    assert call_openai(server).usage.prompt_tokens > 0  # known models still work


def test_rate_limit_carries_retry_after(fake_provider: FakeProvider) -> None:
    fake_provider.fail(429, retry_after=7)
    with pytest.raises(openai.RateLimitError) as raised:
        call_openai(fake_provider)
    assert raised.value.response.headers["retry-after"] == "7"
    assert raised.value.code == "rate_limit_exceeded"


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_hang_times_the_client_out(fake_provider: FakeProvider, provider: str) -> None:
    fake_provider.fail("hang")
    error = openai.APITimeoutError if provider == "openai" else anthropic.APITimeoutError
    with pytest.raises(error):
        (call_openai if provider == "openai" else call_anthropic)(fake_provider, timeout=0.5)
    assert fake_provider.requests[-1].status is None
    # The fixture's stop() releases the hanging handler thread at once.


@pytest.mark.parametrize("fault", ["drop", "truncate"])
@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_dropped_connection_is_a_connection_error(
    fake_provider: FakeProvider, provider: str, fault: str
) -> None:
    fake_provider.fail(fault)
    sdk = openai if provider == "openai" else anthropic
    with pytest.raises(sdk.APIConnectionError) as raised:
        (call_openai if provider == "openai" else call_anthropic)(fake_provider)
    assert not isinstance(raised.value, sdk.APITimeoutError)
    assert fake_provider.requests[-1].fault == fault


def test_fault_from_the_nth_request_onward(fake_provider: FakeProvider) -> None:
    fake_provider.fail("server_error", start=2)
    assert call_openai(fake_provider).usage.prompt_tokens > 0
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            call_openai(fake_provider)
    fake_provider.clear_faults()
    call_openai(fake_provider)
    assert [r.status for r in fake_provider.requests] == [200, 500, 500, 200]
    assert [b.request_index for b in fake_provider.bills] == [1, 4]


def test_fault_limited_to_an_endpoint(fake_provider: FakeProvider) -> None:
    fake_provider.fail("forbidden", endpoints=["messages"])
    assert call_openai(fake_provider).usage.prompt_tokens > 0
    with pytest.raises(anthropic.PermissionDeniedError):
        call_anthropic(fake_provider)


def test_sdk_retry_after_a_transient_fault(fake_provider: FakeProvider) -> None:
    fake_provider.fail("rate_limit", times=1, retry_after=0.01)
    with anthropic_client(fake_provider, max_retries=2) as client:
        message = ask(client, "hi")
    assert message.usage.input_tokens > 0
    log = fake_provider.requests
    assert [r.status for r in log] == [429, 200]
    assert [r.headers.get("x-stainless-retry-count") for r in log] == ["0", "1"]
    assert log[0].body == log[1].body
    assert len(fake_provider.bills) == 1


# ------------------------------------------------------------------------------------------
# The request log


def test_nothing_is_recorded_before_a_request(fake_provider: FakeProvider) -> None:
    # What a dry-run test asserts: the client made no call at all.
    assert fake_provider.requests == []
    assert fake_provider.bills == []
    assert fake_provider.billed_total()["requests"] == 0


def test_the_log_keeps_paths_bodies_and_headers_without_secrets(
    fake_provider: FakeProvider,
) -> None:
    with openai_client(fake_provider) as client:
        chat(client, "You help.", "hi", prompt_cache_key="session-1")
    with anthropic_client(fake_provider) as client:
        ask(client, "hi", system=anthropic_system("Stable rules."))

    chat_request, message_request = fake_provider.requests
    assert (chat_request.method, chat_request.path, chat_request.endpoint) == (
        "POST",
        "/v1/chat/completions",
        "chat",
    )
    assert chat_request.body["prompt_cache_key"] == "session-1"
    assert chat_request.body["max_completion_tokens"] == 1
    assert message_request.path == "/v1/messages"
    assert message_request.body["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert "anthropic-version" in message_request.headers
    for request in (chat_request, message_request):
        assert request.sent_key(TEST_KEY)
        assert not request.sent_key("sk-other")
        assert request.headers["authorization"] == REDACTED
        assert TEST_KEY not in repr(request)


def test_a_wrong_key_gets_401_and_is_logged_by_fingerprint(fake_provider: FakeProvider) -> None:
    with (
        openai_client(fake_provider, api_key="sk-wrong-key-123456") as client,
        pytest.raises(openai.AuthenticationError) as raised,
    ):
        chat(client, "You help.", "hi")
    assert raised.value.code == "invalid_api_key"
    assert "sk-wrong-key-123456" not in raised.value.message  # masked, as OpenAI does
    request = fake_provider.requests[0]
    assert request.sent_key("sk-wrong-key-123456") and not request.sent_key(TEST_KEY)
    assert request.status == 401
    with (
        anthropic_client(fake_provider, api_key="sk-wrong") as client,
        pytest.raises(anthropic.AuthenticationError),
    ):
        ask(client, "hi")


def test_server_stops_and_frees_its_port() -> None:
    server = FakeProvider().start()
    port = server.port
    with openai_client(server, api_key="any") as client:
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}], max_tokens=1
        )
    server.fail("hang")
    with pytest.raises(openai.APITimeoutError):
        call_openai(server, timeout=0.3)
    server.stop()  # releases the hanging handler, joins the threads
    assert port > 0
    with pytest.raises(RuntimeError):
        _ = server.port
    with (
        openai.OpenAI(
            api_key="any",
            base_url=f"http://127.0.0.1:{port}/v1",
            timeout=0.5,
            max_retries=0,
            http_client=openai.DefaultHttpxClient(trust_env=False),
        ) as client,
        pytest.raises(openai.APIConnectionError),
    ):
        client.chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "hi"}], max_tokens=1
        )
