"""The Python API: check files or text, get a :class:`~promptlint.core.findings.Report`.

    from promptlint.api import check_paths
    report = check_paths(["agents/"])
    assert not [f for f in report.findings if f.severity == "error"]
"""

from __future__ import annotations

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
from promptlint.core.ir import Tag, Template
from promptlint.loaders import FileTooLarge, LoadError, load_file, load_text
from promptlint.project import CheckedFile, Project, extends_resolver, include_problem, include_resolver
from promptlint.registry import rules


def _config_for(path: str, explicit: Config | None) -> Config:
    if explicit is not None:
        return explicit
    return config_mod.find_for(Path(path).resolve().parent)


def config_for_file(path: str, explicit: Config | None, project: Project | None = None, **options: Any) -> Config:
    """The configuration one file is checked or fixed with: its own (or ``--config``'s),
    command-line options applied, and how volatile the files it includes are."""
    config = _config_for(path, explicit).with_options(**options)
    project = project or Project()
    return replace(config, includes=include_resolver(path, config, project),
                   extends=extends_resolver(path, config, project))


def _syntax_for(path: str, config: Config, syntax: str | None) -> str | None:
    return _syntax_source(path, config, syntax)[0]


def _syntax_source(path: str, config: Config, syntax: str | None) -> tuple[str | None, str | None]:
    """The syntax ``--syntax`` or a config glob sets for a file, and which of them set it;
    (None, None) when the file's name and content decide."""
    if syntax:
        return syntax, f"--syntax {syntax}"
    if config.path is not None:
        pattern = config_mod.matching_glob(path, config.path.parent, config.syntax)
        if pattern is not None:
            return config.syntax[pattern], f"config [syntax] {pattern!r} in {config.path.name}"
    return None, None


def check_template(template: Template, config: Config | None = None, model: str | None = None) -> FileResult:
    """Run every enabled single-file rule on a parsed template."""
    return _check_template(template, config or Config(), model).result or FileResult(template.path)


# Rules that judge a value by the stable text after it in the prompt: none applies to the
# latest user turn, after which nothing is cached (a clock there costs nothing).
_POSITION_RULES = frozenset({"PC101", "PC102", "PC103", "PC105", "PC107"})


def _set_role(template: Template, config: Config) -> Template:
    template.role, template.role_evidence = config_mod.role_for(template.path, config)
    return template


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
    if template.syntax_evidence:
        result.extra["syntax_evidence"] = template.syntax_evidence
    if template.role != "system":
        result.extra["role"] = template.role
        result.extra["role_evidence"] = template.role_evidence
    ctx = RuleContext(template.path, template, analysis, config)
    suppressions = suppress.parse(template.source)
    for rule in rules():
        if template.role == "user" and rule.CODE in _POSITION_RULES:
            continue
        if hasattr(rule, "check") and config.rule_enabled(rule.CODE):
            result.findings.extend(f for f in rule.check(ctx) if suppressions.allows(f))
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
        template = _set_role(load_text(path, text, *_syntax_source(path, config, syntax)), config)
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
        chosen, evidence = _syntax_source(path, config, syntax)
        template = _set_role(load_file(path, chosen, config.max_file_size, evidence), config)
        checked = _check_template(template, config)
    except ConfigError as exc:
        return FileResult(path=path, error=str(exc)), None
    except FileTooLarge:
        raise  # check_paths says it was skipped
    except RecursionError:
        return FileResult(path=path, error="nested too deeply to analyse"), None
    except LoadError as exc:
        return FileResult(path=path, error=_describe(exc)), None
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
    **options: Any,
) -> Report:
    """Check files and folders. ``options`` override config keys (``select``, ``model``…)."""
    report = Report()
    files, explicit, report.errors = collect(paths, config_file, report.warnings)
    project = Project()
    for path in files:
        try:
            result, checked = _check_file(path, explicit, syntax, options, project)
        except FileTooLarge as exc:
            report.warnings.append(f"{path}: {exc.message}")
            continue
        report.files.append(result)
        if checked is not None:
            project.add(checked)
    _check_project(project, report)
    for model in sorted({checked.config.target_model for checked in project.files}):
        note = tokens.unknown_model_note(model)
        if note is not None:
            report.warnings.append(note)
    return report


def _check_project(project: Project, report: Report) -> None:
    """Rules that read several files: findings land in the file they point at. An include
    that cannot be followed is said, since its content goes unchecked."""
    by_path = {r.path: r for r in report.files}
    for checked in project.files:
        for tag in checked.template.walk():
            if isinstance(tag, Tag) and tag.tag in ("include", "partial", "extends"):
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
                if suppress.parse(checked.template.source).allows(finding):
                    target.findings.append(finding)
                    target.findings.sort(key=lambda f: f.sort_key)
            else:
                report.extra_findings.append(finding)


__all__ = ["FileResult", "Finding", "Report", "check_file", "check_paths", "check_template", "check_text"]
