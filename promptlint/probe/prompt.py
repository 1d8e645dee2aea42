"""What a probe sends: PATH read as ``check`` reads it, rendered into value sets, per version.

PATH is a template (any syntax ``check`` reads), a request body (OpenAI Chat / Responses or
Anthropic Messages JSON; the last one of an array) or a folder holding an assembled workspace
(``[assembly] order`` or the workspace convention). Versions: ``as-is``, and with
``compare_fix`` ``fixed``, the text ``promptlint fix`` (``unsafe``: with the unsafe fixes)
would write, made in memory: nothing is written.

Each version renders the same value sets; with a warm-up, value set 0 fills the cache and
sets 1..N are measured (``--vars``: the first object is the warm-up).
"""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from promptlint.config import Config, ConfigError
from promptlint.core.analysis import find_units
from promptlint.core.ir import Template
from promptlint.loaders import LoadError, load_bytes, load_text, read_bytes
from promptlint.probe import models
from promptlint.probe.variants import MAX_VALUE_SETS, VariantError, clock, load_vars, render_ir
from promptlint.probe.variants import render_values, sample, stable_split
from promptlint.targets import blank_name

AS_IS, FIXED = "as-is", "fixed"


class PromptError(ValueError):
    """PATH cannot be probed (one line)."""


@dataclass(frozen=True)
class Variant:
    """One request's prompt: the system text split where its stable part ends, or a body."""

    version: str
    variant: int
    warmup: bool
    text: str = ""
    stable_end: int = 0
    body: dict[str, Any] | None = None

    @property
    def stable(self) -> str:
        return self.text[: self.stable_end]

    @property
    def volatile(self) -> str:
        return self.text[self.stable_end :]


@dataclass
class Prompt:
    """Every variant to send, in order, and what was learnt reading PATH."""

    path: str
    source: str  # "template", "body" or "workspace"
    syntax: str | None
    variants: list[Variant]
    versions: list[str]
    body_kind: str | None = None
    notes: list[str] = field(default_factory=list)
    fix_summary: list[str] = field(default_factory=list)
    # The files read besides PATH itself (a workspace's parts): a report never overwrites them.
    sources: list[str] = field(default_factory=list)


def refuse_blank(option: str, name: str | None) -> None:
    """PromptError for a file name that is empty or only whitespace and names no file, as an
    unset variable makes one (``--vars "$VARS"``): printed as it came, the line was
    ``--vars : Is a directory``, or named the prompt file and ``.`` for an empty ``--config``."""
    if blank_name(name):
        raise PromptError(f"{option} {name!r}: a blank file name")


def config_for(path: str, config_file: str | None) -> Config:
    """The config PATH is read with (a folder: the config that governs its files)."""
    if os.path.isdir(path):
        path = os.path.join(path, "_")
    return _config(path, config_file)


def _config(path: str, config_file: str | None) -> Config:
    from promptlint import config as config_mod
    from promptlint.api import config_for_file

    explicit = None
    if config_file is not None:
        try:
            explicit = config_mod.load_file(Path(config_file))
        except ConfigError as exc:
            raise PromptError(str(exc)) from None
        if explicit is None:
            raise PromptError(f"{config_file}: no [tool.promptlint] table")
    try:
        return config_for_file(path, explicit)
    except ConfigError as exc:
        raise PromptError(str(exc)) from None


def _load(path: str, config: Config, syntax: str | None) -> Template:
    from promptlint.api import _syntax_for

    try:
        return load_bytes(path, read_bytes(path, config.max_file_size), _syntax_for(path, config, syntax))
    except LoadError as exc:
        raise PromptError(f"{path}: {exc.describe()}") from None
    except OSError as exc:
        raise PromptError(f"{path}: {exc.strerror or exc}") from None


def _fixed_source(template: Template, config: Config, unsafe: bool, notes: list[str],
                  done: list[str] | None = None) -> str | None:
    """The source ``promptlint fix`` would write (in memory), or None when it writes nothing;
    what it moves and rewrites is added to ``done``."""
    from promptlint.fix import plan_fix

    plan = plan_fix(template, config, unsafe)
    if plan.problems:
        notes.append(f"{template.path}: the fix is not proved ({plan.problems[0]}); not probed")
        return None
    if not plan.changed:
        why = f" ({plan.not_fixable[0]})" if plan.not_fixable else ""
        notes.append(f"{template.path}: promptlint fix changes nothing{why}")
        return None
    if done is not None:
        done += [f"moved {m}" for m in plan.moved] + [f"rewrote {r}" for r in plan.rewritten]
    return plan.new_source


