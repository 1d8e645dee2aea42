"""The fix for an assembled prompt (PC106): rewrite ``[assembly] order`` in config so
that files which change often come after the files that do not.

Only the array is edited, entries keep their own spelling, and the rewrite is proved
before it is written: the file still parses, the new order is a permutation of the
old, and nothing else in the file changed.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptlint.config import Config
from promptlint.project import Project


@dataclass
class OrderFix:
    path: Path
    old_text: str
    new_text: str | None = None
    moved: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    # Tokens of the assembled prompt before its first often-changing file, and in all.
    stable_before: int = 0
    stable_after: int = 0
    tokens: int = 0


def _array_extent(text: str, start: int) -> tuple[int, int] | None:
    """[open, close] offsets of the TOML array that starts after ``start`` (quotes respected)."""
    open_at = text.find("[", text.find("=", start))
    if open_at < 0:
        return None
    depth, quote, i = 0, "", open_at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return open_at, i
        i += 1
    return None


def _items(array: str) -> list[str]:
    """The raw literal text of each string in a TOML array of strings."""
    items, quote, start = [], "", -1
    i = 0
    while i < len(array):
        ch = array[i]
        if quote:
            if ch == "\\" and quote == '"':
                i += 1
            elif ch == quote:
                items.append(array[start : i + 1])
                quote = ""
        elif ch in "\"'":
            quote, start = ch, i
        i += 1
    return items


def _order_table(data: dict[str, Any], pyproject: bool) -> list[str]:
    table = data.get("tool", {}).get("promptlint", {}) if pyproject else data
    return list(table.get("assembly", {}).get("order", []))


def plan_order_fix(config: Config, project: Project) -> OrderFix | None:
    """The rewritten config for one assembled prompt, or None when it has no order."""
    from promptlint.rules.assembly_order import (  # type: ignore[import-not-found]
        entry_is_volatile,
        entry_tokens,
    )

    if config.path is None or not config.assembly.get("order"):
        return None
    path = config.path
    # As it is on disk, line endings included (no newline translation): the rewrite keeps
    # a CRLF file's endings, and the write compares these very bytes with the file's.
    with path.open(encoding="utf-8", newline="") as handle:
        text = handle.read()
    fix = OrderFix(path, text)
    order = list(config.assembly["order"])
    volatile = [entry_is_volatile(entry, config, project) for entry in order]
    new_order = [e for e, v in zip(order, volatile, strict=True) if not v] + [
        e for e, v in zip(order, volatile, strict=True) if v
    ]
    sizes = dict(zip(order, (entry_tokens(e, config, project) for e in order), strict=True))
    is_volatile = dict(zip(order, volatile, strict=True))

    def stable_prefix(entries: list[str]) -> int:
        total = 0
        for entry in entries:
            if is_volatile[entry]:
                break
            total += sizes[entry]
        return total

    fix.tokens = sum(sizes.values())
    fix.stable_before = stable_prefix(order)
    fix.stable_after = stable_prefix(new_order)
    if new_order == order:
        return fix
    line = config.key_lines.get("assembly.order")
    if line is None:
        fix.not_fixable.append("could not find the `order` line")
        return fix
    line_start = sum(len(x) + 1 for x in text.split("\n")[: line - 1])  # lines as _key_lines numbers them
    extent = _array_extent(text, line_start)
    if extent is None:
        fix.not_fixable.append("could not read the `order` array")
        return fix
    open_at, close_at = extent
    array = text[open_at : close_at + 1]
    if "#" in "".join(array.split('"')[0::2]):
        fix.not_fixable.append("the `order` array holds comments; reorder it by hand")
        return fix
    raw = _items(array)
    if len(raw) != len(order):
        fix.not_fixable.append("the `order` array is not a plain list of strings")
        return fix
    by_value = dict(zip(order, raw, strict=True))
    if "\n" in array:
        indent = array.split("\n", 1)[1][: len(array.split("\n", 1)[1]) - len(array.split("\n", 1)[1].lstrip())]
        newline = "\r\n" if "\r\n" in array else "\n"
        body = "".join(f"{indent}{by_value[e]},{newline}" for e in new_order)
        new_array = f"[{newline}{body}]"
    else:
        new_array = "[" + ", ".join(by_value[e] for e in new_order) + "]"
    new_text = text[:open_at] + new_array + text[close_at + 1 :]
    # Proof: it parses, the order is a permutation, and nothing else changed.
    pyproject = path.name == "pyproject.toml"
    try:
        old_data, new_data = tomllib.loads(text), tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        fix.not_fixable.append(f"the rewritten file would not parse ({exc})")
        return fix
    if sorted(_order_table(new_data, pyproject)) != sorted(order) or _order_table(new_data, pyproject) != new_order:
        fix.not_fixable.append("the rewritten order is not a permutation of the old one")
        return fix
    for data in (old_data, new_data):
        (data.get("tool", {}).get("promptlint", {}) if pyproject else data).get("assembly", {}).pop("order", None)
    if old_data != new_data:
        fix.not_fixable.append("the rewrite would change more than `order`")
        return fix
    fix.new_text = new_text
    fix.moved = [f"{e} after the stable files" for e, v in zip(order, volatile, strict=True) if v]
    return fix
