"""Text whose code replaces ``{NAME}`` tokens (``prompt.replace("{CURRENT_TIME}", now)``).

Such a file is no ``str.format`` template: its other braces (a JSON example written raw,
which ``str.format`` would reject) are literal text, since only the named tokens are
replaced. A slot is ``{identifier}``: no dots, no quotes, not a doubled brace.
"""

from __future__ import annotations

import re

from promptlint.core.ir import Expr, Segment, Slot, Span, Template, Text

# `{CURRENT_TIME}`, `{search_results}`; not `{{CURRENT_TIME}}` (a Mustache-style file), `${x}`
# nor `\{x}`. The look-behind follows the brace (see loaders.base._FORMAT_FIELD).
TOKEN = re.compile(r"\{(?<![{$\\\w]\{)([A-Za-z_][A-Za-z0-9_]*)\}(?!\})")


def load(path: str, source: str) -> Template:
    segments: list[Segment] = []
    text_start = 0
    for match in TOKEN.finditer(source):
        if match.start() > text_start:
            segments.append(Text(Span(text_start, match.start()), source[text_start : match.start()]))
        name = match.group(1)
        segments.append(Slot(Span(match.start(), match.end()), Expr(source=name, path=(name,), paths=((name,),))))
        text_start = match.end()
    if text_start < len(source):
        segments.append(Text(Span(text_start, len(source)), source[text_start:]))
    return Template(path=path, syntax="placeholders", source=source, segments=segments)
