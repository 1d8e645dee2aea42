"""The Python API: check files or text, get a :class:`~promptlint.core.findings.Report`.

    from promptlint.api import check_paths
    report = check_paths("agents/")          # a path, or an iterable of paths (str or PathLike)
    assert not [f for f in report.findings if f.severity == "error"]
    assert report.exit_code() == 0           # as `promptlint check agents/` would exit

A path names a prompt file, a folder (walked as ``promptlint check`` walks it), or a
config file (``promptlint.toml``, ``.promptlint.toml``, ``pyproject.toml``), which stands
for the workspace it describes: the files its ``[assembly] order`` names, in that order.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from functools import lru_cache, partial
from types import ModuleType
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from promptlint import config as config_mod
from promptlint.core import tokens
from promptlint.config import Config, ConfigError
from promptlint.core.findings import FileResult, Finding, Report, ShownLines, severity_rank, shown_line_numbers
from promptlint.core.ir import CODE_SYNTAXES, Tag, Template
from promptlint.discovery import is_prompt_file
from promptlint.loaders import FileTooLarge, LoadError, detect_syntax, load_bytes, load_text, read_bytes
from promptlint.project import (
    CachedFile,
    CheckedFile,
    Project,
    extends_resolver,
    include_problem,
    include_resolver,
    includes_others,
)
from promptlint.parallel import file_sizes, worth_processes
from promptlint.resultcache import ResultCache
from promptlint.targets import PathArg, Paths, as_paths, gather

def _config_for(path: str, explicit: Config | None) -> Config:
    if explicit is not None:
        return explicit
    return config_mod.find_for_file(path)


def config_for_file(path: str, explicit: Config | None, project: Project | None = None, **options: Any) -> Config:
    """The configuration one file is checked or fixed with: its own (or ``--config``'s),
    command-line options applied, and how volatile the files it includes are."""
    config = _config_for(path, explicit).with_options(**options)
    project = project or Project()
    return config.for_file(include_resolver(path, config, project), extends_resolver(path, config, project))


def _syntax_for(path: str, config: Config, syntax: str | None) -> str | None:
    return _syntax_source(path, config, syntax)[0]


def _syntax_source(path: str, config: Config, syntax: str | None) -> tuple[str | None, str | None]:
    """The syntax ``--syntax`` or a config glob sets for a file, and which of them set it;
    (None, None) when the file's name and content decide."""
    if syntax:
        return syntax, f"--syntax {syntax}"
    if config.path is not None and config.syntax:
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


@lru_cache(maxsize=64)
def _file_rules(modules: tuple[ModuleType, ...], select: tuple[str, ...] | None, ignore: tuple[str, ...],
                user_turn: bool) -> tuple[ModuleType, ...]:
    """The single-file rules a config's ``select``/``ignore`` enable, worked out once per
    run rather than once per file; the position rules are left out for a latest user turn."""
    config = Config(select=select, ignore=ignore)
    return tuple(rule for rule in modules
                 if hasattr(rule, "check") and config.rule_enabled(rule.CODE)
                 and not (user_turn and rule.CODE in _POSITION_RULES))


def _set_role(template: Template, config: Config) -> Template:
    template.role, template.role_evidence = config_mod.role_for(template.path, config, template.source)
    return template


def _check_template(template: Template, config: Config, model: str | None = None) -> CheckedFile:
    # The engine is imported here, not with the module: a run whose files all hit the
    # result cache never loads it.
    from promptlint.core import suppress
    from promptlint.core.analysis import analyze
    from promptlint.core.context import RuleContext
    from promptlint.registry import rules

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
    if template.syntax_evidence:
        result.extra["syntax_evidence"] = template.syntax_evidence
    if template.role != "system":
        result.extra["role"] = template.role
        result.extra["role_evidence"] = template.role_evidence
    suppressions = suppress.parse(template.source, template.syntax, template.statements)
    enabled = _file_rules(rules(), config.select, config.ignore, template.role == "user")
    for part, part_analysis in zip(parts, analyses, strict=True):
        ctx = RuleContext(template.path, part, part_analysis, config)
        for rule in enabled:
            result.findings.extend(rule.check(ctx))
    result.findings = suppressions.allowed(result.findings)
    if template.syntax in CODE_SYNTAXES:
        from promptlint.core.codefiles import describe_prompts, distinct_findings

        result.findings = distinct_findings(result.findings)
        result.extra["prompts"] = describe_prompts(template, analyses)
    result.findings.sort(key=lambda f: f.sort_key)
    if result.findings:
        result.shown_lines = _shown_lines(template, result.findings)
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


def _shown_lines(template: Template, findings: list[Finding]) -> ShownLines:
    """The lines of ``template`` that the report shows of ``findings``: kept with the result,
    they are not read again (in the parent process of a parallel run)."""
    index = template.lines
    count = index.line_count
    wanted = sorted({n for f in findings for n in shown_line_numbers(f, count) if 0 < n <= count})
    return ShownLines(count, {n - 1: index.raw_line(n) for n in wanted})


def check_text(text: str, path: str = "<string>", syntax: str | None = None, config: Config | None = None) -> FileResult:
    """Check prompt text that is not on disk (an agent framework's own tests)."""
    config = config or Config()
    try:
        chosen, evidence = _syntax_source(path, config, syntax)
        template = _set_role(load_text(path, text, chosen, evidence, config.prompt_names), config)
    except LoadError as exc:
        return FileResult(path=path, error=exc.describe())
    try:
        return check_template(template, config)
    except RecursionError:  # as check_paths: a depth bound, said in one line
        return FileResult(path=path, error="nested too deeply to analyse")


def check_file(path: PathArg, config: Config | None = None, syntax: str | None = None, **options: Any) -> FileResult:
    """Check one file with its own configuration (single-file rules only)."""
    try:
        result, _ = _check_file(os.fspath(path), config, syntax, options)
    except FileTooLarge as exc:
        return FileResult(path=os.fspath(path), error=exc.message)
    except SkippedCode as exc:
        return FileResult(path=os.fspath(path), syntax=syntax or detect_syntax(os.fspath(path), ""),
                          error=exc.reason, tokens=0, stable_prefix_tokens=0)
    return result


class _Deferred(Exception):
    """A file that includes or extends others, met in a worker process: it is checked in
    the run's own process instead, where the rules that read several files read it whole
    and its included files are loaded once for the run (checked in a worker, it was
    checked again there, each of its includes resolved anew)."""


class _NotCached(Exception):
    """A file the result cache does not hold, met where only cached results are asked for
    (before a run starts its worker processes)."""


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
    defer_includers: bool = False,
    cached_only: bool = False,
) -> tuple[FileResult, CheckedFile | None]:
    """One file's result, and the file as checked (None when it could not be). With
    ``defer_includers`` (a worker process), a file that includes or extends others raises
    :class:`_Deferred` once parsed, to be checked where the run's project is. With
    ``cached_only``, a file the result cache does not hold raises :class:`_NotCached`."""
    try:
        config = config_for_file(path, config, project, **options)
        chosen, evidence = _syntax_source(path, config, syntax)
        data = read_bytes(path, config.max_file_size)
        key = cache.key(data, path, f"{chosen}|{evidence}", config) if cache is not None else None
        hit = cache.get(key) if cache is not None and key is not None else None
        if hit is not None:
            result = FileResult.from_json(hit["file"], hit["findings"])
            file_config = config

            def load() -> CheckedFile:
                return _check_template(_set_role(load_bytes(path, data, chosen, evidence, file_config.prompt_names),
                                                 file_config), file_config)

            return result, CachedFile(path, config, result, load)
        if cached_only:
            raise _NotCached
        if (chosen or detect_syntax(path, "")) in CODE_SYNTAXES:
            from promptlint.loaders.code import may_hold_prompt  # a code loader, for code files only

            if not may_hold_prompt(data, config.prompt_names):
                raise SkippedCode(None)  # the sniff: no word a prompt is built with
        template = _set_role(load_bytes(path, data, chosen, evidence, config.prompt_names), config)
        if template.syntax in CODE_SYNTAXES and not template.prompts:
            raise SkippedCode(None)
        if defer_includers and includes_others(template):
            raise _Deferred
        checked = _check_template(template, config)
        if config.prove_fixes:
            _plan_fixed_source(checked)
        if cache is not None and key is not None and not checked.has_includes and checked.result is not None:
            cache.put(key, {"file": checked.result.to_json(),
                            "findings": [f.to_json() for f in checked.result.findings]})
    except ConfigError as exc:
        return FileResult(path=path, error=str(exc)), None
    except FileTooLarge:
        raise  # check_paths says it was skipped
    except RecursionError:
        return FileResult(path=path, error="nested too deeply to analyse"), None
    except LoadError as exc:
        if (syntax or detect_syntax(path, "")) in CODE_SYNTAXES:
            raise SkippedCode(exc.describe()) from None
        result = FileResult(path=path, error=exc.describe())
        if _not_a_body(path, syntax, exc):
            result.extra["not_a_prompt"] = True
        return result, None
    except tokens.TokenizerError as exc:
        return FileResult(path=path, error=str(exc)), None
    assert checked.result is not None
    return checked.result, checked


