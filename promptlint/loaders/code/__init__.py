"""Prompts built in code: Python (``ast``) and TypeScript/JavaScript (tree-sitter).

Most cache breakers live in the code that assembles a system prompt, not in template
files: f-strings and template literals, ``.format``, sections appended to a list and
joined, a clock helper called from the middle of an "Environment" section. The readers
in this package evaluate such code *symbolically*: string literals become
:class:`~promptlint.core.ir.Text`, every interpolated expression a
:class:`~promptlint.core.ir.Slot` whose :class:`~promptlint.core.ir.Expr` says what it
reads and calls (``datetime.now().strftime("%H:%M")``, ``user.display_name``), and a
loop that appends to the prompt a ``for`` :class:`~promptlint.core.ir.Block` over its
iterable, so that ``core.volatility.classify`` judges code as it judges templates.

Which strings are prompts (:func:`is_prompt_name`, and the readers' sinks):

* assigned to, or returned from a function named with, a word that says prompt:
  ``prompt``, ``system``, ``instructions``, ``preamble``, ``persona`` (``SYSTEM_PROMPT``,
  ``build_system_prompt``, ``getInstructions``) or a name of ``[code] prompt-names``;
* passed as ``system=``/``instructions=``/``system_prompt=`` (``system:`` and
  ``systemPrompt:`` in an object), or as the content of a ``{"role": "system"}`` (or
  ``"developer"``) message, a ``SystemMessage(...)``, a ``("system", ...)`` pair;
* long multi-line text with instruction-like content (``You are``, ``Always``, ``Never``,
  Markdown headings), wherever it stands, except in logging calls and user turns.

A value used only in a logging call or in a user message is not read at all: it is not in
the system prompt. Names are followed through local assignments and through helper
functions of the same module, two calls deep; a builder decorated with
``functools.cache``/``lru_cache``, and a module-level constant computed at import, are
pinned per process (their per-request values become per-session).

One file may build several prompts. The file's template holds each as a template of its
own in ``Template.prompts`` (source order; a prompt whose pieces all belong to a larger one
is merged into it), and their segments one after the other as its own segments. The check
analyses each prompt on its own (a clock at the end of one prompt is at the end of *that*
prompt) and reports one result for the file: its findings, and its tokens and stable
prefix as the sums over its prompts.
"""

from __future__ import annotations

import fnmatch
import re
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace

from promptlint.core.ir import Block, Expr, Segment, Slot, Span, Tag, Template, Text
from promptlint.core.volatility import words

# Words of a name that say its value is (part of) a system prompt.
PROMPT_WORDS = frozenset({"prompt", "prompts", "system", "sysprompt", "systemprompt", "instructions",
                          "instruction", "preamble", "persona"})
# Words that say a prompt-ish name holds something else (`user_prompt` is the user turn,
# `prompt_tokens` a count, `system_time` a clock).
_NOT_PROMPT_WORDS = frozenset({
    "user", "human", "tokens", "token", "count", "counts", "id", "ids", "path", "paths", "file", "files", "dir",
    "url", "version", "hash", "key", "keys", "len", "length", "type", "kind", "cache", "cached", "model",
    "name", "names", "time", "date", "info", "status", "platform", "config", "settings", "error", "errors",
    "response", "output", "result", "results", "reply", "answer", "completion", "log", "logs", "metrics",
    "stats", "size", "limit", "max", "min", "budget", "registry", "loader", "lines_count", "exit", "call",
    "calls", "fingerprint", "digest", "role", "roles", "font", "color", "theme", "clock", "locale",
})
# Keyword arguments and object keys whose value is sent as the system prompt.
SINK_KEYS = frozenset({"system", "instructions", "system_prompt", "systemprompt", "system_message",
                       "systemmessage", "developer_prompt", "preamble", "persona", "systeminstruction",
                       "system_instruction"})
SYSTEM_ROLES = frozenset({"system", "developer"})
# Callees whose arguments never reach the prompt (a timestamp in a log line is no cache breaker).
LOGGING_CALLEES = frozenset({"print", "debug", "info", "warning", "warn", "error", "exception", "critical", "log",
                             "trace", "fatal", "echo", "secho", "assert", "write", "emit", "sleep", "track",
                             "capture_message", "set_tag", "set_attribute", "add_event", "table", "dir"})
# Message constructors whose content is the user's or the model's turn, not the system prompt.
OTHER_TURN_CALLEES = frozenset({"HumanMessage", "AIMessage", "UserMessage", "AssistantMessage", "ToolMessage",
                                "FunctionMessage", "ChatMessage"})
