"""``promptlint fix``: move volatile parts to the tail, provably without losing a word.

The safe fix only moves text. For every volatile unit that has stable content after
it, the smallest self-contained piece of the file that carries it is taken: the whole
line(s) it stands on, grown to its paragraph (consecutive non-blank lines) or its
Markdown list item (the item line and its indented continuation), and to the whole
``{% if %}``/``{% for %}`` block or Mustache section it stands in. These pieces go to
the end of the file in their original order, after one blank line; a piece that already
ends the file (a trailing ``{% if %}`` block holding a value) stays last, and the moved
text goes before it. The messages say which.

Which units move, and whether the move helps at all, is decided once, in the core
(:func:`promptlint.core.fixability.outlook`), for ``check``'s ``fixable`` and for this
package alike: a draft that does not settle, does not parse, does not grow the stable
prefix, or leaves more volatile values before stable text, is not made, and each value it
would have moved says why. Files whose lines are not the prompt in render order (request
bodies) are never rewritten; each value says so, and what to do instead.

Nothing is written before the rewrite is proved (black's habit): the new text parses
with the same loader; rendering old and new with the same random values yields the
same multiset of non-empty lines, for several value sets; the source keeps every word
and gains none; planning again on the result changes nothing; and the stable prefix,
in tokens, grew. In a run over many files, every file is decided and proved (and every
config rewrite planned) before the first is written. Writing is atomic (temporary file
in the same folder, fsync, ``os.replace``) and keeps the file's owner, group, mode, hard
links, BOM and line endings byte for byte; a kill leaves no temporary file; a file that
changed on disk since it was read is left alone, and a symlink out of the project is
not written through (``write``, ``bounds``).

Unsafe fixes (``unsafe=True``) change words: a clock's format literal finer than a day
is coarsened to day precision, and an unsorted Jinja loop over a tool list gets
``| sort(attribute="name")`` (``| dictsort`` for ``k, v in x.items()``). Their proof
renders a clock without its format and a loop by its collection, so a sort passes when
the rendered lines are the same multiset.

This package owns the rewriter, one job a module:

- ``render``: rendering old and new with the same generated values;
- ``prove``: the proof a rewrite must pass;
- ``plan``: one template's proved fix, with its stable prefix and cost before and after;
- ``bounds``: where a fix may write (no symlink out of the project);
- ``write``: the unified diff and the write that keeps owner, mode, links and endings;
- ``apply``: fixing files and folders, and the results the reporter prints;
- ``assembly``: the rewrite of ``[assembly] order`` in config (PC106).

The draft itself is planned in the core, as pure text (``promptlint.core.layout``,
``promptlint.core.carriers``, ``promptlint.core.loopsort``, ``promptlint.core.unsafe``,
``promptlint.core.draft``), so that a rule can ask
:func:`promptlint.core.fixability.fix_status` without importing this package. It may
import the core, the loaders, config, ``promptlint.api`` (lazily, for file reading and
per-file config), the project, the assembly rule, jinja2 (lazily) and
``promptlint.providers.cost`` (lazily, for the cost with a provider); nothing in the check
pipeline may import it.
"""

from __future__ import annotations

from promptlint.core.fixability import is_fixable
from promptlint.core.unsafe import day_format
from promptlint.fix.apply import FixReport, FixResult, fix_file, fix_paths
from promptlint.fix.plan import FixPlan, plan_fix
from promptlint.fix.prove import prove
from promptlint.fix.render import render_ir
from promptlint.fix.write import FileChangedError, unified_diff, write_atomic

__all__ = [
    "FileChangedError",
    "FixPlan",
    "FixReport",
    "FixResult",
    "day_format",
    "fix_file",
    "fix_paths",
    "is_fixable",
    "plan_fix",
    "prove",
    "render_ir",
    "unified_diff",
    "write_atomic",
]