def _value_sets(count: int, warmup: bool, vars_file: str | None) -> tuple[list[Any], list[bool]]:
    """(value sets, which of them is a warm-up); an int stands for a generated set."""
    if vars_file is not None:
        sets: list[Any] = load_vars(vars_file)
        if warmup and len(sets) < 2:
            raise PromptError(f"--vars {vars_file}: the first object is the warm-up; give at least two "
                              "(or --no-warmup)")
    else:
        if not 1 <= count <= MAX_VALUE_SETS - 1:
            raise PromptError(f"--variants {count}: between 1 and {MAX_VALUE_SETS - 1}")
        sets = list(range(count + 1 if warmup else count))
    return sets, [warmup and i == 0 for i in range(len(sets))]


def _renderer(template: Template, config: Config, vars_file: str | None) -> Callable[[Any, int], str]:
    units = find_units(template, config.overrides)

    def render(values: Any, index: int) -> str:
        if isinstance(values, int):
            return render_ir(template, units, values)
        return render_values(template, values, f"--vars {vars_file}: object {index + 1}")

    return render


def _refuse_empty(path: str, sources: Sequence[str], texts: Sequence[str], vars_file: str | None) -> None:
    """PromptError when a request would hold no prompt (nothing but whitespace): an empty
    file, a template of comments only, a ``--vars`` object that fills nothing. It was sent
    and billed as if it were a prompt, and the report measured a cache of nothing, so a
    wrong path in a script or an unsaved file passed for a probe of the prompt."""
    if not any(source.strip() for source in sources):
        if len(sources) > 1:
            raise PromptError(f"{path}: every workspace file is empty or only whitespace: nothing to probe")
        raise PromptError(f"{path}: the file is empty: nothing to probe" if not "".join(sources) else
                          f"{path}: the file holds only whitespace: nothing to probe")
    empty = [i for i, text in enumerate(texts) if not text.strip()]
    if empty and vars_file is not None:
        raise PromptError(f"--vars {vars_file}: object {empty[0] + 1} renders {path} to an empty prompt "
                          "(only whitespace): nothing to probe")
    if empty:
        raise PromptError(f"{path}: renders to an empty prompt (only whitespace): nothing to probe")


def _unchanging(path: str, texts: Sequence[str], vars_file: str | None) -> list[str]:
    """A note when every value set renders the same prompt, as a request body's note says:
    the probe then measures one prompt resent, and ``--vars`` values that fill no slot (a
    ``{name}`` in a text file, which is not read as a placeholder) changed nothing, silently."""
    if len(texts) < 2 or len(set(texts)) > 1:
        return []
    if vars_file is not None:
        return [f"--vars {vars_file}: every object renders the same prompt: no value in it changes {path}"]
    return [f"{path}: no volatile part found; every variant is the same prompt"]


def _text_variants(version: str, texts: Sequence[str], warm: Sequence[bool]) -> list[Variant]:
    cut = stable_split(texts)
    return [Variant(version, i, w, text, cut) for i, (text, w) in enumerate(zip(texts, warm, strict=True))]


