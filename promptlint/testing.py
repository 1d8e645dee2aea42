"""Rule cases as data, for promptlint's own tests and for third-party rule authors.

A case file (``fixtures/rules/PC101.yaml``) holds ``rule`` and ``cases``; each case has a
``template`` in a ``syntax``, optional extra ``files`` and ``config`` (a promptlint.toml)
for project-level rules, the findings it must ``expect``, and whether it is ``fixable``.
:func:`materialize` writes a case into a folder and says what to check there.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEFAULT_FILENAMES = {
    "jinja": "system.j2",
    "mustache": "system.mustache",
    "go": "system.gotmpl",
    "format": "system.fmt",
    "dollar": "system.tmpl",
    "markdown": "system.md",
    # Request JSON is not found by walking a folder: such cases name it in `check`.
    "json": "request.json",
}


def load_cases(path: Path) -> dict[str, Any]:
    """One case file (needs PyYAML, a test dependency)."""
    import yaml  # type: ignore[import-untyped]

    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if not (isinstance(data, dict) and "rule" in data and "cases" in data):
        raise ValueError(f"{path.name}: needs `rule` and `cases`")
    return data


def case_filename(case: dict[str, Any]) -> str:
    return str(case.get("filename") or DEFAULT_FILENAMES[case["syntax"]])


def _write(folder: Path, rel: str, content: str) -> None:
    target = folder / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(content, encoding="utf-8", newline="")


def materialize(case: dict[str, Any], folder: Path) -> list[str]:
    """Write a case's template, files and config into ``folder``; the paths to check."""
    folder.mkdir(parents=True, exist_ok=True)
    _write(folder, case_filename(case), case["template"])
    for rel, content in (case.get("files") or {}).items():
        _write(folder, rel, content)
    if case.get("config") is not None:
        _write(folder, "promptlint.toml", case["config"])
    return [str(folder / p) for p in case["check"]] if case.get("check") else [str(folder)]
