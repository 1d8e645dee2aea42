"""``promptlint fix``: move volatile parts to the tail, provably without losing a word.

The safe fix only moves text. For every volatile unit that has stable content after
it, the smallest self-contained piece of the file that carries it is taken: the whole
line(s) it stands on, grown to its paragraph (consecutive non-blank lines) or its
Markdown list item (the item line and its indented continuation), and to the whole
``{% if %}``/``{% for %}`` block or Mustache section it stands in. These pieces go to
the end of the file in their original order, after one blank line.

Nothing is written before the rewrite is proved (black's habit): the new text parses
with the same loader; rendering old and new with the same random values yields the
same multiset of non-empty lines, for several value sets; the source keeps every word
and gains none; planning again on the result changes nothing; and the stable prefix,
in tokens, grew. Writing is atomic (temporary file in the same folder, fsync,
``os.replace``) and keeps the file's mode, BOM, line endings and final newline; a file
that changed on disk since it was read is left alone.

Unsafe fixes (``unsafe=True``) change words: a clock's format literal finer than a day
is coarsened to day precision, and an unsorted Jinja loop over a tool list gets
``| sort(attribute="name")`` (``| dictsort`` for ``k, v in x.items()``).
"""

from __future__ import annotations

import datetime as _dt
import difflib
import hashlib
import os
import random
import re
import stat
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptlint.config import Config
from promptlint.core.analysis import Analysis, Unit, analyze, find_units
from promptlint.core.carriers import Carrier, covered_lines, move_plan, unit_label
from promptlint.core.fixability import is_fixable
from promptlint.core.ir import RENDERED_BLOCKS, Block, Segment, Slot, Tag, Template, Text
from promptlint.core.layout import Layout
from promptlint.core.loopsort import sort_edit
from promptlint.core.volatility import PRECISIONS, Overrides, precision_of_format
from promptlint.loaders import LoadError, load_text

# How many random value sets the rendering proof uses.
PROOF_ROUNDS = 4

_FINER_THAN_DAY = frozenset(PRECISIONS[: PRECISIONS.index("day")])
_NO_GAIN = "the stable prefix did not grow"
_MORE_BEFORE = "more volatile values would stand before stable text"


# ---------------------------------------------------------------------------------------
# Results


@dataclass
class FixPlan:
    """What ``plan_fix`` would do to one template, and whether it is proved."""

    template: Template
    new_source: str
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    stable_before: int = 0
    stable_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    # With a provider in config: the cache model's cost per 1,000 calls of the file as it
    # is and as rewritten, and what they were computed for.
    cost_before: float | None = None
    cost_after: float | None = None
    cost_basis: str | None = None

    @property
    def changed(self) -> bool:
        """True when a proved rewrite differs from the source."""
        return self.new_source != self.template.source and not self.problems


@dataclass
class FixResult:
    """The outcome of fixing one file."""

    path: str
    changed: bool = False
    written: bool = False
    diff: str = ""
    stable_before: int = 0
    stable_after: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    moved: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    cost_before: float | None = None
    cost_after: float | None = None
    cost_basis: str | None = None
    # The file could not be read or parsed (exit 2); nothing else is set then.
    error: str | None = None