def _plan_fixed_source(checked: CheckedFile) -> None:
    """The text ``promptlint fix`` would write to a file with a fixable finding (SARIF's
    fixes), proved as fix proves it, on the template and outlook the check already has."""
    result = checked.result
    if result is None or not any(f.fixable for f in result.findings):
        return
    from promptlint.fix import bounds
    from promptlint.fix.plan import plan_fix

    result.fix_planned = True
    if bounds.refusal(checked.path, os.path.realpath(checked.path)) is not None:
        return  # fix would not write it: a link out of the project
    plan = plan_fix(checked.template, checked.config)
    if plan.changed:
        from promptlint.fix.linediff import line_edits

        result.fix_edits = line_edits(checked.template.source, plan.new_source)


def _not_a_body(path: str, syntax: str | None, exc: LoadError) -> bool:
    """A file read as a request body by its name (``.json``, or ``realm.json.tmpl``, whose
    inner ``.json`` decides) that is not one at all (another JSON file, or JSON with comments
    such as tsconfig.json), as opposed to a request body with a problem."""
    from promptlint.requestbody import NOT_A_REQUEST

    if syntax not in (None, "json") or detect_syntax(path, "") != "json":
        return False
    return exc.message == NOT_A_REQUEST or exc.message.startswith("malformed JSON")


