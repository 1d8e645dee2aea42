"""Which files a run works on: paths as given (one or many, ``str`` or ``os.PathLike``),
folders walked, and config files standing for the workspace their ``[assembly] order``
names; each file once, with one error line per path that gives none."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from promptlint import config as config_mod
from promptlint.config import Config, ConfigError
from promptlint.discovery import is_prompt_file, link_problem, prompt_files
from promptlint.registry import by_code

#: One path: a ``str`` or an ``os.PathLike`` (``pathlib.Path``).
PathArg = str | os.PathLike[str]
#: What ``check_paths`` accepts: one path, or an iterable of paths.
Paths = PathArg | Iterable[PathArg]

#: File names that are configuration, not prompts (``config.find_for`` looks for these).
CONFIG_NAMES: tuple[str, ...] = ("promptlint.toml", ".promptlint.toml", "pyproject.toml")


def as_paths(paths: Paths) -> list[str]:
    """``paths`` as a list of strings: one ``str``/``PathLike`` is one path, never a
    sequence of one-character paths."""
    if isinstance(paths, str | os.PathLike):
        return [os.fspath(paths)]
    if isinstance(paths, bytes):
        raise TypeError("paths must be str or os.PathLike, not bytes")
    found = []
    for path in paths:
        if not isinstance(path, str | os.PathLike):
            raise TypeError(f"a path must be str or os.PathLike, not {type(path).__name__}")
        found.append(os.fspath(path))
    return found


def is_config_file(path: str) -> bool:
    return os.path.basename(path) in CONFIG_NAMES and os.path.isfile(path)


def workspace_files(path: str, config: Config) -> list[str]:
    """The files a config file describes, spelled from ``path``: those its ``[assembly]
    order`` names, in that order (globs expanded, missing files left out); without an
    order, the workspace files PC106 reads in its folder by the known convention (two or
    more of them); else none (the config is only validated)."""
    base = Path(path).parent
    order = config.assembly.get("order")
    if order:
        entries, minimum = [str(entry) for entry in order], 0
    else:
        rule = by_code("PC106")
        entries, minimum = list(getattr(rule, "CONVENTION", ())), 2
    files: list[str] = []
    top_level = 0
    for entry in entries:
        if any(c in entry for c in "*?["):
            matches = sorted(p for p in base.glob(entry) if p.is_file())
        else:
            matches = [base / entry] if (base / entry).is_file() else []
        files += [os.path.normpath(m) for m in matches]
        top_level += sum(1 for m in matches if m.parent == base)
    return files if top_level >= minimum else []


def _config_targets(path: str, hook: bool) -> tuple[list[str], list[str]]:
    """(files, errors) for a config file named as a path."""
    try:
        config = config_mod.load_file(Path(path))
    except ConfigError as exc:
        return [], [str(exc)]
    if config is None:  # a pyproject.toml without [tool.promptlint]
        return [], [] if hook else [f"{path}: no [tool.promptlint] table: nothing to check"]
    return workspace_files(path, config), []


@dataclass
class Targets:
    """What a run works on, from the paths it was given."""

    files: list[str] = field(default_factory=list)
    #: The ``--config`` file's config, if one was given.
    explicit: Config | None = None
    #: One line per path or config that cannot be used (the run exits 2).
    errors: list[str] = field(default_factory=list)
    #: Files (absolute paths) named by a hook that are skipped quietly if they turn out not
    #: to be prompts (a ``.json`` file that is no request body). A folder walk needs none:
    #: it keeps only the JSON files that are bodies by shape (``discovery.prompt_files``).
    candidates: set[str] = field(default_factory=set)
    #: Entries of walked folders that cannot be checked (a symlink loop, a FIFO): warnings.
    skipped: list[str] = field(default_factory=list)
    #: With ``gather(..., look_later=True)``: walked files that are prompts only if their
    #: bytes say so (JSON, code), each with the prompt names its walk judges it by, for the
    #: check to look at (``discovery.is_prompt_file``) where it reads them.
    undecided: dict[str, tuple[str, ...]] = field(default_factory=dict)


def blank_name(name: str | None) -> bool:
    """Whether a file name given to a command is empty or only white space, and names no
    file: what an unset variable makes (`promptlint check "$UNSET"`). Printed as it came,
    its error read "error: : no such file or directory"; every command says it is blank."""
    return name is not None and not name.strip() and not os.path.exists(name)


def _expand(paths: Iterable[str], config: Config | None, hook: bool,
            looks: dict[int, tuple[str, ...]] | None = None) -> Targets:
    """The files ``paths`` give, in order (a file may come twice). With ``looks``, the walks
    leave the files whose bytes decide undecided (see :attr:`Targets.undecided`): each is
    entered in ``looks`` by its place in ``files``."""
    targets = Targets(explicit=config)
    files, errors = targets.files, targets.errors
    for path in paths:
        if blank_name(path):
            errors.append(f"{path!r}: a blank path: name a file or a folder")
        elif is_config_file(path):
            found, problems = _config_targets(path, hook)
            files.extend(found)
            errors.extend(problems)
        elif os.path.isdir(path):
            try:
                folder_config = config or config_mod.find_for(Path(path).resolve())
            except ConfigError as exc:
                errors.append(str(exc))
                continue
            undecided: dict[str, tuple[str, ...]] | None = {} if looks is not None else None
            found = list(prompt_files(path, folder_config, targets.skipped, errors, undecided))
            if undecided and all(p in undecided for p in found):
                # Only files a look decides: looked at here until one is a prompt, so that a
                # folder without one is said to have none, as when the walk looks at each.
                found = _up_to_first_prompt(found, undecided)
            if not found and not errors:
                errors.append(f"{path}: no prompt files found (include: {', '.join(folder_config.include)})")
            if looks is not None and undecided:
                looks.update((len(files) + i, undecided[p]) for i, p in enumerate(found) if p in undecided)
            files.extend(found)
        elif (problem := link_problem(path)) is not None:
            errors.append(f"{path}: {problem}")
        elif os.path.exists(path):
            files.append(path)
            if hook:
                targets.candidates.add(os.path.abspath(path))
        else:
            errors.append(f"{path}: no such file or directory")
    return targets


def _up_to_first_prompt(found: list[str], undecided: dict[str, tuple[str, ...]]) -> list[str]:
    """``found`` without the files before its first prompt file that are none (that one
    decided, those after it left undecided); empty where none is."""
    for number, path in enumerate(found):
        if is_prompt_file(path, undecided.pop(path)):
            return found[number:]
    return []


def gather(paths: Paths, config_file: str | None = None, *, hook: bool = False, look_later: bool = False) -> Targets:
    """The files to work on (each once), the ``--config`` file's config if one was given,
    one error line per path or config that cannot be used, and which files may be skipped.

    ``hook``: the paths are whatever a hook matched (pre-commit passes each staged file its
    ``files`` pattern matches): a ``pyproject.toml`` without ``[tool.promptlint]`` and a
    ``.json`` file that is no request body are skipped quietly, as a folder walk skips them.

    ``look_later``: a walk keeps the JSON and code files it would read to decide whether
    they are prompts, in :attr:`Targets.undecided`, for the check to decide where it reads
    them (in parallel, with ``-j``): the walk then reads no file but .gitignores."""
    explicit: Config | None = None
    if config_file is not None:
        if blank_name(config_file):  # read as ".", which is no file
            return Targets(errors=[f"--config {config_file!r}: a blank file name"])
        try:
            explicit = config_mod.load_file(Path(config_file))
        except ConfigError as exc:
            return Targets(errors=[str(exc)])
        if explicit is None:
            return Targets(errors=[f"{config_file}: no [tool.promptlint] table"])
    looks: dict[int, tuple[str, ...]] | None = {} if look_later else None
    targets = _expand(as_paths(paths), explicit, hook, looks)
    keys = [os.path.abspath(path) for path in targets.files]
    twice = {key for key, count in Counter(keys).items() if count > 1} if looks else set()
    files: list[str] = []
    seen: set[str] = set()
    for number, (path, key) in enumerate(zip(targets.files, keys, strict=True)):
        if key in seen:
            continue
        look = looks.get(number) if looks else None
        if look is not None:
            if key in twice:  # named again later: decided now, where the walk would have dropped it
                if not is_prompt_file(path, look):
                    continue
            else:
                targets.undecided[path] = look
        seen.add(key)
        files.append(path)
    targets.files = files
    return targets
