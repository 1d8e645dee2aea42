"""How volatile is the value that fills a slot or drives a loop?

The judgement rests on evidence the template itself carries, strongest first:
user configuration, the functions called and the format string they are given
(``now().strftime("%H:%M")``), then the words of the variable path
(``user.name``, ``CURRENT_DATETIME``, ``workPath``). Unknown names are stable per
deploy. Every :class:`Volatility` says what it rests on, so a user can correct it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from promptlint.core.ir import Expr

KINDS: tuple[str, ...] = (
    "timestamp",
    "identity",
    "session-id",
    "environment",
    "retrieval",
    "memory",
    "tool-order",
)
FREQUENCIES: tuple[str, ...] = ("per-request", "per-session", "per-day", "per-deploy")

# Kinds whose values differ between users or sessions even when they are stable within
# one: nothing after them is ever shared across users (DESIGN.md severity policy).
CROSS_USER_KINDS = frozenset({"identity", "session-id", "retrieval", "memory", "tool-order"})


@dataclass(frozen=True)
class Volatility:
    kind: str
    frequency: str
    evidence: str
    precision: str | None = None
    # "high" when read from calls/format strings/config, "medium" from a name.
    confidence: str = "medium"
    assumed: str | None = None
    # A list the host application registers in a fixed order (skills, extensions): its
    # order changes only when the set does, so it is a warning at most.
    fixed_order: bool = False

    @property
    def varies_per_request_or_user(self) -> bool:
        """True for the error class of the severity policy."""
        if self.fixed_order:
            return False
        return self.frequency == "per-request" or self.kind in CROSS_USER_KINDS


# ---------------------------------------------------------------------------------------
# Words of a name


def words(name: str) -> list[str]:
    """``CURRENT_DATETIME`` → [current, datetime]; ``workPath`` → [work, path]."""
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w.lower() for w in re.split(r"[^A-Za-z0-9]+", name) if w]


# Precision ranks, finest first.
PRECISIONS: tuple[str, ...] = ("microsecond", "millisecond", "second", "minute", "hour", "day", "month", "year")

_STRFTIME = {
    "f": "microsecond",
    "S": "second", "T": "second", "X": "second", "c": "second", "s": "second", "r": "second",
    "M": "minute", "R": "minute",
    "H": "hour", "I": "hour", "p": "hour", "k": "hour", "l": "hour",
    "d": "day", "j": "day", "a": "day", "A": "day", "x": "day", "F": "day", "D": "day", "e": "day",
    "u": "day", "w": "day",
    "b": "month", "B": "month", "m": "month", "h": "month", "U": "month", "W": "month", "V": "month",
    "Y": "year", "y": "year", "G": "year", "C": "year",
}
# moment / dayjs / luxon tokens, longest first so "LLLL" is read before "L".
_MOMENT = [
    ("SSS", "millisecond"), ("LTS", "second"), ("LLLL", "minute"), ("llll", "minute"),
    ("LLL", "minute"), ("lll", "minute"), ("LT", "minute"), ("LL", "day"), ("ll", "day"),
    ("ss", "second"), ("mm", "minute"), ("HH", "hour"), ("hh", "hour"), ("kk", "hour"),
    ("dddd", "day"), ("ddd", "day"), ("DD", "day"), ("Do", "day"), ("X", "second"), ("x", "millisecond"),
    ("s", "second"), ("m", "minute"), ("H", "hour"), ("h", "hour"), ("A", "hour"), ("a", "hour"),
    ("D", "day"), ("L", "day"), ("l", "day"), ("MM", "month"), ("M", "month"), ("YYYY", "year"), ("YY", "year"),
]
# Methods whose output precision is fixed.
_TIME_METHODS = {
    "isoformat": "microsecond",
    "toisostring": "millisecond",
    "tojson": "millisecond",
    "tolocalestring": "second",
    "tolocaletimestring": "second",
    "totimestring": "second",
    "toutcstring": "second",
    "tostring": "second",
    "ctime": "second",
    "asctime": "second",
    "gettime": "millisecond",
    "valueof": "millisecond",
    "time": "microsecond",
    "time_ns": "microsecond",
    "perf_counter": "microsecond",
    "tolocaledatestring": "day",
    "todatestring": "day",
}
_CLOCK_CALLS = frozenset({"now", "utcnow", "today", "date", "datetime", "moment", "dayjs", "time", "time_ns", "localtime", "gmtime", "fromtimestamp"})


def _finest(found: Iterable[str]) -> str | None:
    ranked = sorted(set(found), key=PRECISIONS.index)
    return ranked[0] if ranked else None


def precision_of_format(fmt: str) -> str | None:
    """The finest unit a strftime or moment-style format string prints."""
    if "%" in fmt:
        return _finest(_STRFTIME[c] for c in re.findall(r"%[-_0^#]?([A-Za-z])", fmt) if c in _STRFTIME)
    stripped = re.sub(r"\[[^\]]*\]", "", fmt)  # moment's [literal] escapes
    found = []
    for token, precision in _MOMENT:
        if token in stripped:
            found.append(precision)
            stripped = stripped.replace(token, " ")
    # Words like "Today" contain moment letters; only short, token-shaped strings count.
    prose = re.sub(r"\[[^\]]*\]", "", fmt).replace("dddd", "").replace("llll", "")
    if not found or re.search(r"[a-z]{4,}", prose):
        return None
    return _finest(found)


def _frequency_for(precision: str) -> str:
    if precision in ("microsecond", "millisecond", "second", "minute"):
        return "per-request"
    if precision == "hour":
        return "per-session"
    if precision == "day":
        return "per-day"
    return "per-deploy"


# ---------------------------------------------------------------------------------------
# Name tables: word → (kind, frequency)

_NAME_WORDS: dict[str, tuple[str, str]] = {}


def _register(kind: str, frequency: str, names: str) -> None:
    for name in names.split():
        _NAME_WORDS[name] = (kind, frequency)


_register("timestamp", "per-request", "now time datetime timestamp clock ts utcnow currenttime currentdatetime")
_register("timestamp", "per-day", "date today weekday dow yesterday tomorrow day")
_register("identity", "per-session", "user username userid customer owner caller member person human profile "
          "preferences prefs timezone tz locale location city room area account nickname "
          "firstname lastname fullname displayname recipient sender operator patient student client "
          "guest useremail signedin")
_register("session-id", "per-request", "request requestid trace traceid span nonce uuid guid seed random rand "
          "step turn counter iteration attempt correlation idempotency messageid")
_register("session-id", "per-session", "session sessionid conversationid chatid threadid runid")
_register("environment", "per-session", "cwd pwd workdir workspace workpath projectpath rootdir repopath os platform "
          "shell hostname arch machine env environment editor ide terminal home homedir isgitrepo gitrepo "
          "branch gitbranch nodeversion pythonversion sysinfo sandbox sandboxed contextfiles "
          # folder trees and listings: stable within a session, different per project
          "filetree dirlisting directorylisting directorystructure")
_register("environment", "per-request", "gitstatus gitdiff recentfiles openfiles opentabs "
          "activefile currentfile clipboard cursorposition visiblefiles")
_register("retrieval", "per-request", "context contexts documents docs doc chunks chunk passages snippets retrieved "
          "retrieval rag search searchresults results sources citations knowledge kb similar query question "
          "userquery userinput usermessage input articles hits matches entities entityindex devices "
          "states")
_register("memory", "per-request", "memory memories mem notes journal diary facts recall summary summaries "
          "history chathistory conversation transcript scratchpad heartbeat activity recentactivity "
          "recap learnings reflections dailynotes")
_register("tool-order", "per-session", "tools tool toollist availabletools toolsummary tooldescriptions functions "
          "extensions plugins mcp mcpservers servers skills capabilities integrations addons")

# Calls of prompt builders in code (promptlint.loaders.code names a subprocess's output
# `shell_output` and keeps the callee's own name otherwise).
_register("session-id", "per-request", "uuid1 uuid4 nanoid ulid cuid")
_register("environment", "per-session", "getcwd gethostname getuser uname")
_register("environment", "per-request", "shelloutput commandoutput")
_register("retrieval", "per-request", "retriever retrieve")

# Multi-word names read as one, before the single words (`working_directory` → cwd).
_PHRASES: list[tuple[tuple[str, ...], str]] = [
    (("working", "dir"), "cwd"), (("working", "directory"), "cwd"), (("current", "directory"), "cwd"),
    (("work", "path"), "workpath"), (("workspace", "path"), "workspace"), (("project", "path"), "projectpath"),
    (("git", "status"), "gitstatus"), (("git", "diff"), "gitdiff"), (("recent", "files"), "recentfiles"), (("open", "files"), "openfiles"),
    (("file", "tree"), "filetree"), (("directory", "listing"), "directorylisting"),
    (("folder", "structure"), "filetree"), (("directory", "structure"), "filetree"), (("project", "structure"), "filetree"),
    (("file", "structure"), "filetree"), (("folder", "tree"), "filetree"), (("directory", "tree"), "filetree"),
    (("project", "tree"), "filetree"), (("dir", "tree"), "filetree"), (("repo", "tree"), "filetree"),
    (("repository", "tree"), "filetree"), (("workspace", "tree"), "filetree"),
    (("system", "info"), "sysinfo"), (("system", "information"), "sysinfo"), (("os", "info"), "sysinfo"),
    (("platform", "info"), "sysinfo"), (("env", "info"), "sysinfo"), (("environment", "info"), "sysinfo"),
    (("context", "files"), "contextfiles"), (("context", "file"), "contextfiles"), (("git", "changes"), "gitdiff"),
    (("signed", "in"), "signedin"), (("logged", "in"), "signedin"), (("user", "email"), "useremail"),
    (("first", "name"), "firstname"), (("last", "name"), "lastname"), (("full", "name"), "fullname"),
    (("display", "name"), "displayname"), (("user", "name"), "username"),
    (("session", "id"), "sessionid"), (("request", "id"), "requestid"), (("trace", "id"), "traceid"),
    (("conversation", "id"), "conversationid"), (("chat", "id"), "chatid"), (("thread", "id"), "threadid"),
    (("run", "id"), "runid"), (("message", "id"), "messageid"),
    (("chat", "history"), "chathistory"), (("daily", "notes"), "dailynotes"), (("recent", "activity"), "recentactivity"),
    (("available", "tools"), "availabletools"), (("tool", "summary"), "toolsummary"),
    (("tool", "list"), "toollist"), (("mcp", "servers"), "mcpservers"), (("is", "git", "repo"), "isgitrepo"),
    (("search", "results"), "searchresults"), (("user", "query"), "userquery"), (("user", "input"), "userinput"),
    (("user", "message"), "usermessage"), (("current", "time"), "currenttime"),
    (("current", "datetime"), "currentdatetime"), (("time", "zone"), "timezone"), (("entity", "index"), "entityindex"),
    (("shell", "output"), "shelloutput"), (("command", "output"), "commandoutput"),
]
# Words that pin a clock to the start of a session or process.
_PINNED = frozenset({"start", "started", "startup", "boot", "launched", "began", "begin", "created", "opened"})
_PINNED_SCOPE = frozenset({"session", "process", "conversation", "chat", "run", "boot", "startup", "launch"})
# Words that make a name stable however it continues (`agent_name`, `company_timezone`).
_STABLE_ROOTS = frozenset({"agent", "assistant", "bot", "company", "product", "app", "brand", "org", "organization",
                           "system", "policy", "cutoff", "knowledge_cutoff", "version", "model", "persona", "tenant"})
# Words that make a value fixed wherever they appear (`knowledge_cutoff`, `policy_date`).
_STABLE_WORDS = frozenset({"cutoff", "policy", "effective", "version", "copyright", "founded", "release",
                           "released", "deadline", "birthday", "anniversary", "year", "month",
                           # addresses of things are configuration, whatever they address
                           "url", "uri", "link", "links", "endpoint", "homepage", "website"})
# Calls and filters that put a collection in a fixed order.
_SORTING = frozenset({"sort", "sorted", "dictsort", "tosorted", "sortby", "sort_by", "orderby", "localecompare"})
# Words that say nothing on their own and defer to the rest of the path.
_NEUTRAL = frozenset({"current", "the", "a", "an", "id", "name", "value", "str", "string", "text", "info", "data",
                      "list", "block", "blocks", "content", "raw", "formatted", "fmt", "iso", "local", "utc", "at",
                      "of", "for", "is", "has", "last", "latest", "all", "get", "my", "new", "full"})


def _compound(ws: list[str]) -> list[str]:
    """Join known phrases into single words, keeping order."""
    out: list[str] = []
    i = 0
    while i < len(ws):
        for phrase, joined in _PHRASES:
            if tuple(ws[i : i + len(phrase)]) == phrase:
                out.append(joined)
                i += len(phrase)
                break
        else:
            out.append(ws[i])
            i += 1
    return out


def _is_pinned(path: tuple[str, ...]) -> bool:
    """`session_started_at`, `process.boot_time`: a clock captured once per session."""
    flat = [w for p in path for w in _compound(words(p))]
    return bool(_PINNED.intersection(flat)) and bool(
        _PINNED_SCOPE.intersection(flat) or {"at", "time", "timestamp", "date"}.intersection(flat)
    )


def _by_name(path: tuple[str, ...]) -> tuple[str, str, str] | None:
    """(kind, frequency, the word it rests on) from a variable path, leaf first."""
    parts = [_compound(words(p)) for p in path]
    flat = [w for part in parts for w in part]
    if not flat:
        return None
    if (parts[0] and parts[0][0] in _STABLE_ROOTS) or _STABLE_WORDS.intersection(flat):
        return None
    if _is_pinned(path):
        return ("timestamp", "per-session", "_".join(flat))
    # `scratchpad_id`, `trace.uuid`: an id of something per-request or per-session,
    # unless it identifies a user (`user_id` is identity).
    if len(flat) > 1 and flat[-1] in ("id", "uuid", "guid") and not any(
        (_lookup(w) or ("",))[0] in ("identity", "session-id", "tool-order") for w in flat[:-1]
    ):
        scope = "per-session" if _PINNED_SCOPE.intersection(flat) else "per-request"
        return ("session-id", scope, "_".join(flat))
    # The leaf says most (`memory.last_modified` is memory, `user.timezone` identity),
    # but a neutral leaf (`session.id`, `user.name`) defers to the parts before it. A weak
    # word (`context`, `summary`) yields to a stronger one anywhere in the name
    # (`platform_context` is the environment, `workspace_summary` too).
    weak: tuple[str, str, str] | None = None
    for index in range(len(parts) - 1, -1, -1):
        part = parts[index]
        for position in range(len(part) - 1, -1, -1):
            word = part[position]
            entry = _lookup(word)
            if entry is None:
                continue
            kind, frequency = entry
            if kind == "tool-order" and _names_one_tool(parts, index, position):
                continue  # `toolRefs.read`, `BASH_TOOL_NAME`: a constant, not a list

            if word in _WEAK_WORDS:
                weak = weak or (kind, frequency, word)
                continue
            return (kind, frequency, word)
    return weak


# Words that name a kind of content so general that a more specific word in the same name
# decides (`platform_context`, `memory_summary`, `project_info`).
_WEAK_WORDS = frozenset({"context", "contexts", "summary", "summaries", "info", "results", "input"})
# After a tool word: what makes the name a reference to one tool or a number, not a list
# rendered in some order (`tool_name`, `toolRefs.read`, `TOOL_COUNT`).
_ONE_TOOL = frozenset({"name", "ref", "refs", "id", "key", "label", "prefix", "alias", "type", "kind", "count",
                       "length", "size", "number", "num", "total", "enabled", "index", "call", "calls", "choice",
                       "result", "results", "output", "outputs", "schema", "use", "usage", "mode", "timeout",
                       "limit", "limits"})
# Leaves after a tool word that still mean the whole catalogue (`tools.list`, `tool_summary`).
_CATALOGUE = frozenset({"list", "summary", "summaries", "descriptions", "description", "catalog", "catalogue",
                        "inventory", "info", "docs", "text", "block", "all", "available", "section", "prompt",
                        "definitions", "specs", "json", "formatted", "str", "string", "md", "markdown"})


def _names_one_tool(parts: list[list[str]], index: int, position: int) -> bool:
    """Whether the tool word at ``parts[index][position]`` is qualified into a reference to
    one tool (`toolRefs.read`, `tools.bash`, `ToolNames.EDIT`, `READ_TOOL_NAME`) or a number."""
    after = parts[index][position + 1 :] + [w for part in parts[index + 1 :] for w in part]
    if any(w in _ONE_TOOL for w in after):
        return True
    # A member of a tool namespace: any further part that is not a catalogue word.
    later = [w for part in parts[index + 1 :] for w in part]
    return bool(later) and not all(w in _CATALOGUE or w in _NEUTRAL for w in later)


def _lookup(word: str) -> tuple[str, str] | None:
    """A word's (kind, frequency), trying the singular of a plural (`steps`, `sessions`)."""
    if word in _NAME_WORDS:
        return _NAME_WORDS[word]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        entry = _NAME_WORDS.get(word[:-1])
        if entry is not None and entry[0] == "session-id":  # `steps`, `turns`, `sessions`
            return entry
    return None