@dataclass
class FixReport:
    files: list[FixResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        return bool(self.errors) or any(r.error for r in self.files)


class FileChangedError(Exception):
    """The file on disk is no longer the one that was read and fixed."""


# ---------------------------------------------------------------------------------------
# Drafts: the moves the core planned, applied (``promptlint.core.carriers`` plans them)


@dataclass
class _Draft:
    source: str
    moved: list[str] = field(default_factory=list)
    rewritten: list[str] = field(default_factory=list)
    not_fixable: list[str] = field(default_factory=list)
    baseline: str = ""  # the source after unsafe rewrites, before moves


def _assemble(template: Template, layout: Layout, carriers: list[Carrier]) -> str:
    """The source with the carriers removed and appended, in order, after one blank line."""
    newline = "\r\n" if "\r\n" in template.source else template.newline
    moved = covered_lines(carriers)
    kept: list[str] = []
    removed_here = False
    for i, line in enumerate(layout.lines):
        if i in moved:
            removed_here = True
            continue
        if layout.blank[i] and removed_here and (not kept or not kept[-1].strip()):
            continue  # no double blank line (or leading one) where text was taken out
        if not layout.blank[i]:
            removed_here = False
        kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    out = "".join(kept)
    if out:
        if not out.endswith("\n"):
            out += newline
        out += newline
    previous: Carrier | None = None
    for carrier in carriers:
        text = "".join(layout.lines[carrier.first : carrier.last + 1])
        if not text.endswith("\n"):
            text += newline
        if previous is not None and not (_is_item(layout, previous) and _is_item(layout, carrier)):
            out += newline
        out += text
        previous = carrier
    if not template.source.endswith("\n"):
        out = out.removesuffix("\n").removesuffix("\r")
    return out


def _is_item(layout: Layout, carrier: Carrier) -> bool:
    return layout.list_item(carrier.first) == (carrier.first, carrier.last)


_UNSAFE_ROUNDS = 4
_MOVE_ROUNDS = 5


def _draft(template: Template, overrides: Overrides | None, unsafe: bool) -> _Draft:
    """Plan without proving, to a fixed point (as ruff re-runs its fixes): a move can
    change the units around it (a continuation line that followed a moved block now
    joins the list item above), so the plan is applied again until nothing changes.
    A plan that does not settle is left for the proof to refuse as not idempotent."""
    draft = _draft_once(template, overrides, unsafe)
    for _round in range(_MOVE_ROUNDS):
        try:
            current = _reload(template, draft.source)
        except LoadError:
            break  # the proof reports the parse failure
        again = _draft_once(current, overrides, unsafe)
        if again.source == draft.source:
            break
        draft.source = again.source
        draft.moved += again.moved
        draft.rewritten += again.rewritten
        draft.not_fixable = again.not_fixable
    return draft


def _draft_once(template: Template, overrides: Overrides | None, unsafe: bool) -> _Draft:
    """One round of planning: unsafe rewrites first (with unsafe), then the moves."""
    draft = _Draft(template.source, baseline=template.source)
    current = template
    # Unsafe rewrites run to a fixed point: sorting a tool loop uncovers the values inside
    # it (a clock in the loop body), which the next round can coarsen.
    for _round in range(_UNSAFE_ROUNDS if unsafe else 0):
        edits, rewritten, refused = _unsafe_edits(current, find_units(current, overrides))
        draft.not_fixable += [r for r in refused if r not in draft.not_fixable]
        if not edits:
            break
        source = current.source
        for start, end, text in sorted(edits, reverse=True):
            source = source[:start] + text + source[end:]
        try:
            current = _reload(template, source)
        except LoadError as exc:
            draft.not_fixable.append(f"unsafe rewrites skipped: the result does not parse ({exc.message})")
            break
        draft.rewritten += rewritten
        draft.source = draft.baseline = source
    units = find_units(current, overrides)
    carriers, moving = move_plan(current, units, draft.not_fixable, unsafe)
    if moving:
        layout = Layout(current)
        draft.source = _assemble(current, layout, carriers)
        for carrier in carriers:
            if id(carrier) in moving:
                values = ", ".join(f"{u.volatility.kind} {unit_label(u)}" for u in carrier.units)
                draft.moved.append(f"{layout.describe(carrier.first, carrier.last)} ({values}) → end of file")
    return draft


def _reload(template: Template, source: str) -> Template:
    new = load_text(template.path, source, template.syntax)
    new.has_bom = template.has_bom
    new.newline = template.newline
    return new


# ---------------------------------------------------------------------------------------
# Unsafe rewrites


def day_format(fmt: str) -> str:
    """A day-precision version of a strftime or moment format: time-of-day parts dropped."""
    if "%" in fmt:
        time_part = r"%[-_0^#]?[HIMSfpTXRrcsklzZ]"
        trimmed = re.sub(rf"[\s,T@:.-]*{time_part}(?:[\s:.,]*{time_part})*", "", fmt).strip(" ,T@:.-")
        if trimmed and precision_of_format(trimmed) in ("day",):
            return trimmed
        return "%Y-%m-%d"
    return "YYYY-MM-DD"


def _unsafe_edits(template: Template, units: list[Unit]) -> tuple[list[tuple[int, int, str]], list[str], list[str]]:
    edits: list[tuple[int, int, str]] = []
    done: list[str] = []
    refused: list[str] = []
    source = template.source
    for unit in units:
        seg = unit.segment
        line = template.position(seg.span.start).line
        vol = unit.volatility
        if isinstance(seg, Slot) and vol.kind == "timestamp" and vol.precision in _FINER_THAN_DAY:
            fmt = unit.expr.format_spec
            if not fmt or precision_of_format(fmt) != vol.precision:
                refused.append(f"line {line}: timestamp {unit_label(unit)}: not fixable (unsafe): no format string to "
                               "coarsen; only format literals are rewritten")
                continue
            text = source[seg.span.start : seg.span.end]
            new_fmt = day_format(fmt)
            candidates = [f":{fmt}}}"] if template.syntax == "format" else [q + fmt + q for q in ('"', "'", "`")]
            for candidate in candidates:
                at = text.rfind(candidate)
                if at >= 0:
                    start = seg.span.start + at + 1
                    edits.append((start, start + len(fmt), new_fmt))
                    done.append(f"line {line}: clock format {fmt!r} → {new_fmt!r} (unsafe)")
                    break
            else:
                refused.append(f"line {line}: timestamp {unit_label(unit)}: not fixable (unsafe): the format is not a "
                               "plain literal in the template")
        elif isinstance(seg, Block) and vol.kind == "tool-order":
            edit, reason = sort_edit(template, seg)
            if edit is not None:
                edits.append(edit)
                done.append(f"line {line}: loop over `{unit.expr.source}` sorted (unsafe)")
            else:
                refused.append(f"line {line}: tool-order {unit_label(unit)}: not fixable (unsafe): {reason}")
    return edits, done, refused


# ---------------------------------------------------------------------------------------
# The proof


class _Value:
    """A template value for the rendering proof: prints its own path, has every
    attribute, iterates to two items (none when falsy), and can be called."""

    unsafe_callable = False
    alters_data = False
    jinja_pass_arg = None

    def __init__(self, path: str, salt: str, truthy: bool = True) -> None:
        self._path = path
        self._salt = salt
        self._truthy = truthy

    def __str__(self) -> str:
        return f"{self._path}~{self._salt}"

    def __getattr__(self, name: str) -> _Value:
        if name.startswith("_"):
            raise AttributeError(name)
        return _Value(f"{self._path}.{name}", self._salt, self._truthy)

    def __getitem__(self, key: object) -> _Value:
        if isinstance(key, str):
            return self.__getattr__(key)
        return _Value(f"{self._path}[{key}]", self._salt, self._truthy)

    def __call__(self, *args: object, **kwargs: object) -> _Value:
        return _Value(f"{self._path}()", self._salt, self._truthy)

    def __iter__(self) -> Iterator[_Value]:
        return iter([self[0], self[1]] if self._truthy else [])

    def __len__(self) -> int:
        return 2 if self._truthy else 0

    def __bool__(self) -> bool:
        return self._truthy

    def __lt__(self, other: object) -> bool:
        return str(self) < str(other)

    def __gt__(self, other: object) -> bool:
        return str(self) > str(other)


class _Clock(_dt.datetime):
    """``now`` for the proof: a fixed datetime that can also be called (``now()``)."""

    def __call__(self, *args: object, **kwargs: object) -> _Clock:
        return self


_CLOCK_NAMES = frozenset({"now", "utcnow", "today", "datetime", "current_time", "current_datetime", "clock"})


def _jinja_values(names: Iterable[str], round_: int, salt: str, abstract_clock: bool) -> dict[str, Any]:
    rng = random.Random(f"{salt}-{round_}")
    values: dict[str, Any] = {}
    for name in sorted(names):
        truthy = True if round_ == 0 else (False if round_ == 1 else rng.random() < 0.6)
        if name in _CLOCK_NAMES and not abstract_clock:
            values[name] = _Clock(2026, 11, 30 - round_ % 3, 14, 3 + round_, 27 + round_)
        else:
            values[name] = _Value(name, f"{salt}{round_}", truthy)
    return values


def _render_jinja(sources: Sequence[str], rounds: int, salt: str, abstract_clock: bool) -> list[list[str]] | None:
    """Each source rendered with the same values per round; None if one cannot render."""
    from jinja2 import meta

    from promptlint.loaders.jinja import environment

    env = environment()
    try:
        names: set[str] = set()
        compiled = []
        for source in sources:
            names |= meta.find_undeclared_variables(env.parse(source))
            compiled.append(env.from_string(source))
        return [
            [t.render(_jinja_values(names, r, salt, abstract_clock)) for r in range(rounds)] for t in compiled
        ]
    except Exception:  # noqa: BLE001 - generated values cannot satisfy every expression
        return None


def render_ir(template: Template, round_: int, salt: str = "", abstract_clock: bool = False) -> str:
    """Render a template from its IR with random values: the same value for the same
    slot source, every loop twice (or never), every condition by one random draw per
    expression. Used for syntaxes without a renderer here (Mustache, format, ``${}``).
    ``abstract_clock`` keys slots without their format string (to prove unsafe rewrites
    of clock formats changed nothing else)."""
    rng_cache: dict[str, bool] = {}

    def truth(key: str) -> bool:
        if round_ == 0:
            return True
        if key not in rng_cache:
            rng_cache[key] = random.Random(f"{salt}-{round_}-{key}").random() < 0.6
        return rng_cache[key]

    out: list[str] = []

    def visit(segments: list[Segment], scope: str) -> None:
        for seg in segments:
            if isinstance(seg, Text):
                out.append(seg.text)
            elif isinstance(seg, Slot):
                key = seg.expr.source
                if abstract_clock and seg.expr.format_spec:
                    key = key.replace(seg.expr.format_spec, "")
                out.append(f"{key}{scope}~{salt}{round_}")
            elif isinstance(seg, Block):
                if seg.kind not in RENDERED_BLOCKS:
                    continue
                key = seg.expr.source if seg.expr is not None else seg.kind
                branches: list[list[Segment]] = [[]]
                conditions: list[str] = [key]
                for inner in seg.body:
                    if isinstance(inner, Tag) and inner.tag in ("else", "elif"):
                        branches.append([])
                        conditions.append(inner.expr.source if inner.expr is not None else "")
                    else:
                        branches[-1].append(inner)
                if seg.kind in ("for", "each", "section"):
                    if truth(key):
                        for i in range(2):
                            visit(branches[0], f"{scope}[{key}:{i}]")
                    elif len(branches) > 1:
                        visit(branches[-1], scope)
                elif seg.kind in ("inverted", "unless"):
                    visit(branches[0] if not truth(key) else (branches[1] if len(branches) > 1 else []), scope)
                elif seg.kind == "if":
                    for condition, branch in zip(conditions, branches):
                        if not condition or truth(condition):
                            visit(branch, scope)
                            break
                else:
                    visit(seg.body, scope)

    visit(template.segments, "")
    return "".join(out)


def _lines(text: str) -> Counter[str]:
    return Counter(line.rstrip("\r") for line in text.split("\n") if line.strip())


def _volatile_before_stable(analysis: Analysis) -> int:
    """How many volatile units have stable, non-blank text rendered after them."""
    return sum(1 for u in analysis.units if analysis.stable_text[analysis.offset_of(u.segment) :].strip())


def prove(
    original: Template, new_source: str, unsafe: bool = False, config: Config | None = None
) -> list[str]:
    """Reasons the rewrite of ``original`` into ``new_source`` is not safe (empty: proved)."""
    config = config or Config()
    problems: list[str] = []
    try:
        new = _reload(original, new_source)
    except LoadError as exc:
        return [f"the rewritten template does not parse: {exc.message}"]
    baseline = _draft(original, config.overrides, unsafe).baseline if unsafe else original.source

    lost = Counter(baseline.split()) - Counter(new_source.split())
    added = Counter(new_source.split()) - Counter(baseline.split())
    if lost:
        problems.append(f"words lost: {', '.join(repr(w) for w in sorted(lost)[:5])}")
    if added:
        problems.append(f"words added: {', '.join(repr(w) for w in sorted(added)[:5])}")

    # Random values, seeded by the text itself so that a refusal can be reproduced.
    salt = hashlib.sha256((original.source + "\0" + new_source).encode()).hexdigest()[:8]
    rendered = None
    if original.syntax == "jinja":
        rendered = _render_jinja([original.source, new_source], PROOF_ROUNDS, salt, abstract_clock=unsafe)
    if rendered is None:
        # Values the template cannot take (or not Jinja): render from the IR instead.
        rendered = [[render_ir(t, r, salt, unsafe) for r in range(PROOF_ROUNDS)] for t in (original, new)]
    for round_, (before, after) in enumerate(zip(*rendered)):
        if _lines(before) != _lines(after):
            missing = _lines(before) - _lines(after)
            extra = _lines(after) - _lines(before)
            detail = f"missing {next(iter(missing))!r}" if missing else f"new {next(iter(extra))!r}"
            problems.append(f"rendered lines differ with value set {round_ + 1} ({detail})")
            break

    again = _draft(new, config.overrides, unsafe)
    if again.source != new_source:
        problems.append("not idempotent: fixing the result would change it again")

    from promptlint.core import tokens

    encoding = tokens.encoding_name_for_model(config.target_model)
    before_analysis = analyze(original, encoding, config.overrides)
    after_analysis = analyze(new, encoding, config.overrides)
    moved = new_source != baseline
    if after_analysis.stable_prefix_tokens < before_analysis.stable_prefix_tokens or (
        moved and after_analysis.stable_prefix_tokens == before_analysis.stable_prefix_tokens
    ):
        problems.append(
            f"{_NO_GAIN} ({before_analysis.stable_prefix_tokens} → "
            f"{after_analysis.stable_prefix_tokens} tokens)"
        )
    if _volatile_before_stable(after_analysis) > _volatile_before_stable(before_analysis):
        problems.append(f"{_MORE_BEFORE} than before")
    return problems


# ---------------------------------------------------------------------------------------
# The public engine


def plan_fix(template: Template, config: Config | None = None, unsafe: bool = False) -> FixPlan:
    """The proved rewrite of one template (``plan.changed``), or the reasons there is none."""
    from promptlint.core import tokens

    config = config or Config()
    encoding = tokens.encoding_name_for_model(config.target_model)
    draft = _draft(template, config.overrides, unsafe)
    before = analyze(template, encoding, config.overrides)
    plan = FixPlan(
        template=template,
        new_source=draft.source,
        moved=draft.moved,
        rewritten=draft.rewritten,
        not_fixable=draft.not_fixable,
        stable_before=before.stable_prefix_tokens,
        stable_after=before.stable_prefix_tokens,
        tokens_before=before.tokens,
        tokens_after=before.tokens,
    )
    if draft.source == template.source:
        return plan
    plan.problems = prove(template, draft.source, unsafe, config)
    no_gain = [p for p in plan.problems if p.startswith((_NO_GAIN, _MORE_BEFORE))]
    if no_gain and len(no_gain) == len(plan.problems):
        # Safe but useless (a moved unit takes the stable text before it along, past a value
        # that cannot move): not a failure, and nothing is written.
        plan.not_fixable.append(f"nothing moved: {no_gain[0]}")
        plan.new_source, plan.moved, plan.rewritten, plan.problems = template.source, [], [], []
        return plan
    if not plan.problems:
        after = analyze(_reload(template, draft.source), encoding, config.overrides)
        plan.stable_after, plan.tokens_after = after.stable_prefix_tokens, after.tokens
        if config.provider:
            _price(plan, config, before, after)
    return plan


def _price(plan: FixPlan, config: Config, before: Analysis, after: Analysis) -> None:
    """The provider's cost per 1,000 calls of the file before and after the rewrite."""
    from promptlint import cachecost

    assert config.provider is not None
    body_model = cachecost.body_model_of(plan.template)
    now = cachecost.compute(before, config.provider, config.model, provider_overrides=config.providers or None,
                            price_overrides=config.prices or None, body_model=body_model)
    fixed = cachecost.compute(after, config.provider, config.model, provider_overrides=config.providers or None,
                              price_overrides=config.prices or None, body_model=body_model)
    plan.cost_before, plan.cost_after = now["cost_per_1k_calls"], fixed["cost_per_1k_calls"]
    dated = f", prices as of {now['prices_as_of']}" if now["prices_as_of"] else ""
    plan.cost_basis = f"{now['provider']} {now['model']}{dated}"
    if fixed["cached_tokens_per_call"] == 0:
        plan.cost_basis += f"; still nothing cached: {fixed['tokens_per_call']:,} tokens is below the provider minimum"


def unified_diff(path: str, old: str, new: str) -> str:
    """A unified diff of two sources (line endings shown as ``\\n``)."""
    def split(text: str) -> list[str]:
        lines = [line.replace("\r\n", "\n") for line in re.split(r"(?<=\n)", text) if line]
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n\\ No newline at end of file\n"
        return lines

    shown = path.lstrip("/")  # `a/tmp/x.j2`, as git writes an absolute path's diff
    return "".join(difflib.unified_diff(split(old), split(new), f"a/{shown}", f"b/{shown}"))


def write_atomic(path: str | os.PathLike[str], new_data: str | bytes, expected_original_bytes: bytes) -> None:
    """Replace a file's content atomically, if it still holds ``expected_original_bytes``.

    A temporary file in the same folder is written, fsynced, given the original's mode
    and renamed over the original (``os.replace``), so a crash at any point leaves
    either the old or the new file. Raises :class:`FileChangedError` when the file on
    disk is not what was read; nothing is written then.
    """
    target = os.path.realpath(path)
    data = new_data.encode("utf-8") if isinstance(new_data, str) else new_data
    if Path(target).read_bytes() != expected_original_bytes:
        raise FileChangedError(f"{path}: changed on disk since it was read; not overwritten")
    mode = stat.S_IMODE(os.stat(target).st_mode)
    folder, name = os.path.split(target)
    # Not a `with` block: the file must outlive it until os.replace (delete=False).
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115
        dir=folder, prefix=f".{name}.", suffix=".promptlint-fix", delete=False
    )
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, mode)
        if Path(target).read_bytes() != expected_original_bytes:
            raise FileChangedError(f"{path}: changed on disk since it was read; not overwritten")
        os.replace(handle.name, target)
    except BaseException:
        # Interrupted or refused before the rename: the original is untouched; drop the copy.
        try:
            os.unlink(handle.name)
        except FileNotFoundError:
            pass
        raise
    try:  # make the rename itself durable where the platform allows it
        dir_fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
    finally:
        os.close(dir_fd)


