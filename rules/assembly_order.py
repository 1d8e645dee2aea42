"""## What it does
Checks the order in which a prompt is assembled from several files (an OpenClaw-style
workspace: AGENTS.md, SOUL.md, TOOLS.md, IDENTITY.md, USER.md, HEARTBEAT.md,
MEMORY.md, memory/ notes, BOOTSTRAP.md). A file that changes often (memory, heartbeat,
the user's profile, daily notes, or any file with volatile slots) placed before files
that do not is reported, on the `order` line of the config, with the stable tokens it
costs.

The order is `order = [...]` under `[assembly]` in promptlint.toml
(`[tool.promptlint.assembly]` in pyproject.toml), paths relative to the config file
(globs such as `memory/*.md` allowed). Without one, a folder holding two or more
workspace files is read in the known workspace convention, and since that order is
assumed, its findings are warnings at most.

## Why is this bad?
The assembled files are one prompt. MEMORY.md rewritten during a conversation, placed
before SOUL.md and AGENTS.md, makes every token of those files a cache miss on every
call, although neither changed.

## Example
```toml
[assembly]
order = ["MEMORY.md", "SOUL.md", "AGENTS.md", "TOOLS.md"]
```

## Use instead
```toml
[assembly]
order = ["SOUL.md", "AGENTS.md", "TOOLS.md", "MEMORY.md"]
```

## Fix safety
Safe: `promptlint fix` rewrites `order` so the volatile files come last, in their
original relative order.

## Options
- `[assembly] order = [...]`: the assembly order.
- `[assembly] volatile = ["notes.md"]` / `stable = ["USER.md"]`: correct the judgement
  made from a file's name and content.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

from promptlint import config as config_mod
from promptlint.config import Config
from promptlint.core.findings import Finding
from promptlint.project import CheckedFile, Project
from promptlint.core.severity import how_often, is_or_are, rebilled, severity_for, stable_tokens
from promptlint.core.kinds import Volatility

CODE = "PC106"
NAME = "assembly-order"
SUMMARY = "Often-changing file assembled before files that do not change"
FIX = "safe"

# The workspace convention (OpenClaw's bootstrap files, in injection order).
CONVENTION: tuple[str, ...] = (
    "AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md",
    "memory/*.md", "BOOTSTRAP.md",
)
# Volatility a workspace file has by its name alone.
_BY_NAME: tuple[tuple[str, Volatility], ...] = (
    ("MEMORY.md", Volatility("memory", "per-request", "MEMORY.md is rewritten as the agent learns")),
    ("memory/*", Volatility("memory", "per-day", "daily memory notes change every day")),
    ("HEARTBEAT.md", Volatility("memory", "per-request", "HEARTBEAT.md is rewritten on every heartbeat")),
    ("USER.md", Volatility("identity", "per-session", "USER.md is the user's profile")),
    ("[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]*.md", Volatility("memory", "per-day", "a dated daily note")),
)


def _volatility(rel: str, checked: CheckedFile | None, config: Config) -> Volatility | None:
    assembly = config.assembly
    name = os.path.basename(rel)
    if any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in assembly.get("stable", [])):
        return None
    if any(fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(name, p) for p in assembly.get("volatile", [])):
        return Volatility("memory", "per-request", f"{rel} is configured as volatile", confidence="high")
    for pattern, vol in _BY_NAME:
        if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(name, pattern):
            return vol
    if checked is not None and checked.analysis.units:
        unit = checked.analysis.units[0]
        return Volatility(unit.volatility.kind, unit.volatility.frequency, f"{rel} renders `{unit.expr.source}`")
    return None


def _expand(base: Path, order: list[str]) -> list[tuple[str, Path]]:
    files: list[tuple[str, Path]] = []
    for entry in order:
        matches = sorted(base.glob(entry)) if any(c in entry for c in "*?[") else [base / entry]
        files += [(m.relative_to(base).as_posix(), m) for m in matches if m.is_file()]
    return files


def _groups(project: Project) -> Iterator[tuple[Path, list[tuple[str, Path]], Config, bool]]:
    """(base folder, ordered files, config, order came from config) per assembled prompt."""
    seen: set[Path] = set()  # base folders of the groups yielded
    looked: set[Path] = set()  # folders whose conventional files were looked for
    # Each folder's workspace config, looked up once however many of the files are in it.
    workspaces: dict[str, Config | None] = {}
    # The real folders looked at below, by name: a Path is made once a folder, not once a
    # file (for 2,000 files in a few folders, making them was most of this rule's time).
    folder_names: set[str] = set()
    for checked in project.files:
        config = _assembly_config(checked, workspaces)
        if config.path is not None and config.assembly.get("order"):
            base = config.path.parent.resolve()
            if base not in seen:
                seen.add(base)
                yield base, _expand(base, list(config.assembly["order"])), config, True
            continue
        folder_name = os.path.dirname(project.real_path(checked.path))  # each folder resolved once
        if folder_name in folder_names:
            continue  # in `seen` or `looked` already
        folder_names.add(folder_name)
        folder = Path(folder_name)
        if folder in seen or folder in looked:
            continue
        looked.add(folder)
        present = _expand(folder, list(CONVENTION))
        if sum(1 for rel, _ in present if "/" not in rel) >= 2:
            seen.add(folder)
            yield folder, present, config, False


def _assembly_config(checked: CheckedFile, workspaces: dict[str, Config | None]) -> Config:
    """The config whose ``[assembly]`` describes the file's workspace: its own, or, when it
    has none (a ``--config`` file with rule settings only), the workspace's own config.
    How the agent assembles its files is a fact of the workspace, not of a run's options.
    ``workspaces``: each folder's own config found so far (None: none with an order)."""
    if checked.config.assembly.get("order"):
        return checked.config
    folder = os.path.dirname(checked.path)
    if folder not in workspaces:
        try:
            found: Config | None = config_mod.find_for(Path(checked.path).resolve().parent)
        except config_mod.ConfigError:
            found = None
        ordered = found is not None and found.path is not None and bool(found.assembly.get("order"))
        workspaces[folder] = found if ordered else None
    own = workspaces[folder]
    if own is None:
        return checked.config
    return replace(own, select=checked.config.select, ignore=checked.config.ignore)


