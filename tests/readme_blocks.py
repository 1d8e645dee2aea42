"""The README's fenced code blocks, by section, for the tests that run them as printed."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    section: str  # the nearest heading above it, without the #s
    language: str
    text: str
    line: int  # 1-based line of the block's first line of text


def blocks(language: str | None = None, section: str | None = None) -> list[Block]:
    source = README.read_text(encoding="utf-8")
    found = []
    for match in _FENCE.finditer(source):
        before = source[: match.start()]
        headings = re.findall(r"^#+ (.+)$", before, re.MULTILINE)
        block = Block(headings[-1].strip() if headings else "", match[1], match[2], before.count("\n") + 2)
        if (language is None or block.language == language) and (section is None or block.section == section):
            found.append(block)
    return found
