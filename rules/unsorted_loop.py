"""## What it does
Finds a loop over a tool list, plugin list or other runtime-discovered collection
that is rendered into the prompt without sorting it first (`{% for tool in tools %}`,
`{{#each tools}}`), and tool catalogues rendered as one value (`{{ AVAILABLE_TOOLS }}`
is reported by PC101 with kind `tool-order`).

## Why is this bad?
Tools discovered at run time (MCP servers, extensions, plugins) arrive in hash-map or
discovery order, which can differ between processes. When the order changes, the
prompt text changes at the first tool, and every token after it misses the cache.
Providers also cache `tools` definitions as part of the prefix: re-ordering them
invalidates everything after.

## Example
```jinja
{% for tool in tools %}
- {{ tool.name }}: {{ tool.description }}
{% endfor %}
```

## Use instead
```jinja
{% for tool in tools | sort(attribute="name") %}
- {{ tool.name }}: {{ tool.description }}
{% endfor %}
```

## Fix safety
Unsafe: `promptlint fix --unsafe-fixes` adds `| sort(attribute="name")` (or
`| dictsort` for mappings); it changes the order the model sees, so it is opt-in.

Lists the host application registers itself (skills, extensions, plugins, integrations)
come in a fixed order unless the prompt says they change at run time ("extensions you can
enable or disable", "discovered", "dynamically loaded") or the loop iterates a mapping
(`.items()`): those loops are a *warning* at most; tools, functions and MCP servers are
discovered and can change order between processes (*error* before substantial stable
text). The message says which evidence decided.

## Options
- `stable = ["tools"]`: the collection is already sorted by the code that fills it.
- `[volatile] skills = "tool-order"`: a registered list whose order does change.
"""

from __future__ import annotations

from collections.abc import Iterator

from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.severity import is_or_are, rebilled, severity_for, stable_tokens

CODE = "PC102"
NAME = "unsorted-tool-loop"
SUMMARY = "Loop over a tool list whose order can change between processes"
FIX = "unsafe"


# How to sort a loop, in the file's own syntax: Mustache and Handlebars have no sort, so
# the list is sorted where the code fills the template.
_SORT_IN_CODE = "sort the list in the code that fills the template (e.g. `sorted(tools, key=lambda t: t[\"name\"])`)"
_SORT_ADVICE = {
    "jinja": "sort it where it is rendered (`| sort(attribute=\"name\")`, or `| dictsort` for a mapping)",
    "mustache": "Mustache has no sort: " + _SORT_IN_CODE,
    "python": "sort it where it is iterated (`for name, tool in sorted(tools.items())`, "
              "`sorted(tools, key=lambda t: t.name)`)",
    "typescript": "sort it where it is iterated (`[...tools].sort((a, b) => a.name.localeCompare(b.name))`)",
    "javascript": "sort it where it is iterated (`[...tools].sort((a, b) => a.name.localeCompare(b.name))`)",
}


def check(ctx: RuleContext) -> Iterator[Finding]:
    analysis = ctx.analysis
    for unit in analysis.units:
        if not (unit.is_loop and unit.volatility.kind == "tool-order"):
            continue
        after = analysis.stable_tokens_after(unit.segment)
        severity = severity_for(unit.volatility, after, analysis.tokens)
        vol = unit.volatility
        advice = _SORT_ADVICE.get(ctx.template.syntax, _SORT_IN_CODE)
        if vol.fixed_order:
            message = (
                f"loop over `{unit.expr.source}` is not sorted, but the list is the host's own, in a fixed order "
                f"({vol.evidence}; assumes {vol.assumed}): {stable_tokens(after)} after it {is_or_are(after)} re-billed whenever "
                f"the set changes; {advice} to be sure"
            )
        else:
            message = (
                f"loop over `{unit.expr.source}` is not sorted: its order can change between processes "
                f"({vol.evidence}), and {stable_tokens(after)} after it {is_or_are(after)} {rebilled(vol)}; {advice}"
            )
        fixable, why_not = ctx.fix_status(unit)
        yield ctx.finding(
            CODE,
            NAME,
            ctx.unit_span(unit),
            severity=severity,
            message=message,
            kind="tool-order",
            frequency=unit.volatility.frequency,
            tokens_lost=after,
            fixable=fixable,
            unfixable_reason=why_not,
            evidence=unit.volatility.evidence,
            confidence=unit.volatility.confidence,
        )
