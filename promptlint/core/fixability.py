"""Whether ``promptlint fix`` would fix a volatile unit: what a rule needs to know to mark
a finding fixable, without importing the rewriter (``promptlint.fix``)."""

from __future__ import annotations

from promptlint.core.analysis import Unit, find_units
from promptlint.core.carriers import move_plan
from promptlint.core.ir import CODE_SYNTAXES, Block, Template
from promptlint.core.loopsort import sort_edit
from promptlint.core.volatility import Overrides
from promptlint.loaders.base import LoadError


def is_fixable(template: Template, unit: Unit, overrides: Overrides | None = None) -> bool:
    """Whether ``promptlint fix`` moves this unit (or, for a tool loop, fixes it with unsafe fixes)."""
    if template.syntax in CODE_SYNTAXES:
        return False  # code is never rewritten: findings there say where to move the value
    unsafe = unit.is_loop and unit.volatility.kind == "tool-order"
    try:
        units = find_units(template, overrides)
        if not any(u.segment is unit.segment for u in units):
            units.append(unit)
        if unsafe and isinstance(unit.segment, Block) and sort_edit(template, unit.segment)[0] is not None:
            return True
        carriers, moving = move_plan(template, units, [], unsafe)
    except LoadError:
        return False
    return any(id(c) in moving and any(u.segment is unit.segment for u in c.units) for c in carriers)
