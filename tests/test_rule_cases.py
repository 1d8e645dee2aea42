"""Per-rule cases as data (sqlfluff style): ``fixtures/rules/<CODE>.yaml``.

Each case is a realistic prompt template (plus, for project-level rules, the files it
includes or is assembled with, and a promptlint.toml). The case is written into a fresh
folder, the folder is checked with :func:`promptlint.api.check_paths`, and the findings
of the case's rule are compared with ``expect`` as a multiset of
``(path, line, kind, severity)``. ``path`` is relative to the case folder and defaults
to the template's file name. Adding a case needs no Python.

Case keys:

* ``name`` (unique in the file), ``syntax`` (jinja | mustache | format | dollar | markdown | json),
  ``template`` -- required.
* ``filename`` -- the template's name in the folder (default by syntax).
* ``expect`` -- ``[]`` for a pass case; else ``{line, kind, severity[, path]}`` entries.
* ``fixable`` -- on fail cases: whether ``promptlint fix`` should be able to fix it.
* ``config`` -- promptlint.toml content, written beside the template.
* ``files`` -- extra files, relative path -> content.
* ``check`` -- paths to check, relative to the folder (default: the whole folder).
* ``xfail`` -- a reason: the engine disagrees with the policy (strict: an unexpected
  pass fails, so the mark is removed once the engine is fixed).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from promptlint.api import check_paths
from promptlint.core.findings import SEVERITIES
from promptlint.registry import rules
from promptlint.testing import DEFAULT_FILENAMES, case_filename, load_cases, materialize
from promptlint.core.volatility import KINDS

CASES_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "rules"

FINDING_KINDS = frozenset(KINDS) | {"breakpoint", "assembly-order", "threshold"}
CASE_KEYS = {"name", "syntax", "filename", "template", "expect", "fixable", "config", "files", "check", "xfail"}
EXPECT_KEYS = {"line", "kind", "severity", "path"}
TEMPLATE_LINES = (10, 60)
DOC_HEADINGS = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix safety")


def _load(path: Path) -> dict[str, Any]:
    return load_cases(path)


def _all_files() -> list[Path]:
    return sorted(CASES_DIR.glob("*.yaml"))


def _params() -> list[Any]:
    params = []
    for path in _all_files():
        data = _load(path)
        for case in data["cases"]:
            marks = []
            if case.get("xfail"):
                marks.append(pytest.mark.xfail(reason=str(case["xfail"]), strict=True))
            params.append(pytest.param(data["rule"], case, id=f"{data['rule']}-{case.get('name')}", marks=marks))
    return params


def _relative(path: str, folder: Path) -> str:
    return Path(os.path.relpath(os.path.abspath(path), folder)).as_posix()


@pytest.mark.parametrize(("rule", "case"), _params())
def test_rule_case(rule: str, case: dict[str, Any], tmp_path: Path) -> None:
    folder = tmp_path / "case"
    template_name = case_filename(case)
    report = check_paths(materialize(case, folder))

    assert not report.errors, report.errors
    assert not [r for r in report.files if r.error], [(r.path, r.error) for r in report.files if r.error]
    results = {_relative(r.path, folder): r for r in report.files}
    if template_name in results:
        # The case says which syntax it is written in; the loader must read it so.
        assert results[template_name].syntax == case["syntax"], f"{template_name} read as {results[template_name].syntax}"

    found = Counter(
        (_relative(f.path, folder), f.line, f.kind, f.severity) for f in report.findings if f.rule == rule
    )
    expected = Counter(
        (e.get("path", template_name), e["line"], e["kind"], e["severity"]) for e in case.get("expect") or []
    )
    messages = "\n".join(
        f"  {_relative(f.path, folder)}:{f.line} {f.severity} {f.kind}: {f.message}"
        for f in report.findings
        if f.rule == rule
    )
    assert found == expected, f"{rule} findings differ\n got:\n{messages or '  (none)'}"


# ---------------------------------------------------------------------------------------
# The case files themselves


@pytest.mark.parametrize("path", _all_files(), ids=lambda p: p.name)
def test_case_file_is_well_formed(path: Path) -> None:
    data = _load(path)
    assert path.stem == data["rule"], f"{path.name} holds cases of {data['rule']}"
    names = [case.get("name") for case in data["cases"]]
    assert len(names) == len(set(names)), f"duplicate case names in {path.name}"
    for case in data["cases"]:
        where = f"{path.name}: {case.get('name')}"
        assert set(case) <= CASE_KEYS, f"{where}: unknown keys {set(case) - CASE_KEYS}"
        assert case.get("name") and case.get("template") is not None, where
        assert case.get("syntax") in DEFAULT_FILENAMES, f"{where}: syntax {case.get('syntax')!r}"
        # Realistic prompts, not one-liners.
        lines = len(case["template"].splitlines())
        assert TEMPLATE_LINES[0] <= lines <= TEMPLATE_LINES[1], f"{where}: template has {lines} lines"
        assert isinstance(case.get("expect"), list), f"{where}: `expect` must be a list ([] for a pass case)"
        for entry in case["expect"]:
            assert set(entry) <= EXPECT_KEYS and {"line", "kind", "severity"} <= set(entry), f"{where}: {entry}"
            assert entry["kind"] in FINDING_KINDS, f"{where}: kind {entry['kind']!r}"
            assert entry["severity"] in SEVERITIES, f"{where}: severity {entry['severity']!r}"
            assert isinstance(entry["line"], int) and entry["line"] >= 1, f"{where}: line {entry['line']!r}"
        if "fixable" in case:
            assert isinstance(case["fixable"], bool), f"{where}: `fixable` must be true or false"
            assert case["expect"], f"{where}: `fixable` is for fail cases only"


@pytest.mark.parametrize("rule", rules(), ids=lambda r: r.CODE)
def test_every_rule_has_cases(rule: Any) -> None:
    path = CASES_DIR / f"{rule.CODE}.yaml"
    assert path.is_file(), f"{rule.CODE} has no case file {path}"
    cases = _load(path)["cases"]
    assert len(cases) >= 8, f"{rule.CODE}: {len(cases)} cases, at least 8 wanted"
    assert any(not c["expect"] for c in cases), f"{rule.CODE}: no pass case"
    assert any(c["expect"] for c in cases), f"{rule.CODE}: no fail case"


@pytest.mark.parametrize("rule", rules(), ids=lambda r: r.CODE)
def test_rule_docs_are_printed(rule: Any, run_cli: Any) -> None:
    result = run_cli("rules", rule.CODE)
    assert result.exit_code == 0, result.output
    assert rule.CODE in result.stdout
    for heading in DOC_HEADINGS:
        assert heading in result.stdout, f"`promptlint rules {rule.CODE}` lacks {heading!r}"
