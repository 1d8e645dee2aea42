"""Pytest fixtures and client helpers for the fake provider.

Not a plugin: a test module imports what it uses (``tests/conftest.py`` belongs to others)::

    from support.fixtures import TEST_KEY, fake_provider, openai_client

``fake_provider`` is a running :class:`FakeProvider` that expects :data:`TEST_KEY`;
``make_fake_provider(**options)`` starts one with other options. Both stop when the test ends.
The client helpers build real SDK clients pointed at the server with short timeouts, few
retries and ``trust_env=False`` (a proxy in the environment must not see test traffic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.fake_provider import FakeProvider

#: The API key the fixtures' servers expect and the helpers' clients send.
TEST_KEY = "sk-test-fake-provider-0123456789"
#: The checkout, and the demo template the probe tests send.
REPO = Path(__file__).resolve().parents[2]
DEMO = str(REPO / "fixtures/agents/templates/system.j2")
#: What ``make_fake_provider`` is: a function that starts a server with the options given.
MakeServer = Callable[..., FakeProvider]


@pytest.fixture
def provider_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No proxy and no provider URL from the environment, and the test key for both SDKs:
    each probe test talks to its own fake provider, whatever the machine has set."""
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
                 "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL", "ANTHROPIC_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", TEST_KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)


@pytest.fixture
def fake_provider() -> Iterator[FakeProvider]:
    """A fake provider on 127.0.0.1 (ephemeral port) expecting :data:`TEST_KEY`."""
    with FakeProvider(api_key=TEST_KEY) as server:
        yield server


@pytest.fixture
def make_fake_provider() -> Iterator[Callable[..., FakeProvider]]:
    """A factory: ``make_fake_provider(chat_dialect="deepseek")``; every server is stopped."""
    started: list[FakeProvider] = []

    def make(**options: Any) -> FakeProvider:
        server = FakeProvider(**{"api_key": TEST_KEY, **options}).start()
        started.append(server)
        return server

    yield make
    for server in started:
        server.stop()


def openai_client(
    server: FakeProvider,
    *,
    api_key: str = TEST_KEY,
    timeout: float = 2.0,
    max_retries: int = 0,
) -> Any:
    """An ``openai.OpenAI`` client for ``server`` (use it as a context manager)."""
    import openai

    return openai.OpenAI(
        api_key=api_key,
        base_url=server.openai_base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=openai.DefaultHttpxClient(trust_env=False),
    )


def anthropic_client(
    server: FakeProvider,
    *,
    api_key: str = TEST_KEY,
    timeout: float = 2.0,
    max_retries: int = 0,
) -> Any:
    """An ``anthropic.Anthropic`` client for ``server`` (use it as a context manager)."""
    import anthropic

    return anthropic.Anthropic(
        api_key=api_key,
        base_url=server.anthropic_base_url,
        timeout=timeout,
        max_retries=max_retries,
        http_client=anthropic.DefaultHttpxClient(trust_env=False),
    )