def check_paths(
    paths: Paths,
    *,
    config_file: PathArg | None = None,
    syntax: str | None = None,
    hook: bool = False,
    cache: ResultCache | None = None,
    jobs: int = 1,
    **options: Any,
) -> Report:
    """Check prompt files, folders and config files (see the module's docstring).

    ``paths`` is one path (``str`` or ``os.PathLike``) or an iterable of them.
    ``config_file`` is used for every file instead of the nearest config (as ``--config``).
    ``syntax`` reads every file as that syntax. ``hook`` skips quietly the files that are
    not prompts (see :func:`gather`). ``options`` override config keys as the command
    line's options do: ``select``/``ignore`` (tuples of codes), ``model``, ``provider``,
    ``fail_on``; ``None`` means not given. With ``cache`` (a
    :class:`~promptlint.resultcache.ResultCache`) unchanged files are not analysed again;
    with ``jobs`` > 1 files are checked in that many processes.

    The report's :meth:`~promptlint.core.findings.Report.exit_code` is the command line's
    exit code: it fails at the ``fail_on`` given here, else at the strictest ``fail-on``
    configured for the checked files.
    """
    unknown = sorted(set(options) - _OPTIONS)
    if unknown:  # said here, not as Config.__init__'s complaint from inside the first file's check
        raise TypeError(f"check_paths() got unknown option(s) {', '.join(unknown)}; the options are the config's "
                        "keys: select, ignore, model, provider, fail_on, stable, volatile, max_file_size, …")
    if options.get("fail_on") is not None:
        severity_rank(options["fail_on"])  # a mistyped severity, said before any file is read
    with _settled_heap() as heap, config_mod.one_lookup_per_folder():
        return _check_paths(paths, config_file, syntax, hook, cache, jobs, heap, options)


