"""The Python API: check files or text, get a :class:`~promptlint.core.findings.Report`.

    from promptlint.api import check_paths
    report = check_paths(["agents/"])
    assert not [f for f in report.findings if f.severity == "error"]
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from promptlint import config as config_mod
from promptlint.core import suppress, tokens
from promptlint.core.analysis import analyze
from promptlint.config import Config, ConfigError
from promptlint.core.context import RuleContext
from promptlint.discovery import prompt_files
from promptlint.core.findings import FileResult, Finding, Report
from promptlint.core.ir import Template
from promptlint.loaders import LoadError, load_file, load_text
from promptlint.project import CheckedFile, Project, include_resolver
from promptlint.registry import rules


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
    analysis = analyze(template, encoding, config.overrides)
    result = FileResult(
        path=template.path,
        syntax=template.syntax,
        encoding=encoding,
        tokens=analysis.tokens,
        stable_prefix_tokens=analysis.stable_prefix_tokens,
    )
    ctx = RuleContext(template.path, template, analysis, config)
    suppressions = suppress.parse(template.source)
    for rule in rules():
        if hasattr(rule, "check") and config.rule_enabled(rule.CODE):
            result.findings.extend(f for f in rule.check(ctx) if suppressions.allows(f))
    result.findings.sort(key=lambda f: f.sort_key)
    if config.provider:
        from promptlint.providers import cost

        result.extra["cache"] = cost.compute(
            analysis,
            config.provider,
            model or config.model,
            provider_overrides=config.providers or None,
            price_overrides=config.prices or None,
            body_model=cost.body_model_of(template),
        )
    return CheckedFile(template.path, template, analysis, config, result)


def check_text(text: str, path: str = "<string>", syntax: str | None = None, config: Config | None = None) -> FileResult:
    """Check prompt text that is not on disk (an agent framework's own tests)."""
    config = config or Config()
    try:
        template = load_text(path, text, syntax or _syntax_for(path, config, None))
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
    result, _ = _check_file(path, config, syntax, options)
    return result


def _check_file(
    path: str,
    config: Config | None,
    syntax: str | None,
    options: dict[str, Any],
    project: Project | None = None,
) -> tuple[FileResult, CheckedFile | None]:
    try:
        config = config_for_file(path, config, project, **options)
        template = load_file(path, _syntax_for(path, config, syntax))
        checked = _check_template(template, config)
    except ConfigError as exc:
        return FileResult(path=path, error=str(exc)), None
    except LoadError as exc:
        return FileResult(path=path, error=_describe(exc)), None
    except tokens.TokenizerError as exc:
        return FileResult(path=path, error=str(exc)), None
    assert checked.result is not None
    return checked.result, checked


def expand(paths: Iterable[str], config: Config | None = None) -> tuple[list[str], list[str]]:
    """Files to check from the given paths, and one error line per path that gives none."""
    files: list[str] = []
    errors: list[str] = []
    for path in paths:
        if os.path.isdir(path):
            try:
                folder_config = config or config_mod.find_for(Path(path).resolve())
            except ConfigError as exc:
                errors.append(str(exc))
                continue
            found = list(prompt_files(path, folder_config))
            if not found:
                errors.append(f"{path}: no prompt files found (include: {', '.join(folder_config.include)})")
            files.extend(found)
        elif os.path.exists(path):
            files.append(path)
        else:
            errors.append(f"{path}: no such file or directory")
    return files, errors


def collect(paths: Sequence[str], config_file: str | None = None) -> tuple[list[str], Config | None, list[str]]:
    """The files to work on (each once), the ``--config`` file's config if one was given,
    and one error line per path or config that cannot be used."""
    explicit: Config | None = None
    if config_file is not None:
        try:
            explicit = config_mod.load_file(Path(config_file))
        except ConfigError as exc:
            return [], None, [str(exc)]
        if explicit is None:
            return [], None, [f"{config_file}: no [tool.promptlint] table"]
    found, errors = expand(paths, explicit)
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
    **options: Any,
) -> Report:
    """Check files and folders. ``options`` override config keys (``select``, ``model``…)."""
    report = Report()
    files, explicit, report.errors = collect(paths, config_file)
    project = Project()
    for path in files:
        result, checked = _check_file(path, explicit, syntax, options, project)
        report.files.append(result)
        if checked is not None:
            project.add(checked)
    _check_project(project, report)
    return report


def _check_project(project: Project, report: Report) -> None:
    """Rules that read several files: findings land in the file they point at."""
    by_path = {r.path: r for r in report.files}
    for rule in rules():
        if not hasattr(rule, "check_project"):
            continue
        for finding in rule.check_project(project):
            target = by_path.get(finding.path)
            checked = project.is_checked(finding.path)
            if checked is not None and not checked.config.rule_enabled(rule.CODE):
                continue
            if target is not None and checked is not None:
                if suppress.parse(checked.template.source).allows(finding):
                    target.findings.append(finding)
                    target.findings.sort(key=lambda f: f.sort_key)
            else:
                report.extra_findings.append(finding)


__all__ = ["FileResult", "Finding", "Report", "check_file", "check_paths", "check_template", "check_text"]
