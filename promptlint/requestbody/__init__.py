"""Provider request bodies as the cache sees them: blocks in render order, breakpoints, spans.

One model serves the request-JSON loader, the PC2xx rules and ``promptlint replay``:

* ``jsonspans.py``: :func:`scan` reads JSON source and records the source span of every value
  (by JSON path), so findings point at the exact string in the file.
* ``blocks.py``: :func:`detect` tells an OpenAI Chat Completions, OpenAI Responses or
  Anthropic Messages body from its keys; :class:`Chunk`, :class:`Rendered` and the
  :class:`Builder` a render order fills.
* ``files.py``: :func:`render` turns a body into blocks in its provider's render order
  (Anthropic: tools, system, messages; OpenAI: tools and the output schema, then the
  instructions and messages), each with its JSON path and its ``cache_control`` marker; the
  order is the provider module's (``Provider.renderers`` in :mod:`promptlint.providers`).
  :func:`load` reads a file of one body or an array of them.
* ``values.py``: :func:`volatile_values` finds literal per-request values in text (an ISO
  timestamp with a time of day, ``Current time: …``, a UUID labelled as a request or session id).
* ``views.py``: token ids per block (:class:`ChunkTokenizer`) and the per-request
  :func:`views` the PC2xx rules read.

Rendering is an approximation of the provider's own template (role headers and separators are
ours); what matters for caching is that equal bodies render equally and that a change shows up
at the same place it sits in the provider's prefix.

May import the standard library and :mod:`promptlint.core`; :func:`render` asks
:mod:`promptlint.providers` (lazily) for the render order of a body's kind.
"""

from __future__ import annotations

from promptlint.requestbody.blocks import (
    ANTHROPIC,
    NOT_A_REQUEST,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    PREFIX_SECTIONS,
    Builder,
    Chunk,
    Marker,
    Rendered,
    detect,
    dumps,
    iter_tool_names,
    schema_property_orders,
    without,
)
from promptlint.requestbody.files import RequestFile, check_shape, load, load_cached, render, render_as
from promptlint.requestbody.jsonspans import (
    JsonPath,
    RequestError,
    format_path,
    parse,
    scan,
    string_offsets,
)
from promptlint.requestbody.values import VolatileValue, volatile_values
from promptlint.requestbody.views import (
    ChunkTokenizer,
    PlacedValue,
    RequestView,
    chunk_ends,
    strictly_increasing_ends,
    views,
)

__all__ = [
    "ANTHROPIC",
    "NOT_A_REQUEST",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "PREFIX_SECTIONS",
    "Builder",
    "Chunk",
    "ChunkTokenizer",
    "JsonPath",
    "Marker",
    "PlacedValue",
    "Rendered",
    "RequestError",
    "RequestFile",
    "RequestView",
    "VolatileValue",
    "chunk_ends",
    "detect",
    "dumps",
    "format_path",
    "iter_tool_names",
    "load",
    "load_cached",
    "check_shape",
    "parse",
    "render",
    "render_as",
    "scan",
    "schema_property_orders",
    "strictly_increasing_ends",
    "string_offsets",
    "views",
    "volatile_values",
    "without",
]