# ---------------------------------------------------------------------------------------
# The classifier


@dataclass(frozen=True)
class Overrides:
    """What the classifier knows beyond the template itself: user corrections from config
    (names that are stable, names with a known kind) and, when the template is checked
    on disk, how volatile the files it includes are."""

    stable: frozenset[str] = frozenset()
    volatile: Mapping[str, tuple[str, str]] | None = None
    # Tag → the IncludedValue (promptlint.project) of an include whose file is volatile.
    includes: Callable[[Any], Any] | None = None
    # (`{% extends %}` Tag, path of the file it is in) → the parent Template, or None.
    extends: Callable[[Any, str], Any] | None = None


def classify(expr: Expr, overrides: Overrides | None = None, *, collection: bool = False) -> Volatility | None:
    """The volatility of the value an expression yields, or None when it is stable.

    ``collection`` is set for the iterable of a loop, whose order matters as much as
    its content.
    """
    overrides = overrides or Overrides()
    dotted = [".".join(p) for p in expr.paths] or [expr.name]
    if any(n in overrides.stable or n.split(".")[0] in overrides.stable for n in dotted):
        return None
    for n in dotted:
        for key in (n, n.split(".")[0]):
            if overrides.volatile and key in overrides.volatile:
                kind, frequency = overrides.volatile[key]
                return Volatility(kind, frequency, f"`{key}` is configured as {kind}", confidence="high")
    found = _classify(expr, overrides, collection=collection)
    if found is not None and expr.evidence:
        return replace(found, evidence=expr.evidence, assumed=None, confidence="high")
    if found is not None and expr.pinned and found.frequency == "per-request":
        # Computed once per process (a module-level constant, a memoised builder).
        return replace(found, frequency="per-session", evidence=f"{found.evidence}; {expr.pinned}", assumed=None)
    return found