def build(
    path: str,
    *,
    variants: int = 4,
    warmup: bool = True,
    vars_file: str | None = None,
    compare_fix: bool = False,
    unsafe: bool = False,
    config_file: str | None = None,
    syntax: str | None = None,
) -> Prompt:
    """The variants to send for PATH. PromptError when it cannot be read or rendered."""
    if blank_name(path):
        raise PromptError(f"PATH {path!r}: a blank path: name a template, a request body or a folder")
    refuse_blank("--vars", vars_file)
    refuse_blank("--config", config_file)
    if not os.path.exists(path):
        raise PromptError(f"{path}: no such file or directory")
    if unsafe and not compare_fix:
        raise PromptError("--unsafe-fixes applies to the fixed version: add --compare-fix")
    try:
        sets, warm = _value_sets(variants, warmup, vars_file)
        if os.path.isdir(path):
            return _workspace(path, sets, warm, vars_file, compare_fix, unsafe, config_file)
        config = _config(path, config_file)
        template = _load(path, config, syntax)
        if template.syntax == "json":
            if vars_file is not None:
                raise PromptError("--vars applies to templates; a request body's literal values are generated")
            return _body(path, template, sets, warm, compare_fix)
        prompt = Prompt(path, "template", template.syntax, [], [AS_IS])
        render = _renderer(template, config, vars_file)
        texts = [render(v, i) for i, v in enumerate(sets)]
        _refuse_empty(path, [template.source], texts, vars_file)
        prompt.notes += _unchanging(path, texts, vars_file)
        prompt.variants = _text_variants(AS_IS, texts, warm)
        if compare_fix:
            fixed = _fixed_source(template, config, unsafe, prompt.notes, prompt.fix_summary)
            if fixed is not None:
                new = load_text(path, fixed, template.syntax)
                render_fixed = _renderer(new, config, vars_file)
                prompt.versions.append(FIXED)
                prompt.variants += _text_variants(FIXED, [render_fixed(v, i) for i, v in enumerate(sets)], warm)
        return prompt
    except VariantError as exc:
        raise PromptError(str(exc)) from None
    except LoadError as exc:
        raise PromptError(f"{path}: {exc.message}") from None


# ------------------------------------------------------------------------------------------
# Request bodies


def _new_literal(value: models.LiteralValue, written: str, index: int) -> str:
    """A value of the same shape as ``written`` for value set ``index``."""
    if value.kind == "timestamp":
        moment = clock(index)
        if "T" in written or written[:4].isdigit() and written[4:5] == "-":
            text = moment.strftime("%Y-%m-%dT%H:%M:%S" if "T" in written else "%Y-%m-%d %H:%M:%S")
            if value.precision == "minute":
                text = text[:16]
            return text + ("Z" if written.endswith("Z") else "")
        return moment.strftime("%H:%M:%S" if value.precision in ("second", "millisecond") else "%H:%M")
    fresh = sample("session-id", index + 2)
    if "-" in written and len(written) == 36:
        return fresh
    if "_" in written:
        head, _, tail = written.partition("_")
        return f"{head}_{fresh.replace('-', '')[: len(tail)]}"
    return fresh.replace("-", "")[: len(written)].ljust(len(written), "0")