def fix_file(
    path: str,
    config: Config | None = None,
    syntax: str | None = None,
    *,
    unsafe: bool = False,
    write: bool = True,
    model: str | None = None,
    provider: str | None = None,
) -> FixResult:
    """Plan, prove and (with ``write``) apply the fix to one file."""
    from promptlint.core import tokens
    from promptlint.api import _describe, _syntax_for, config_for_file
    from promptlint.config import ConfigError
    from promptlint.loaders import load_bytes, read_bytes

    try:
        original_bytes = read_bytes(path)
        config = config_for_file(path, config, model=model, provider=provider)
        template = load_bytes(path, original_bytes, _syntax_for(path, config, syntax))
        plan = plan_fix(template, config, unsafe)
    except ConfigError as exc:
        return FixResult(path, error=str(exc))
    except LoadError as exc:
        return FixResult(path, error=_describe(exc))
    except tokens.TokenizerError as exc:
        return FixResult(path, error=str(exc))
    result = FixResult(
        path=path,
        changed=plan.changed,
        stable_before=plan.stable_before,
        stable_after=plan.stable_after,
        tokens_before=plan.tokens_before,
        tokens_after=plan.tokens_after,
        cost_before=plan.cost_before,
        cost_after=plan.cost_after,
        cost_basis=plan.cost_basis,
        moved=plan.moved if plan.changed else [],
        rewritten=plan.rewritten if plan.changed else [],
        not_fixable=plan.not_fixable,
        problems=plan.problems,
    )
    if not plan.changed:
        return result
    result.diff = unified_diff(path, template.source, plan.new_source)
    if write:
        data = (b"\xef\xbb\xbf" if template.has_bom else b"") + plan.new_source.encode("utf-8")
        try:
            write_atomic(path, data, original_bytes)
        except FileChangedError as exc:
            result.problems.append(str(exc))
        except OSError as exc:
            result.problems.append(f"{path}: could not write ({exc.strerror or exc})")
        else:
            result.written = True
    return result


