"""What code-specific calls and expressions mean, in the words ``core.volatility.classify``
reads: expression facts, ISO/Intl/date-fns clock formats, shell commands, file reads.
Shared by the Python and TypeScript/JavaScript readers."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from promptlint.core.ir import Expr

# ---------------------------------------------------------------------------------------
# Expression facts: what code-specific calls mean, in the words classify reads


@dataclass
class Facts:
    """What an expression reads and calls, collected while walking it."""

    paths: list[tuple[str, ...]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    format_spec: str | None = None
    pinned: str | None = None

    def merge(self, expr: Expr) -> None:
        # Unique, and bounded: numeric code that rebinds names from each other
        # (`x = f(x, y); y = g(x, y)`) would otherwise double what it carries each time.
        for name, found in ((self.paths, expr.paths), (self.calls, expr.calls), (self.literals, expr.literals)):
            for item in found:
                if item not in name and len(name) < _MAX_FACTS:
                    name.append(item)  # type: ignore[arg-type]
        if self.format_spec is None:
            self.format_spec = expr.format_spec
        self.pinned = self.pinned or expr.pinned

    def expr(self, source: str) -> Expr:
        return Expr(source=" ".join(source.split()) if "\n" in source else source,
                    path=self.paths[0] if self.paths else (), paths=tuple(self.paths),
                    calls=tuple(self.calls), format_spec=self.format_spec, literals=tuple(self.literals),
                    pinned=self.pinned)


_MAX_FACTS = 32


# `toISOString().slice(0, N)` and `isoformat()[:N]`: what the first N characters print.
_ISO_PREFIX_FORMATS = {4: "%Y", 7: "%Y-%m", 10: "%Y-%m-%d", 13: "%Y-%m-%dT%H", 16: "%Y-%m-%dT%H:%M",
                       19: "%Y-%m-%dT%H:%M:%S"}
ISO_METHODS = frozenset({"toisostring", "isoformat", "tojson", "now", "utcnow", "today", "date", "datetime"})


def iso_prefix_format(length: int) -> str | None:
    """The strftime pattern that prints what the first ``length`` characters of an ISO
    timestamp hold (``.slice(0, 10)`` keeps the date)."""
    if length in _ISO_PREFIX_FORMATS:
        return _ISO_PREFIX_FORMATS[length]
    best = max((n for n in _ISO_PREFIX_FORMATS if n <= length), default=None)
    return _ISO_PREFIX_FORMATS[best] if best else None


def intl_format(options: dict[str, str]) -> str | None:
    """The strftime pattern equivalent to ``Intl.DateTimeFormat``/``toLocale*String`` options."""
    style = options.get("timeStyle")
    if style:
        return "%H:%M" if style == "short" else "%H:%M:%S"
    if "fractionalSecondDigits" in options:
        return "%H:%M:%S.%f"
    for key, fmt in (("second", "%H:%M:%S"), ("minute", "%H:%M"), ("hour", "%H")):
        if key in options:
            return fmt
    if options.get("dateStyle") or {"day", "weekday"} & set(options):
        return "%Y-%m-%d"
    if "month" in options:
        return "%Y-%m"
    if "year" in options:
        return "%Y"
    return None


def date_fns_format(fmt: str) -> str:
    """date-fns / Luxon tokens (``yyyy-MM-dd``) in moment's spelling, which classify reads."""
    return fmt.replace("yyyy", "YYYY").replace("yy", "YY").replace("dd", "DD").replace("EEEE", "dddd")


_SHELL_COMMANDS: tuple[tuple[str, str], ...] = (
    (r"^git\s+(?:status|log|show|ls-files|stash)", "git_status"),
    (r"^git\s+diff", "git_diff"),
    (r"^git\s+(?:branch|rev-parse\s+--abbrev-ref|symbolic-ref|remote)", "git_branch"),
    (r"^git\b", "git_status"),
    (r"^(?:ls|find|tree|fd|dir)\b", "directory_listing"),
    (r"^pwd\b", "cwd"),
    (r"^(?:uname|sw_vers|lsb_release|ver)\b", "platform"),
    (r"^hostname\b", "hostname"),
    (r"^(?:whoami|id\b)", "getuser"),
    (r"^date\b", "now"),
)
SHELL_CALLEES = frozenset({"run", "check_output", "getoutput", "getstatusoutput", "Popen", "popen", "call",
                           "check_call", "execSync", "exec", "execFile", "execFileSync", "spawn", "spawnSync",
                           "execa", "execaSync", "execaCommand", "execaCommandSync", "system", "shell", "sh", "$"})
SHELL_BASES = frozenset({"subprocess", "os", "child_process", "cp", "childProcess", "Bun", "Deno", "shell", "sh", ""})


def shell_command_name(command: str) -> str:
    """What a shell command's output is, as a name classify knows (``git status`` → git_status)."""
    command = command.strip()
    for pattern, name in _SHELL_COMMANDS:
        if re.search(pattern, command):
            return name
    return "shell_output"


FILE_READ_CALLEES = frozenset({"read_text", "read_bytes", "readFileSync", "readFile", "read_file", "readfile",
                               "load_file", "open", "readTextFile", "readTextFileSync", "file", "text"})


def file_name_path(name: str) -> tuple[str, ...]:
    """The words a file read says about its content (``memory/MEMORY.md`` → memory, MEMORY)."""
    parts = [p for p in re.split(r"[/\\]", name) if p and p not in (".", "..")]
    stems = [re.sub(r"\.[A-Za-z0-9]+$", "", p) for p in parts[-2:]]
    return tuple(s for s in stems if s)