# What check_paths takes as options: the config's own fields (the command line's options and
# the run's, such as plan_fixes), not what a config file's reading fills in.
_OPTIONS = frozenset(f.name for f in fields(Config)) - {"path", "key_lines", "includes", "extends"}

_FILES_PER_SETTLEMENT = 8


class _Heap:
    """What the files a run has checked leave alive, moved out of the cyclic garbage
    collector's reach (collected first) as the run goes, so that its full collections do not
    walk every file checked so far again (on 2,000 files they cost a fifth of the run).
    Inactive (every call a no-op) while the collector is off or another caller froze objects."""

    def __init__(self, active: bool) -> None:
        self.active = active
        self.checked = 0

    def settle(self) -> None:
        """Called after each file: settles after the first and every eighth (what a few files
        leave between two settlements is little to walk, and a collection per file cost more)."""
        self.checked += 1
        if self.active and self.checked % _FILES_PER_SETTLEMENT == 1:
            self.freeze(generation=1)

    def freeze(self, generation: int = 2) -> None:
        """Settle now. Before worker processes are forked: their collections then leave the
        objects they share with this process alone, instead of writing to them (which copies
        each page they are on into the worker)."""
        if self.active:
            import gc

            gc.collect(generation)
            gc.freeze()


@contextmanager
def _settled_heap() -> Iterator[_Heap]:
    """A :class:`_Heap` for one run; what it froze is unfrozen at the end."""
    import gc

    heap = _Heap(gc.isenabled() and not gc.get_freeze_count())
    try:
        yield heap
    finally:
        if heap.active:
            gc.unfreeze()


def _check_paths(paths: Paths, config_file: PathArg | None, syntax: str | None, hook: bool,
                 cache: ResultCache | None, jobs: int, heap: _Heap, options: dict[str, Any]) -> Report:
    report = Report()
    given = as_paths(paths)  # once: ``paths`` may be an iterator
    targets = gather(given, None if config_file is None else os.fspath(config_file), hook=hook, look_later=True)
    report.errors, report.warnings = targets.errors, targets.skipped
    project = Project()
    levels: list[str] = []
    files, explicit = targets.files, targets.explicit
    sizes = file_sizes(files) if len(files) > 1 else [0] * len(files)
    total = sum(sizes)
    if worth_processes(jobs, len(files), total):
        checked_files = _check_in_processes(files, sizes, explicit, syntax, options, cache, jobs, project, heap,
                                            targets.undecided)
    else:
        if len(files) > 1:
            tokens.expect_text(total)
        undecided = targets.undecided
        checked_files = (_check_or_skip(path, explicit, syntax, options, project, cache, look=undecided.get(path))
                         for path in files)
    named = {os.path.abspath(p) for p in given if not os.path.isdir(p)}
    no_prompt: list[str] = []
    for path, result, checked in checked_files:
        heap.settle()
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
        if result.extra.pop("not_a_prompt", False) and os.path.abspath(path) in targets.candidates:
            continue  # a JSON file that is not a request body, named by a hook
        report.files.append(result)
        if checked is not None:
            project.add(_kept(checked, syntax))
            levels.append(checked.config.fail_on)
    report.fail_on = options.get("fail_on") or (
        min(levels, key=severity_rank) if levels else targets.explicit.fail_on if targets.explicit else None
    )
    if no_prompt:
        # One quiet line, however many (a pre-commit hook names every staged source file).
        shown = ", ".join(no_prompt[:3]) + (f" and {len(no_prompt) - 3} more" if len(no_prompt) > 3 else "")
        report.notes.append(f"{shown}: no prompt built in {'this code file' if len(no_prompt) == 1 else 'these code files'}"
                            " (skipped; `[tool.promptlint.code] prompt-names` names more)")
    _check_project(project, report, cache)
    for model in sorted({checked.config.target_model for checked in project.files}):
        note = tokens.unknown_model_note(model)
        if note is not None:
            report.warnings.append(note)
    _context_window_warnings(project, report)
    return report


