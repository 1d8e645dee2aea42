"""Fireworks: approximated as OpenAI before GPT-5.6 (its table row names that simulator).

Token-level and optimistic (provider-caching.md §13 "xAI / Fireworks / Moonshot"); any model
id fits (Fireworks serves many families); the usage object is OpenAI's, read by
:mod:`promptlint.providers.openai`'s usage fields.
"""

from __future__ import annotations

from promptlint.providers.base import Provider

PROVIDER = Provider(
    name="fireworks",
    default_model="accounts/fireworks/models/deepseek-v3",
    genai_prices_id="fireworks",
)
