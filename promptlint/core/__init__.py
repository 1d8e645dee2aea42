"""The check pipeline: template IR, exact tokens, volatility, analysis, severity, findings,
suppressions, and what a rule is given.

It owns everything ``promptlint check`` computes between a loaded template and a finding.
It may import only the standard library, tiktoken (lazily) and itself: never the rewriter
(``promptlint.fix``), the probe, replay, an SDK, click or rich.
"""
