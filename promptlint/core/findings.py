"""Findings and per-file results: what the engine hands to reporters."""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from typing import Any, Protocol

SEVERITIES: tuple[str, ...] = ("info", "warning", "error")


def one_line(text: str) -> str:
    """``text`` with line breaks and other control characters written as escapes
    (``\\n``, ``\\x1b``): a message that quotes a file's text stays one line, and a
    template's escape sequences never reach the terminal."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def kind_of_value(value: Any, *, mapping: str, sequence: str) -> str:
    """What a parsed value is, as a message about a wrongly typed field says it ("a number",
    "a boolean"); ``mapping``/``sequence`` name containers in the file's own terms (TOML's
    "a table"/"a list", JSON's "an object"/"an array")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return mapping
    if isinstance(value, list):
        return sequence
    return type(value).__name__


def severity_rank(severity: str) -> int:
    """0 for info, 1 for warning, 2 for error; ValueError naming the three for anything else
    (a ``fail_on`` given through the Python API is not checked by the command line's choices)."""
    try:
        return SEVERITIES.index(severity)
    except ValueError:
        raise ValueError(f"unknown severity {severity!r}: one of {', '.join(reversed(SEVERITIES))}") from None


def lower_severity(severity: str) -> str:
    """One level down, never below info: a partly fixed finding drops a level."""
    return SEVERITIES[max(0, severity_rank(severity) - 1)]


@dataclass
class Finding:
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    rule: str
    name: str
    severity: str
    kind: str | None
    frequency: str | None
    message: str
    tokens_lost: int = 0
    fixable: bool = False
    # Not in the JSON contract's required fields; reported as extra fields.
    evidence: str | None = None
    confidence: str = "high"
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """The fields, then the extra ones, as ``asdict`` gives them (each extra value a
        copy), without its deep copy of every field (a tenth of a JSON report of 8,000
        findings went to it)."""
        data = {name: getattr(self, name) for name in _FINDING_FIELDS}
        data.update((key, _copied(value)) for key, value in self.extra.items())
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Finding:
        """The inverse of :meth:`to_json` (extra fields go back into ``extra``)."""
        known = {f for f in cls.__dataclass_fields__ if f != "extra"}
        return cls(**{k: v for k, v in data.items() if k in known},
                   extra={k: v for k, v in data.items() if k not in known})

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.rule)


# A finding's own fields, in order (their values are strings, numbers and booleans).
_FINDING_FIELDS = tuple(f.name for f in fields(Finding) if f.name != "extra")


def _copied(value: Any) -> Any:
    """``value`` as ``asdict`` puts it in its dict: a container copied, a dataclass made a dict."""
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    return deepcopy(value) if isinstance(value, dict | list | tuple) else value


# The lines either side of a finding's that a code frame shows (reporters.text).
FRAME_CONTEXT = 1


def shown_line_numbers(finding: Finding, line_count: int) -> range | tuple[int, ...]:
    """The lines a report shows of ``finding`` (1-based): its own with the frame's context
    either side, and its end line (SARIF's end column)."""
    first, last = max(1, finding.line - FRAME_CONTEXT), min(line_count, finding.line + FRAME_CONTEXT)
    if first <= finding.end_line <= last or not 0 < finding.end_line <= line_count:
        return range(first, last + 1)
    return (*range(first, last + 1), finding.end_line)


class Lines(Protocol):
    """A file's lines by 0-based index, as reporters read them: a list, or :class:`ShownLines`."""

    def __len__(self) -> int: ...

    def __getitem__(self, index: int, /) -> str: ...


class ShownLines:
    """The lines of a file, as checked, that its report shows, read as ``text.split("\\n")``
    holds them (0-based, a CR before the newline kept): the reporters' code frames and
    UTF-16 columns, without reading the file again (nor a different text, if it changed)."""

    __slots__ = ("count", "lines")

    def __init__(self, count: int, lines: dict[int, str]) -> None:
        self.count = count  # the text's number of lines
        self.lines = lines  # 0-based index: line

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> str:
        return self.lines[index]

    def covers(self, findings: list[Finding]) -> bool:
        """Whether every line the report shows of ``findings`` is here (a rule that reads
        several files may have added one since)."""
        return all(n - 1 in self.lines for f in findings for n in shown_line_numbers(f, self.count))


@dataclass
class FileResult:
    path: str
    syntax: str | None = None
    encoding: str | None = None
    tokens: int | None = None
    stable_prefix_tokens: int | None = None
    error: str | None = None
    findings: list[Finding] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    # Not in the JSON contract. Whether the check planned this file's fix (``Config.prove_fixes``),
    # and then the proved fix's line replacements (``promptlint.fix.linediff.line_edits``: made
    # where the file was checked, in its worker); none when it writes nothing.
    fix_planned: bool = field(default=False, repr=False, compare=False)
    fix_edits: list[tuple[int, int, str]] = field(default_factory=list, repr=False, compare=False)
    # Not in the JSON contract: the lines of the text as checked that the report shows of the
    # findings the check made; None where it did not keep them (a result from the cache).
    shown_lines: ShownLines | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "path": self.path,
            "syntax": self.syntax,
            "encoding": self.encoding,
            "tokens": self.tokens,
            "stable_prefix_tokens": self.stable_prefix_tokens,
            "error": self.error,
        }
        data.update(self.extra)
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any], findings: list[dict[str, Any]]) -> FileResult:
        """The inverse of :meth:`to_json`, with the file's findings."""
        base = ("path", "syntax", "encoding", "tokens", "stable_prefix_tokens", "error")
        return cls(**{k: data.get(k) for k in base},  # type: ignore[arg-type]
                   findings=[Finding.from_json(f) for f in findings],
                   extra={k: v for k, v in data.items() if k not in base})


@dataclass
class Report:
    files: list[FileResult] = field(default_factory=list)
    # Problems with the run itself that belong to no checked file (a missing path).
    errors: list[str] = field(default_factory=list)
    # Findings about files that were not checked themselves (a config file's `order`).
    extra_findings: list[Finding] = field(default_factory=list)
    # Things the run skipped and says so without failing (a symlink loop in a folder).
    warnings: list[str] = field(default_factory=list)
    # What the run chose not to show, said once (findings outside --changed-since).
    notes: list[str] = field(default_factory=list)
    # The failing severity of the run: the one asked for, else the strictest `fail-on`
    # configured for the checked files (set by `check_paths`); None: "warning".
    fail_on: str | None = None

    @property
    def findings(self) -> list[Finding]:
        found = [f for r in self.files for f in r.findings] + self.extra_findings
        return sorted(found, key=lambda f: f.sort_key)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(r.error for r in self.files)

    def exit_code(self, fail_on: str | None = None) -> int:
        """The command line's exit code: 2 if the run itself failed, 1 if a finding is at or
        above ``fail_on`` (default: the run's :attr:`fail_on`, else ``"warning"``), else 0.

        A method, not a property, because the threshold is a choice: ``exit_code("error")``."""
        if self.failed:
            return 2
        threshold = severity_rank(fail_on or self.fail_on or "warning")
        return 1 if any(severity_rank(f.severity) >= threshold for f in self.findings) else 0

    def to_json(self) -> dict[str, Any]:
        return {
            "version": 1,
            "files": [r.to_json() for r in self.files],
            "findings": [f.to_json() for f in self.findings],
        }
