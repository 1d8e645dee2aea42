"""Checks that need several files at once: includes, partials and assembled workspaces.

A :class:`Project` holds the files of one run, and loads files they reference (an
included template that was not named on the command line) on demand, never outside
the project root (the folder of the nearest config, else of the git repository, else
of the including file).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from promptlint import config as config_mod
from promptlint.config import Config
from promptlint.core import tokens
from promptlint.core.findings import FileResult, Finding
from promptlint.core.ir import Segment, Tag, Template
from promptlint.loaders import LoadError, load_file

if TYPE_CHECKING:  # the engine is imported only when a file is analysed (not on a cache hit)
    from promptlint.core.analysis import Analysis
    from promptlint.core.volatility import Volatility


@dataclass
class CheckedFile:
    path: str
    template: Template
    analysis: Analysis
    config: Config
    result: FileResult | None = None

    @property
    def has_includes(self) -> bool:
        """Whether the file includes or extends others (only then do include rules look
        inside it, and only then does its result depend on other files). Walked once: a
        loaded template is not edited."""
        found = self.__dict__.get("_includes_walked")
        if found is None:
            found = self.__dict__["_includes_walked"] = includes_others(self.template)
        return bool(found)


# How long a text may be, per top-level segment, for ``includes_others`` to search it first.
_SEARCHED_CHARACTERS_PER_SEGMENT = 500


def includes_others(template: Template) -> bool:
    """Whether a template includes or extends other files."""
    # Such a tag is written with its keyword (`{% include %}`, `{% extends %}`) or a
    # partial's ">": a text with none of them is not walked (most files include nothing).
    # The three searches cost about an instruction a character each, the walk some 1,500 a
    # segment: a long text of few segments (a 5 MB page of prose) is walked instead.
    source = template.source
    if (len(source) < _SEARCHED_CHARACTERS_PER_SEGMENT * len(template.segments)
            and "include" not in source and "extends" not in source and ">" not in source):
        return False
    return any(isinstance(s, Tag) and s.tag in ("include", "partial", "extends") for s in template.walk())


class CachedFile(CheckedFile):
    """A file whose result was computed elsewhere (the result cache, a worker process):
    its template and analysis are loaded here only if a rule that reads several files
    asks for them (a workspace's assembly order, its includes)."""

    def __init__(
        self, path: str, config: Config, result: FileResult, load: Callable[[], CheckedFile], has_includes: bool = False
    ) -> None:
        self.path, self.config, self.result = path, config, result
        self._load = load
        self._full: CheckedFile | None = None
        self._has_includes = has_includes

    def _loaded(self) -> CheckedFile:
        if self._full is None:
            self._full = self._load()
        return self._full

    @property
    def template(self) -> Template:  # type: ignore[override]  # CheckedFile's field, loaded on demand
        return self._loaded().template

    @property
    def analysis(self) -> Analysis:  # type: ignore[override]
        return self._loaded().analysis

    @property
    def has_includes(self) -> bool:
        return self._has_includes


@dataclass
class Project:
    files: list[CheckedFile] = field(default_factory=list)
    # Findings about files that are not themselves checked (a config file's `order`).
    findings: list[Finding] = field(default_factory=list)
    _loaded: dict[str, CheckedFile | None] = field(default_factory=dict)
    # Parent templates of `{% extends %}`, read (not analysed) once each.
    _templates: dict[str, Template | None] = field(default_factory=dict)

    # Why each file that could not be read (an include, a parent) was not: said where it is
    # included, since its content goes unchecked.
    _unreadable: dict[str, str] = field(default_factory=dict)
    # Each folder's real path, resolved once (a file's own is its folder's, unless it is a link).
    _folders: dict[str, str] = field(default_factory=dict)
    _paths: dict[str | Path, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for checked in self.files:
            self._loaded[self.real_path(checked.path)] = checked

    def real_path(self, path: str | Path) -> str:
        """``os.path.realpath(path)``, each folder's part looked up once, each file's once
        (a run asks it of each file it adds, and again where the rules over several files
        look for its folder)."""
        known = self._paths.get(path)
        if known is not None:
            return known
        folder, name = os.path.split(os.path.abspath(path))
        real = self._folders.get(folder)
        if real is None:
            real = self._folders[folder] = os.path.realpath(folder)
        full = os.path.join(real, name)
        found = self._paths[path] = os.path.realpath(full) if os.path.islink(full) else full
        return found

    def add(self, checked: CheckedFile) -> None:
        self.files.append(checked)
        self._loaded[self.real_path(checked.path)] = checked

    def get(self, path: str | Path, config: Config) -> CheckedFile | None:
        """A checked file, or the file loaded and analysed now; None if unreadable."""
        key = self.real_path(path)
        if key not in self._loaded:
            try:
                template = load_file(str(path))
                encoding = tokens.encoding_name_for_model(config.target_model)
                from promptlint.core.analysis import analyze

                self._loaded[key] = CheckedFile(str(path), template, analyze(template, encoding, config.overrides), config)
            except (LoadError, OSError) as exc:
                self._loaded[key] = None
                self._unreadable[key] = _why(exc)
        return self._loaded[key]

    def unreadable(self, path: str | Path) -> str | None:
        """Why a file this run tried to read (an include, a parent template) could not be
        read; None when it was, or was not tried."""
        return self._unreadable.get(self.real_path(path))

    def template(self, path: str | Path) -> Template | None:
        """A file's parsed template (a parent of `{% extends %}`); None if unreadable."""
        key = self.real_path(path)
        if key not in self._templates:
            checked = self._loaded.get(key)
            if checked is not None:
                self._templates[key] = checked.template
            else:
                try:
                    self._templates[key] = load_file(str(path))
                except (LoadError, OSError) as exc:
                    self._templates[key] = None
                    self._unreadable[key] = _why(exc)
        return self._templates[key]

    def is_checked(self, path: str | Path) -> CheckedFile | None:
        found = self._loaded.get(self.real_path(path))
        return found if found is not None and found.result is not None else None


def project_root(path: str, config: Config) -> Path:
    """The folder no include may leave: the config's, else the git repository's."""
    if config.path is not None:
        return _real(config.path.parent)[0]
    here = _real(path)[0].parent
    known = config_mod.run_lookups("git roots")
    if known is not None and here in known:
        return known[here]  # type: ignore[no-any-return]
    root = next((folder for folder in (here, *here.parents) if (folder / ".git").exists()), here)
    if known is not None:
        known[here] = root
    return root


def _real(path: str | Path) -> tuple[Path, bool]:
    """``path`` resolved, and whether that is a file; within a run each path is resolved
    once (300 templates that include the same 300 partials resolved them 90,000 times)."""
    key = os.fspath(path)  # a string hashes in a fraction of a Path's time
    known = config_mod.run_lookups("real paths")
    if known is not None and key in known:
        return known[key]  # type: ignore[no-any-return]
    if _missing(key):
        # Not resolved: nothing is there (a missing partial is tried under 18 names, and
        # resolving each cost 80 % of checking a template of 5,000 of them).
        found = (Path(key), False)
    else:
        real = Path(key).resolve()
        found = (real, real.is_file())
    if known is not None:
        known[key] = found
    return found


def _missing(path: str) -> bool:
    """Whether nothing is at ``path`` (nor at the end of a symlink there)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


_PARTIAL_SUFFIXES = ("", ".mustache", ".hbs", ".handlebars", ".j2", ".jinja", ".jinja2", ".md", ".txt", ".prompt")


def resolve_include(checked: CheckedFile, tag: Tag, root: Path | None = None) -> Path | None:
    """The file an ``{% include %}``/``{{> partial}}`` names, relative to the template
    (then to the project root), or None when it is missing or outside the root.

    ``root`` is the root of the outermost including file, kept along an include chain."""
    if not tag.target:
        return None
    root = root or project_root(checked.path, checked.config)
    for name in _candidates(checked, tag, root):
        candidate, is_file = _real(name)
        if is_file:
            return candidate if candidate.is_relative_to(root) else None
    return None


def _candidates(checked: CheckedFile, tag: Tag, root: Path) -> Iterator[str]:
    """The paths an include or partial may name, in the order they are tried: beside the
    file, then under the project root; a partial with each of its usual suffixes."""
    assert tag.target
    partial = tag.tag == "partial"
    suffixes = _PARTIAL_SUFFIXES if partial else ("",)
    # A partial's file may also start with "_": dotprompt's `{{> footer}}` is `_footer.prompt`.
    folder, name = os.path.split(tag.target)
    names = (tag.target, os.path.join(folder, "_" + name)) if partial and name else (tag.target,)
    for base in (os.fspath(_real(checked.path)[0].parent), os.fspath(root)):
        for target in names:
            for suffix in suffixes:
                yield os.path.join(base, target + suffix)


def _why(exc: LoadError | OSError) -> str:
    return exc.describe() if isinstance(exc, LoadError) else (exc.strerror or str(exc))


def include_problem(checked: CheckedFile, tag: Tag, project: Project | None = None) -> str | None:
    """Why an include or partial could not be followed (its content then goes unchecked),
    or None when it resolves or names no file (a dynamic ``{% include name %}``). With
    ``project``, a file it resolves to that could not be read (binary, not UTF-8, a syntax
    error) is said too."""
    if not tag.target:
        return None
    target = resolve_include(checked, tag)
    if target is not None:
        why = project.unreadable(target) if project is not None else None
        return None if why is None else f"`{tag.target}` could not be read ({why}): its content was not checked"
    root = project_root(checked.path, checked.config)
    if any(_real(name)[1] for name in _candidates(checked, tag, root)):
        return f"`{tag.target}` is outside the project root {root}: its content was not checked"
    return f"`{tag.target}` not found beside the file or under {root}: its content was not checked"


_MAX_INCLUDE_DEPTH = 10


@dataclass(frozen=True)
class IncludedValue:
    """The worst volatile value an include brings in, and where it is written."""

    volatility: Volatility
    expr_source: str
    source: CheckedFile
    segment: Segment

    @property
    def line(self) -> int:
        return self.source.template.position(self.segment.span.start).line

    def describe(self) -> str:
        return f"{self.expr_source} ({self.source.path}:{self.line})"


def _lazy_root(path: str, config: Config) -> Callable[[], Path]:
    """:func:`project_root`, found when first asked: most files include nothing, and the
    walk up to a `.git` costs a stat per folder."""
    found: list[Path] = []

    def root() -> Path:
        if not found:
            found.append(project_root(path, config))
        return found[0]

    return root


def extends_resolver(path: str, config: Config, project: Project) -> Callable[[Tag, str], Template | None]:
    """For one file: the parent template an ``{% extends "base.j2" %}`` names, resolved from
    the file that holds the tag (along a chain) within the first file's project root."""
    root = _lazy_root(path, config)

    def resolve(tag: Tag, from_path: str) -> Template | None:
        owner = CheckedFile(from_path, Template(from_path, "", "", []), None, config)  # type: ignore[arg-type]
        target = resolve_include(owner, tag, root())
        return project.template(target) if target is not None else None

    return resolve


def include_resolver(path: str, config: Config, project: Project) -> Callable[[Tag], IncludedValue | None]:
    """For one file: the :class:`IncludedValue` of each include or partial whose file
    (or a file it includes, within the including file's project root) is volatile."""
    root = _lazy_root(path, config)

    def units_of(target: Path, depth: int, seen: dict[str, int]):  # type: ignore[no-untyped-def]
        # ``seen``: the depth each file was read at. A file is read once (again only where it
        # is reached nearer the top, where more of its own includes are within the depth):
        # ten partials that each include the next ten times unfolded 10**7 includes.
        included = project.get(target, config)
        if included is None:
            return []
        found = [(included, unit) for unit in included.analysis.units]
        if depth < _MAX_INCLUDE_DEPTH:
            for tag in included.template.walk():
                if isinstance(tag, Tag) and tag.tag in ("include", "partial") and tag.target:
                    nested = resolve_include(included, tag, root())
                    if nested is not None and seen.get(str(nested), _MAX_INCLUDE_DEPTH + 1) > depth + 1:
                        seen[str(nested)] = depth + 1
                        found += units_of(nested, depth + 1, seen)
        return found

    def resolve(tag: Tag) -> IncludedValue | None:
        # Made when a tag is resolved, not with the resolver: most files include nothing.
        owner = CheckedFile(path, Template(path, "", "", []), None, config)  # type: ignore[arg-type]
        target = resolve_include(owner, tag, root())
        if target is None:
            return None
        units = units_of(target, 1, {str(target): 1})
        if not units:
            return None
        from promptlint.core.analysis import worst_first  # asked only while a file is analysed

        source_file, worst = max(units, key=lambda pair: worst_first(pair[1].volatility))
        return IncludedValue(worst.volatility, worst.expr.source, source_file, worst.segment)

    return resolve