def _classify(expr: Expr, overrides: Overrides | None, *, collection: bool) -> Volatility | None:
    overrides = overrides or Overrides()
    pinned = next((p for p in expr.paths if _is_pinned(p)), None)
    if pinned is not None:
        return _named_clock(expr, "per-session", "_".join(pinned))
    clock = _clock(expr)
    if clock is not None:
        return clock
    calls_lower = {c.lower() for c in expr.calls}
    if collection and {"set", "frozenset"} & calls_lower and not _SORTING & calls_lower:
        # Python sets of strings iterate in hash order, seeded anew in every process.
        return Volatility("tool-order", "per-session", f"`{expr.source}` iterates a set, in hash order",
                          confidence="high")
    # Function names speak too: `randomUUID()`, `uuid4()`, `get_user_profile()`.
    for path in (*expr.paths, *((c,) for c in expr.calls)):
        found = _by_name(path)
        if found is None:
            continue
        kind, frequency, word = found
        if kind == "tool-order" and _SORTING.intersection(c.lower() for c in expr.calls + expr.filters):
            return None
        if kind == "timestamp":
            return _named_clock(expr, frequency, word)
        name = ".".join(path)
        if kind == "tool-order" and word in REGISTERED_LISTS:
            return Volatility(
                kind, frequency,
                f"judged by the name `{name}`: {word} the host application registers, in a fixed order",
                assumed=f"the order only changes when the set does; if it can change between processes, "
                        f"set `{name} = \"tool-order\"` in [volatile]",
                fixed_order=True,
            )
        assumed = "a catalogue rendered in discovery order" if kind == "tool-order" and not collection else None
        return Volatility(
            kind,
            frequency,
            f"judged by the name `{name}`: {_KIND_WORDS[kind]}",
            assumed=assumed,
        )
    return None


