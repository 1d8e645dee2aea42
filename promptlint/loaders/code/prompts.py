"""Which strings in code are prompts: the names, keys, roles and callees that say so, the
cheap sniff before a file is parsed, and text that reads as instructions wherever it stands."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence

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
# A line that starts with a rule ("Always …") is read from its own start: ``^\s*`` read on
# across every blank line after each line start (a string of 100,000 "\n " took minutes), and
# found the same words.
_INSTRUCTION_CUES = re.compile(
    r"(?im)\byou are\b|\byou (?:must|should|will|can|may)\b|^[^\S\n]*(?:always|never|do not|don't)\b|^#{1,3} \w|"
    r"\byour (?:role|task|job|goal)\b|\bas an? (?:ai|assistant|agent)\b|\brespond\b|\bassistant\b"
)
# Code that names any of these (in any case) may build a prompt; other files are skipped
# unparsed. They are looked for with ``bytes.find`` in the lowered bytes: a case-insensitive
# regex of them read a folder walk's 145 MB of code (19,800 files) in 4.4 s, against 0.5 s.
_SNIFF_WORDS = (b"prompt", b"instruction", b"preamble", b"persona", b"system")
_WORD_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$")
_SNIFF_TEXT = b"you are"
_SNIFF_TEXT_WORDS = re.compile(rb"\byou are\b")


def is_prompt_name(name: str, extra: Sequence[str] = ()) -> bool:
    """Whether a variable, attribute, function or key named ``name`` holds a system prompt."""
    if not name:
        return False
    if any(fnmatch.fnmatchcase(name.lower(), pattern.lower()) for pattern in extra):
        return True
    ws = words(name)
    # A number ends a word of the name: `prompt0`, `PROMPT2`, `prompt2Text`.
    ws += [w.rstrip("0123456789") for w in ws if w[-1].isdigit() and not w.isdigit()]
    return bool(PROMPT_WORDS.intersection(ws)) and not _NOT_PROMPT_WORDS.intersection(ws)


def is_sink_key(name: str, extra: Sequence[str] = ()) -> bool:
    """Whether a keyword argument or object key named ``name`` takes the system prompt."""
    flat = name.replace("-", "_").lower()
    return flat in SINK_KEYS or flat.replace("_", "") in SINK_KEYS or (
        bool(extra) and any(fnmatch.fnmatchcase(flat, p.lower()) for p in extra))


def may_hold_prompt(data: bytes, prompt_names: Sequence[str] = ()) -> bool:
    """The cheap sniff before parsing: whether code bytes hold a name that says prompt
    (``SYSTEM_PROMPT``, ``instructions``, a ``"system"`` role; not ``promptUser`` or
    ``systemctl``) or text addressed to a model (``You are``), in any case (ASCII)."""
    lowered = data.lower()  # ASCII letters only, as a bytes regex's IGNORECASE folds them
    first = lowered.find(_SNIFF_TEXT)
    if first >= 0 and _SNIFF_TEXT_WORDS.search(lowered, first):
        return True
    seen: set[bytes] = set()
    for sniffed in _SNIFF_WORDS:  # (no word's end is another's start: none overlap)
        at = lowered.find(sniffed)
        while at >= 0:
            start, end = at, at + len(sniffed)
            at = lowered.find(sniffed, end)
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
    return any(p.strip("*?[]").encode().lower() in lowered for p in prompt_names if p.strip("*?[]"))


def looks_like_instructions(text: str) -> bool:
    """Long multi-line text written to a model: the heuristic for prompts no name announces.
    Headings alone are no cue: a YAML or shell text's comments (`## Storage settings ##`,
    graphrag's generated settings.yaml) start as a Markdown heading does."""
    if len(text) < 200 or text.count("\n") < 3:
        return False
    cues = _INSTRUCTION_CUES.findall(text)
    return len(cues) >= 2 and any(not cue.startswith("#") for cue in cues)