# Prompts shorter than any model's context window are not looked up (the price data is
# large to load).
_SMALLEST_LARGE_PROMPT = 100_000


def _context_window_warnings(project: Project, report: Report) -> None:
    """A prompt over its model's context window cannot be sent at all: say so."""
    for checked in project.files:
        result = checked.result
        if result is None or (result.tokens or 0) < _SMALLEST_LARGE_PROMPT:
            continue
        from promptlint.providers.pricing import context_window

        provider = checked.config.provider or "openai"
        model = checked.config.model or checked.config.target_model
        window = context_window(provider, model)
        if window is not None and (result.tokens or 0) > window:
            report.warnings.append(f"{checked.path}: {result.tokens:,} tokens, over the {window:,}-token context "
                                   f"window of {model}: the provider will refuse it")


_Checked = tuple[str, "FileResult | str | _Skip", "CheckedFile | None"]


def _check_or_skip(
    path: str, explicit: Config | None, syntax: str | None, options: dict[str, Any], project: Project | None,
    cache: ResultCache | None, defer_includers: bool = False, cached_only: bool = False,
    look: tuple[str, ...] | None = None,
) -> _Checked:
    """One file's result, or why it was skipped (a file over the size limit). ``look``: the
    prompt names a walk judges the file by, where its bytes decide whether it is a prompt
    (:attr:`~promptlint.targets.Targets.undecided`); one that is not is skipped quietly."""
    if look is not None and not is_prompt_file(path, look):
        return path, _Skip(None), None
    try:
        result, checked = _check_file(path, explicit, syntax, options, project, cache, defer_includers, cached_only)
    except FileTooLarge as exc:
        return path, exc.message, None
    except SkippedCode as exc:
        return path, _Skip(exc.reason), None
    return path, result, checked


# What each worker process checks with (set once per process by the pool's initializer).
_worker_setup: tuple[Config | None, str | None, dict[str, Any], ResultCache | None,
                     dict[str, tuple[str, ...]]] | None = None


def _init_worker(explicit: Config | None, syntax: str | None, options: dict[str, Any], cache_folder: Path | None,
                 undecided: dict[str, tuple[str, ...]]) -> None:
    global _worker_setup
    _worker_setup = (explicit, syntax, options, ResultCache(cache_folder) if cache_folder is not None else None,
                     undecided)


def _check_in_worker(path: str) -> FileResult | str | _Skip | None:
    """A file's result; None for a file that includes others (see :class:`_Deferred`)."""
    assert _worker_setup is not None
    explicit, syntax, options, cache, undecided = _worker_setup
    try:
        _path, result, checked = _check_or_skip(path, explicit, syntax, options, None, cache, defer_includers=True,
                                                look=undecided.get(path))
    except _Deferred:
        return None
    if checked is not None:
        _let_go(checked)
    return result


