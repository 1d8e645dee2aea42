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
from pathlib import Path

from promptlint.analysis import Unit, worst_first
from promptlint.findings import Finding
from promptlint.ir import Tag
from promptlint.project import CheckedFile, Project, project_root, resolve_include
from promptlint.severity import how_often, severity_for
from promptlint.volatility import Volatility

CODE = "PC104"
NAME = "volatile-include"
SUMMARY = "Included file or partial with a volatile value before stable content"
FIX = "safe"

_MAX_DEPTH = 10


def _volatile_units(
    project: Project, checked: CheckedFile, root: Path, depth: int, seen: set[str]
) -> list[tuple[CheckedFile, Unit]]:
    """Volatile units of a file and of the files it includes, depth first."""
    found = [(checked, unit) for unit in checked.analysis.units]
    if depth >= _MAX_DEPTH:
        return found
    for tag in _include_tags(checked):
        target = resolve_include(checked, tag, root)
        if target is None or str(target) in seen:
            continue
        included = project.get(target, checked.config)
        if included is not None:
            found += _volatile_units(project, included, root, depth + 1, seen | {str(target)})
    return found


def _include_tags(checked: CheckedFile) -> list[Tag]:
    return [s for s in checked.template.walk() if isinstance(s, Tag) and s.tag in ("include", "partial") and s.target]


def check_project(project: Project) -> Iterator[Finding]:
    for checked in list(project.files):
        for tag in _include_tags(checked):
            target = resolve_include(checked, tag)
            if target is None:
                continue
            included = project.get(target, checked.config)
            if included is None:
                continue
            root = project_root(checked.path, checked.config)
            units = _volatile_units(project, included, root, 1, {str(target)})
            if not units:
                continue
            source_file, worst = max(units, key=lambda pair: worst_first(pair[1].volatility))
            vol = worst.volatility
            after = checked.analysis.stable_tokens_after(tag)
            severity = severity_for(vol, after, checked.analysis.tokens)
            where = source_file.template.position(worst.segment.span.start)
            yield _finding(
                checked, tag.span.start, tag.span.end, severity, vol,
                f"include of `{tag.target}` renders {vol.kind} `{worst.expr.source}` "
                f"({source_file.path}:{where.line}), which {how_often(vol)}; {after:,} stable tokens after "
                f"the include are re-billed on every call; include it at the end of the prompt",
                after,
            )
            if project.is_checked(source_file.path) is not None:
                span = worst.segment.span
                yield _finding(
                    source_file, span.start, span.end, severity, vol,
                    f"{vol.kind} `{worst.expr.source}` {how_often(vol)} and this file is included by "
                    f"{checked.path}:{checked.template.position(tag.span.start).line}, where {after:,} stable "
                    "tokens follow the include",
                    after,
                )


def _finding(checked: CheckedFile, start: int, end: int, severity: str, vol: Volatility, message: str, after: int) -> Finding:
    first = checked.template.position(start)
    last = checked.template.position(max(start, end - 1))
    return Finding(
        path=checked.path, line=first.line, column=first.column, end_line=last.line, end_column=last.column + 1,
        rule=CODE, name=NAME, severity=severity, kind=vol.kind, frequency=vol.frequency, message=message,
        tokens_lost=after, fixable=False, evidence=vol.evidence, confidence=vol.confidence,
    )