SYSTEM_CALLEES = frozenset({"SystemMessage", "SystemMessagePromptTemplate", "SystemPromptTemplate",
                            "DeveloperMessage"})
DEDENT_CALLEES = frozenset({"dedent", "cleandoc", "stripIndent", "stripIndents", "oneLine", "outdent"})
# How deep helper functions of the same module are followed from a prompt.
MAX_HELPER_DEPTH = 2
# A prompt needs this many non-blank literal characters (`system = "linux"` is no prompt).
MIN_PROMPT_TEXT = 12
_INSTRUCTION_CUES = re.compile(
    r"(?im)\byou are\b|\byou (?:must|should|will|can|may)\b|^\s*(?:always|never|do not|don't)\b|^#{1,3} \w|"
    r"\byour (?:role|task|job|goal)\b|\bas an? (?:ai|assistant|agent)\b|\brespond\b|\bassistant\b"
)
# Code that names any of these may build a prompt; other files are skipped unparsed.
_SNIFF_WORDS = re.compile(rb"(?i)prompt|instruction|preamble|persona|system")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_SNIFF_TEXT = re.compile(rb"(?i)\byou are\b")


def is_prompt_name(name: str, extra: Sequence[str] = ()) -> bool:
    """Whether a variable, attribute, function or key named ``name`` holds a system prompt."""
    if not name:
        return False
    if any(fnmatch.fnmatchcase(name.lower(), pattern.lower()) for pattern in extra):
        return True
    ws = words(name)
    return bool(PROMPT_WORDS.intersection(ws)) and not _NOT_PROMPT_WORDS.intersection(ws)


def is_sink_key(name: str, extra: Sequence[str] = ()) -> bool:
    """Whether a keyword argument or object key named ``name`` takes the system prompt."""
    flat = name.replace("-", "_").lower()
    return flat in SINK_KEYS or flat.replace("_", "") in SINK_KEYS or (
        bool(extra) and any(fnmatch.fnmatchcase(flat, p.lower()) for p in extra))


def may_hold_prompt(data: bytes, prompt_names: Sequence[str] = ()) -> bool:
    """The cheap sniff before parsing: whether code bytes hold a name that says prompt
    (``SYSTEM_PROMPT``, ``instructions``, a ``"system"`` role; not ``promptUser`` or
    ``systemctl``) or text addressed to a model (``You are``)."""
    if _SNIFF_TEXT.search(data):
        return True
    seen: set[bytes] = set()
    for match in _SNIFF_WORDS.finditer(data):
        start, end = match.start(), match.end()
        while start > 0 and data[start - 1] in _WORD_BYTES:
            start -= 1
        while end < len(data) and data[end] in _WORD_BYTES:
            end += 1
        token = data[start:end]
        if token in seen:
            continue
        seen.add(token)
        word = token.decode("ascii", errors="replace")
        if is_prompt_name(word) or is_sink_key(word):
            return True
    return any(re.search(re.escape(p.strip("*?[]")).encode(), data, re.IGNORECASE) for p in prompt_names if p.strip("*?[]"))


def looks_like_instructions(text: str) -> bool:
    """Long multi-line text written to a model: the heuristic for prompts no name announces."""
    return len(text) >= 200 and text.count("\n") >= 3 and len(_INSTRUCTION_CUES.findall(text)) >= 2


# ---------------------------------------------------------------------------------------
# Symbolic values


@dataclass
class Str:
    """A string value: the segments it renders to."""

    parts: list[Segment]


@dataclass
class Each:
    """Items added to a list inside a loop or a branch."""

    kind: str  # "for" or "if"
    open: Span
    items: list[Item]
    expr: Expr | None = None
    loop_vars: tuple[str, ...] = ()
    sorted: bool = False


Item = Str | Each


@dataclass
class Lst:
    """A list of strings (sections, lines) in the order they were added."""

    items: list[Item]


@dataclass
class Opaque:
    """Any other value, known by the expression that computes it."""

    expr: Expr


Value = Str | Lst | Opaque


def text_value(span: Span, text: str) -> Str:
    return Str([Text(span, text)])


def literal_text(value: Value | None) -> str | None:
    """The text of a value made of literal text only (a constant), else None."""
    if isinstance(value, Str) and all(isinstance(p, Text) for p in value.parts):
        return "".join(p.text for p in value.parts if isinstance(p, Text))
    return None


def segments_of(value: Value | None, span: Span, source: str = "") -> list[Segment]:
    """What a value renders to where it is interpolated at ``span``."""
    if value is None:
        return []
    if isinstance(value, Str):
        return list(value.parts)
    if isinstance(value, Lst):
        return [Slot(span, Expr(source=source or "list", path=("list",), paths=(("list",),)))]
    return [Slot(span, value.expr)]


