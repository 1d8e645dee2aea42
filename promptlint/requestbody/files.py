"""A request file: one body or an array of them, rendered in their providers' order, with spans."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from promptlint.requestbody import shape
from promptlint.requestbody.blocks import NOT_A_REQUEST, Builder, Rendered, detect
from promptlint.requestbody.jsonspans import JsonPath, RequestError, parse, scan


def render(body: Any, *, index: int = 0, base: JsonPath = ()) -> Rendered:
    """A body's blocks in its provider's render order. RequestError if it is not a body.

    The order is the one the provider module that owns the body's kind declares
    (``Provider.renderers`` in :mod:`promptlint.providers`).
    """
    from promptlint.providers import registry

    kind = detect(body)
    shape.check(body, base)
    provider = registry.renderer_of(kind)
    builder = Builder(base)
    provider.renderers[kind](builder, body)
    model = body.get("model")
    chunks = tuple(builder.chunks)
    name = str(model) if model else None
    return Rendered(kind, provider.name, name, chunks, builder.auto_marker, index, base)


def render_as(kind: str, body: Any) -> Rendered:
    """A body's blocks in the render order of API ``kind`` (``openai-chat``,
    ``openai-responses``, ``anthropic``), whatever its keys suggest: a caller that knows the
    endpoint (a probe, a test server) knows better than :func:`detect` (an Anthropic body
    with no ``system`` and a non-Claude model looks like Chat)."""
    try:
        rendered = render(body)
    except RequestError:
        rendered = None
    if rendered is not None and rendered.kind == kind:
        return rendered
    from promptlint.providers import registry

    if isinstance(body, Mapping):
        shape.check(body)
    provider = registry.renderer_of(kind)
    builder = Builder(())
    provider.renderers[kind](builder, body)
    model = body.get("model")
    return Rendered(kind, provider.name, str(model) if model else None, tuple(builder.chunks), builder.auto_marker)


@dataclass
class RequestFile:
    source: str
    value: Any
    requests: list[Rendered]
    spans: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)

    def span(self, path: JsonPath) -> tuple[int, int]:
        """The source span of ``path``, or of its nearest ancestor that has one."""
        while path and path not in self.spans:
            path = path[:-1]
        return self.spans.get(path, (0, 0))

    def value_at(self, path: JsonPath) -> Any:
        value = self.value
        for part in path:
            value = value[part]
        return value


def load(source: str) -> RequestFile:
    """Parse a request file. RequestError for bad JSON or JSON that is not a body."""
    global _last_shaped
    last, _last_shaped = _last_shaped, None
    if last is not None and last[0] == source:
        return RequestFile(source, last[1], last[2], scan(source))
    value = parse(source)
    return RequestFile(source, value, _requests(value), scan(source))


# The body :func:`check_shape` read last, parsed and rendered, for :func:`load` to take if
# it is asked for the same source next: a folder walk's look at a JSON file (is it a request
# body?) comes just before the file's check loads it.
_last_shaped: tuple[str, Any, list[Rendered]] | None = None


def check_shape(source: str) -> None:
    """What :func:`load` checks, without finding each value's span: RequestError when
    ``source`` is not JSON of a request body (or an array of them)."""
    global _last_shaped
    _last_shaped = None
    value = parse(source)
    _last_shaped = source, value, _requests(value)


def _requests(value: Any) -> list[Rendered]:
    if isinstance(value, list):
        if not value:
            raise RequestError(NOT_A_REQUEST)
        return [render(body, index=i, base=(i,)) for i, body in enumerate(value)]
    return [render(value)]


@lru_cache(maxsize=32)
def load_cached(source: str) -> RequestFile:
    """:func:`load`, remembered: every PC2xx rule reads the same file."""
    return load(source)
