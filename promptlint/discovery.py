"""Which files to check: paths as given, folders walked with include/exclude globs,
``.gitignore`` files respected (through pathspec, git's own wildmatch rules).

A folder walk picks up ``.json`` files only when they are OpenAI or Anthropic request
bodies (judged by shape); other JSON (package.json, fixtures, schemas) is skipped quietly.
Code files (``.py``, ``.ts``, ``.js``…) are picked up only when a cheap look at their bytes
finds a word a prompt is built with (prompt, system, instructions…); the rest are skipped
unparsed, and one that parses but builds no prompt is skipped by the check, quietly too.
Both looks read the file: ``check`` has its walk leave them to the check, which makes them
where it reads the file anyway (in its worker processes with ``-j``), and the walk reads no
file but .gitignores. Entries that cannot be read as files (a symlink loop, a dangling link,
a FIFO, a link that leads out of the walked folder) are skipped with a warning that names
them, and the rest is checked; a subfolder that cannot be listed is an error (its files go
unchecked: exit 2)."""

from __future__ import annotations

import errno
import fnmatch
import os
import re
from collections.abc import Callable, Iterator
from functools import lru_cache
from pathlib import Path

from promptlint.config import Config


def _matches(name: str, rel: str, patterns: tuple[str, ...]) -> bool:
    regex = _glob_regex(patterns)
    return regex is not None and (regex.match(name) is not None or regex.match(rel) is not None)


