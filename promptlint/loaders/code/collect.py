"""Collected prompts → templates: one prompt per sink, pieces of a larger prompt merged
into it, and the file's template over all of them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from promptlint.core.ir import Block, LineIndex, Segment, Slot, Span, Template, Text
from promptlint.loaders.code.prompts import MIN_PROMPT_TEXT
from promptlint.loaders.base import LoadError
from promptlint.loaders.code.values import MAX_PIECES, unfolded_size

# ---------------------------------------------------------------------------------------
# Collected prompts → templates


@dataclass
class Prompt:
    """One prompt found in a code file: where it is built and what it renders."""

    name: str
    at: int  # source offset of the sink (for source order)
    segments: list[Segment]
    statement: tuple[int, int]  # first and last line of the statement that builds it
    named: bool = True  # found by a name or a sink, not by the instruction-text heuristic
    # Marked as prompt text by the code itself (a function decorated `@agent.system_prompt`):
    # kept however short ("Now: {datetime.now()}"), where a short string a name or sink
    # found (`system = "linux"`) is no prompt.
    declared: bool = False


def _leaves(segments: Iterable[Segment]) -> Iterable[Segment]:
    for seg in segments:
        if isinstance(seg, Block):
            yield seg
            yield from _leaves(seg.body)
        else:
            yield seg


def _key(seg: Segment) -> tuple[str, int, int]:
    span = seg.open if isinstance(seg, Block) else seg.span
    return (type(seg).__name__, span.start, span.end)


def literal_size(segments: Iterable[Segment]) -> int:
    return sum(len("".join(s.text.split())) for s in _leaves(segments) if isinstance(s, Text))


def _merge_slots(into: list[Segment], other: list[Segment]) -> None:
    """Every expression seen for a slot is a candidate: judged by the worst (a helper's own
    parameter name, and what a caller passes for it)."""
    by_span: dict[tuple[int, int], list[Slot]] = {}
    for seg in _leaves(other):
        if isinstance(seg, Slot):
            by_span.setdefault((seg.span.start, seg.span.end), []).append(seg)
    for seg in _leaves(into):
        if not isinstance(seg, Slot):
            continue
        for twin in by_span.get((seg.span.start, seg.span.end), []):
            options = list(seg.alias_options) or [seg.alias_of or seg.expr]
            for expr in (twin.alias_options or (twin.alias_of or twin.expr,)):
                if expr not in options:
                    options.append(expr)
            if len(options) > 1:
                seg.alias_options = tuple(options)


def dedupe(prompts: list[Prompt]) -> list[Prompt]:
    """Prompts in source order, without those whose pieces all belong to a larger one."""
    kept: list[tuple[Prompt, set[tuple[str, int, int]]]] = []
    # The kept prompts that hold each piece, in the order kept: a prompt's owner holds all
    # of its pieces, so it is among those that hold any one of them (asking every kept
    # prompt made a file of 5,000 prompts quadratic).
    holding: dict[tuple[str, int, int], list[int]] = {}
    for prompt in sorted(prompts, key=lambda p: (-len(list(_leaves(p.segments))), not p.named, p.at)):
        keys = {_key(s) for s in _leaves(prompt.segments) if not (isinstance(s, Text) and s.span.start == s.span.end)}
        candidates = min((holding.get(key, []) for key in keys), key=len) if keys else range(len(kept))
        owner = next((kept[i][0] for i in candidates if keys <= kept[i][1]), None)
        if owner is not None:
            _merge_slots(owner.segments, prompt.segments)
            continue
        for key in keys:
            holding.setdefault(key, []).append(len(kept))
        kept.append((prompt, keys))
    return sorted((p for p, _ in kept), key=lambda p: p.at)


def build_template(path: str, syntax: str, source: str, prompts: list[Prompt]) -> Template:
    """The file's template: one sub-template per prompt, and all of them in order."""
    sizes: dict[int, int] = {}
    # Before any walk over them: each walk unfolds every block, and each piece costs the checks.
    if sum(unfolded_size(p.segments, sizes) for p in prompts) > MAX_PIECES:
        raise LoadError(f"too large to evaluate its prompts (over {MAX_PIECES:,} pieces in its prompts)")
    found = [p for p in dedupe(prompts) if p.declared or literal_size(p.segments) >= MIN_PROMPT_TEXT]
    lines = LineIndex(source)  # one index of the file's lines, for it and every prompt in it
    parts = [Template(path, syntax, source, p.segments, name=p.name, shared_lines=lines) for p in found]
    segments: list[Segment] = []
    for n, part in enumerate(parts):
        if n:
            segments.append(Text(Span(0, 0), "\n\n"))
        segments.extend(part.segments)
    return Template(path, syntax, source, segments, prompts=parts, statements=[p.statement for p in found],
                    shared_lines=lines)
