"""Variants of a prompt whose volatile parts differ and whose stable parts do not.

Without ``--vars`` a template is rendered from its IR as ``check`` renders it (literal text
copied, stable slots print their own name, every branch once, stable loops twice), with a
value per volatile unit and value set: clocks minutes apart (formatted with the slot's own
format string, so a day-precision date stays the same), distinct user names, session ids,
working directories, retrieved passages, memory notes and reordered tool lists. Value sets
0 and 1 are the samples ``check`` renders with (``promptlint.core.analysis``); later ones are
generated, deterministically.

With ``--vars FILE`` (a JSON or YAML list of objects, one per value set) a Jinja template is
rendered for real in jinja2's sandbox (``StrictUndefined``: a missing variable is an error);
other syntaxes substitute slots by name (sections and loops follow the value: a list repeats,
a falsy value skips). A string that reads as an ISO date-time becomes a datetime that can be
called, so ``{{ now().strftime("%H:%M") }}`` works with ``"now": "2026-11-30T14:03:27"``.
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import random
import stat
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from promptlint.core.analysis import _CLOCK_SAMPLES, _SAMPLES, Unit
from promptlint.core.ir import LOOP_ITEMS_DEPTH, RENDERED_BLOCKS, Block, Segment, Slot, Tag, Template, Text
from promptlint.loaders import _file_type

#: Minutes between the clocks of two consecutive value sets.
CLOCK_STEP_MINUTES = 7
MAX_VALUE_SETS = 51
_LOOP_BLOCKS = frozenset({"for", "each", "section"})
_CLOCK_BASE = dt.datetime.fromisoformat(_CLOCK_SAMPLES[None][0])
_FORMATS = {
    "microsecond": "%Y-%m-%d %H:%M:%S.%f",
    "millisecond": "%Y-%m-%d %H:%M:%S.%f",
    "second": "%Y-%m-%d %H:%M:%S",
    "minute": "%Y-%m-%d %H:%M",
    "hour": "%Y-%m-%d %H:00",
    "day": "%Y-%m-%d",
    "month": "%Y-%m",
    "year": "%Y",
}
_NAMES = ("Chen Wei", "Dana Kowalski", "Emeka Obi", "Fatima Zahra", "Gustavo Lima", "Hana Sato",
          "Ivan Petrov", "Jana Novak", "Kofi Mensah", "Lucia Romero")
_TOPICS = ("invoices are due 30 days after delivery", "API keys rotate every 90 days",
           "support hours are 8:00-18:00 CET", "returns need the original receipt",
           "staging deploys run every night", "the cache tier keeps sessions for an hour")
_TOOLS = ("search", "read_file", "write_file")


class VariantError(ValueError):
    """Values that cannot render the template (one line, naming the file and value set)."""


def clock(index: int) -> dt.datetime:
    """The clock of value set ``index``: check's first sample, then minutes apart."""
    return _CLOCK_BASE + dt.timedelta(minutes=CLOCK_STEP_MINUTES * index)


def format_clock(moment: dt.datetime, precision: str | None, format_spec: str | None) -> str:
    if format_spec and "%" in format_spec:
        try:
            return moment.strftime(format_spec)
        except ValueError:
            pass
    return moment.strftime(_FORMATS.get(precision or "second", _FORMATS["second"]))


def sample(kind: str, index: int, *, precision: str | None = None, format_spec: str | None = None,
           name: str = "value") -> str:
    """The value of a volatile part of ``kind`` in value set ``index``."""
    if kind == "timestamp":
        return format_clock(clock(index), precision, format_spec)
    known = _SAMPLES.get(kind)
    if known is not None and index < len(known):
        return known[index]
    rng = random.Random(f"promptlint-probe-{kind}-{index}")
    extra = index - 2
    if kind == "identity":
        lap = extra // len(_NAMES)
        return _NAMES[extra % len(_NAMES)] + (f" {lap + 1}" if lap else "")
    if kind == "session-id":
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))
    if kind == "environment":
        return f"/home/dev{index}/projects/service-{index}"
    if kind == "retrieval":
        first, second = rng.sample(_TOPICS, 2)
        return f"[1] Passage {index}: {first}.\n[2] Passage {index}: {second}."
    if kind == "memory":
        return f"- Note {index}: {rng.choice(_TOPICS)}.\n- Asked about item {index} last time."
    if kind == "tool-order":
        return ", ".join(tool_order(index, list(_TOOLS)))
    return f"{name}-{index}"