def concat(left: Value | None, right: Value | None, left_span: Span, right_span: Span) -> Value:
    if isinstance(left, Lst) and isinstance(right, Lst):
        return Lst(left.items + right.items)
    return Str(segments_of(left, left_span) + segments_of(right, right_span))


def item_segments(item: Item, separator: Text | None) -> list[Segment]:
    if isinstance(item, Str):
        return list(item.parts)
    body: list[Segment] = []
    for inner in item.items:
        body.extend(item_segments(inner, separator))
        if separator is not None and isinstance(inner, Str):
            body.append(separator)
    return [Block(item.kind, item.open, None, body, expr=item.expr, loop_vars=item.loop_vars, sorted=item.sorted)]


def join(separator: Text | None, items: Lst) -> Str:
    """``sep.join(items)``: the items' segments with the separator between them."""
    parts: list[Segment] = []
    previous: Item | None = None
    for item in items.items:
        if previous is not None and separator is not None and isinstance(previous, Str):
            parts.append(separator)
        parts.extend(item_segments(item, separator))
        previous = item
    return Str(parts)


def as_list(value: Value | None, span: Span, source: str) -> Lst:
    if isinstance(value, Lst):
        return value
    if isinstance(value, Str):
        return Lst([value])
    if value is None:
        return Lst([])
    return Lst([Str([Slot(span, value.expr)])])


def transform_text(value: Str, how: Callable[[str], str]) -> Str:
    """Apply a text transformation (dedent, strip) to the literal parts of a value, with
    each slot or block standing in as one placeholder character."""
    marker = "\x00"
    texts: list[str] = []
    for part in value.parts:
        texts.append(part.text.replace(marker, " ") if isinstance(part, Text) else marker)
    out = how("".join(texts)).split(marker)
    holes = [p for p in value.parts if not isinstance(p, Text)]
    if len(out) != len(holes) + 1:
        return value
    # The transformed text between two holes is given to the first Text there (others empty).
    result: list[Segment] = []
    chunk = 0
    pending: list[Text] = []

    def flush() -> None:
        nonlocal chunk
        new = out[chunk]
        if pending:
            result.append(Text(pending[0].span, new))
            result.extend(Text(t.span, "") for t in pending[1:])
        elif new:
            result.append(Text(Span(0, 0), new))
        pending.clear()
        chunk += 1

    for part in value.parts:
        if isinstance(part, Text):
            pending.append(part)
        else:
            flush()
            result.append(part)
    flush()
    return Str(result)


def dedent(value: Str) -> Str:
    return transform_text(value, textwrap.dedent)


def cleandoc(value: Str) -> Str:
    import inspect

    return transform_text(value, inspect.cleandoc)


def strip(value: Str, how: str) -> Str:
    return transform_text(value, getattr(str, how))


def wrap_tail(value: Value, since: list[Segment] | list[Item], each: Each) -> Value:
    """Replace what was added to a value after ``since`` (its earlier contents) by ``each``
    (a loop or branch), which takes the added pieces as its items."""
    if isinstance(value, Str):
        each.items = [Str(list(value.parts[len(since):]))]
        return Str(list(value.parts[: len(since)]) + item_segments(each, None))
    assert isinstance(value, Lst)
    each.items = list(value.items[len(since):])
    return Lst(list(value.items[: len(since)]) + [each])


def grown_since(value: Value | None, before: list[Segment] | list[Item] | None) -> bool:
    """Whether ``value`` is ``before`` with more added at its end."""
    if before is None or value is None:
        return False
    current: list[Segment] | list[Item]
    if isinstance(value, Str):
        current = value.parts
    elif isinstance(value, Lst):
        current = value.items
    else:
        return False
    return len(current) > len(before) and all(a is b for a, b in zip(current, before))


def contents(value: Value | None) -> list[Segment] | list[Item] | None:
    if isinstance(value, Str):
        return list(value.parts)
    if isinstance(value, Lst):
        return list(value.items)
    return None


# ---------------------------------------------------------------------------------------
# Expression facts: what code-specific calls mean, in the words classify reads


