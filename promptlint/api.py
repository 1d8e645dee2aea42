"""The Python API: check files or text, get a :class:`~promptlint.core.findings.Report`.

    from promptlint.api import check_paths
    report = check_paths(["agents/"])
    assert not [f for f in report.findings if f.severity == "error"]
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from promptlint import config as config_mod
from promptlint.core import suppress, tokens
from promptlint.core.analysis import analyze
from promptlint.config import Config, ConfigError
from promptlint.core.context import RuleContext
from promptlint.discovery import prompt_files
from promptlint.core.findings import FileResult, Finding, Report
from promptlint.core.ir import CODE_SYNTAXES, Tag, Template
from promptlint.loaders import FileTooLarge, LoadError, detect_syntax, load_bytes, load_text, read_bytes
from promptlint.loaders.code import may_hold_prompt
from promptlint.project import CachedFile, CheckedFile, Project, include_problem, include_resolver
from promptlint.registry import rules
from promptlint.resultcache import ResultCache


def _config_for(path: str, explicit: Config | None) -> Config:
    if explicit is not None:
        return explicit
    return config_mod.find_for(Path(path).resolve().parent)


def config_for_file(path: str, explicit: Config | None, project: Project | None = None, **options: Any) -> Config:
    """The configuration one file is checked or fixed with: its own (or ``--config``'s),
    command-line options applied, and how volatile the files it includes are."""
    config = _config_for(path, explicit).with_options(**options)
    return replace(config, includes=include_resolver(path, config, project or Project()))


def _syntax_for(path: str, config: Config, syntax: str | None) -> str | None:
    if syntax:
        return syntax
    if config.path is not None:
        rel = os.path.relpath(os.path.abspath(path), config.path.parent)
        for pattern, value in config.syntax.items():
            if fnmatch.fnmatch(rel, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                return value
    return None


def check_template(template: Template, config: Config | None = None, model: str | None = None) -> FileResult:
    """Run every enabled single-file rule on a parsed template."""
    return _check_template(template, config or Config(), model).result or FileResult(template.path)


def _check_template(template: Template, config: Config, model: str | None = None) -> CheckedFile:
    encoding = tokens.encoding_name_for_model(model or config.target_model)
    # A code file may build several prompts: each is analysed on its own (see
    # promptlint.loaders.code), and the file reports their findings and summed figures.
    parts = template.prompts if template.syntax in CODE_SYNTAXES and template.prompts else [template]
    analyses = [analyze(part, encoding, config.overrides) for part in parts]
    analysis = max(analyses, key=lambda a: a.tokens)
    result = FileResult(
        path=template.path,
        syntax=template.syntax,
        encoding=encoding,
        tokens=sum(a.tokens for a in analyses),
        stable_prefix_tokens=sum(a.stable_prefix_tokens for a in analyses),
    )
    suppressions = suppress.parse(template.source, template.syntax, template.statements)
    for part, part_analysis in zip(parts, analyses, strict=True):
        ctx = RuleContext(template.path, part, part_analysis, config)
        for rule in rules():
            if hasattr(rule, "check") and config.rule_enabled(rule.CODE):
                result.findings.extend(f for f in rule.check(ctx) if suppressions.allows(f))
    if template.syntax in CODE_SYNTAXES:
        from promptlint.core.codefiles import describe_prompts, distinct_findings

        result.findings = distinct_findings(result.findings)
        result.extra["prompts"] = describe_prompts(template, analyses)
    result.findings.sort(key=lambda f: f.sort_key)
    if config.provider:
        from promptlint import cachecost

        result.extra["cache"] = cachecost.compute(
            analysis,
            config.provider,
            model or config.model,
            provider_overrides=config.providers or None,
            price_overrides=config.prices or None,
            body_model=cachecost.body_model_of(template),
        )
    return CheckedFile(template.path, template, analysis, config, result)


def check_text(text: str, path: str = "<string>", syntax: str | None = None, config: Config | None = None) -> FileResult:
    """Check prompt text that is not on disk (an agent framework's own tests)."""
    config = config or Config()
    try:
        template = load_text(path, text, syntax or _syntax_for(path, config, None), config.prompt_names)
    except LoadError as exc:
        return FileResult(path=path, error=_describe(exc))
    return check_template(template, config)


def _describe(exc: LoadError) -> str:
    where = f"line {exc.line}: " if exc.line else ""
    if exc.line and exc.column:
        where = f"line {exc.line}, column {exc.column}: "
    return where + exc.message


def check_file(path: str, config: Config | None = None, syntax: str | None = None, **options: Any) -> FileResult:
    """Check one file with its own configuration (single-file rules only)."""
    try:
        result, _ = _check_file(path, config, syntax, options)
    except SkippedCode as exc:
        return FileResult(path=path, syntax=syntax or detect_syntax(path, ""), error=exc.reason, tokens=0,
                          stable_prefix_tokens=0)
    return result


class SkippedCode(Exception):
    """A code file that builds no prompt (``reason`` None) or does not parse (``reason``):
    not a prompt file. A folder walk skips it (the second with a warning); a file named on
    the command line is said to have no prompt, or reported as unreadable."""

    def __init__(self, reason: str | None) -> None:
        super().__init__(reason or "no prompt")
        self.reason = reason


@dataclass(frozen=True)
class _Skip:
    reason: str | None


def _check_file(
    path: str,
    config: Config | None,
    syntax: str | None,
    options: dict[str, Any],
    project: Project | None = None,
    cache: ResultCache | None = None,
) -> tuple[FileResult, CheckedFile | None]:
    try:
        config = config_for_file(path, config, project, **options)
        syntax = _syntax_for(path, config, syntax)
        data = read_bytes(path, config.max_file_size)
        key = cache.key(data, path, syntax, config) if cache is not None else None
        hit = cache.get(key) if cache is not None and key is not None else None
        if hit is not None:
            result = FileResult.from_json(hit["file"], hit["findings"])
            file_config = config

            def load() -> CheckedFile:
                return _check_template(load_bytes(path, data, syntax, file_config.prompt_names), file_config)

            return result, CachedFile(path, config, result, load)
        if (syntax or detect_syntax(path, "")) in CODE_SYNTAXES and not may_hold_prompt(data, config.prompt_names):
            raise SkippedCode(None)  # the sniff: no word a prompt is built with
        template = load_bytes(path, data, syntax, config.prompt_names)
        if template.syntax in CODE_SYNTAXES and not template.prompts:
            raise SkippedCode(None)
        checked = _check_template(template, config)
        if cache is not None and key is not None and not checked.has_includes and checked.result is not None:
            cache.put(key, {"file": checked.result.to_json(),
                            "findings": [f.to_json() for f in checked.result.findings]})
    except ConfigError as exc:
        return FileResult(path=path, error=str(exc)), None
    except FileTooLarge:
        raise  # check_paths says it was skipped
    except LoadError as exc:
        if (syntax or detect_syntax(path, "")) in CODE_SYNTAXES:
            raise SkippedCode(_describe(exc)) from None
        return FileResult(path=path, error=_describe(exc)), None
    except RecursionError:
        return FileResult(path=path, error="nested too deeply to analyse"), None
    except tokens.TokenizerError as exc:
        return FileResult(path=path, error=str(exc)), None
    assert checked.result is not None
    return checked.result, checked


def expand(
    paths: Iterable[str], config: Config | None = None, skipped: list[str] | None = None
) -> tuple[list[str], list[str]]:
    """Files to check from the given paths, and one error line per path that gives none.
    Entries of walked folders that cannot be checked are added to ``skipped``."""
    files: list[str] = []
    errors: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            try:
                folder_config = config or config_mod.find_for(Path(path).resolve())
            except ConfigError as exc:
                errors.append(str(exc))
                continue
            found = list(prompt_files(path, folder_config, skipped))
            if not found:
                errors.append(f"{path}: no prompt files found (include: {', '.join(folder_config.include)})")
            files.extend(found)
        elif os.path.exists(path):
            files.append(path)
        else:
            errors.append(f"{path}: no such file or directory")
    return files, errors


def collect(
    paths: Sequence[str], config_file: str | None = None, skipped: list[str] | None = None
) -> tuple[list[str], Config | None, list[str]]:
    """The files to work on (each once), the ``--config`` file's config if one was given,
    and one error line per path or config that cannot be used (skipped entries of walked
    folders go to ``skipped``)."""
    explicit: Config | None = None
    if config_file is not None:
        try:
            explicit = config_mod.load_file(Path(config_file))
        except ConfigError as exc:
            return [], None, [str(exc)]
        if explicit is None:
            return [], None, [f"{config_file}: no [tool.promptlint] table"]
    found, errors = expand(paths, explicit, skipped)
    files: list[str] = []
    seen: set[str] = set()
    for path in found:
        if os.path.abspath(path) not in seen:
            seen.add(os.path.abspath(path))
            files.append(path)
    return files, explicit, errors


def check_paths(
    paths: Sequence[str],
    *,
    config_file: str | None = None,
    syntax: str | None = None,
    cache: ResultCache | None = None,
    jobs: int = 1,
    **options: Any,
) -> Report:
    """Check files and folders. ``options`` override config keys (``select``, ``model``…).
    With ``cache`` (:class:`~promptlint.resultcache.ResultCache`), unchanged files are not
    analysed again; with ``jobs`` > 1, files are checked in that many processes."""
    report = Report()
    files, explicit, report.errors = collect(paths, config_file, report.warnings)
    project = Project()
    if jobs > 1 and len(files) >= 2 * jobs:
        checked_files = _check_in_processes(files, explicit, syntax, options, cache, jobs)
    else:
        checked_files = (_check_or_skip(path, explicit, syntax, options, project, cache) for path in files)
    named = {os.path.abspath(p) for p in paths if not os.path.isdir(p)}
    no_prompt: list[str] = []
    for path, result, checked in checked_files:
        if isinstance(result, str):
            report.warnings.append(f"{path}: {result}")
            continue
        if isinstance(result, _Skip):
            # Code without a prompt is no prompt file: quiet in a folder walk, one note when named.
            if os.path.abspath(path) not in named:
                if result.reason is not None:
                    report.warnings.append(f"{path}: skipped ({result.reason})")
                continue
            if result.reason is None:
                no_prompt.append(path)
                continue
            result = FileResult(path=path, error=result.reason)
        report.files.append(result)
        if checked is not None:
            project.add(checked)
    if no_prompt:
        # One quiet line, however many (a pre-commit hook names every staged source file).
        shown = ", ".join(no_prompt[:3]) + (f" and {len(no_prompt) - 3} more" if len(no_prompt) > 3 else "")
        report.notes.append(f"{shown}: no prompt built in {'this code file' if len(no_prompt) == 1 else 'these code files'}"
                            " (skipped; `[tool.promptlint.code] prompt-names` names more)")
    _check_project(project, report)
    for model in sorted({checked.config.target_model for checked in project.files}):
        note = tokens.unknown_model_note(model)
        if note is not None:
            report.warnings.append(note)
    return report


_Checked = tuple[str, "FileResult | str | _Skip", "CheckedFile | None"]


def _check_or_skip(
    path: str, explicit: Config | None, syntax: str | None, options: dict[str, Any], project: Project | None,
    cache: ResultCache | None,
) -> _Checked:
    """One file's result, or why it was skipped (a file over the size limit)."""
    try:
        result, checked = _check_file(path, explicit, syntax, options, project, cache)
    except FileTooLarge as exc:
        return path, exc.message, None
    except SkippedCode as exc:
        return path, _Skip(exc.reason), None
    return path, result, checked


# What each worker process checks with (set once per process by the pool's initializer).
_worker_setup: tuple[Config | None, str | None, dict[str, Any], ResultCache | None] | None = None


def _init_worker(explicit: Config | None, syntax: str | None, options: dict[str, Any], cache_folder: Path | None) -> None:
    global _worker_setup
    _worker_setup = (explicit, syntax, options, ResultCache(cache_folder) if cache_folder is not None else None)


def _check_in_worker(path: str) -> tuple[FileResult | str | _Skip, bool]:
    assert _worker_setup is not None
    explicit, syntax, options, cache = _worker_setup
    _, result, checked = _check_or_skip(path, explicit, syntax, options, None, cache)
    return result, checked is not None and checked.has_includes


def _check_in_processes(
    files: list[str], explicit: Config | None, syntax: str | None, options: dict[str, Any],
    cache: ResultCache | None, jobs: int,
) -> Iterable[_Checked]:
    """Single-file results from worker processes, in order. Rules that read several files
    run afterwards in this process, which loads a file again only if they ask for it."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=_init_worker,
                             initargs=(explicit, syntax, options, cache.folder if cache else None)) as pool:
        outcomes = list(pool.map(_check_in_worker, files, chunksize=max(1, len(files) // (jobs * 8))))
    for path, (result, has_includes) in zip(files, outcomes, strict=True):
        if isinstance(result, str | _Skip) or result.error:
            yield path, result, None
            continue
        config = config_for_file(path, explicit, None, **options)
        file_syntax = _syntax_for(path, config, syntax)

        def load(path: str = path, config: Config = config, file_syntax: str | None = file_syntax) -> CheckedFile:
            return _check_template(load_bytes(path, read_bytes(path, config.max_file_size), file_syntax,
                                              config.prompt_names), config)

        yield path, result, CachedFile(path, config, result, load, has_includes)


def _check_project(project: Project, report: Report) -> None:
    """Rules that read several files: findings land in the file they point at. An include
    that cannot be followed is said, since its content goes unchecked."""
    by_path = {r.path: r for r in report.files}
    for checked in project.files:
        if not checked.has_includes:
            continue
        for tag in checked.template.walk():
            if isinstance(tag, Tag) and tag.tag in ("include", "partial"):
                problem = include_problem(checked, tag)
                if problem is not None:
                    where = checked.template.position(tag.span.start)
                    report.warnings.append(f"{checked.path}:{where.line}:{where.column}: {tag.tag} {problem}")
    for rule in rules():
        # --select/--ignore apply to the run: a rule no checked file enables reports nothing,
        # also on files that were not checked themselves (a workspace config).
        if not hasattr(rule, "check_project") or not any(
            c.config.rule_enabled(rule.CODE) for c in project.files if c.result is not None
        ):
            continue
        for finding in rule.check_project(project):
            target = by_path.get(finding.path)
            checked = project.is_checked(finding.path)
            if checked is not None and not checked.config.rule_enabled(rule.CODE):
                continue
            if target is not None and checked is not None:
                template = checked.template
                if suppress.parse(template.source, template.syntax, template.statements).allows(finding):
                    target.findings.append(finding)
                    target.findings.sort(key=lambda f: f.sort_key)
            else:
                report.extra_findings.append(finding)


__all__ = ["FileResult", "Finding", "Report", "check_file", "check_paths", "check_template", "check_text"]
