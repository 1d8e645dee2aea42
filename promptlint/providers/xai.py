"""xAI Grok: approximated as OpenAI before GPT-5.6 (its table row names that simulator).

128-token blocks and a 0.25x read price (provider-caching.md §13 "xAI / Fireworks / Moonshot");
the usage object is OpenAI's, read by :mod:`promptlint.providers.openai`'s usage fields.
"""

from __future__ import annotations

from promptlint.providers.base import Provider

PROVIDER = Provider(
    name="xai",
    default_model="grok-4",
    model_prefixes=("grok",),
    genai_prices_id="x-ai",
)
