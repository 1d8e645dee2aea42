"""A check for agent projects' own test suites: fail a test when a prompt breaks the cache.

    from promptlint.pytest_helpers import assert_cache_friendly

    def test_system_prompt_is_cache_friendly():
        assert_cache_friendly("agents/system.j2")               # a file or folder
        assert_cache_friendly(build_prompt(), syntax="jinja")   # or prompt text
"""

from __future__ import annotations

import os
from pathlib import Path

from promptlint.core.findings import Finding, severity_rank


class CacheUnfriendly(AssertionError):
    """Findings at or above the failing severity, one per line in the message."""

    def __init__(self, findings: list[Finding]) -> None:
        self.findings = findings
        lines = [f"{f.path}:{f.line}:{f.column} {f.rule} [{f.severity}] {f.message}" for f in findings]
        super().__init__(f"{len(findings)} cache-breaking finding(s):\n" + "\n".join(lines))


def assert_cache_friendly(path_or_text: str | os.PathLike[str], fail_on: str = "error",
                          syntax: str | None = None) -> None:
    """Raise :class:`CacheUnfriendly` (an AssertionError) if the file, folder or prompt text
    has findings at ``fail_on`` or above, or cannot be read. A one-line string that names an
    existing path is read from disk; any other string is checked as prompt text."""
    from promptlint.api import check_paths, check_text

    threshold = severity_rank(fail_on)
    if not isinstance(path_or_text, str | os.PathLike):
        # bytes were checked as the text of their repr ("b'...'"), and passed
        raise TypeError(f"assert_cache_friendly takes prompt text (str) or a path, not {type(path_or_text).__name__}")
    if isinstance(path_or_text, os.PathLike) or _is_path(str(path_or_text)):
        report = check_paths(path_or_text, syntax=syntax)
        problems = list(report.errors) + [f"{r.path}: {r.error}" for r in report.files if r.error]
        findings = report.findings
    else:
        result = check_text(str(path_or_text), syntax=syntax or "jinja")
        problems = [f"<text>: {result.error}"] if result.error else []
        findings = result.findings
    if problems:
        raise AssertionError("promptlint could not check it: " + "; ".join(problems))
    failing = [f for f in findings if severity_rank(f.severity) >= threshold]
    if failing:
        raise CacheUnfriendly(failing)


def _is_path(text: str) -> bool:
    if not text or "\n" in text:  # Path("") is the working directory: empty text is a prompt
        return False
    try:
        return Path(text).exists()
    except OSError:  # a name too long to be a path
        return False