# Lists an application registers itself (installed skills, built-in extensions, plugins):
# sorted or in registration order unless the prompt says they come and go.
REGISTERED_LISTS = frozenset({"skills", "skill", "extensions", "extension", "plugins", "plugin", "capabilities",
                              "integrations", "addons"})
# What, said near such a loop, means the list comes and goes while the application runs.
ORDER_CAN_CHANGE = re.compile(
    r"\b(?:dynamic(?:ally)?|discover(?:s|ed|y)?|(?:en|dis)abl(?:e|es|ed|ing)|connected|loaded\s+(?:at|during|on)|"
    r"load(?:s|ed)?\s+(?:them\s+)?(?:dynamically|on demand|at run ?time)|at\s+run[\s-]?time|runtime|on the fly|"
    r"currently\s+active|hot[\s-]?reload(?:ed)?|come and go)\b",
    re.IGNORECASE,
)


_MAPPING_CALLS = frozenset({"items", "values", "keys", "entries", "iteritems"})
# Words in a list's own name that say it changes at run time (`loaded_plugins`).
_CHANGING_WORDS = frozenset({"loaded", "discovered", "enabled", "active", "connected", "dynamic", "runtime",
                             "installed", "mounted", "attached"})


def order_can_change(vol: Volatility, nearby: str, expr: Expr | None = None) -> Volatility:
    """A fixed-order list iterated as a mapping (`extensions.items()`), or whose nearby text
    says it changes at run time ("extensions you enable or disable", "discovered",
    "dynamically loaded"), is a discovery-order list."""
    if not vol.fixed_order:
        return vol
    base = vol.evidence.split(":", 1)[0]
    mapping = _MAPPING_CALLS.intersection(c.lower() for c in expr.calls) if expr is not None else set()
    said = [w for p in (expr.paths if expr is not None else ()) for part in p for w in words(part)
            if w in _CHANGING_WORDS]
    if mapping:
        because = f"{base}, iterated as a mapping (`.{min(mapping)}()`) in whatever order it was filled"
    elif said:
        because = f"{base}, and its name says they change at run time (`{said[0]}`)"
    elif (found := ORDER_CAN_CHANGE.search(nearby)) is not None:
        because = f"{base}, and the prompt says they change at run time ({found.group().strip()!r} near the loop)"
    else:
        return vol
    return replace(vol, fixed_order=False, assumed=None, evidence=because)