@lru_cache(maxsize=64)
def _glob_regex(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex for a tuple of globs (fnmatch's own translation): a folder walk tests
    every file against some thirty include and exclude globs."""
    if not patterns:
        return None
    return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(p))})" for p in patterns))


def _gitignore(folder: Path):  # type: ignore[no-untyped-def]
    path = folder / ".gitignore"
    try:
        stat = path.stat()
    except OSError:
        return None
    # Cached by modification time, so a long-running process sees edits.
    return _gitignore_at(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1024)
def _gitignore_at(path: Path, _mtime_ns: int, _size: int) -> _GitIgnore | None:
    import pathspec

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return _GitIgnore(pathspec.GitIgnoreSpec.from_lines(lines))


# Paths a .gitignore is asked about before its patterns are joined into one regex (which
# takes as long to compile as the spec: 13 ms for a gitignore of 500 lines).
_JOIN_AFTER = 256


class _GitIgnore:
    """A .gitignore's spec, asked first whether any of its ignoring patterns matches a path
    at all: one regex for all of them, where pathspec tries each pattern in turn (a walk of
    42,000 files under gitignores of some fifty patterns made 3.4 million regex searches).
    Most paths match none; one that matches is judged by the spec itself (negations, which
    pattern comes last). A spec asked about a few paths only is asked as it is."""

    def __init__(self, spec) -> None:  # type: ignore[no-untyped-def]
        self.spec = spec
        self.asked = 0
        self.anchored: re.Pattern[str] | None = None
        self.anywhere: re.Pattern[str] | None = None

    def match_file(self, rel: str) -> bool:
        self.asked += 1
        if self.asked == _JOIN_AFTER:
            self.anchored, self.anywhere = _any_of(self.spec.patterns)
        if (self.anchored is not None and self.anchored.match(rel) is None
                and (self.anywhere is None or self.anywhere.search(rel) is None)):
            return False  # no pattern that ignores matches: the spec ignores nothing here
        return bool(self.spec.match_file(rel))


def _any_of(patterns) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:  # type: ignore[no-untyped-def]
    """Two regexes that together match where any ignoring pattern of a spec does: one of
    those anchored at the path's start (matched there), one of the others (searched for);
    their group names dropped (an alternation may not name a group twice). ``(None, None)``
    where they cannot be joined: each pattern is then tried as pathspec tries it."""
    anchored, anywhere = [], []
    for pattern in patterns:
        if not pattern.include:  # a negation, or a line that says nothing (a comment)
            continue
        regex = pattern.regex
        if regex is None or not isinstance(regex.pattern, str) or regex.flags & ~re.UNICODE:
            return None, None
        source = re.sub(r"\(\?P<\w+>", "(?:", regex.pattern)
        if source.startswith("^"):
            anchored.append(source[1:])
        else:
            anywhere.append(source)  # `*` is `.`
    try:
        return (re.compile("(?:" + "|".join(f"(?:{b})" for b in anchored) + ")" if anchored else "(?!)"),
                re.compile("|".join(f"(?:{b})" for b in anywhere)) if anywhere else None)
    except re.error:
        return None, None


def _ignore_chain(folder: Path):  # type: ignore[no-untyped-def]
    """The .gitignore specs that apply in a folder, nearest first, and whether it is in a
    git repository."""
    specs = []
    in_repo = False
    for ancestor in (folder, *folder.parents):
        spec = _gitignore(ancestor)
        if spec is not None:
            specs.append((ancestor, spec))
        if (ancestor / ".git").exists():
            in_repo = True
            break
    return specs, in_repo


def _walk_chain(folder: Path, chains: dict):  # type: ignore[no-untyped-def,type-arg]
    """:func:`_ignore_chain` of ``folder``, found once per walk (``chains``): from its
    parent's chain, with this folder's own .gitignore and .git looked at (where
    :func:`_ignore_chain` looks at every folder up to the repository's root, for each
    folder: a fifth of a 28,000-file walk)."""
    chain = chains.get(folder)
    if chain is not None:
        return chain
    missing = []  # the folder and those above it whose chain is not known yet, nearest first
    while chain is None:
        missing.append(folder)
        parent = folder.parent
        if parent == folder:  # the file system's root: nothing above it
            chain = ([], False)
            break
        folder = parent
        chain = chains.get(folder)
    for folder in reversed(missing):
        spec = _gitignore(folder)
        own = [(folder, spec)] if spec is not None else []
        if (folder / ".git").exists():
            chain = (own, True)  # the repository's root: no .gitignore above it applies
        else:
            chain = (own + chain[0], chain[1])
        chains[folder] = chain
    return chain


def _ignored(path: Path, is_dir: bool, stop: Path, chains: dict | None = None) -> bool:  # type: ignore[type-arg]
    """Whether a .gitignore ignores ``path``: those of its git repository, or, outside a
    repository, those between the walked folder ``stop`` and the path. ``chains`` caches
    each folder's specs for one walk (every file of a folder shares them)."""
    specs, in_repo = _ignore_chain(path.parent) if chains is None else _walk_chain(path.parent, chains)
    text = str(path)
    for ancestor, spec in specs:
        if not in_repo and not ancestor.is_relative_to(stop):
            continue
        # The path from the .gitignore's folder (one of the path's own folders): a slice,
        # where Path.relative_to cost a walk as much as the matching did.
        rel = text[len(str(ancestor)):].lstrip("/") + ("/" if is_dir else "")
        if spec.match_file(rel):
            return True
    return False


# How much of a .json file is read to decide whether it may be a request body.
_SNIFF_BYTES = 65536
_REQUEST_KEYS = re.compile(rb'"(?:messages|input|instructions|system)"\s*:')


def is_request_body_file(path: str) -> bool:
    """Whether a JSON file is an OpenAI or Anthropic request body (or an array of them).

    Cheap for the JSON a repository is full of: only a file whose head names a request key
    is parsed, and its shape decides."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(_SNIFF_BYTES)
    except OSError:
        return False
    if not _REQUEST_KEYS.search(head):
        return False
    from promptlint import requestbody

    try:
        requestbody.check_shape(Path(path).read_text(encoding="utf-8-sig"))
    except (requestbody.RequestError, OSError, UnicodeDecodeError, RecursionError, ValueError, TypeError,
            AttributeError, KeyError):
        return False
    return True


def _read_as_json(name: str) -> bool:
    """Whether a file is read as a request body by its name: ``.json``, or an inner ``.json``
    under an ambiguous outer suffix (``realm.json.tmpl``; not ``request.json.j2``, a Jinja
    template). Such a file that is no request body is not a prompt file: a walk passes it."""
    lower = name.lower()
    if lower.endswith(".json"):
        return True
    if ".json." not in lower:
        return False
    from promptlint.loaders.base import detect_syntax

    return detect_syntax(name, "") == "json"


_CODE_SUFFIXES = (".py", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")


def may_build_prompt(path: str, prompt_names: tuple[str, ...] = ()) -> bool:
    """Whether a code file may build a prompt: the sniff before any parsing (a file that
    names no prompt word is not read further)."""
    from promptlint.loaders.code import may_hold_prompt

    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return False
    return may_hold_prompt(data, prompt_names)


def _unusable(path: Path) -> str | None:
    """Why a directory entry cannot be checked as a file, or None when it can."""
    return _resolved(path)[1]


def _linked_folder(path: Path, walked: Path) -> str | None:
    """Why a link to a folder met in a walk is worth a word, or None: its target is inside the
    walked folder, whose walk checks its files where they are (skill folders linked from
    `.agents/skills/` to `.cline/skills/`, in cline)."""
    try:
        target = path.resolve(strict=True)
    except (RuntimeError, OSError):  # gone since the folder was listed: said as a file's link is
        return _resolved(path)[1]
    if target.is_relative_to(walked):
        return None
    return f"a link to the folder {target}, outside the walked folder: not followed"


class _Listing:
    """A folder's entries, as :func:`os.walk` splits them (``dirs``: folders, links to them
    included; ``files``: the rest), and what the listing itself tells of their types
    (``links``: folders that are links; ``regular``: files that are regular files
    themselves), which would otherwise cost a stat call each."""

    __slots__ = ("dirs", "files", "links", "regular")

    def __init__(self) -> None:
        self.dirs: list[str] = []
        self.files: list[str] = []
        self.links: set[str] = set()
        self.regular: set[str] = set()


def _walk(top: str, onerror: Callable[[OSError], None]) -> Iterator[tuple[str, _Listing]]:
    """``os.walk(top, onerror=onerror)`` (top-down, links to folders not entered; the
    caller may prune ``dirs``), each folder with its :class:`_Listing`."""
    stack = [top]
    while stack:
        folder = stack.pop()
        listing = _Listing()
        try:
            entries = os.scandir(folder)
        except OSError as exc:
            onerror(exc)
            continue
        with entries:
            try:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:
                        is_dir = False
                    if is_dir:
                        listing.dirs.append(entry.name)
                        if entry.is_symlink():
                            listing.links.add(entry.name)
                    else:
                        listing.files.append(entry.name)
                        try:
                            if entry.is_file(follow_symlinks=False):
                                listing.regular.add(entry.name)
                        except OSError:
                            pass
            except OSError as exc:  # the listing failed part way: os.walk gives up on the folder
                onerror(exc)
                continue
        yield folder, listing
        stack.extend(os.path.join(folder, d) for d in reversed(listing.dirs) if d not in listing.links)


def _outside(resolved: Path, root: Path | None) -> str | None:
    if root is not None and not resolved.is_relative_to(root):
        return f"a symlink to {resolved}, outside the checked folder's project: not read"
    return None


def _resolved(path: Path, root: Path | None = None) -> tuple[Path | None, str | None]:
    """A directory entry's resolved path, or why it cannot be checked as a file: a link
    that loops, dangles, names no regular file, or (``root``: the resolved folder being
    walked) leads out of that folder, as ``secrets.j2 -> /etc/shadow`` would."""
    try:
        resolved = path.resolve(strict=True)
    except RuntimeError:
        return None, "symlink loop"
    except FileNotFoundError:
        return None, "dangling symlink"
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return None, "symlink loop"
        return None, exc.strerror or str(exc)
    if not resolved.is_file():
        return None, "not a regular file"
    why = _outside(resolved, root)
    return (None, why) if why is not None else (resolved, None)


_PROJECT_MARKERS = ("promptlint.toml", ".promptlint.toml", "pyproject.toml", ".git")


def project_root(path: str) -> str | None:
    """The nearest folder above ``path`` (symlinks not followed) that marks a project: a
    config or ``.git``. Symlinks may lead anywhere inside it, never out of it."""
    folder = os.path.dirname(os.path.abspath(path))
    while True:
        if any(os.path.lexists(os.path.join(folder, marker)) for marker in _PROJECT_MARKERS):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def link_problem(path: str) -> str | None:
    """Why a path named on the command line cannot be read through its symlink, or None:
    a loop, a dangling link, or a link out of its project (the nearest folder above it
    with a config or ``.git``, else its own folder): a staged ``shadow.j2 -> /etc/shadow``
    must not be read as a prompt. A path that is no symlink is None (read as given)."""
    if not os.path.islink(path):
        return None
    root = Path(project_root(path) or os.path.dirname(os.path.abspath(path)))
    resolved, why = _resolved(Path(path), root.resolve())
    if why == "not a regular file":
        return None  # read_bytes says which kind (a FIFO, a device) when it refuses it
    if why is not None and why.startswith("a symlink to"):
        return why.replace("the checked folder's project", f"its project {root}")
    if why == "dangling symlink":
        return "no such file (a dangling symlink)"
    return why


def prompt_files(
    root: str, config: Config, skipped: list[str] | None = None, errors: list[str] | None = None,
    undecided: dict[str, tuple[str, ...]] | None = None,
) -> Iterator[str]:
    """Prompt files under a folder, sorted, as paths that start with ``root`` as given.

    Entries that cannot be checked are appended to ``skipped`` as ``path: reason``;
    subfolders that cannot be listed to ``errors`` (their files go unchecked, so the run
    fails: exit 2), else to ``skipped``. With ``undecided``, the files whose bytes decide
    (JSON, code: :func:`is_prompt_file`) are not read here: they are yielded, and entered
    in it with the prompt names to judge them by, for the check to look at them (in its
    worker processes) and skip those that are not prompts, quietly as a walk does."""
    base = Path(root)
    stop = base.resolve()
    # Links may lead anywhere in the folder's project (`agents/x.j2 -> ../shared/x.j2`),
    # never out of it (`secrets.j2 -> /etc/shadow`).
    project = project_root(str(base / "x"))
    bound = Path(project).resolve() if project is not None and stop.is_relative_to(Path(project).resolve()) else stop
    excludes = config.exclude + config.extend_exclude
    chains: dict = {}  # type: ignore[type-arg]
    dot = base == Path(".")
    def unreadable(exc: OSError) -> None:
        # A folder that cannot be listed holds files that go unchecked: the run failed.
        message = f"{exc.filename}: cannot read this folder ({(exc.strerror or str(exc)).lower()}): its files were not checked"
        if errors is not None:
            errors.append(message)
        else:
            _note(skipped, exc.filename, exc.strerror)

    for folder, listing in _walk(os.fspath(base), unreadable):
        here = Path(folder)
        # An entry's path from the walked folder is this folder's, then its name.
        under = here.relative_to(base).as_posix()
        prefix = "" if under == "." else under + "/"
        real: Path | None = None  # this folder resolved, once an entry in it asks
        kept = []
        for d in sorted(listing.dirs):
            if _matches(d, prefix + d, excludes):
                continue
            if d in listing.links:
                # A link to a folder is not followed (its files would be checked twice, or
                # round a loop): said only when its folder is not walked where it is.
                why = _linked_folder(here / d, stop)
                if why is not None:
                    _note(skipped, os.path.join(folder, d), why)
                continue
            if real is None:
                real = Path(os.path.realpath(folder))
            if not _ignored(real / d, True, stop, chains):  # no link: its real path is in this folder's
                kept.append(d)
        listing.dirs[:] = kept
        # Whether its files are inside the bound, and whether a .gitignore may ignore them:
        # asked once for the folder, not for each file (a quarter of a 2,000-file walk).
        real_inside = ignorable = asked = False
        for name in sorted(listing.files):
            rel = prefix + name
            if _matches(name, rel, excludes) or not _matches(name, rel, config.include):
                continue
            found = os.path.join(folder, name)
            if name in listing.regular:
                # No link to follow: the file is in this folder's real path (itself inside
                # the walked one, which the walk entered without following links).
                if real is None:
                    real = Path(os.path.realpath(folder))
                if not asked:
                    real_inside = real.is_relative_to(bound)  # a file in it is, or is not, alike
                    ignorable = bool(_walk_chain(real, chains)[0])
                    asked = True
                entry = real / name
                if not real_inside:
                    _note(skipped, found, _outside(entry, bound))
                    continue
                if ignorable and _ignored(entry, False, stop, chains):
                    continue
            else:
                resolved, why = _resolved(here / name, bound)
                if why is not None or resolved is None:
                    _note(skipped, found, why)
                    continue
                if _ignored(resolved, False, stop, chains):
                    continue
            # `check .` reports `sub/x.md`, not `./sub/x.md`; other roots keep their spelling.
            # (What os.path.relpath says of such a path, without its two abspath calls.)
            path = os.path.normpath(found) if dot else found
            if needs_a_look(name):
                if undecided is not None:
                    undecided[path] = config.prompt_names
                elif not is_prompt_file(found, config.prompt_names):
                    continue
            yield path


def needs_a_look(name: str) -> bool:
    """Whether a walk keeps a file of this name only once its bytes show a prompt (see
    :func:`is_prompt_file`)."""
    return _read_as_json(name) or name.lower().endswith(_CODE_SUFFIXES)


def is_prompt_file(path: str, prompt_names: tuple[str, ...]) -> bool:
    """Whether a walk keeps a file its name alone does not decide: a JSON file that is a
    request body, a code file that names a word a prompt is built with (``prompt_names``:
    the walked folder's). Any other file is kept."""
    name = os.path.basename(path)
    if _read_as_json(name) and not is_request_body_file(path):
        return False
    return not (name.lower().endswith(_CODE_SUFFIXES) and not may_build_prompt(path, prompt_names))


def _note(skipped: list[str] | None, path: str | None, why: str | None) -> None:
    if skipped is not None:
        skipped.append(f"{path}: skipped ({why})")
