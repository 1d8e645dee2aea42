"""``--format sarif``: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Each rule that ran is described once (short and full description, its module docs as
help); each finding is a result with its region in UTF-16 columns (what the SARIF
spec and GitHub expect), a fingerprint that survives line moves, and, where
``promptlint fix`` would rewrite the file, the fix as line replacements.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

from promptlint.core.findings import Finding, Lines, Report
from promptlint.fix.linediff import Edit
from promptlint.reporters import json as json_report

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {"error": "error", "warning": "warning", "info": "note"}


def _utf16_column(line: str, column: int) -> int:
    """A 1-based code-point column as a 1-based UTF-16 code-unit column."""
    return len(line[: column - 1].encode("utf-16-le")) // 2 + 1


def _doc_sections(doc: str) -> tuple[str, str]:
    """The first paragraph of "What it does" (full description) and the whole doc (help)."""
    text = doc.strip()
    body = text.split("## What it does", 1)[-1].strip()
    first = body.split("\n\n", 1)[0].split("\n## ", 1)[0]
    return " ".join(first.split()), text


def _rule_descriptor(rule: ModuleType, help_base: str | None) -> dict[str, Any]:
    full, help_text = _doc_sections(rule.__doc__ or "")
    descriptor: dict[str, Any] = {
        "id": rule.CODE,
        "name": rule.NAME,
        "shortDescription": {"text": getattr(rule, "SUMMARY", rule.NAME)},
        "fullDescription": {"text": full or getattr(rule, "SUMMARY", rule.NAME)},
        "help": {"text": help_text, "markdown": help_text},
        "properties": {"fix": getattr(rule, "FIX", None) or "none", "tags": ["prompt-cache"]},
    }
    if help_base:
        descriptor["helpUri"] = f"{help_base.rstrip('/')}#{rule.CODE.lower()}"
    return descriptor


def _fingerprint(finding: Finding, flagged: str, occurrence: int) -> str:
    """Stable across line moves: the rule, the file, the flagged text and which occurrence
    of that text in the file it is, never the line number."""
    key = "\0".join((finding.rule, finding.path, flagged.strip(), str(occurrence)))
    # A file name that is no UTF-8 holds lone surrogates (os.fsdecode's): hashed as they are.
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def _region(finding: Finding, lines: Lines | None) -> dict[str, Any]:
    start_column, end_column = finding.column, finding.end_column
    if lines and 0 < finding.line <= len(lines):
        start_column = _utf16_column(lines[finding.line - 1], finding.column)
        if 0 < finding.end_line <= len(lines):
            end_column = _utf16_column(lines[finding.end_line - 1], finding.end_column)
    return {
        "startLine": finding.line,
        "startColumn": start_column,
        "endLine": finding.end_line,
        "endColumn": max(end_column, start_column + 1) if finding.end_line == finding.line else end_column,
    }


def _flagged_text(finding: Finding, lines: Lines | None) -> str:
    if not lines or not 0 < finding.line <= len(lines):
        return finding.message
    if finding.end_line == finding.line:
        return lines[finding.line - 1][finding.column - 1 : finding.end_column - 1]
    return lines[finding.line - 1][finding.column - 1 :]


def _artifact_changes(uri: str, edits: Sequence[Edit]) -> list[dict[str, Any]]:
    """The rewrite as replacements of whole lines, located by character offset."""
    replacements = [{"deletedRegion": {"charOffset": offset, "charLength": length}, "insertedContent": {"text": text}}
                    for offset, length, text in edits]
    return [{"artifactLocation": {"uri": uri, "uriBaseId": "SRCROOT"}, "replacements": replacements}]


def _uri(path: str) -> str:
    """A file's URI reference, relative to SRCROOT (the working directory) where it is
    inside it. Percent-encoded as RFC 3986 asks: a space, a non-ASCII letter, a `#` (read as
    a fragment), a `?` or a colon in the first segment (read as a scheme) named another
    file, or none, to code scanning."""
    rel = os.path.relpath(os.path.abspath(path))
    posix = Path(rel if not rel.startswith("..") else os.path.abspath(path)).as_posix()
    return quote(posix.encode("utf-8", "surrogateescape"), safe="/")


def chunks(
    report: Report,
    rules: Sequence[ModuleType],
    sources: Mapping[str, Lines],
    *,
    version: str,
    fix_edits: Mapping[str, Sequence[Edit]] | None = None,
    help_base: str | None = None,
) -> Iterator[str]:
    """The SARIF log of one run, a result at a time: the characters of ``json.dumps(log,
    indent=2)``, without every result's object held at once. ``sources`` holds each finding's
    file as lines; ``fix_edits`` maps a path to the line replacements that turn it into the text
    ``promptlint fix`` would write (:func:`promptlint.fix.linediff.line_edits`), none when fix
    would leave it as it is."""
    notifications = [
        {"level": "error", "message": {"text": message}} for message in report.errors
    ] + [
        {"level": "error", "message": {"text": f"{r.path}: {r.error}"},
         "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(r.path), "uriBaseId": "SRCROOT"}}}]}
        for r in report.files if r.error
    ] + [{"level": "warning", "message": {"text": message}} for message in report.warnings]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "promptlint",
            "version": version,
            "semanticVersion": version,
            "rules": [_rule_descriptor(rule, help_base) for rule in rules],
        }},
        "originalUriBaseIds": {"SRCROOT": {"uri": Path.cwd().as_uri() + "/"}},
        "columnKind": "utf16CodeUnits",
        "invocations": [{"executionSuccessful": not report.failed, "toolExecutionNotifications": notifications}],
        "results": [],
    }
    log = json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)
    # "results" is the run's last key, so its empty list is the log's last `[]` written after
    # that key (a message's own quotes are escaped): the results are written in its place.
    at = log.rindex('"results": []') + len('"results": ')
    yield log[:at]
    # The results list stands three levels in: the log, its runs, the run.
    yield from json_report.array(_results(report, {rule.CODE: i for i, rule in enumerate(rules)}, sources,
                                          fix_edits), level=3)
    yield log[at + 2:]


def _results(
    report: Report, index: Mapping[str, int], sources: Mapping[str, Lines],
    fix_edits: Mapping[str, Sequence[Edit]] | None,
) -> Iterator[dict[str, Any]]:
    seen: dict[tuple[str, str, str], int] = {}
    # A file's fix is one rewrite that fixes all its fixable findings: it is diffed once and
    # offered once, on the first of them (offered on each, 3,000 findings of one template
    # made a log of gigabytes).
    offered: set[str] = set()
    uris: dict[str, str] = {}  # a file's URI, made once for all its findings
    for finding in report.findings:
        lines = sources.get(finding.path)
        flagged = _flagged_text(finding, lines)
        occurrence = seen[(finding.rule, finding.path, flagged)] = seen.get((finding.rule, finding.path, flagged), -1) + 1
        uri = uris.get(finding.path) or uris.setdefault(finding.path, _uri(finding.path))
        result: dict[str, Any] = {
            "ruleId": finding.rule,
            "level": _LEVEL[finding.severity],
            "message": {"text": finding.message},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": uri, "uriBaseId": "SRCROOT"},
                "region": _region(finding, lines),
            }}],
            "partialFingerprints": {"promptlintFingerprint/v1": _fingerprint(finding, flagged, occurrence)},
            "properties": {"tokensLost": finding.tokens_lost, "kind": finding.kind, "frequency": finding.frequency,
                           "confidence": finding.confidence, "fixable": finding.fixable},
        }
        if finding.rule in index:
            result["ruleIndex"] = index[finding.rule]
        edits = (fix_edits or {}).get(finding.path)
        if finding.fixable and edits and finding.path not in offered:
            offered.add(finding.path)
            result["fixes"] = [{
                "description": {"text": "promptlint fix: move the volatile parts of this file to its tail "
                                        "(fixes each of its fixable findings)"},
                "artifactChanges": _artifact_changes(uri, edits),
            }]
        yield result