def fix_paths(
    paths: Sequence[str],
    *,
    config_file: str | None = None,
    syntax: str | None = None,
    unsafe: bool = False,
    write: bool = True,
    model: str | None = None,
    provider: str | None = None,
) -> FixReport:
    """Fix files and folders (folders are walked as ``promptlint check`` walks them)."""
    from promptlint.api import collect

    report = FixReport()
    files, explicit, report.errors = collect(paths, config_file)
    for path in files:
        report.files.append(
            fix_file(path, explicit, syntax, unsafe=unsafe, write=write, model=model, provider=provider)
        )
    report.files.extend(_fix_assembly_orders(files, explicit, write))
    return report


def _fix_assembly_orders(files: Sequence[str], explicit: Config | None, write: bool) -> list[FixResult]:
    """Rewrite `[assembly] order` in each config that governs the fixed files (PC106)."""
    from promptlint.api import _config_for
    from promptlint.config import ConfigError
    from promptlint.fix_assembly import plan_order_fix
    from promptlint.project import Project

    configs: dict[Path, Config] = {}
    for path in files:
        try:
            config = _config_for(path, explicit)
        except ConfigError:
            continue
        if config.path is not None and config.assembly.get("order"):
            configs.setdefault(config.path.resolve(), config)
    results = []
    project = Project()
    for config_path, config in configs.items():
        shown = os.path.relpath(config_path) if not os.path.relpath(config_path).startswith("..") else str(config_path)
        plan = plan_order_fix(config, project)
        if plan is None:
            continue
        result = FixResult(
            shown,
            stable_before=plan.stable_before,
            stable_after=plan.stable_after if plan.new_text is not None else plan.stable_before,
            tokens_before=plan.tokens,
            tokens_after=plan.tokens,
            not_fixable=plan.not_fixable,
        )
        if plan.new_text is None or plan.new_text == plan.old_text:
            results.append(result)
            continue
        result.changed, result.moved = True, plan.moved
        result.diff = unified_diff(shown, plan.old_text, plan.new_text)
        if write:
            try:
                write_atomic(config_path, plan.new_text, plan.old_text.encode("utf-8"))
            except FileChangedError as exc:
                result.problems.append(str(exc))
            except OSError as exc:
                result.problems.append(f"{shown}: could not write ({exc.strerror or exc})")
            else:
                result.written = True
        results.append(result)
    return results


__all__ = [
    "FileChangedError",
    "FixPlan",
    "FixReport",
    "FixResult",
    "day_format",
    "fix_file",
    "fix_paths",
    "is_fixable",
    "plan_fix",
    "prove",
    "render_ir",
    "unified_diff",
    "write_atomic",
]