def _check_in_processes(
    files: list[str], file_bytes: list[int], explicit: Config | None, syntax: str | None, options: dict[str, Any],
    cache: ResultCache | None, jobs: int, project: Project, heap: _Heap, undecided: dict[str, tuple[str, ...]],
) -> Iterable[_Checked]:
    """Single-file results from worker processes, in order (``file_bytes``: each file's
    size). Rules that read several files run afterwards in this process, which loads a file
    again only if they ask for it; its includes are then resolved in the run's ``project``,
    each included file loaded once (with a project of its own, each of 300 templates loaded
    the 300 partials it includes)."""
    from promptlint.parallel import map_in_order

    known = _cached_results(files, explicit, syntax, options, project, cache, undecided) if cache is not None else {}
    rest = [path for path in files if path not in known]
    sizes = [size for path, size in zip(files, file_bytes, strict=True) if path not in known]
    left = sum(sizes)
    if not worth_processes(jobs, len(rest), left):
        # Little left to check (a warm run: nothing): here, without starting a worker or
        # building an encoding the cached results do not need.
        if len(rest) > 1:
            tokens.expect_text(left)
        for path in files:
            yield known[path] if path in known else _check_or_skip(path, explicit, syntax, options, project, cache,
                                                                   look=undecided.get(path))
        return
    outcomes = map_in_order(_check_in_worker, rest, jobs, sizes=sizes, initializer=_init_worker,
                            initargs=(explicit, syntax, options, cache.folder if cache else None, undecided),
                            before_fork=heap.freeze)
    pending = zip(rest, outcomes, strict=True)
    for path in files:
        if path in known:
            yield known[path]
            continue
        _, result = next(pending)
        if result is None:  # it includes others: checked here, while the workers go on
            yield _check_or_skip(path, explicit, syntax, options, project, cache)
            continue
        if isinstance(result, str | _Skip) or result.error:
            yield path, result, None
            continue
        # The file's own config, without the include resolvers it is analysed with: made only
        # if a rule over several files loads it again (most never do).
        yield path, result, _reloadable(path, _config_for(path, explicit).with_options(**options), syntax, result,
                                        partial(config_for_file, path, explicit, project, **options))
    next(pending, None)  # to its end: no result is left over, and the pool is shut down now


# A run's first files that the result cache does not hold: past this many, and none held,
# the run is taken as cold, and the rest are not looked up before the workers start (each
# worker looks its own files up anyway).
_COLD_LOOKUPS = 32


def _cached_results(
    files: list[str], explicit: Config | None, syntax: str | None, options: dict[str, Any], project: Project,
    cache: ResultCache, undecided: dict[str, tuple[str, ...]],
) -> dict[str, _Checked]:
    """The results the cache holds, looked up here before any worker process starts: a warm
    run starts none (nor builds an encoding), and a partly warm one sends only the files that
    changed. A file whose reading fails is answered here too, as a worker would answer it."""
    known: dict[str, _Checked] = {}
    answered = False  # by the cache, or by a failed read: a file a look skips says nothing of the cache
    for number, path in enumerate(files):
        if not answered and number >= _COLD_LOOKUPS:
            break
        look = undecided.get(path)
        if look is not None and not is_prompt_file(path, look):
            known[path] = path, _Skip(None), None
            continue
        try:
            known[path] = _check_or_skip(path, explicit, syntax, options, project, cache, cached_only=True)
        except _NotCached:
            continue
        answered = True
    return known


def _reloadable(path: str, config: Config, syntax: str | None, result: FileResult,
                analysed_with: Callable[[], Config] | None = None) -> CachedFile:
    """A checked file that includes nothing, as the run keeps it: its result, and its
    template and analysis made again only if a rule that reads several files asks for them
    (with ``config``, or the config ``analysed_with`` makes then)."""

    def load() -> CheckedFile:
        used = analysed_with() if analysed_with is not None else config
        chosen, evidence = _syntax_source(path, used, syntax)
        template = load_bytes(path, read_bytes(path, used.max_file_size), chosen, evidence, used.prompt_names)
        return _check_template(_set_role(template, used), used)

    return CachedFile(path, config, result, load)


def _kept(checked: CheckedFile, syntax: str | None) -> CheckedFile:
    """What a run keeps of a file checked in this process until the rules that read several
    files have run: all of it when it includes or extends others (those rules read it),
    else only its result (a large project's templates and analyses would all stay in
    memory to the end of the run)."""
    if checked.has_includes or checked.result is None or isinstance(checked, CachedFile):
        return checked
    _let_go(checked)
    return _reloadable(checked.path, checked.config, syntax, checked.result)