_KIND_WORDS = {
    "timestamp": "a clock",
    "identity": "who the user is",
    "session-id": "a per-session or per-request id",
    "environment": "the environment of the run",
    "retrieval": "retrieved or per-request content",
    "memory": "memory that changes during a conversation",
    "tool-order": "a tool list",
}


def _clock(expr: Expr) -> Volatility | None:
    """A clock read from calls and format strings: `now().strftime("%H:%M")`."""
    calls = [c.lower() for c in expr.calls]
    fmt = expr.format_spec
    fmt_precision = precision_of_format(fmt) if fmt else None
    method_precisions = [_TIME_METHODS[c] for c in calls if c in _TIME_METHODS]
    is_clock = bool(_CLOCK_CALLS.intersection(calls)) or "strftime" in calls or bool(method_precisions)
    # A strftime pattern as a format spec (`{current_hour:%Y-%m-%d %H:00}`) only formats datetimes.
    is_clock = is_clock or bool(fmt and "%" in fmt and fmt_precision and not calls)
    filters = [f.lower() for f in expr.filters]
    if not is_clock and not ({"strftime", "datetimeformat", "date", "format_datetime", "formatdate"} & set(filters)):
        return None
    if "isoformat" in calls and expr.literals:
        spec = {"hours": "hour", "minutes": "minute", "seconds": "second", "milliseconds": "millisecond"}
        for literal in expr.literals:
            if literal in spec:
                fmt_precision = spec[literal]
    if "today" in calls and not fmt_precision and "date" in (expr.root.lower(), *calls) and "isoformat" in calls:
        fmt_precision = "day"
    precision = fmt_precision or _truncated(expr, calls) or _finest(method_precisions)
    if precision is None and ({"today", "date"} & set(calls)) and not ({"now", "utcnow"} & set(calls)):
        precision = "day"
    if precision is None:
        return Volatility(
            "timestamp", "per-request", f"`{expr.source}` reads the clock", precision=None,
            confidence="medium", assumed="the clock is printed to the minute or finer",
        )
    how = f"format {fmt!r}" if fmt_precision and fmt else f"`{expr.source}`"
    return Volatility(
        "timestamp", _frequency_for(precision), f"{how} prints the time to the {precision}",
        precision=precision, confidence="high",
    )


