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
from typing import TYPE_CHECKING

from promptlint.core.findings import Finding
from promptlint.core.ir import Block, Tag
from promptlint.core.severity import how_often, is_or_are, rebilled, severity_for, stable_tokens
from promptlint.core.kinds import Volatility
from promptlint.project import CheckedFile, Project

if TYPE_CHECKING:
    from promptlint.core.analysis import Unit

CODE = "PC104"
NAME = "volatile-include"
SUMMARY = "Included file or partial with a volatile value before stable content"
FIX = "safe"


def check_project(project: Project) -> Iterator[Finding]:
    for checked in list(project.files):
        if not checked.has_includes or checked.template.role == "user":
            continue  # no include, or the latest user turn: nothing after an include there is cached
        # Imported once a file includes another (a run of files that include nothing, or
        # that all hit the result cache, never loads the fix planner).
        from promptlint.core.analysis import worst_first
        from promptlint.core.fixability import fix_status

        for unit in checked.analysis.units:
            if not unit.is_include:
                continue
            origin = unit.origin
            vol = unit.volatility
            tag = unit.segment
            assert isinstance(tag, Tag)
            after = checked.analysis.stable_tokens_after(tag)
            severity = severity_for(vol, after, checked.analysis.tokens)
            # As RuleContext.fix_status: asked only where the report says it (JSON, SARIF).
            fixable, why_not = (fix_status(checked.template, unit, checked.config.overrides, analysis=checked.analysis)
                                if checked.config.plan_fixes else (False, None))
            included = project.is_checked(origin.source.path)
            where = f"{(included or origin.source).path}:{origin.line}"
            yield _finding(
                checked, tag.span.start, tag.span.end, severity, vol,
                f"include of `{tag.target}` renders {vol.kind} `{origin.expr_source}` "
                f"({where}), which {how_often(vol)} ({vol.evidence}); "
                f"{stable_tokens(after)} after the include {is_or_are(after)} {rebilled(vol)}; include it at the end of the prompt",
                after,
                fixable=fixable,
                unfixable_reason=why_not,
            )
            if included is not None:
                # Every volatile value of the included file costs what follows the include,
                # each at its own level (a per-session cwd is a warning, a clock an error).
                # The file as it was checked (its path as given), not as the include found it.
                by_line: dict[int, Unit] = {}
                for inner in included.analysis.units:
                    if inner.is_include:
                        continue  # a file it includes in turn reports its own values
                    line = included.template.position(inner.segment.span.start).line
                    if line not in by_line or worst_first(inner.volatility) > worst_first(by_line[line].volatility):
                        by_line[line] = inner  # one finding a line: the worst value on it
                including = f"{checked.path}:{checked.template.position(tag.span.start).line}"
                for inner in by_line.values():
                    inner_vol = inner.volatility
                    seg = inner.segment
                    span = seg.open if isinstance(seg, Block) else seg.span
                    yield _finding(
                        included, span.start, span.end,
                        severity_for(inner_vol, after, checked.analysis.tokens), inner_vol,
                        f"{inner_vol.kind} `{inner.expr.source}` {how_often(inner_vol)} and this file is included by "
                        f"{checked.path}:{checked.template.position(tag.span.start).line}, where {after:,} stable "
                        f"tokens follow the include ({inner_vol.evidence})",
                        after,
                        # The fix is the include's, in the including file.
                        unfixable_reason=f"not moved here: `promptlint fix` moves the include at {including}"
                        if fixable else f"not moved here, nor is the include at {including}: {why_not or 'see that finding'}",
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