def _let_go(checked: CheckedFile) -> None:
    """Called where a checked file's template is no longer needed: freed at once, not when
    the garbage collector runs (a JSON check of 2,000 files held 536 templates to its end).
    A file whose result came from the result cache has no template here (asking for it would
    check the file again)."""
    if isinstance(checked, CachedFile):
        return
    if checked.template.fix_outlooks:  # none where no fix was planned (the text report)
        from promptlint.core.fixability import forget_outlooks

        forget_outlooks(checked.template)



def _drop_blocks_children_fill(project: Project, report: Report) -> None:
    """An empty `{% block %}` of a base layout is judged by its name only while no checked
    template fills it: a child that does is judged where the block renders (its own
    content, in the layout's place), and the layout then says nothing of that block."""
    if not any(child.has_includes for child in project.files):
        return  # no child extends a layout (nor does the engine need loading to say so)
    from promptlint.core.analysis import renders_nothing
    from promptlint.project import resolve_include

    filled: dict[str, set[str]] = {}
    for child in project.files:
        if not child.has_includes or child.result is None:
            continue
        names = {b.target for b in child.template.blocks()
                 if b.kind == "block" and b.target and not renders_nothing(b.body)}
        for tag in child.template.walk():
            if isinstance(tag, Tag) and tag.tag == "extends" and names:
                parent = resolve_include(child, tag)
                if parent is not None:
                    filled.setdefault(str(parent), set()).update(str(n) for n in names)
    if not filled:
        return
    for result in report.files:
        wanted = filled.get(os.path.realpath(result.path))
        checked = project.is_checked(result.path) if wanted else None
        if checked is None or wanted is None:
            continue
        template = checked.template
        places = set()
        for block in template.blocks():
            if block.kind == "block" and block.target in wanted and renders_nothing(block.body):
                where = template.position(block.open.start)
                places.add((where.line, where.column))
        result.findings = [f for f in result.findings if (f.line, f.column) not in places]


def _project_rules(cache: ResultCache | None) -> list[ModuleType]:
    """The rules with a ``check_project``; from the result cache's record when it has one,
    so that a warm run does not import every rule module."""
    import importlib

    def find() -> list[str]:
        from promptlint.registry import rules

        return [rule.__name__ for rule in rules() if hasattr(rule, "check_project")]

    names = cache.project_rules(find) if cache is not None else find()
    return [importlib.import_module(name) for name in names]


def _check_project(project: Project, report: Report, cache: ResultCache | None = None) -> None:
    """Rules that read several files: findings land in the file they point at. An include
    that cannot be followed is said, since its content goes unchecked."""
    by_path = {r.path: r for r in report.files}
    for includer in project.files:
        if not includer.has_includes:
            continue
        for tag in includer.template.walk():
            if isinstance(tag, Tag) and tag.tag in ("include", "partial", "extends"):
                problem = include_problem(includer, tag, project)
                if problem is not None:
                    where = includer.template.position(tag.span.start)
                    report.warnings.append(f"{includer.path}:{where.line}:{where.column}: {tag.tag} {problem}")
    _drop_blocks_children_fill(project, report)
    from promptlint.core import suppress

    # Each file's suppressions, read once; the files given findings, sorted once per rule
    # (sorting after each of 3,000 findings of one file made it quadratic).
    suppressions: dict[str, suppress.Suppressions] = {}
    touched: dict[str, FileResult] = {}
    for rule in _project_rules(cache):
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
                if checked.path not in suppressions:
                    template = checked.template
                    suppressions[checked.path] = suppress.parse(template.source, template.syntax, template.statements)
                if suppressions[checked.path].allows(finding):
                    target.findings.append(finding)
                    touched[target.path] = target
            else:
                report.extra_findings.append(finding)
        for target in touched.values():  # in order before the next rule reads the project
            target.findings.sort(key=lambda f: f.sort_key)
        touched.clear()


__all__ = [
    "FileResult", "Finding", "PathArg", "Paths", "Report", "check_file", "check_paths", "check_template", "check_text",
]
