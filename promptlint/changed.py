"""``check --changed-since REF``: keep only findings on lines changed since a git ref,
and every finding in files that are new since it (for adopting the linter in a large
repository one change at a time).

The lines come from git itself: ``git diff --unified=0 REF`` (the working tree against
the ref, staged and unstaged changes alike) and ``git ls-files --others`` for files git
does not track yet.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from functools import lru_cache

from promptlint.core.findings import Finding, Report

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")
_GIT_TIMEOUT_S = 60


class ChangedSinceError(Exception):
    """git could not say what changed (not a repository, an unknown ref); one line."""


@dataclass
class ChangedLines:
    """Per absolute path: the changed line numbers of the new text; new files entirely."""

    lines: dict[str, set[int]] = field(default_factory=dict)
    new_files: set[str] = field(default_factory=set)

    def covers(self, finding: Finding) -> bool:
        path = os.path.realpath(finding.path)
        if path in self.new_files:
            return True
        changed = self.lines.get(path) or set()
        return any(line in changed for line in range(finding.line, finding.end_line + 1))


def _git(args: list[str], cwd: str) -> str:
    """git's output, read as the file system's names are (bytes that are no UTF-8, in a
    name or in a changed line of a Latin-1 file, were a UnicodeDecodeError)."""
    try:
        proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, encoding="utf-8",
                              errors="surrogateescape", timeout=_GIT_TIMEOUT_S, check=False)
    except FileNotFoundError:
        raise ChangedSinceError("--changed-since needs git, which is not installed") from None
    except subprocess.TimeoutExpired:
        raise ChangedSinceError(f"git {' '.join(args[:2])} took over {_GIT_TIMEOUT_S} s") from None
    if proc.returncode != 0:
        message = (proc.stderr.strip().splitlines() or [f"git exited {proc.returncode}"])[-1]
        raise ChangedSinceError(f"git {args[0]}: {message}")
    return proc.stdout


def _root(start: str) -> str:
    folder = start if os.path.isdir(start) else os.path.dirname(os.path.abspath(start)) or "."
    return _toplevel(os.path.abspath(folder))


@lru_cache(maxsize=256)
def _toplevel(folder: str) -> str:
    """The repository holding ``folder``: asked of git once per folder (a hook names each
    staged file, and the ref is verified before the check and its diff read after it)."""
    return os.path.realpath(_git(["rev-parse", "--show-toplevel"], folder).strip())


def _roots(paths: list[str]) -> list[str]:
    return sorted({_root(p) for p in paths} or {_root(".")})


def verify_ref(ref: str, paths: list[str]) -> None:
    """ChangedSinceError unless ``ref`` names a commit in each repository holding ``paths``:
    asked before the check, so that a mistyped ref does not wait for a whole run."""
    for root in _roots(paths):
        _verify(ref, root)


def _verify(ref: str, root: str) -> None:
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], root)
    except ChangedSinceError:
        raise ChangedSinceError(f"not a commit in the repository at {root}") from None


def changed_lines(ref: str, paths: list[str]) -> ChangedLines:
    """What changed since ``ref`` in the repository (or repositories) holding ``paths``."""
    result = ChangedLines()
    for root in _roots(paths):
        _verify(ref, root)
        diff = _git(["-c", "core.quotePath=false", "diff", "--unified=0", "--no-color", "--no-ext-diff",
                     "--no-renames", "--no-prefix", ref, "--"], root)
        current: set[int] | None = None
        for line in diff.split("\n"):  # git's lines (a changed line may hold a U+2028 or a lone CR)
            if line.startswith("+++ "):
                name = _header_name(line[4:])
                current = None if name == "/dev/null" else result.lines.setdefault(
                    os.path.realpath(os.path.join(root, name)), set())
            elif line.startswith("--- /dev/null"):
                pass
            elif current is not None and (match := _HUNK.match(line)):
                start, count = int(match.group(1)), int(match.group(2) or "1")
                current.update(range(start, start + count))
        # Names as they are, NUL-separated: no quoting to undo.
        added = _git(["diff", "--name-only", "-z", "--diff-filter=A", "--no-renames", ref, "--"], root)
        untracked = _git(["ls-files", "-z", "--others", "--exclude-standard"], root)
        for name in (added + untracked).split("\0"):
            if name:
                result.new_files.add(os.path.realpath(os.path.join(root, name)))
    return result


# git's escapes in a quoted name (quote_c_style); any other byte is written as \ooo.
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


def _header_name(name: str) -> str:
    """A file name as a ``+++`` line of ``git diff`` writes it: quoted, with C escapes, when
    it holds a control character, a quote or a backslash (and, with ``core.quotePath``, any
    byte that is no ASCII); else as it is, with a tab after it when it holds a space."""
    if not (len(name) >= 2 and name[0] == '"' and name[-1] == '"'):
        return name[:-1] if name.endswith("\t") else name
    out = bytearray()
    inner, i = name[1:-1], 0
    while i < len(inner):
        char = inner[i]
        if char != "\\" or i + 1 == len(inner):
            out += char.encode("utf-8", "surrogateescape")
            i += 1
        elif inner[i + 1] in _ESCAPES:
            out.append(_ESCAPES[inner[i + 1]])
            i += 2
        else:
            out.append(int(inner[i + 1 : i + 4], 8) & 0xFF)
            i += 4
    return out.decode("utf-8", "surrogateescape")


def keep_changed(report: Report, changed: ChangedLines) -> int:
    """Drop the findings on lines that did not change; returns how many were dropped."""
    before = len(report.findings)
    for result in report.files:
        result.findings = [f for f in result.findings if changed.covers(f)]
    report.extra_findings = [f for f in report.extra_findings if changed.covers(f)]
    return before - len(report.findings)
