"""``promptlint fix`` over files and folders: read each file, plan and prove its fix,
show the diff and (with ``write``) write it; then rewrite ``[assembly] order`` in the
configs that govern them. The results are what the fix reporter prints."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from promptlint.config import Config
from promptlint.fix import bounds
from promptlint.fix.plan import plan_fix
from promptlint.fix.write import FileChangedError, unified_diff, write_atomic
from promptlint.parallel import file_sizes, map_in_order, worth_processes
from promptlint.loaders import LoadError


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    path: str
    changed: bool = False
    written: bool = False
    # (the path as shown, the old text, the new text) of the change: its unified diff is
    # made when asked for (``diff``), as only `--diff` shows it.
    diff_of: tuple[str, str, str] | None = field(default=None, repr=False)
    # The file's text and the text the fix writes (or would write), when it changes.
    old_source: str | None = None
    new_source: str | None = None
    stable_before: int = 0
    stable_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    moved: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    cost_before: float | None = None
    cost_after: float | None = None
    cost_basis: str | None = None
    # The file could not be read or parsed (exit 2); nothing else is set then.
    error: str | None = None
    # Why the file was not read at all (over `max-file-size`): a warning, as check says it.
    skipped: str | None = None
    # Why a proved rewrite could not be written (permission, a read-only or full disk): the
    # run failed (exit 2), as when a file cannot be read; the file is as it was.
    write_error: str | None = None

    @property
    def diff(self) -> str:
        """The change as a unified diff ("" when there is none)."""
        return "" if self.diff_of is None else unified_diff(*self.diff_of)


# What a file's result reports of its plan as it is.
_FROM_PLAN = ("stable_before", "stable_after", "tokens_before", "tokens_after", "cost_before", "cost_after",
              "cost_basis", "not_fixable", "problems")


@dataclass
class FixReport:
    files: list[FixResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    # Entries of walked folders that were not read (a link out of the project, a FIFO).
    warnings: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(r.error or r.write_error for r in self.files)


@dataclass
class _Pending:
    """A proved rewrite waiting for the write phase: where it goes and what it replaces."""

    result: FixResult
    target: str  # the real file (a symlink's target)
    data: str | bytes
    original: bytes
    shown: str


def fix_file(
    path: str,
    config: Config | None = None,
    syntax: str | None = None,
    *,
    unsafe: bool = False,
    write: bool = True,
    model: str | None = None,
    provider: str | None = None,
    folders: Sequence[str] = (),
) -> FixResult:
    """Plan, prove and (with ``write``) apply the fix to one file. ``folders``: the folders
    being fixed, which a symlink's target may lie in (:mod:`promptlint.fix.bounds`)."""
    result, pending = _plan_file(path, config, syntax, unsafe, model, provider, folders)
    if write and pending is not None:
        _write(pending)
    return result


def _plan_file(
    path: str,
    config: Config | None,
    syntax: str | None,
    unsafe: bool,
    model: str | None,
    provider: str | None,
    folders: Sequence[str],
    select: tuple[str, ...] | None = None,
    ignore: tuple[str, ...] | None = None,
) -> tuple[FixResult, _Pending | None]:
    """One file's result, and its rewrite when there is one to write (nothing is written)."""
    from promptlint.api import _set_role, _syntax_for, config_for_file
    from promptlint.config import ConfigError
    from promptlint.core import tokens
    from promptlint.core.fixability import forget_outlooks
    from promptlint.loaders import FileTooLarge, load_bytes, read_bytes

    try:
        config = config_for_file(path, config, model=model, provider=provider, select=select, ignore=ignore)
        original_bytes = read_bytes(path, config.max_file_size)  # the configured limit, as check reads
        template = load_bytes(path, original_bytes, _syntax_for(path, config, syntax), prompt_names=config.prompt_names)
        _set_role(template, config)  # the message it is sent in, as check reads it
        plan = plan_fix(template, config, unsafe)
        forget_outlooks(template)  # planned and proved: what the outlooks hold is freed now
    except FileTooLarge as exc:
        return FixResult(path, skipped=exc.message), None
    except ConfigError as exc:
        return FixResult(path, error=str(exc)), None
    except LoadError as exc:
        return FixResult(path, error=exc.describe()), None
    except tokens.TokenizerError as exc:
        return FixResult(path, error=str(exc)), None
    result = FixResult(
        path=path,
        changed=plan.changed,
        moved=plan.moved if plan.changed else [],
        rewritten=plan.rewritten if plan.changed else [],
        **{name: getattr(plan, name) for name in _FROM_PLAN},
    )
    if not plan.changed:
        return result, None
    target = os.path.realpath(path)
    refused = bounds.refusal(path, target, folders)
    if refused is not None:
        # Bad input, as an unreadable file is (exit 2): the fix is there, the place is not.
        return FixResult(path, error=refused), None
    # The diff's lines are the file's own, its BOM included (the first line's bytes, as git
    # diff shows them): without it, `git apply` finds no such first line.
    bom = "\ufeff" if template.has_bom else ""
    result.diff_of = (path, bom + template.source, bom + plan.new_source)
    result.old_source, result.new_source = template.source, plan.new_source
    data = (bom + plan.new_source).encode("utf-8")
    return result, _Pending(result, target, data, original_bytes, shown=path)


