"""OpenAI and Anthropic request bodies (JSON)."""

from __future__ import annotations

from promptlint.ir import Template
from promptlint.loaders.base import LoadError


def load(path: str, source: str) -> Template:
    raise LoadError("request JSON bodies are not supported yet")
