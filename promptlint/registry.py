"""The rules: built-in modules under ``promptlint.rules``, and third-party modules
registered in the ``promptlint.rules`` entry point group."""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
from functools import cache
from types import ModuleType

ENTRY_POINT_GROUP = "promptlint.rules"
# The group's section header in a distribution's entry_points.txt (an INI file).
_GROUP_SECTION = re.compile(r"^[ \t]*\[[ \t]*" + re.escape(ENTRY_POINT_GROUP) + r"[ \t]*\]", re.MULTILINE)


def _plugins_may_be_installed() -> bool:
    """Whether an installed distribution may register rules: one whose ``entry_points.txt``
    has the group's section, or one on a ``sys.path`` entry that a folder scan cannot read.
    Only then is ``importlib.metadata`` imported (see :mod:`promptlint.installed`)."""
    from promptlint.installed import metadata_folders

    folders, complete = metadata_folders()
    if not complete:
        return True
    for folder in folders:
        try:
            with open(os.path.join(folder, "entry_points.txt"), encoding="utf-8", errors="replace") as handle:
                if _GROUP_SECTION.search(handle.read()):
                    return True
        except OSError:
            continue
    return False


def _is_rule(module: ModuleType) -> bool:
    return all(hasattr(module, attr) for attr in ("CODE", "NAME"))


@cache
def rules() -> tuple[ModuleType, ...]:
    """Every rule module, sorted by code."""
    import promptlint.rules as package  # type: ignore[import-not-found]  # mapped from rules/

    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if _is_rule(module):
            found[module.CODE] = module
    if _plugins_may_be_installed():
        from importlib.metadata import entry_points

        for entry in entry_points(group=ENTRY_POINT_GROUP):
            module = entry.load()
            if isinstance(module, ModuleType) and _is_rule(module):
                found.setdefault(module.CODE, module)
    return tuple(found[code] for code in sorted(found))


def unknown_codes(patterns: tuple[str, ...]) -> list[str]:
    """The ``select``/``ignore`` entries that name no rule: neither a code, a prefix of one,
    nor ``ALL``. A typo there would silently turn the linter off."""
    codes = [rule.CODE for rule in rules()]
    return [p for p in patterns if p != "ALL" and not any(code.startswith(p) for code in codes)]


def describe_known_codes() -> str:
    """``PC101, PC102, …; or a prefix (PC, PC1, PC2) or ALL`` for error messages."""
    codes = [rule.CODE for rule in rules()]
    prefixes = sorted({code[:3] for code in codes})
    return f"known: {', '.join(codes)}; or a prefix ({', '.join(['PC', *prefixes])}) or ALL"


def by_code(code: str) -> ModuleType | None:
    code = code.upper()
    return next((r for r in rules() if r.CODE == code or r.NAME == code.lower()), None)
