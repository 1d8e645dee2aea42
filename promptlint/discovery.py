"""Which files to check: paths as given, folders walked with include/exclude globs,
``.gitignore`` files respected (through pathspec, git's own wildmatch rules)."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from promptlint.config import Config


def _matches(name: str, rel: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(rel, p) for p in patterns)


def _gitignore(folder: Path):  # type: ignore[no-untyped-def]
    path = folder / ".gitignore"
    try:
        stat = path.stat()
    except OSError:
        return None
    # Cached by modification time, so a long-running process sees edits.
    return _gitignore_at(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=1024)
def _gitignore_at(path: Path, _mtime_ns: int, _size: int):  # type: ignore[no-untyped-def]
    import pathspec

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    return pathspec.GitIgnoreSpec.from_lines(lines)


def _ignored(path: Path, is_dir: bool, stop: Path) -> bool:
    """Whether a .gitignore ignores ``path``: those of its git repository, or, outside a
    repository, those between the walked folder ``stop`` and the path."""
    specs = []
    in_repo = False
    for ancestor in (path.parent, *path.parent.parents):
        spec = _gitignore(ancestor)
        if spec is not None:
            specs.append((ancestor, spec))
        if (ancestor / ".git").exists():
            in_repo = True
            break
    for ancestor, spec in specs:
        if not in_repo and not ancestor.is_relative_to(stop):
            continue
        rel = path.relative_to(ancestor).as_posix() + ("/" if is_dir else "")
        if spec.match_file(rel):
            return True
    return False


def prompt_files(root: str, config: Config) -> Iterator[str]:
    """Prompt files under a folder, sorted, as paths that start with ``root`` as given."""
    base = Path(root)
    excludes = config.exclude + config.extend_exclude
    for folder, dirs, files in os.walk(base):
        here = Path(folder)
        dirs[:] = sorted(
            d for d in dirs
            if not _matches(d, (here / d).relative_to(base).as_posix(), excludes)
            and not _ignored((here / d).resolve(), True, base.resolve())
        )
        for name in sorted(files):
            rel = (here / name).relative_to(base).as_posix()
            if _matches(name, rel, excludes) or not _matches(name, rel, config.include):
                continue
            if _ignored((here / name).resolve(), False, base.resolve()):
                continue
            found = os.path.join(folder, name)
            # `check .` reports `sub/x.md`, not `./sub/x.md`; other roots keep their spelling.
            yield os.path.relpath(found) if base == Path(".") else found