# Cutting an ISO string after N characters keeps this precision ("2026-11-30T14:03:27.123Z").
_ISO_PREFIX = ((4, "year"), (7, "month"), (10, "day"), (13, "hour"), (16, "minute"), (19, "second"))
_CUT = re.compile(r"\.(?:slice|substring|substr)\(\s*0\s*,\s*(\d+)\s*\)|\[\s*0?\s*:\s*(\d+)\s*\]")
_SPLIT_DATE = re.compile(r"""\.split\(\s*['"][T ]['"]\s*\)\s*\[\s*0\s*\]""")


def _truncated(expr: Expr, calls: list[str]) -> str | None:
    """The precision left after an ISO string is cut (`toISOString().slice(0, 10)`,
    `isoformat()[:16]`, `.split("T")[0]`) or a datetime is reduced to its date
    (`datetime.now().date()`): None when nothing is cut."""
    if _SPLIT_DATE.search(expr.source):
        return "day"
    cut = _CUT.search(expr.source)
    if cut is not None:
        length = int(cut.group(1) or cut.group(2))
        return next((p for n, p in _ISO_PREFIX if length <= n), "millisecond")
    if {"now", "utcnow"} & set(calls) and "date" in calls:
        return "day"  # `now().date()`, and `now().date().isoformat()` prints that date
    return None


def _named_clock(expr: Expr, frequency: str, word: str) -> Volatility | None:
    fmt_precision = precision_of_format(expr.format_spec) if expr.format_spec else None
    if fmt_precision:
        freq = _frequency_for(fmt_precision)
        if frequency == "per-session" and freq == "per-request":
            freq = "per-session"  # a session-pinned value does not tick, whatever its format
        return Volatility(
            "timestamp", freq, f"format {expr.format_spec!r} prints `{expr.name}` to the {fmt_precision}",
            precision=fmt_precision, confidence="high",
        )
    if frequency == "per-session":
        return Volatility(
            "timestamp", "per-session", f"`{expr.name}` is pinned when the session starts",
            precision=None, assumed="the value is captured once per session",
        )
    if frequency == "per-day":
        return Volatility(
            "timestamp", "per-day", f"judged by the name `{expr.name}`: a date",
            precision="day", assumed="the value is a date without a time of day",
        )
    return Volatility(
        "timestamp", "per-request", f"judged by the name `{expr.name}`: a clock",
        precision=None, assumed="the value is a time of day to the minute or finer",
    )
