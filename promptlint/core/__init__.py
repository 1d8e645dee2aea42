"""The check pipeline: template IR, exact tokens, volatility, analysis, severity, findings,
suppressions, and what a rule is given; and, for the rules that say whether a finding is
fixable, the fixer's pure planning (a file's layout, the carriers that would move, the
sort edit of a tool loop and the other unsafe edits, the draft to a fixed point, and the
outlook that judges it: ``fixability.outlook``, ``fix_status``, ``is_fixable``).

It owns everything ``promptlint check`` computes between a loaded template and a finding.
It may import only the standard library, tiktoken (lazily), config, the loaders' error
(``promptlint.loaders.base``), jinja2 and the Jinja loader (lazily, to read a loop tag),
the loaders (lazily, to read a drafted rewrite back) and itself: never the rewriter
(``promptlint.fix``), the probe, replay, an SDK, click or rich.
"""