def tool_order(index: int, items: Sequence[str]) -> list[str]:
    """A different order of ``items`` for each value set (check's two first)."""
    orders = [list(p) for p in itertools.permutations(items)]
    if len(orders) < 2:
        return list(items)
    # Value set 0 is the order as written, 1 its rotation (check's samples); then the rest.
    first, second = list(items), list(items[-1:]) + list(items[:-1])
    rest = [o for o in orders if o not in (first, second)] or orders
    return first if index == 0 else second if index == 1 else rest[(index - 2) % len(rest)]


def unit_value(unit: Unit, index: int) -> str:
    vol = unit.volatility
    return sample(vol.kind, index, precision=vol.precision, format_spec=unit.expr.format_spec,
                  name=unit.expr.name)


def _branches(block: Block) -> tuple[list[list[Segment]], list[Tag | None]]:
    """A block's body split at ``else``/``elif``: the branches and the tag opening each."""
    branches: list[list[Segment]] = [[]]
    tags: list[Tag | None] = [None]
    for inner in block.body:
        if isinstance(inner, Tag) and inner.tag in ("else", "elif"):
            branches.append([])
            tags.append(inner)
        else:
            branches[-1].append(inner)
    return branches, tags


def render_ir(template: Template, units: Sequence[Unit], index: int,
              value: Callable[[Unit, int], str] = unit_value) -> str:
    """``template`` as ``check`` renders it, with value set ``index`` in its volatile units.

    A volatile loop over a tool list renders the same items in another order per value set;
    any other volatile loop or section renders items of its own per value set. A loop nested
    deeper than ``LOOP_ITEMS_DEPTH`` loops (or sections) renders its first item only.
    """
    by_id = {id(u.segment): u for u in units}
    out: list[str] = []

    def visit(segments: Sequence[Segment], label: str | None, loops: int = 0) -> None:
        deep = loops >= LOOP_ITEMS_DEPTH
        for seg in segments:
            unit = by_id.get(id(seg))
            if isinstance(seg, Text):
                out.append(seg.text)
            elif isinstance(seg, Tag):
                if unit is not None:
                    out.append(value(unit, index))
            elif isinstance(seg, Slot):
                if unit is not None:
                    out.append(value(unit, index))
                else:
                    out.append(f"{seg.expr.name}-{label}" if label else seg.expr.name)
            elif isinstance(seg, Block) and seg.kind in RENDERED_BLOCKS:
                inner = loops + (seg.kind in _LOOP_BLOCKS)
                if unit is not None and unit.volatility.kind == "tool-order" and seg.kind in _LOOP_BLOCKS:
                    for item in tool_order(index, ["one", "two", "three"])[: 1 if deep else None]:
                        visit(seg.body, item, inner)
                elif unit is not None:
                    items = ("one", "two") if seg.kind in _LOOP_BLOCKS and seg.kind != "section" else ("one",)
                    for item in items[: 1 if deep else None]:
                        visit(seg.body, f"{item}-{index}", inner)
                elif seg.kind in _LOOP_BLOCKS and seg.kind != "section":
                    for item in ("one", "two")[: 1 if deep else None]:
                        visit(seg.body, f"{label}-{item}" if label else item, inner)
                else:
                    visit(seg.body, label, loops)

    visit(template.segments, None)
    return "".join(out)


