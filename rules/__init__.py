"""promptlint's built-in rules, one module per rule (installed as ``promptlint.rules``).

Each module defines ``CODE`` (``PC101``), ``NAME`` (kebab-case), ``SUMMARY`` (one line),
``FIX`` (``"safe"``, ``"unsafe"`` or ``None``), a docstring in ruff's shape (What it
does / Why is this bad? / Example / Use instead / Fix safety / Options), and either
``check(ctx)`` (one file) or ``check_project(files, config)`` (several files), each
yielding :class:`promptlint.core.findings.Finding`.
"""