@dataclass
class Facts:
    """What an expression reads and calls, collected while walking it."""

    paths: list[tuple[str, ...]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)
    literals: list[str] = field(default_factory=list)
    format_spec: str | None = None
    pinned: str | None = None

    def merge(self, expr: Expr) -> None:
        # Unique, and bounded: numeric code that rebinds names from each other
        # (`x = f(x, y); y = g(x, y)`) would otherwise double what it carries each time.
        for name, found in ((self.paths, expr.paths), (self.calls, expr.calls), (self.literals, expr.literals)):
            for item in found:
                if item not in name and len(name) < _MAX_FACTS:
                    name.append(item)  # type: ignore[arg-type]
        if self.format_spec is None:
            self.format_spec = expr.format_spec
        self.pinned = self.pinned or expr.pinned

    def expr(self, source: str) -> Expr:
        return Expr(source=" ".join(source.split()) if "\n" in source else source,
                    path=self.paths[0] if self.paths else (), paths=tuple(self.paths),
                    calls=tuple(self.calls), format_spec=self.format_spec, literals=tuple(self.literals),
                    pinned=self.pinned)


_MAX_FACTS = 32


# `toISOString().slice(0, N)` and `isoformat()[:N]`: what the first N characters print.
_ISO_PREFIX_FORMATS = {4: "%Y", 7: "%Y-%m", 10: "%Y-%m-%d", 13: "%Y-%m-%dT%H", 16: "%Y-%m-%dT%H:%M",
                       19: "%Y-%m-%dT%H:%M:%S"}
ISO_METHODS = frozenset({"toisostring", "isoformat", "tojson", "now", "utcnow", "today", "date", "datetime"})


def iso_prefix_format(length: int) -> str | None:
    """The strftime pattern that prints what the first ``length`` characters of an ISO
    timestamp hold (``.slice(0, 10)`` keeps the date)."""
    if length in _ISO_PREFIX_FORMATS:
        return _ISO_PREFIX_FORMATS[length]
    best = max((n for n in _ISO_PREFIX_FORMATS if n <= length), default=None)
    return _ISO_PREFIX_FORMATS[best] if best else None


def intl_format(options: dict[str, str]) -> str | None:
    """The strftime pattern equivalent to ``Intl.DateTimeFormat``/``toLocale*String`` options."""
    style = options.get("timeStyle")
    if style:
        return "%H:%M" if style == "short" else "%H:%M:%S"
    if "fractionalSecondDigits" in options:
        return "%H:%M:%S.%f"
    for key, fmt in (("second", "%H:%M:%S"), ("minute", "%H:%M"), ("hour", "%H")):
        if key in options:
            return fmt
    if options.get("dateStyle") or {"day", "weekday"} & set(options):
        return "%Y-%m-%d"
    if "month" in options:
        return "%Y-%m"
    if "year" in options:
        return "%Y"
    return None


def date_fns_format(fmt: str) -> str:
    """date-fns / Luxon tokens (``yyyy-MM-dd``) in moment's spelling, which classify reads."""
    return fmt.replace("yyyy", "YYYY").replace("yy", "YY").replace("dd", "DD").replace("EEEE", "dddd")


_SHELL_COMMANDS: tuple[tuple[str, str], ...] = (
    (r"^git\s+(?:status|log|show|ls-files|stash)", "git_status"),
    (r"^git\s+diff", "git_diff"),
    (r"^git\s+(?:branch|rev-parse\s+--abbrev-ref|symbolic-ref|remote)", "git_branch"),
    (r"^git\b", "git_status"),
    (r"^(?:ls|find|tree|fd|dir)\b", "directory_listing"),
    (r"^pwd\b", "cwd"),
    (r"^(?:uname|sw_vers|lsb_release|ver)\b", "platform"),
    (r"^hostname\b", "hostname"),
    (r"^(?:whoami|id\b)", "getuser"),
    (r"^date\b", "now"),
)
SHELL_CALLEES = frozenset({"run", "check_output", "getoutput", "getstatusoutput", "Popen", "popen", "call",
                           "check_call", "execSync", "exec", "execFile", "execFileSync", "spawn", "spawnSync",
                           "execa", "execaSync", "execaCommand", "execaCommandSync", "system", "shell", "sh", "$"})
SHELL_BASES = frozenset({"subprocess", "os", "child_process", "cp", "childProcess", "Bun", "Deno", "shell", "sh", ""})


def shell_command_name(command: str) -> str:
    """What a shell command's output is, as a name classify knows (``git status`` → git_status)."""
    command = command.strip()
    for pattern, name in _SHELL_COMMANDS:
        if re.search(pattern, command):
            return name
    return "shell_output"


FILE_READ_CALLEES = frozenset({"read_text", "read_bytes", "readFileSync", "readFile", "read_file", "readfile",
                               "load_file", "open", "readTextFile", "readTextFileSync", "file", "text"})