# ------------------------------------------------------------------------------------------
# --vars FILE


class _Clock(dt.datetime):
    """A datetime from a vars file: prints as written, and ``now()`` returns itself."""

    _written: str = ""

    def __call__(self, *args: object, **kwargs: object) -> _Clock:
        return self

    def __str__(self) -> str:
        return self._written or super().__str__()


def _as_clock(text: str) -> _Clock | None:
    if len(text) < 10 or not text[:4].isdigit() or text[4:5] != "-":
        return None
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    made = _Clock(moment.year, moment.month, moment.day, moment.hour, moment.minute, moment.second,
                  moment.microsecond, moment.tzinfo)
    made._written = text
    return made


def _values(value: Any) -> Any:
    if isinstance(value, str):
        return _as_clock(value) or value
    if isinstance(value, Mapping):
        return {str(k): _values(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_values(v) for v in value]
    return value


def load_vars(path: str) -> list[dict[str, Any]]:
    """The value sets of a ``--vars`` file: a JSON or YAML list of objects. A FIFO or a
    device is refused before it is opened, as a prompt file is: opening a FIFO blocked the
    probe for good, and reading /dev/zero filled memory until the machine gave out."""
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            raise VariantError(f"--vars {path}: not a regular file ({_file_type(mode)}), not read")
        text = Path(path).read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise VariantError(f"--vars {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise VariantError(f"--vars {path}: not UTF-8 text") from None
    if path.endswith((".yaml", ".yml")):
        try:
            import yaml  # type: ignore[import-untyped]
        except ImportError:
            raise VariantError(f"--vars {path}: YAML needs PyYAML (pip install pyyaml), or give JSON") from None
        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise VariantError(f"--vars {path}: malformed YAML: {str(exc).splitlines()[0]}") from None
        except ValueError as exc:  # a plain scalar that reads as a date but is none: 2026-13-45
            raise VariantError(f"--vars {path}: malformed YAML: {exc}") from None
        except RecursionError:
            raise VariantError(f"--vars {path}: malformed YAML: nested too deeply") from None
    else:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise VariantError(f"--vars {path}: malformed JSON: {exc.msg} (line {exc.lineno})") from None
        except RecursionError:
            raise VariantError(f"--vars {path}: malformed JSON: nested too deeply") from None
    if not isinstance(data, list) or not data or not all(isinstance(item, dict) for item in data):
        raise VariantError(f"--vars {path}: expected a list of objects, one per variant")
    if len(data) > MAX_VALUE_SETS:
        raise VariantError(f"--vars {path}: {len(data)} objects; at most {MAX_VALUE_SETS}")
    return [_plain(item, f"--vars {path}: object {index + 1}") for index, item in enumerate(data)]


#: How deep a value in a ``--vars`` file may nest (a prompt's variables are a few levels).
MAX_VARS_DEPTH = 64


def _plain(value: Any, where: str, depth: int = 0) -> Any:
    """A ``--vars`` value as JSON would have given it. YAML also makes dates (written back
    in ISO form, so they read as clocks as a JSON string does), sets and bytes, which no
    renderer prints, and aliases that contain themselves, which no renderer ends."""
    if depth > MAX_VARS_DEPTH:
        raise VariantError(f"{where}: nested more than {MAX_VARS_DEPTH} levels deep (or holds itself)")
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): _plain(v, where, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v, where, depth + 1) for v in value]
    raise VariantError(f"{where}: a {type(value).__name__} value; give strings, numbers, booleans, null, lists "
                       "and objects")


