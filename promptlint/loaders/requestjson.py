"""OpenAI and Anthropic request bodies (JSON), one body or an array of them.

The IR is the rendered prompt of the body, in the provider's render order (Anthropic:
tools, system, messages; OpenAI: tools and output schema, then instructions and messages),
not the file's order: a :class:`Text` per rendered block whose span is the JSON string (or,
for a tool definition or other object, the JSON value) it comes from; a :class:`Slot` where a
string holds a literal per-request value (an ISO timestamp with a time of day, ``Current
time: …``, a UUID labelled as a request or session id) in the tools, schema or system
prompt, so the volatility rules and the stable-prefix machinery see it (values in messages are
the latest turn's, per-request by nature, or history resent verbatim: plain text); a ``Tag(span, "breakpoint", target=ttl)`` at each
``cache_control`` object. Role headers and separators are zero-width Text. For an array of
bodies (one conversation or trace), the IR is the last body; the PC2xx rules read them all.

Spans do not tile the file (JSON punctuation and keys render nothing, and the render order
is not the source order).
"""

from __future__ import annotations

from promptlint import requestbody
from promptlint.core.ir import Expr, Segment, Slot, Span, Tag, Template, Text
from promptlint.loaders.base import LoadError

_FORMATS = {
    "microsecond": "%H:%M:%S.%f",
    "millisecond": "%H:%M:%S.%f",
    "second": "%H:%M:%S",
    "minute": "%H:%M",
    "day": "%Y-%m-%d",
}


def value_expr(value: requestbody.VolatileValue, text: str) -> Expr:
    """The expression a literal value stands for (what volatility classification reads)."""
    literal = text[value.start : value.end]
    if value.kind == "timestamp":
        return Expr(
            source=literal,
            path=(value.label,),
            paths=((value.label,),),
            calls=("now",),
            format_spec=_FORMATS.get(value.precision or "second"),
            evidence=f"a literal time of day to the {value.precision or 'second'}, written into the body"
            if value.precision != "day" else "a literal date, written into the body",
        )
    what = value.label.replace("_", " ")
    return Expr(source=literal, path=(value.label,), paths=((value.label,),),
                evidence=f"a literal {what}, written into the body")


def string_segments(source: str, start: int, end: int, text: str) -> list[Segment]:
    """Text and Slot segments for the JSON string at ``[start, end)`` decoding to ``text``."""
    values = requestbody.volatile_values(text)
    if not values:
        return [Text(Span(start, end), text)]
    offsets = requestbody.string_offsets(source, start)
    segments: list[Segment] = []
    position, source_position = 0, start
    for value in values:
        value_start, value_end = offsets[value.start], offsets[value.end]
        segments.append(Text(Span(source_position, value_start), text[position : value.start]))
        segments.append(Slot(Span(value_start, value_end), value_expr(value, text)))
        position, source_position = value.end, value_end
    segments.append(Text(Span(source_position, end), text[position:]))
    return segments


def load(path: str, source: str) -> Template:
    try:
        request_file = requestbody.load_cached(source)
    except requestbody.RequestError as exc:
        raise LoadError(exc.message, exc.line, exc.column) from None
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        # A body of the right shape with wrongly typed fields (`"tools": 5`): malformed input.
        raise LoadError(f"not a well-formed request body ({type(exc).__name__}: {exc})") from None
    request = request_file.requests[-1]
    segments: list[Segment] = []
    for chunk in request.chunks:
        start, end = request_file.span(chunk.path)
        if chunk.header:
            segments.append(Text(Span(start, start), chunk.header))
        if chunk.is_string and chunk.section in requestbody.PREFIX_SECTIONS:
            segments.extend(string_segments(source, start, end, chunk.body))
        else:
            segments.append(Text(Span(start, end), chunk.body))
        if chunk.marker is not None:
            marker_start, marker_end = request_file.span(chunk.marker.path)
            segments.append(Tag(Span(marker_start, marker_end), "breakpoint", target=chunk.marker.ttl))
    markers = request.markers()
    if request.auto_marker is not None and markers and markers[-1][1] is request.auto_marker:
        marker_start, marker_end = request_file.span(request.auto_marker.path)
        segments.append(Tag(Span(marker_start, marker_end), "breakpoint", target=request.auto_marker.ttl))
    return Template(path, "json", source, segments)