def _write(pending: _Pending) -> None:
    """Write a proved rewrite; a refusal or an OS error becomes a problem of its result."""
    result = pending.result
    try:
        write_atomic(pending.target, pending.data, pending.original)
    except FileChangedError as exc:
        result.problems.append(f"{pending.shown}: {exc.reason}")
    except OSError as exc:
        result.write_error = f"{pending.shown}: could not write ({exc.strerror or exc})"
    else:
        result.written = True


def fix_paths(
    paths: Sequence[str],
    *,
    config_file: str | None = None,
    syntax: str | None = None,
    unsafe: bool = False,
    write: bool = True,
    model: str | None = None,
    provider: str | None = None,
    jobs: int = 1,
    select: tuple[str, ...] | None = None,
    ignore: tuple[str, ...] | None = None,
) -> FixReport:
    """Fix files and folders (folders are walked as ``promptlint check`` walks them).
    ``select``/``ignore`` (rule codes, as ``check --select/--ignore``) narrow the config's
    rules: a value whose rule is off stays where it is, as check reports nothing there.

    Everything is decided first: every file is read, planned and proved (with ``jobs`` > 1,
    in that many processes), and every config rewrite planned, before the first byte is
    written, here. A failure while deciding (bad config, a bug) leaves every file as it
    was; a file that cannot be fixed does not stop the others from being written."""
    from promptlint.targets import gather

    report = FixReport()
    targets = gather(paths, config_file)
    files, explicit, report.errors, report.warnings = targets.files, targets.explicit, targets.errors, targets.skipped
    folders = [p for p in paths if os.path.isdir(p)]
    plan = partial(_plan_file, config=explicit, syntax=syntax, unsafe=unsafe, model=model, provider=provider,
                   folders=folders, select=select, ignore=ignore)
    sizes = file_sizes(files) if jobs > 1 else []
    if worth_processes(jobs, len(files), sum(sizes)):
        # Each file's plan is its own (a fix reads no other file): only the writes wait.
        planned = list(map_in_order(plan, files, jobs, sizes=sizes))
    else:
        planned = [plan(path) for path in files]
    planned += _plan_assembly_orders(files, explicit, folders, select, ignore)
    # A file over the size limit is skipped with a warning, as check skips it.
    report.warnings += [f"{result.path}: {result.skipped}" for result, _ in planned if result.skipped]
    report.files = [result for result, _ in planned if not result.skipped]
    if write:
        written: dict[tuple[int, int], _Pending] = {}
        for _, pending in planned:
            if pending is None:
                continue
            # One file reached by two names (a symlink or a hard link beside it in a walked
            # folder): the first name's write has made the very rewrite the second planned,
            # which would otherwise find the file "changed on disk" and fail the run.
            identity = _identity(pending.target)
            first = written.get(identity) if identity is not None else None
            if first is not None and (first.original, first.data) == (pending.original, pending.data):
                pending.result.written = first.result.written
                continue
            _write(pending)
            identity = _identity(pending.target)  # a rename gave the file a new inode
            if identity is not None and pending.result.written:
                written.setdefault(identity, pending)
    return report


def _identity(path: str) -> tuple[int, int] | None:
    """The file's device and inode (None when it cannot be read)."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


def _plan_assembly_orders(
    files: Sequence[str], explicit: Config | None, folders: Sequence[str],
    select: tuple[str, ...] | None = None, ignore: tuple[str, ...] | None = None,
) -> list[tuple[FixResult, _Pending | None]]:
    """Plan the rewrite of `[assembly] order` in each config that governs the fixed files
    (PC106, unless select/ignore turn it off); nothing is written."""
    from promptlint.api import _config_for
    from promptlint.config import ConfigError
    from promptlint.fix.assembly import plan_order_fix
    from promptlint.project import Project

    configs: dict[Path, tuple[Config, str]] = {}
    for path in files:
        try:
            config = _config_for(path, explicit)
        except ConfigError:
            continue  # the file's own result says so
        if config.path is not None and config.assembly.get("order") and \
                config.with_options(select=select, ignore=ignore).rule_enabled("PC106"):
            configs.setdefault(config.path.resolve(), (config, path))
    planned: list[tuple[FixResult, _Pending | None]] = []
    project = Project()
    for config_path, (config, governed) in configs.items():
        shown = os.path.relpath(config_path) if not os.path.relpath(config_path).startswith("..") else str(config_path)
        plan = plan_order_fix(config, project)
        if plan is None:
            continue
        result = FixResult(
            shown,
            stable_before=plan.stable_before,
            stable_after=plan.stable_after if plan.new_text is not None else plan.stable_before,
            tokens_before=plan.tokens,
            tokens_after=plan.tokens,
            not_fixable=plan.not_fixable,
        )
        if plan.new_text is None or plan.new_text == plan.old_text:
            planned.append((result, None))
            continue
        # A config is found from a file's real folder: one reached through a link out of
        # the project is refused as that file would be.
        refused = bounds.refusal(governed, str(config_path), folders)
        if refused is not None:
            planned.append((FixResult(shown, error=refused), None))
            continue
        result.changed, result.moved = True, plan.moved
        result.diff_of = (shown, plan.old_text, plan.new_text)
        planned.append((result, _Pending(result, str(config_path), plan.new_text, plan.old_text.encode("utf-8"), shown)))
    return planned