def file_name_path(name: str) -> tuple[str, ...]:
    """The words a file read says about its content (``memory/MEMORY.md`` → memory, MEMORY)."""
    parts = [p for p in re.split(r"[/\\]", name) if p and p not in (".", "..")]
    stems = [re.sub(r"\.[A-Za-z0-9]+$", "", p) for p in parts[-2:]]
    return tuple(s for s in stems if s)


# ---------------------------------------------------------------------------------------
# Collected prompts → templates


@dataclass
class Prompt:
    """One prompt found in a code file: where it is built and what it renders."""

    name: str
    at: int  # source offset of the sink (for source order)
    segments: list[Segment]
    statement: tuple[int, int]  # first and last line of the statement that builds it
    named: bool = True  # found by a name or a sink, not by the instruction-text heuristic


def _leaves(segments: Iterable[Segment]) -> Iterable[Segment]:
    for seg in segments:
        if isinstance(seg, Block):
            yield seg
            yield from _leaves(seg.body)
        else:
            yield seg


def _key(seg: Segment) -> tuple[str, int, int]:
    span = seg.open if isinstance(seg, Block) else seg.span
    return (type(seg).__name__, span.start, span.end)


def literal_size(segments: Iterable[Segment]) -> int:
    return sum(len("".join(s.text.split())) for s in _leaves(segments) if isinstance(s, Text))


def _merge_slots(into: list[Segment], other: list[Segment]) -> None:
    """Every expression seen for a slot is a candidate: judged by the worst (a helper's own
    parameter name, and what a caller passes for it)."""
    by_span: dict[tuple[int, int], list[Slot]] = {}
    for seg in _leaves(other):
        if isinstance(seg, Slot):
            by_span.setdefault((seg.span.start, seg.span.end), []).append(seg)
    for seg in _leaves(into):
        if not isinstance(seg, Slot):
            continue
        for twin in by_span.get((seg.span.start, seg.span.end), []):
            options = list(seg.alias_options) or [seg.alias_of or seg.expr]
            for expr in (twin.alias_options or (twin.alias_of or twin.expr,)):
                if expr not in options:
                    options.append(expr)
            if len(options) > 1:
                seg.alias_options = tuple(options)


def dedupe(prompts: list[Prompt]) -> list[Prompt]:
    """Prompts in source order, without those whose pieces all belong to a larger one."""
    kept: list[tuple[Prompt, set[tuple[str, int, int]]]] = []
    for prompt in sorted(prompts, key=lambda p: (-len(list(_leaves(p.segments))), not p.named, p.at)):
        keys = {_key(s) for s in _leaves(prompt.segments) if not (isinstance(s, Text) and s.span.start == s.span.end)}
        owner = next((k for k, kk in kept if keys <= kk), None)
        if owner is not None:
            _merge_slots(owner.segments, prompt.segments)
            continue
        kept.append((prompt, keys))
    return sorted((p for p, _ in kept), key=lambda p: p.at)


def build_template(path: str, syntax: str, source: str, prompts: list[Prompt]) -> Template:
    """The file's template: one sub-template per prompt, and all of them in order."""
    found = [p for p in dedupe(prompts) if literal_size(p.segments) >= MIN_PROMPT_TEXT]
    parts = [Template(path, syntax, source, p.segments, name=p.name) for p in found]
    segments: list[Segment] = []
    for n, part in enumerate(parts):
        if n:
            segments.append(Text(Span(0, 0), "\n\n"))
        segments.extend(part.segments)
    return Template(path, syntax, source, segments, prompts=parts, statements=[p.statement for p in found])


def load_code(loader: Callable[..., Template], path: str, text: str, prompt_names: tuple[str, ...]) -> Template:
    """Run a code reader (``python.load`` or a TypeScript/JavaScript one) with config's names.

    Source code is open-ended: a construct a reader gets wrong must cost that one file (a
    load error, a warning in a folder walk), never the run."""
    from promptlint.loaders.base import LoadError

    try:
        return loader(path, text, prompt_names)
    except (LoadError, RecursionError):
        raise
    except MemoryError:
        raise LoadError("too large to evaluate its prompts") from None
    except Exception as exc:  # noqa: BLE001 - see the docstring
        raise LoadError(f"could not read the prompts it builds ({type(exc).__name__}: {exc}); "
                        "please report this file's construct") from None


__all__ = [
    "Each", "Facts", "Lst", "Opaque", "Prompt", "Str", "Tag", "build_template", "concat", "is_prompt_name",
    "is_sink_key", "join", "looks_like_instructions", "may_hold_prompt", "replace",
]
