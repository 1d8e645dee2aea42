"""Reporters: the only code that formats results for people or machines.

``text`` (rich, for a terminal), ``json`` (the output contract), ``sarif`` (SARIF 2.1.0),
``github`` (workflow annotations), ``fixreport`` and ``replay_text``. A reporter takes a
finished report and returns or prints text; it computes nothing. May import
:mod:`promptlint.core`, rich and the registry (rule metadata); never the engine's stages.
"""
