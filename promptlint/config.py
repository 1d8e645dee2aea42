"""Configuration: ``[tool.promptlint]`` in pyproject.toml, or the same keys at the top
level of ``promptlint.toml`` (as ``ruff.toml`` mirrors ``[tool.ruff]``), found by walking
up from each checked file. Unknown keys are an error naming the key.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from stat import S_ISREG
from typing import TYPE_CHECKING, Any

from promptlint.core.findings import SEVERITIES
from promptlint.core.ir import SYNTAXES
from promptlint.core.tokens import DEFAULT_MODEL
from promptlint.core.kinds import FREQUENCIES, KINDS

if TYPE_CHECKING:
    from promptlint.core.volatility import Overrides

DEFAULT_INCLUDE: tuple[str, ...] = (
    "*.md", "*.markdown", "*.mdx", "*.txt", "*.prompt", "*.j2", "*.jinja", "*.jinja2",
    "*.mustache", "*.hbs", "*.handlebars", "*.gotmpl", "*.fmt", "*.tmpl",
    # Go templates of Markdown or text (crush's `coder.md.tpl`); not every `.tpl` (Helm charts).
    "*.md.tpl", "*.txt.tpl", "*.prompt.tpl",
    "*.json",  # request bodies only: other JSON is skipped by shape (discovery.py)
    # Prompt builders in code: files that build no prompt are skipped unread (discovery.py).
    "*.py", "*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs",
)
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".git", ".hg", ".svn", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".nox",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", "*.egg-info",
)
# A kind's default frequency when config names only the kind.
DEFAULT_FREQUENCY = {
    "timestamp": "per-request", "identity": "per-session", "session-id": "per-request",
    "environment": "per-session", "retrieval": "per-request", "memory": "per-request",
    "tool-order": "per-session",
}


# Where a template's text ends up in a request: the system (or developer) prompt, which the
# chat history follows, or the latest user message, after which nothing is cached.
ROLES: tuple[str, ...] = ("system", "developer", "user")
# File names that say a template renders the latest user turn: `answer_user.j2`,
# `qa.user.txt`, `user_prompt.md`, `user-message.hbs`, `human_turn.j2`. Not a bare `user.j2`
# or USER.md (often a template or workspace file about the user, sent in the system
# prompt), nor a Markdown file that merely ends in `_user`, nor `current_user.j2`.
_USER_TURN_PREFIX = re.compile(r"^(?:user|human)[._-](?:prompt|message|msg|turn|input|query|template)(?:[._-].*)?$")
_USER_TURN_SUFFIX = re.compile(r"^(?P<before>.+?)[._-](?:user|human)$")
# `chat_user_turn.hbs`, `qa.user_message.md`: the turn said in the name, whatever comes before.
_USER_TURN_INFIX = re.compile(r"^.+?[._-](?:user|human)[._-](?:message|msg|turn|input|query|template)$")
_DESCRIBES_A_USER = frozenset({"signed_in", "signed-in", "logged_in", "logged-in", "current", "end", "power", "admin",
                               "default", "test", "super", "active", "authenticated", "anonymous", "new"})
_MARKDOWN = (".md", ".markdown", ".mdx")


class ConfigError(Exception):
    """A configuration file that cannot be used; the message names the file and key."""


@dataclass(frozen=True)
class Config:
    path: Path | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] = ()
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    syntax: dict[str, str] = field(default_factory=dict)
    # glob -> the message a template renders into ("system", "developer", "user").
    role: dict[str, str] = field(default_factory=dict)
    # None: not set; the target model is then DEFAULT_MODEL (see `target_model`).
    model: str | None = None
    provider: str | None = None
    fail_on: str = "warning"
    # Bytes; larger prompt files are skipped with a warning.
    max_file_size: int = 2 * 1024 * 1024
    stable: tuple[str, ...] = ()
    volatile: dict[str, tuple[str, str]] = field(default_factory=dict)
    assembly: dict[str, Any] = field(default_factory=dict)
    providers: dict[str, Any] = field(default_factory=dict)
    prices: dict[str, Any] = field(default_factory=dict)
    # `[code]`: how prompts are found in code files (`prompt-names`).
    code: dict[str, Any] = field(default_factory=dict)
    # 1-based line of each top-level key in the file, for findings about config.
    key_lines: dict[str, int] = field(default_factory=dict)
    # Set per checked file (not config keys): how volatile the files it includes are, and
    # the template an `{% extends %}` names.
    includes: Callable[[Any], Any] | None = None
    extends: Callable[[Any, str], Any] | None = None
    # Set by the command line (not a config key): whether findings say if `promptlint fix`
    # fixes them. The text report does not show it, and planning the fix is half a check's
    # time; JSON, SARIF and the Python API do.
    plan_fixes: bool = True
    # Set by the command line for SARIF (not a config key): a file with a fixable finding
    # is also given its proved rewrite (`FileResult.fix_edits`), planned on the template
    # the check parsed (whose fix outlook it has) and, with -j, in the worker that checked it.
    prove_fixes: bool = False

    @property
    def target_model(self) -> str:
        """The model whose tokenizer and cache facts apply."""
        return self.model or DEFAULT_MODEL

    @property
    def prompt_names(self) -> tuple[str, ...]:
        """More names (globs) whose strings are prompts in code, from `[code] prompt-names`."""
        return tuple(self.code.get("prompt-names", ()))

    @property
    def overrides(self) -> Overrides:
        from promptlint.core.volatility import Overrides  # the engine's; a cache hit needs none

        stable, disabled = _override_sets(self.stable, self.select, self.ignore)
        return Overrides(stable=stable, volatile=self.volatile, includes=self.includes, extends=self.extends,
                         disabled=disabled)

    def for_file(self, includes: Callable[[Any], Any], extends: Callable[[Any, str], Any]) -> Config:
        """A copy that resolves one file's includes and its ``{% extends %}``: made for every
        checked file, as a copy of the fields (``dataclasses.replace`` passes each of them to
        ``__init__`` again, seven times the cost, for the same object)."""
        copy = object.__new__(Config)
        copy.__dict__.update(self.__dict__, includes=includes, extends=extends)
        return copy

    def rule_enabled(self, code: str) -> bool:
        def matches(patterns: tuple[str, ...]) -> bool:
            return any(code.startswith(p) for p in patterns) or "ALL" in patterns

        if self.select is not None and not matches(self.select):
            return False
        return not matches(self.ignore)

    def with_options(self, **options: Any) -> Config:
        """A copy with command-line options applied (None means "not given"); within a run
        (:func:`one_lookup_per_folder`), made once per config and options."""
        run = _RUN_LOOKUPS.get()
        try:
            key = (id(self), tuple(sorted(options.items())))
            hash(key)
        except TypeError:  # an unhashable option value: not kept
            run = None
        if run is not None and key in run.with_options and run.with_options[key][0] is self:
            return run.with_options[key][1]
        for name in ("select", "ignore"):
            if isinstance(options.get(name), str):  # "PC101,PC2" as the command line takes it, not its letters
                options[name] = tuple(code.strip() for code in options[name].split(",") if code.strip())
            problem = unknown_rule_codes(tuple(options.get(name) or ()))
            if problem:
                raise ConfigError(f"`{name}`: {problem}")
        given = {k: v for k, v in options.items() if v is not None}
        applied = replace(self, **given) if given else self
        if run is not None:
            run.with_options[key] = (self, applied)  # the config kept with it: its id stays its own
        return applied


# The rules whose findings ``fix`` acts on: it moves a value, a tool loop or an include, and
# with --unsafe-fixes sorts a loop and coarsens a clock.
_MOVED_BY_FIX = ("PC101", "PC102", "PC103", "PC104")


@lru_cache(maxsize=64)
def _override_sets(stable: tuple[str, ...], select: tuple[str, ...] | None,
                   ignore: tuple[str, ...]) -> tuple[frozenset[str], frozenset[str]]:
    """:attr:`Config.overrides`' names configured stable and the rules fix acts on that are
    turned off: the same for every file of a config, made once (asked once per file)."""
    config = Config(select=select, ignore=ignore)
    return frozenset(stable), frozenset(code for code in _MOVED_BY_FIX if not config.rule_enabled(code))


_KEYS = {f.name.replace("_", "-") for f in fields(Config)} - {"path", "key-lines", "includes", "extends",
                                                                "plan-fixes", "prove-fixes"}
_ASSEMBLY_KEYS = {"order", "files", "root", "volatile", "stable"}


def _as_tuple(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: `{key}` must be a list of strings")
    return tuple(value)


def parse(path: Path, table: dict[str, Any], key_lines: dict[str, int] | None = None) -> Config:
    """Validate a ``[tool.promptlint]`` table into a :class:`Config`."""
    values: dict[str, Any] = {"path": path, "key_lines": key_lines or {}}
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        if key not in _KEYS:
            raise ConfigError(f"{path}: unknown key `{raw_key}` (known: {', '.join(sorted(_KEYS))})")
        attr = key.replace("-", "_")
        if key in ("select", "ignore", "include", "exclude", "extend-exclude", "stable"):
            values[attr] = _as_tuple(path, raw_key, value)
            if key in ("select", "ignore"):
                values[attr] = tuple(code.upper() for code in values[attr])
                problem = unknown_rule_codes(values[attr])
                if problem:
                    raise ConfigError(f"{path}: `{raw_key}`: {problem}")
        elif key in ("model", "provider"):
            if not isinstance(value, str):
                raise ConfigError(f"{path}: `{raw_key}` must be a string")
            if key == "provider":
                from promptlint.providers import known_providers

                if value.lower() not in known_providers():
                    raise ConfigError(
                        f"{path}: unknown provider {value!r} (known: {', '.join(known_providers())})"
                    )
                value = value.lower()
            values[attr] = value
        elif key == "max-file-size":
            values[attr] = _parse_size(path, raw_key, value)
        elif key == "fail-on":
            if not isinstance(value, str) or value not in SEVERITIES:
                raise ConfigError(f"{path}: `fail-on` must be one of {', '.join(SEVERITIES)}, not {value!r}")
            values[attr] = value
        elif key == "syntax":
            if not isinstance(value, dict) or any(not isinstance(v, str) or v not in SYNTAXES for v in value.values()):
                raise ConfigError(f"{path}: `syntax` maps globs to one of {', '.join(SYNTAXES)}")
            values[attr] = dict(value)
        elif key == "role":
            if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
                raise ConfigError(f"{path}: `role` maps globs to one of {', '.join(ROLES)}")
            for pattern, role in value.items():
                if not isinstance(role, str) or role not in ROLES:
                    raise ConfigError(
                        f"{path}: `role.\"{pattern}\"`: unknown role {role!r} (known: {', '.join(ROLES)})"
                    )
            values[attr] = dict(value)
        elif key == "volatile":
            values[attr] = _parse_volatile(path, value)
        elif key == "code":
            values[attr] = _parse_code(path, value)
        elif key == "assembly":
            values[attr] = _parse_assembly(path, value)
        elif key == "providers":
            from promptlint.providers.table import check_overrides

            try:
                check_overrides(value)
            except ValueError as exc:
                raise ConfigError(f"{path}: {exc}") from None
            values[attr] = dict(value)
        else:  # prices
            values[attr] = _parse_prices(path, value)
    return Config(**values)


def _parse_assembly(path: Path, value: Any) -> dict[str, Any]:
    """``[assembly]``: ``order``, ``files``, ``volatile`` and ``stable`` are lists of file
    names or globs, ``root`` a folder name; checked here, so that nothing that reads them
    (the check, the fix) meets an integer where it walks a list."""
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: `assembly` must be a table")
    unknown = set(value) - _ASSEMBLY_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key `assembly.{min(unknown)}`")
    for key, item in value.items():
        if key == "root":
            if not isinstance(item, str):
                raise ConfigError(f"{path}: `assembly.root` must be a string (a folder)")
        elif not isinstance(item, list) or not all(isinstance(entry, str) for entry in item):
            raise ConfigError(f"{path}: `assembly.{key}` must be a list of file names or globs")
    return dict(value)


# The highest price a config may give, in USD per million tokens: far above any model's (a
# hundred-odd at most), and low enough that a cost over a month of calls stays a finite number.
_MAX_PRICE = 1_000_000


def _parse_prices(path: Path, value: Any) -> dict[str, Any]:
    """``[prices]``: flat (``input = 3.0``) or tables keyed by ``provider/model``, model or
    provider, each of USD prices per million tokens (numbers)."""
    from promptlint.providers.pricing import PRICE_KEYS

    if not isinstance(value, dict):
        raise ConfigError(f"{path}: `prices` must be a table")

    def numbers(table: dict[str, Any], where: str) -> None:
        for key, price in table.items():
            if key not in PRICE_KEYS:
                raise ConfigError(f"{path}: unknown key `{where}{key}` (known: {', '.join(sorted(PRICE_KEYS))})")
            if isinstance(price, bool) or not isinstance(price, int | float) or not 0 <= price <= _MAX_PRICE:
                raise ConfigError(f"{path}: `{where}{key}` must be a price (a number from 0 to {_MAX_PRICE:,}, USD "
                                  "per million tokens)")

    if all(key in PRICE_KEYS for key in value):
        numbers(value, "prices.")
        return dict(value)
    for name, table in value.items():
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: `prices.{name}` must be a table of prices (or `{name}` is not a price key)")
        numbers(table, f"prices.\"{name}\".")
    return dict(value)


_SIZE_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def _parse_size(path: Path, key: str, value: Any) -> int:
    """Bytes from ``2097152``, ``"2MB"`` or ``"2 MiB"``."""
    import re

    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMG]i?B|B)?\s*", value, re.IGNORECASE) if isinstance(value, str) else None
    if match is None:
        raise ConfigError(f"{path}: `{key}` must be a positive number of bytes or a size such as \"2MB\"")
    size = float(match.group(1)) * _SIZE_UNITS[(match.group(2) or "").lower()]
    if not 0 < size < 2**63:
        raise ConfigError(f"{path}: `{key}` must be a positive size below 8 EiB, not {value!r}")
    return int(size)


def unknown_rule_codes(patterns: tuple[str, ...]) -> str | None:
    """A one-line complaint about ``select``/``ignore`` entries that match no rule, or None."""
    if not patterns:
        return None  # nothing to check, and no rule module to import for it
    from promptlint.registry import describe_known_codes, unknown_codes

    unknown = unknown_codes(patterns)
    if not unknown:
        return None
    return f"unknown rule code{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} ({describe_known_codes()})"


def _parse_volatile(path: Path, value: Any) -> dict[str, tuple[str, str]]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: `volatile` must be a table of name = \"kind\"")
    result: dict[str, tuple[str, str]] = {}
    for name, spec in value.items():
        if isinstance(spec, str):
            kind, frequency = spec, DEFAULT_FREQUENCY.get(spec, "per-request")
        elif isinstance(spec, dict):
            kind = spec.get("kind", "")
            if not isinstance(kind, str):
                raise ConfigError(f"{path}: `volatile.{name}.kind` must be a string (one of {', '.join(KINDS)})")
            frequency = spec.get("frequency", DEFAULT_FREQUENCY.get(kind, "per-request"))
            if not isinstance(frequency, str):
                raise ConfigError(f"{path}: `volatile.{name}.frequency` must be a string "
                                  f"(one of {', '.join(FREQUENCIES)})")
        else:
            raise ConfigError(f"{path}: `volatile.{name}` must be a kind or a table")
        if kind not in KINDS:
            raise ConfigError(f"{path}: `volatile.{name}`: unknown kind {kind!r} (known: {', '.join(KINDS)})")
        if frequency not in FREQUENCIES:
            raise ConfigError(f"{path}: `volatile.{name}`: unknown frequency {frequency!r}")
        result[name] = (kind, frequency)
    return result


def matching_glob(path: str, base: Path, globs: Any) -> str | None:
    """The first glob of a ``{glob: value}`` table (``[syntax]``, ``[role]``) that a file
    matches, relative to the config's folder or by its base name; None when none does."""
    known = _GLOB_TABLES.get(id(globs))
    if known is None or known[0] is not globs:  # made once per config's table
        if len(_GLOB_TABLES) > 64:
            _GLOB_TABLES.clear()
        known = _GLOB_TABLES[id(globs)] = (globs, _GlobTable(tuple(str(pattern) for pattern in globs)))
    table = known[1]
    found = [table.first(os.path.normcase(name)) for name in (os.path.relpath(os.path.abspath(path), base),
                                                             os.path.basename(path))]
    hits = [i for i in found if i is not None]
    return table.patterns[min(hits)] if hits else None


