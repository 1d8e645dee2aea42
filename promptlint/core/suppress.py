"""Suppression comments: ``promptlint: disable=PC101`` in any syntax's comment form.

``{# promptlint: disable=PC101 #}``, ``<!-- promptlint: disable=PC101 -->`` or
``{{! promptlint: disable=PC101 }}`` silences the listed rules (all, when none are
listed) on its own line and the next; ``disable-file=`` silences them in the whole file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from promptlint.core.findings import Finding

_DIRECTIVE = re.compile(
    r"(?:\{#|<!--|\{\{!)-?\s*promptlint:\s*(disable-file|disable-next-line|disable)"
    r"(?:\s*=\s*([A-Za-z0-9_, -]+?))?\s*-?(?:#\}|-->|\}\})"
)


@dataclass
class Suppressions:
    file_codes: set[str] = field(default_factory=set)
    line_codes: dict[int, set[str]] = field(default_factory=dict)

    def allows(self, finding: Finding) -> bool:
        def hit(codes: set[str]) -> bool:
            return "ALL" in codes or finding.rule in codes

        return not (hit(self.file_codes) or hit(self.line_codes.get(finding.line, set())))


def parse(source: str) -> Suppressions:
    result = Suppressions()
    if "promptlint:" not in source:
        return result
    for number, line in enumerate(source.splitlines(), 1):
        for match in _DIRECTIVE.finditer(line):
            action, listed = match.groups()
            codes = {c.strip() for c in (listed or "ALL").split(",") if c.strip()}
            if action == "disable-file":
                result.file_codes |= codes
                continue
            lines = [number + 1] if action == "disable-next-line" else [number, number + 1]
            for target in lines:
                result.line_codes.setdefault(target, set()).update(codes)
    return result
