"""Suppression comments: ``promptlint: disable=PC101`` in any syntax's comment form.

``{# promptlint: disable=PC101 #}``, ``<!-- promptlint: disable=PC101 -->`` or
``{{! promptlint: disable=PC101 }}`` silences the listed rules (all, when none are
listed) on its own line and the next; ``disable-file=`` silences them in the whole file.

In code, the host language's comments: ``# promptlint: disable=PC101`` in Python,
``// promptlint: disable=PC101`` (or ``/* ... */``) in TypeScript and JavaScript. A comment
on the first line of a statement that spans several lines, or on the line above it,
covers the whole statement (a triple-quoted prompt cannot hold a comment inside).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from promptlint.core.findings import Finding

_DIRECTIVE = re.compile(
    r"(?:\{#|<!--|\{\{!|\{\{-?\s*/\*)-?\s*promptlint:\s*(disable-file|disable-next-line|disable)"
    r"(?:\s*=\s*([A-Za-z0-9_, -]+?))?\s*-?(?:#\}|-->|\}\}|\*/\s*-?\}\})"
)


@dataclass
class Suppressions:
    file_codes: set[str] = field(default_factory=set)
    line_codes: dict[int, set[str]] = field(default_factory=dict)

    def allows(self, finding: Finding) -> bool:
        return not self.silences(finding.rule, finding.line)

    def allowed(self, findings: list[Finding]) -> list[Finding]:
        """The findings no directive silences: ``findings`` itself where the file has none
        (most files: no finding is asked of)."""
        if not self.file_codes and not self.line_codes:
            return findings
        return [f for f in findings if self.allows(f)]

    def silences(self, code: str, line: int) -> bool:
        """Whether a directive silences rule ``code`` on 1-based ``line`` (what ``fix`` asks of
        a value before it moves or rewrites it, as the check asks of a finding)."""
        def hit(codes: set[str]) -> bool:
            return "ALL" in codes or code in codes

        return hit(self.file_codes) or hit(self.line_codes.get(line, set()))


_CODE_DIRECTIVE = {
    "python": re.compile(r"#\s*promptlint:\s*(disable-file|disable-next-line|disable)(?:\s*=\s*([A-Za-z0-9_, -]+?))?\s*$"),
    "typescript": re.compile(
        r"(?://|/\*)\s*promptlint:\s*(disable-file|disable-next-line|disable)(?:\s*=\s*([A-Za-z0-9_, -]+?))?"
        r"\s*(?:\*/|$)"),
}
_CODE_DIRECTIVE["javascript"] = _CODE_DIRECTIVE["typescript"]


def parse(source: str, syntax: str | None = None, statements: Sequence[tuple[int, int]] = ()) -> Suppressions:
    """The suppressions of a file; ``syntax`` adds its host language's comments (code),
    whose directives cover the multi-line ``statements`` (first, last line) they start."""
    result = Suppressions()
    if "promptlint:" not in source:
        return result
    directive = _CODE_DIRECTIVE.get(syntax or "")
    spans: dict[int, int] = {}
    for first, last in statements:
        spans[first] = max(spans.get(first, first), last)
    # Lines as findings number them (split at "\n" only): ``splitlines`` also splits at a lone
    # CR, a form feed or U+2028, and a directive below one silenced the wrong line.
    for number, line in enumerate(source.split("\n"), 1):
        matches = list(_DIRECTIVE.finditer(line))
        if directive is not None:
            matches += list(directive.finditer(line))
        for match in matches:
            action, listed = match.groups()
            codes = {c.strip() for c in (listed or "ALL").split(",") if c.strip()}
            if action == "disable-file":
                result.file_codes |= codes
                continue
            lines = [number + 1] if action == "disable-next-line" else [number, number + 1]
            for start in list(lines):
                lines += range(start + 1, spans.get(start, start) + 1)
            for target in lines:
                result.line_codes.setdefault(target, set()).update(codes)
    return result