def entry_is_volatile(entry: str, config: Config, project: Project) -> bool:
    """Whether an `order` entry (a file or a glob) names a file that changes often."""
    assert config.path is not None
    base = config.path.parent.resolve()
    return any(
        _volatility(rel, project.get(path, config), config) is not None for rel, path in _expand(base, [entry])
    )


def entry_tokens(entry: str, config: Config, project: Project) -> int:
    """Tokens of the files an `order` entry names."""
    assert config.path is not None
    base = config.path.parent.resolve()
    total = 0
    for _rel, path in _expand(base, [entry]):
        checked = project.get(path, config)
        total += checked.analysis.tokens if checked is not None else 0
    return total


def _display(path: Path) -> str:
    rel = os.path.relpath(path)
    return path.as_posix() if rel.startswith("..") else rel


def _stable_after(
    entries: list[tuple[str, Path, int, Volatility | None, CheckedFile | None]],
) -> list[tuple[int, int, list[str]]]:
    """For each entry: how many stable entries follow it, their tokens, and the names of
    the first five; in one pass from the end (listing the stable entries after each of an
    order's 20,000 entries was quadratic: 14 s)."""
    after: list[tuple[int, int, list[str]]] = []
    count = lost = 0
    names: list[str] = []
    for rel, _path, size, vol, _checked in reversed(entries):
        after.append((count, lost, names))
        if vol is None:
            count, lost, names = count + 1, lost + size, [rel, *names[:4]]
    return after[::-1]


def check_project(project: Project) -> Iterator[Finding]:
    for base, files, config, configured in _groups(project):
        entries = []
        for rel, path in files:
            checked = project.get(path, config)
            size = checked.analysis.tokens if checked is not None else 0
            entries.append((rel, path, size, _volatility(rel, checked, config), checked))
        total = sum(size for _, _, size, _, _ in entries)
        after = _stable_after(entries)
        config_lines: list[str] | None = None
        for index, (rel, path, _size, vol, checked) in enumerate(entries):
            if vol is None:
                continue
            count, lost, first = after[index]
            if not count:
                continue
            names = ", ".join(first[:4]) + (" …" if count > 4 else "")
            message = (
                f"{rel} ({vol.evidence}; it {how_often(vol)}) is assembled before {names}: their "
                f"{stable_tokens(lost)} {is_or_are(lost)} {rebilled(vol)}; "
                + ("put it after them in `order`" if configured else
                   "assemble it after them, or set `[assembly] order` if your agent uses another order")
            )
            if configured and config.path is not None:
                line = config.key_lines.get("assembly.order", 1)
                where = _display(config.path)
                if config_lines is None:  # read once, not once per finding
                    config_lines = config.path.read_text(encoding="utf-8").split("\n")  # as key_lines numbers them
                end_column = len(config_lines[line - 1].rstrip("\r")) + 1 if line <= len(config_lines) else 2
            else:
                line, where, end_column = 1, (checked.path if checked is not None else _display(path)), 2
            severity, confidence = severity_for(vol, lost, total), vol.confidence
            if not configured:
                # Nothing says these files are one prompt, or in this order: the workspace
                # convention is a guess, so the finding is one level short of an error.
                severity, confidence = ("warning" if severity == "error" else severity), "medium"
                message += " (assumed: no `[assembly] order` says how these files are put together)"
            yield Finding(
                path=where, line=line, column=1, end_line=line, end_column=end_column, rule=CODE, name=NAME,
                severity=severity, kind="assembly-order", frequency=vol.frequency,
                message=message, tokens_lost=lost, fixable=configured, evidence=vol.evidence,
                confidence=confidence, extra={"file": _display(path)},
            )