def render_jinja(source: str, values: Mapping[str, Any], where: str) -> str:
    """A Jinja template rendered for real in jinja2's sandbox with one value set."""
    from jinja2 import StrictUndefined, TemplateError
    from jinja2.sandbox import SandboxedEnvironment

    env = SandboxedEnvironment(undefined=StrictUndefined, extensions=["jinja2.ext.i18n", "jinja2.ext.loopcontrols"])
    env.install_null_translations()  # type: ignore[attr-defined]
    try:
        return env.from_string(source).render(_values(values))
    except TemplateError as exc:
        raise VariantError(f"{where}: {exc.message or type(exc).__name__}") from None
    except Exception as exc:  # noqa: BLE001 - user values can fail any way inside the template
        raise VariantError(f"{where}: {type(exc).__name__}: {exc}") from None


_MISSING = object()


def _lookup(path: Sequence[str], scopes: Sequence[Any]) -> Any:
    for scope in reversed(scopes):
        value: Any = scope
        for part in path:
            if isinstance(value, Mapping) and part in value:
                value = value[part]
            elif part in (".", "this") and value is scope:
                continue
            else:
                value = _MISSING
                break
        if value is not _MISSING:
            return value
    return _MISSING


def _text(value: Any, format_spec: str | None) -> str:
    if isinstance(value, dt.datetime):
        if format_spec and "%" in format_spec:
            return value.strftime(format_spec)
        return str(value)
    if format_spec:
        try:
            return format(value, format_spec)
        except (TypeError, ValueError):
            pass
    if isinstance(value, bool | int | float | str):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def render_by_name(template: Template, values: Mapping[str, Any], where: str) -> str:
    """A non-Jinja template with each slot replaced by the value of its name."""
    out: list[str] = []
    top = _values(values)

    def path_of(seg: Slot | Block) -> tuple[str, ...]:
        expr = seg.expr
        assert expr is not None
        return expr.path or (expr.source.strip(),)

    def visit(segments: Sequence[Segment], scopes: list[Any]) -> None:
        for seg in segments:
            if isinstance(seg, Text):
                out.append(seg.text)
            elif isinstance(seg, Slot):
                found = _lookup(path_of(seg), scopes)
                if found is _MISSING:
                    raise VariantError(f"{where}: no value for `{seg.expr.name}`")
                out.append(_text(found, seg.expr.format_spec))
            elif isinstance(seg, Block) and seg.kind in RENDERED_BLOCKS:
                branches, _ = _branches(seg)
                found = _lookup(path_of(seg), scopes) if seg.expr is not None else True
                truthy = bool(found) and found is not _MISSING
                if seg.kind in ("inverted", "unless"):
                    visit(branches[0] if not truthy else (branches[1] if len(branches) > 1 else []), scopes)
                elif seg.kind in _LOOP_BLOCKS and isinstance(found, list):
                    for item in found:
                        visit(branches[0], [*scopes, item if isinstance(item, Mapping) else {".": item, "this": item}])
                    if not found and len(branches) > 1:
                        visit(branches[-1], scopes)
                elif truthy:
                    visit(branches[0], [*scopes, found] if isinstance(found, Mapping) else scopes)
                elif len(branches) > 1:
                    visit(branches[-1], scopes)

    visit(template.segments, [top])
    return "".join(out)


def render_values(template: Template, values: Mapping[str, Any], where: str) -> str:
    """One value set from ``--vars``: Jinja in the sandbox, other syntaxes by slot name."""
    if template.syntax == "jinja":
        return render_jinja(template.source, values, where)
    return render_by_name(template, values, where)


def stable_split(texts: Sequence[str]) -> int:
    """Where the stable part of renderings ends: their common prefix, cut after a space or
    line break (so a block boundary never falls inside a word); all of it when they agree."""
    if not texts:
        return 0
    first = texts[0]
    common = len(first)
    for other in texts[1:]:
        limit = min(common, len(other))
        at = 0
        while at < limit and first[at] == other[at]:
            at += 1
        common = at
    if all(len(t) == common for t in texts):
        return common
    cut = max(first.rfind(" ", 0, common), first.rfind("\n", 0, common), first.rfind("\t", 0, common))
    return cut + 1 if cut >= 0 else 0