class _GlobTable:
    """A table's globs, for the first one a name matches: those without a wildcard (file
    paths, often hundreds of them) looked up at once, the others (``fnmatch``'s translation)
    tried in order until one matches or a literal one that matched comes first (a table of
    1,500 globs was tried glob by glob for every file: 2,000 files, 4.7 s against 1.0 s)."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        import fnmatch

        self.patterns = patterns
        self.literal: dict[str, int] = {}
        self.wild: list[tuple[int, re.Pattern[str]]] = []
        for i, pattern in enumerate(patterns):
            pattern = os.path.normcase(pattern)
            if any(c in pattern for c in "*?["):
                self.wild.append((i, re.compile(fnmatch.translate(pattern))))
            else:
                self.literal.setdefault(pattern, i)

    def first(self, name: str) -> int | None:
        best = self.literal.get(name)
        for i, regex in self.wild:
            if best is not None and i > best:
                break
            if regex.match(name):
                return i
        return best


# id of a config's glob table -> (the table, its globs made ready); the table is kept so that
# its id is not another's while it is here.
_GLOB_TABLES: dict[int, tuple[Any, _GlobTable]] = {}


# A text that opens by telling the assistant what it is or does is a system prompt, whatever
# its name says (`wig_user.hbs`: "You are the hire assistant…", a prompt about the user).
_ADDRESSES_THE_ASSISTANT = re.compile(
    r"\A(?:\s|\{\{!--.*?--\}\}|\{\{!.*?\}\}|\{#.*?#\}|<!--.*?-->)*"
    r"(?:You(?:'re|\s+are|\s+will\s+be)\s|You\s+(?:help|answer|take|book|run|work|assist|act|plan|write|handle)\b|"
    r"Act\s+as\b|Your\s+(?:role|job|task)\b)",
    re.DOTALL,
)


def role_for(path: str, config: Config, text: str | None = None) -> tuple[str, str | None]:
    """The role a file's text is sent in and what says so: a `[role]` glob of its config,
    else its name (`*_user.j2`, `user_prompt.md`; not a `*_user` file whose ``text`` opens
    by addressing the assistant), else the system prompt (None)."""
    if config.path is not None and config.role:
        pattern = matching_glob(path, config.path.parent, config.role)
        if pattern is not None:
            return config.role[pattern], f"config [role] {pattern!r} in {config.path.name}"
    base = os.path.basename(path)
    name = base.lower()
    suffix = os.path.splitext(name)[1]
    if suffix == ".json":
        return "system", None  # a request body says each message's role itself
    parts = name.split(".")
    # `qa.user.j2`: the role may be an inner suffix.
    for candidate in [parts[0]] + [".".join(parts[: i + 1]) for i in range(1, len(parts) - 1)]:
        if _USER_TURN_PREFIX.match(candidate) or _USER_TURN_INFIX.match(candidate):
            return "user", f"file name {base!r}"
        after = _USER_TURN_SUFFIX.match(candidate)
        if after and suffix not in _MARKDOWN and after.group("before").rsplit("_", 2)[-1] not in _DESCRIBES_A_USER \
                and after.group("before") not in _DESCRIBES_A_USER \
                and not (text is not None and _ADDRESSES_THE_ASSISTANT.match(text)):
            return "user", f"file name {base!r}"
    return "system", None


_CODE_KEYS = {"prompt-names"}


def _parse_code(path: Path, value: Any) -> dict[str, Any]:
    """``[code] prompt-names = ["*_brief", "charter"]``: names (globs, any case) whose
    strings are prompts, besides those that say prompt, system, instructions…"""
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: `code` must be a table")
    out: dict[str, Any] = {}
    for raw_key, item in value.items():
        key = raw_key.replace("_", "-")
        if key not in _CODE_KEYS:
            raise ConfigError(f"{path}: unknown key `code.{raw_key}` (known: {', '.join(sorted(_CODE_KEYS))})")
        names = _as_tuple(path, f"code.{raw_key}", item)
        if any(not n.strip() or not re.fullmatch(r"[\w*?\[\]$.-]+", n) for n in names):
            raise ConfigError(f"{path}: `code.{raw_key}` holds names or globs of names (letters, digits, _, *, ?)")
        out[key] = names
    return out


def _key_lines(text: str, prefix: str) -> dict[str, int]:
    """Line numbers of keys in a TOML file, as ``assembly.order`` → 12 (for findings)."""
    lines: dict[str, int] = {}
    table = ""
    for number, line in enumerate(text.split("\n"), 1):  # as findings number lines (not at a U+2028)
        stripped = line.strip()
        if stripped.startswith("[") and not stripped.startswith("[["):
            table = stripped.strip("[]").strip()
            if table.startswith(prefix):
                table = table[len(prefix) :].lstrip(".")
            elif prefix:
                table = "\0"
            if table and table != "\0":
                lines.setdefault(table, number)
            continue
        if "=" in stripped and not stripped.startswith("#") and table != "\0":
            key = stripped.split("=", 1)[0].strip().strip('"')
            lines.setdefault(f"{table}.{key}" if table else key, number)
    return lines


def load_file(path: Path) -> Config | None:
    """The promptlint config in a file, or None for a pyproject.toml without one."""
    try:
        stat = path.stat()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except ValueError:  # a NUL in the name (the Python API's; no command line can hold one)
        raise ConfigError(f"{str(path)!r}: cannot read (a NUL character in the name)") from None
    if not S_ISREG(stat.st_mode):
        # A FIFO would block the read, a device never end.
        raise ConfigError(f"{path}: not a regular file, not read")
    # Cached by modification time, so a long-running process sees edits.
    return _load_file(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _load_file(path: Path, _mtime_ns: int, _size: int) -> Config | None:
    try:
        text = path.read_text(encoding="utf-8")
        data = tomllib.loads(text)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror})") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML (nested too deeply)") from None
    if path.name == "pyproject.toml":
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: `tool` must be a table")
        table = tool.get("promptlint")
        if table is None:
            return None
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: `tool.promptlint` must be a table")
        return parse(path, table, _key_lines(text, "tool.promptlint"))
    return parse(path, data, _key_lines(text, ""))


@dataclass
class _Lookups:
    """What one run has found: each folder's config, each folder's real path."""

    configs: dict[Path, Config] = field(default_factory=dict)
    folders: dict[str, Path] = field(default_factory=dict)
    # (id of a config, options) -> (that config, it with the options applied).
    with_options: dict[tuple[int, tuple[tuple[str, Any], ...]], tuple[Config, Config]] = field(default_factory=dict)
    # Other lookups of the run's own (see :func:`run_lookups`), by name.
    named: dict[str, dict[Any, Any]] = field(default_factory=dict)


# Inside :func:`one_lookup_per_folder` (a run asks for every file's config, up through
# every folder above it, three names a folder).
_RUN_LOOKUPS: ContextVar[_Lookups | None] = ContextVar("promptlint_config_lookups", default=None)


@contextmanager
def one_lookup_per_folder() -> Iterator[None]:
    """Within the block (one run: ``check_paths``), :func:`find_for` looks each folder up
    once, and :func:`find_for_file` resolves each folder once. Outside it, every call looks
    again (a long-lived process sees configs change)."""
    token = _RUN_LOOKUPS.set(_Lookups())
    try:
        yield
    finally:
        _RUN_LOOKUPS.reset(token)


def run_lookups(name: str) -> dict[Any, Any] | None:
    """A dict the current run (:func:`one_lookup_per_folder`) keeps under ``name``, for
    what it needs to look up once (include paths resolved); None outside a run."""
    run = _RUN_LOOKUPS.get()
    return None if run is None else run.named.setdefault(name, {})


def find_for(directory: Path) -> Config:
    """The nearest config at or above ``directory`` (promptlint.toml wins over pyproject.toml)."""
    run = _RUN_LOOKUPS.get()
    if run is None:
        return _find_for(directory)
    # Within a run, each folder is looked at once: a folder without a config of its own has
    # its parent's (a walk of 6,000 folders looked up through every folder above each, and
    # read the same pyproject.toml again for each folder below it).
    unknown: list[Path] = []
    folder = directory
    while folder not in run.configs:
        unknown.append(folder)
        found = _own_config(folder)
        if found is not None or folder.parent == folder:
            run.configs[folder] = found if found is not None else Config()
            unknown.pop()
            break
        folder = folder.parent
    for below in unknown:
        run.configs[below] = run.configs[folder]
    return run.configs[directory]


def find_for_file(path: str) -> Config:
    """The config of a file: the nearest at or above its real folder (its link target's,
    when it is a symlink)."""
    run = _RUN_LOOKUPS.get()
    if run is None or os.path.islink(path):
        return find_for(Path(path).resolve().parent)
    folder = os.path.dirname(path)
    if folder not in run.folders:
        run.folders[folder] = Path(folder or ".").resolve()
    return find_for(run.folders[folder])


def _find_for(directory: Path) -> Config:
    for folder in (directory, *directory.parents):
        config = _own_config(folder)
        if config is not None:
            return config
    return Config()


def _own_config(folder: Path) -> Config | None:
    """The config a folder holds itself (promptlint.toml wins over pyproject.toml), if any."""
    for name in ("promptlint.toml", ".promptlint.toml", "pyproject.toml"):
        candidate = folder / name
        if candidate.is_file():
            config = load_file(candidate)
            if config is not None:
                return config
    return None
