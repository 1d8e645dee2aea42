"""The proof a rewrite must pass before it is written (black's habit).

The new text parses with the same loader; rendering old and new with the same random
values yields the same multiset of non-empty lines, for several value sets; the source
keeps every word and gains none; planning again on the result changes nothing; and the
stable prefix, in tokens, grew.

Unsafe rewrites are proved the same way with two abstractions, for what they change on
purpose: a clock renders without its format, and a loop is known by its collection
(``tools``, whether written ``tools``, ``tools | sort(attribute="name")`` or, for
``tools.items()``, ``tools | dictsort``), so that a sort passes exactly when the rendered
lines are the same multiset.
"""

from __future__ import annotations

import hashlib
from collections import Counter

from promptlint.config import Config
from promptlint.core.draft import reload
from promptlint.core.fixability import MORE_BEFORE, outlook, volatile_before_stable
from promptlint.core.ir import Template
from promptlint.fix.render import render_ir, render_jinja
from promptlint.loaders import LoadError

# How many random value sets the rendering proof uses.
PROOF_ROUNDS = 4
NO_GAIN = "the stable prefix did not grow"


def _lines(text: str) -> Counter[str]:
    return Counter(line.rstrip("\r") for line in text.split("\n") if line.strip())


def prove(
    original: Template, new_source: str, unsafe: bool = False, config: Config | None = None
) -> list[str]:
    """Reasons the rewrite of ``original`` into ``new_source`` is not safe (empty: proved)."""
    from promptlint.core import tokens

    config = config or Config()
    encoding = tokens.encoding_name_for_model(config.target_model)
    problems: list[str] = []
    look = outlook(original, config.overrides, unsafe, encoding)
    # The rewrite the outlook drafted was parsed and analysed to judge it: that parse (of
    # this very text, by the same loader) and its analysis are the proof's; any other text
    # is parsed here.
    known = look.after if look.after is not look.before and look.after.template.source == new_source else None
    try:
        new = known.template if known is not None else reload(original, new_source)
    except LoadError as exc:
        return [f"the rewritten template does not parse: {exc.message}"]
    baseline = look.baseline if unsafe else original.source

    old_words, new_words = Counter(baseline.split()), Counter(new_source.split())
    lost, added = old_words - new_words, new_words - old_words
    if lost:
        problems.append(f"words lost: {', '.join(repr(w) for w in sorted(lost)[:5])}")
    if added:
        problems.append(f"words added: {', '.join(repr(w) for w in sorted(added)[:5])}")

    # Random values, seeded by the text itself so that a refusal can be reproduced.
    salt = hashlib.sha256((original.source + "\0" + new_source).encode()).hexdigest()[:8]
    rendered = None
    if original.syntax == "jinja":
        # The loader's parse trees, compiled here once (a second proof of a template parses again).
        trees = [original.jinja_tree, new.jinja_tree]
        original.jinja_tree = new.jinja_tree = None
        rendered = render_jinja([original.source, new_source], PROOF_ROUNDS, salt, abstract_clock=unsafe,
                                trees=trees)
    if rendered is None:
        # Values the template cannot take (or not Jinja): render from the IR instead.
        rendered = [[render_ir(t, r, salt, unsafe) for r in range(PROOF_ROUNDS)] for t in (original, new)]
    for round_, (before, after) in enumerate(zip(*rendered)):
        if _lines(before) != _lines(after):
            missing = _lines(before) - _lines(after)
            extra = _lines(after) - _lines(before)
            detail = f"missing {next(iter(missing))!r}" if missing else f"new {next(iter(extra))!r}"
            problems.append(f"rendered lines differ with value set {round_ + 1} ({detail})")
            break

    # What a second `promptlint fix` would do: the same outlook, on the result. When the
    # draft's last round planned on this very template and changed nothing, that round was
    # it: the same planning (draft_fix's round) of the same text with the same options.
    if known is not None and look.settled_on is new:
        again_source, after_analysis = new_source, known
    else:
        again = outlook(new, config.overrides, unsafe, encoding, known)
        again_source, after_analysis = again.source, again.before
    if again_source != new_source:
        problems.append("not idempotent: fixing the result would change it again")

    before_analysis = look.before
    moved = new_source != baseline
    if after_analysis.stable_prefix_tokens < before_analysis.stable_prefix_tokens or (
        moved and after_analysis.stable_prefix_tokens == before_analysis.stable_prefix_tokens
    ):
        problems.append(
            f"{NO_GAIN} ({before_analysis.stable_prefix_tokens} → "
            f"{after_analysis.stable_prefix_tokens} tokens)"
        )
    if volatile_before_stable(after_analysis) > volatile_before_stable(before_analysis):
        problems.append(f"{MORE_BEFORE} than before")
    return problems