def _vary(value: Any, index: int, changed: list[str], where: str) -> Any:
    if isinstance(value, str):
        found = models.literal_values(value)
        if not found:
            return value
        out, at = [], 0
        for literal in found:
            out.append(value[at : literal.start])
            out.append(_new_literal(literal, value[literal.start : literal.end], index))
            at = literal.end
            changed.append(f"{literal.label} at {where}")
        return "".join(out) + value[at:]
    if isinstance(value, list):
        return [_vary(v, index, changed, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        return {k: _vary(v, index, changed, f"{where}.{k}") for k, v in value.items()}
    return value


_PREFIX_KEYS = ("tools", "system", "instructions", "response_format", "text")


def _body(path: str, template: Template, sets: list[Any], warm: list[bool], compare_fix: bool) -> Prompt:
    try:
        body = models.load_bodies(template.source)[-1]
    except models.ModelError as exc:
        raise PromptError(f"{path}: {exc}") from None
    kind = models.body_kind(body)
    if not isinstance(body, dict) or kind is None:
        raise PromptError(f"{path}: not an OpenAI or Anthropic request body")
    prompt = Prompt(path, "body", "json", [], [AS_IS], body_kind=kind)
    changed: list[str] = []
    for i, values in enumerate(sets):
        sent = copy.deepcopy(body)
        for key in [k for k in _PREFIX_KEYS if k in sent]:
            sent[key] = _vary(sent[key], int(values), changed if i == 0 else [], key)
        messages = sent.get("messages") if kind != models.OPENAI_RESPONSES else sent.get("input")
        if isinstance(messages, list):
            for j, message in enumerate(messages):
                if isinstance(message, dict) and message.get("role") in ("system", "developer"):
                    messages[j] = _vary(message, int(values), changed if i == 0 else [], f"messages[{j}]")
        prompt.variants.append(Variant(AS_IS, i, warm[i], json.dumps(sent, ensure_ascii=False), 0, sent))
    if changed:
        prompt.notes.append(f"{path}: literal values varied per variant: {', '.join(dict.fromkeys(changed))}")
    else:
        prompt.notes.append(f"{path}: no literal per-request value in the body's prefix; every variant is the same body")
    if compare_fix:
        prompt.notes.append(f"{path}: promptlint fix does not rewrite request bodies; only the body as it is is probed")
    return prompt


# ------------------------------------------------------------------------------------------
# Assembled workspaces


@dataclass
class _Part:
    rel: str
    template: Template
    volatile: bool
    by_name: bool = False  # changes often by its name alone (MEMORY.md): no slot says how


def _workspace(path: str, sets: list[Any], warm: list[bool], vars_file: str | None, compare_fix: bool,
               unsafe: bool, config_file: str | None) -> Prompt:
    from promptlint import config as config_mod
    from promptlint.rules.assembly_order import (  # type: ignore[import-not-found]  # mapped from rules/
        CONVENTION,
        _expand,
        _volatility,
    )

    base = Path(path).resolve()
    if config_file is not None:
        folder_config = config_for(path, config_file)
    else:
        try:
            folder_config = config_mod.find_for(base)
        except ConfigError as exc:
            raise PromptError(str(exc)) from None
    order = list(folder_config.assembly.get("order") or [])
    if order and folder_config.path is not None:
        files = _expand(folder_config.path.parent.resolve(), order)
        configured = True
    else:
        files = _expand(base, list(CONVENTION))
        configured = False
    if sum(1 for rel, _ in files if "/" not in rel) < 2 and not configured:
        raise PromptError(f"{path}: a folder is probed as an assembled workspace, and it has fewer than two "
                          f"workspace files ({', '.join(CONVENTION[:4])}, …) and no [assembly] order")
    parts: list[_Part] = []
    for rel, file in files:
        config = _config(str(file), config_file)
        template = _load(str(file), config, None)
        has_units = bool(find_units(template, config.overrides))
        volatile = _volatility(rel, None, folder_config) is not None or has_units
        parts.append(_Part(rel, template, volatile, volatile and not has_units))
    prompt = Prompt(path, "workspace", None, [], [AS_IS], sources=[p.template.path for p in parts])
    prompt.notes.append("workspace: " + " + ".join(p.rel + (" (changes often)" if p.volatile else "") for p in parts))
    texts = _assemble(parts, sets, vars_file, config_file)
    _refuse_empty(path, [p.template.source for p in parts], texts, vars_file)
    prompt.notes += _unchanging(path, texts, vars_file)
    prompt.variants = _text_variants(AS_IS, texts, warm)
    if not compare_fix:
        return prompt
    fixed_parts: list[_Part] = []
    for part in parts:
        config = _config(part.template.path, config_file)
        done: list[str] = []
        new = _fixed_source(part.template, config, unsafe, [], done) if find_units(part.template, config.overrides) \
            else None
        if new is not None:
            prompt.fix_summary.append(f"{part.rel}: " + "; ".join(done))
        fixed_parts.append(_Part(part.rel, load_text(part.template.path, new, part.template.syntax)
                                 if new is not None else part.template, part.volatile, part.by_name))
    reordered = [p for p in fixed_parts if not p.volatile] + [p for p in fixed_parts if p.volatile]
    if [p.rel for p in reordered] != [p.rel for p in parts]:
        prompt.fix_summary.append("order: " + ", ".join(p.rel for p in reordered))
        if not configured:
            prompt.notes.append("the workspace has no [assembly] order: promptlint fix rewrites `order` only once "
                                "config sets one; the fixed version is the order it would write")
    if not prompt.fix_summary:
        prompt.notes.append(f"{path}: promptlint fix changes nothing in this workspace")
        return prompt
    prompt.versions.append(FIXED)
    prompt.variants += _text_variants(FIXED, _assemble(reordered, sets, vars_file, config_file), warm)
    return prompt


def _assemble(parts: Sequence[_Part], sets: Sequence[Any], vars_file: str | None,
              config_file: str | None) -> list[str]:
    """The assembled system prompt per value set: the files in order, a blank line apart.
    A file that changes often by its name alone gets a different first line per value set."""
    texts = []
    renderers = [_renderer(p.template, _config(p.template.path, config_file), vars_file) for p in parts]
    for index, values in enumerate(sets):
        pieces = []
        for part, render in zip(parts, renderers, strict=True):
            text = render(values, index)
            if part.by_name:
                note = sample("memory", int(values) if isinstance(values, int) else index)
                text = note + "\n" + text
            pieces.append(text.strip("\n"))
        texts.append("\n\n".join(pieces) + "\n")
    return texts
