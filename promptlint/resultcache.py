"""A cache of single-file check results, so an unchanged file costs no BPE build.

An entry is keyed by everything its result depends on: the file's bytes, the path as
given (findings name it), the syntax asked for, the file's configuration, the target
model, the promptlint version and the source of promptlint and its rules (so an edited
rule never serves a stale result). Files with includes or partials are never cached:
their result depends on other files.

Entries live in the user cache folder (``platformdirs``; ``PROMPTLINT_CACHE_DIR``
overrides it). Writes are atomic (temporary file, then ``os.replace``), so concurrent
runs never see half an entry; a corrupt or unreadable entry is ignored and removed; the
folder is pruned to the most recently used :data:`MAX_ENTRIES`. ``--no-cache`` bypasses it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import fields
from functools import cache
from pathlib import Path
from typing import Any

from promptlint.config import Config

MAX_ENTRIES = 4096
# One write in this many checks the folder's size (pruning is a listdir).
_PRUNE_EVERY = 64
_SCHEMA = 1


def default_folder() -> Path | None:
    """``PROMPTLINT_CACHE_DIR``, else the user cache folder's; None where there is none (no
    HOME and a user the password database does not know: a container run as a bare uid)."""
    override = os.environ.get("PROMPTLINT_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    try:
        folder = Path(platformdirs.user_cache_dir("promptlint"))
    except (RuntimeError, KeyError, OSError):
        return None
    return folder / f"results-v{_SCHEMA}" if folder.is_absolute() else None


def user_cache() -> ResultCache | None:
    """The result cache in the user's cache folder; None (files are checked without one)
    where there is no such folder."""
    folder = default_folder()
    return ResultCache(folder) if folder is not None else None


@cache
def _code_fingerprint() -> str:
    """promptlint's version and code, and the rule plugins installed: a changed rule or word
    list, an editable install being edited, an upgrade or a rule plugin installed all miss.

    Installed from a wheel, the code is the wheel's ``RECORD`` (a sha256 of every file in
    it): the same in each fresh environment, so a CI job that restores the cache folder
    reuses its results. Anywhere else (an editable install, a source checkout) it is the
    size and mtime of each module and data file, so an edit misses at once."""
    import promptlint

    package = Path(promptlint.__file__).parent
    roots = [package]
    try:
        import promptlint.rules as rules_package  # type: ignore[import-not-found]

        roots += [Path(p) for p in rules_package.__path__]
    except ImportError:  # pragma: no cover - the registry reports this
        pass
    record = _wheel_record(package)
    own = [record] if record is not None and all(_inside(root, package) for root in roots) else _stamps(roots)
    parts = [promptlint.__version__, *own, *_rule_plugins()]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


# The dist-info folder name of the distribution (promptlint-cache), as wheels spell it.
_DISTRIBUTION = "promptlint_cache-"


def _wheel_record(package: Path) -> str | None:
    """The sha256 of the ``RECORD`` of the wheel this very ``package`` folder was installed
    from (the dist-info beside it that lists its ``__init__.py``); None for an editable
    install (whose RECORD lists only its path hook) or a folder no wheel installed."""
    site = package.parent
    try:  # promptlint-cache's own (other distributions' RECORDs run to megabytes: torch's)
        names = sorted(n for n in os.listdir(site) if n.endswith(".dist-info") and n.startswith(_DISTRIBUTION))
    except OSError:
        return None
    own = f"{package.name}/__init__.py,".encode()
    for name in names:
        try:
            with open(os.path.join(site, name, "RECORD"), "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        if data.startswith(own) or b"\n" + own in data:
            return f"{name}:{hashlib.sha256(data).hexdigest()}"
    return None


# What decides a result besides the code: the name vocabulary (`data/names.toml`, which the
# docs say to edit to add a word), the providers' cache models and the context windows.
_SOURCES = (".py", ".toml", ".json")


def _stamps(roots: list[Path]) -> list[str]:
    """The path, size and mtime of every source and data file under ``roots``, in one walk
    (a third of the time of a ``Path.rglob`` per suffix: this is on every warm run's path)."""
    found = []
    for root in roots:
        for folder, folders, files in os.walk(root):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            for name in sorted(files):
                if name.endswith(_SOURCES):
                    path = os.path.join(folder, name)
                    info = os.stat(path)
                    found.append(f"{path}:{info.st_size}:{info.st_mtime_ns}")
    return found


def _rule_plugins() -> list[str]:
    """Each installed distribution that registers promptlint rules: its name and version
    (the dist-info's), its entry points and its ``RECORD``, by content: a plugin installed,
    upgraded or removed changes them; the same plugin installed afresh (a CI job) does not.
    Read with a folder scan, not ``importlib.metadata`` (its import alone is a tenth of a
    warm run)."""
    from promptlint.installed import metadata_folders

    found = []
    for folder in metadata_folders()[0]:
        try:
            with open(os.path.join(folder, "entry_points.txt"), "rb") as handle:
                entry_points = handle.read()
        except OSError:
            continue
        if b"[promptlint.rules]" not in entry_points:
            continue
        try:
            with open(os.path.join(folder, "RECORD"), "rb") as handle:
                record = hashlib.sha256(handle.read()).hexdigest()
        except OSError:
            record = ""
        found.append(f"{os.path.basename(folder)}:{hashlib.sha256(entry_points).hexdigest()}:{record}")
    return found


def _config_fingerprint(config: Config) -> str:
    # Per-file resolvers (closures) are not settings: what they resolve is in the file (its includes).
    values = {f.name: getattr(config, f.name) for f in fields(config) if f.name not in ("includes", "extends", "key_lines")}
    return repr(sorted(values.items(), key=lambda item: item[0]))


def _discard(entry: Path) -> None:
    """Remove a cache entry that cannot be used, if it can be: the cache folder may be no
    folder (``PROMPTLINT_CACHE_DIR=/dev/null``), read-only, or hold a folder by that name."""
    try:
        entry.unlink(missing_ok=True)
    except OSError:
        pass


def _write_json(path: Path, data: dict[str, Any]) -> bool:
    """Write ``data`` to ``path`` atomically (a temporary file, then a rename), safe under
    concurrent runs; False when the cache folder cannot be written (that only costs speed)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        import tempfile  # only a miss writes

        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            # A lone surrogate (a `\ud800` escape of a request body, in a finding's evidence)
            # has no UTF-8: written as that escape, it reads back as the same string.
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
                json.dump(data, handle, ensure_ascii=False)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return False
    return True


class ResultCache:
    """Check results by key, in one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._writes = 0

    def key(self, data: bytes, path: str, syntax: str | None, config: Config) -> str:
        digest = hashlib.sha256()
        for part in (_code_fingerprint(), path, syntax or "", _config_fingerprint(config)):
            digest.update(part.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        entry = self._entry(key)
        try:
            data = json.loads(entry.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            _discard(entry)
            return None
        if not isinstance(data, dict) or data.get("schema") != _SCHEMA or not isinstance(data.get("result"), dict):
            _discard(entry)
            return None
        try:
            os.utime(entry)  # most recently used, for pruning
        except OSError:
            pass
        result: dict[str, Any] = data["result"]
        return result

    def put(self, key: str, result: dict[str, Any]) -> None:
        if not _write_json(self._entry(key), {"schema": _SCHEMA, "result": result}):
            return
        self._writes += 1
        if self._writes % _PRUNE_EVERY == 1:
            self.prune()

    def project_rules(self, find: Callable[[], list[str]]) -> list[str]:
        """The modules of the rules that read several files (``check_project``), remembered
        for this code fingerprint in one file beside the results: a warm run imports those,
        not every rule and what they need."""
        record = self.folder / "project-rules.json"
        fingerprint = _code_fingerprint()
        try:
            data = json.loads(record.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = None
        names = data.get("modules") if isinstance(data, dict) and data.get("fingerprint") == fingerprint else None
        if isinstance(names, list) and all(isinstance(name, str) for name in names):
            return names
        names = find()
        _write_json(record, {"fingerprint": fingerprint, "modules": names})
        return names

    def prune(self, keep: int = MAX_ENTRIES) -> None:
        """Remove the least recently used entries beyond ``keep``."""
        try:
            entries = [(p.stat().st_mtime_ns, p) for p in self.folder.glob("*/*.json")]
        except OSError:
            return
        entries.sort(reverse=True)
        for _, path in entries[keep:]:
            _discard(path)
