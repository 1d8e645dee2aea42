"""Plain Markdown and text agent files (SOUL.md, AGENTS.md): static text, no slots."""

from __future__ import annotations

from promptlint.core.ir import Span, Template, Text


def load(path: str, source: str) -> Template:
    segments = [Text(Span(0, len(source)), source)] if source else []
    return Template(path=path, syntax="markdown", source=source, segments=list(segments))
