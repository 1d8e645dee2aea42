"""## What it does
Finds an `{% include %}` or Mustache partial (`{{> context }}`) whose file carries a
volatile value, placed before stable content. It is reported at the include site, with
the stable tokens that follow the include, and in the included file (when it is
checked too), so the value is found where it is written and where it costs.
Includes are followed relative to the including template, then to the project root,
and never outside the project root.

## Why is this bad?
The included text is part of the rendered prompt: a clock or a retrieval block inside
`partials/context.j2` breaks the cache for everything after the include, even though
the including template looks clean.

## Example
```jinja
{% include "partials/now.j2" %}   {# partials/now.j2: Time: {{ now() }} #}
... 1,500 tokens of stable instructions ...
```

## Use instead
Include the volatile partial at the end of the prompt, after the stable instructions.

## Fix safety
Safe: the include line is moved to the tail like any other volatile unit.

## Options
None.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.core.findings import Finding
from promptlint.core.fixability import fix_status
from promptlint.core.ir import Tag
from promptlint.core.severity import how_often, rebilled, severity_for, stable_tokens
from promptlint.core.volatility import Volatility
from promptlint.project import CheckedFile, Project

CODE = "PC104"
NAME = "volatile-include"
SUMMARY = "Included file or partial with a volatile value before stable content"
FIX = "safe"


def check_project(project: Project) -> Iterator[Finding]:
    for checked in list(project.files):
        if not checked.has_includes:
            continue
        for unit in checked.analysis.units:
            if not unit.is_include:
                continue
            origin = unit.origin
            vol = unit.volatility
            tag = unit.segment
            assert isinstance(tag, Tag)
            after = checked.analysis.stable_tokens_after(tag)
            severity = severity_for(vol, after, checked.analysis.tokens)
            fixable, why_not = fix_status(checked.template, unit, checked.config.overrides, analysis=checked.analysis)
            yield _finding(
                checked, tag.span.start, tag.span.end, severity, vol,
                f"include of `{tag.target}` renders {vol.kind} `{origin.expr_source}` "
                f"({origin.source.path}:{origin.line}), which {how_often(vol)}; {stable_tokens(after)} after "
                f"the include are {rebilled(vol)}; include it at the end of the prompt",
                after,
                fixable=fixable,
                unfixable_reason=why_not,
            )
            if project.is_checked(origin.source.path) is not None:
                span = origin.segment.span
                where = f"{checked.path}:{checked.template.position(tag.span.start).line}"
                yield _finding(
                    origin.source, span.start, span.end, severity, vol,
                    f"{vol.kind} `{origin.expr_source}` {how_often(vol)} and this file is included by "
                    f"{where}, where {after:,} stable tokens follow the include",
                    after,
                    # The fix is the include's, in the including file.
                    unfixable_reason=f"not moved here: `promptlint fix` moves the include at {where}" if fixable
                    else f"not moved here, nor is the include at {where}: {why_not or 'see that finding'}",
                )


def _finding(
    checked: CheckedFile, start: int, end: int, severity: str, vol: Volatility, message: str, after: int,
    fixable: bool = False,
    unfixable_reason: str | None = None,
) -> Finding:
    first = checked.template.position(start)
    last = checked.template.position(max(start, end - 1))
    return Finding(
        path=checked.path, line=first.line, column=first.column, end_line=last.line, end_column=last.column + 1,
        rule=CODE, name=NAME, severity=severity, kind=vol.kind, frequency=vol.frequency, message=message,
        tokens_lost=after, fixable=fixable, evidence=vol.evidence, confidence=vol.confidence,
        extra={"unfixable_reason": unfixable_reason} if unfixable_reason and not fixable else {},
    )
