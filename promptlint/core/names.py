"""What the words of a variable path say: ``user.name`` is identity, ``cwd`` environment,
``session_start`` a pinned clock; and which words mean a fixed value or a sorted list."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

# ---------------------------------------------------------------------------------------
# Words of a name


_CAMEL_HUMP = re.compile(r"([a-z0-9])([A-Z])")
_NOT_WORD = re.compile(r"[^A-Za-z0-9]+")


def words(name: str) -> list[str]:
    """``CURRENT_DATETIME`` → [current, datetime]; ``workPath`` → [work, path]."""
    return list(_words(name))


@lru_cache(maxsize=4096)
def _words(name: str) -> tuple[str, ...]:
    """:func:`words`, split once per name (the same few names are asked of every slot)."""
    name = _CAMEL_HUMP.sub(r"\1_\2", name)
    return tuple(w.lower() for w in _NOT_WORD.split(name) if w)


# ---------------------------------------------------------------------------------------
# Name tables: word → (kind, frequency)


def _vocabulary() -> tuple[dict[str, tuple[str, str]], list[tuple[tuple[str, ...], str]]]:
    """Word → (kind, frequency), and the phrases read as one word, from ``data/names.toml``
    (data, so that a word is added without Python)."""
    import tomllib

    data = tomllib.loads((Path(__file__).resolve().parent.parent / "data" / "names.toml").read_text(encoding="utf-8"))
    found: dict[str, tuple[str, str]] = {}
    for group in data["words"]:
        for word in " ".join(group["words"]).split():
            found[word] = (group["kind"], group["frequency"])
    phrases = [(tuple(words.split()), joined) for words, joined in data["phrases"].items()]
    return found, phrases


_NAME_WORDS, _PHRASES = _vocabulary()

# Words that pin a clock to the start of a session or process.
_PINNED = frozenset({"start", "started", "startup", "boot", "launched", "began", "begin", "created", "opened"})
_PINNED_SCOPE = frozenset({"session", "process", "conversation", "chat", "run", "boot", "startup", "launch"})
# Words that make a name stable however it continues (`agent_name`, `company_timezone`).
_STABLE_ROOTS = frozenset({"agent", "assistant", "bot", "company", "product", "app", "brand", "org", "organization",
                           "system", "policy", "cutoff", "knowledge_cutoff", "version", "model", "persona", "personality",
                           "character", "char",  # the character the assistant plays (`{{char}}`, `character_name`)
                           "tenant",
                           # the application's configuration object (`config.hallPhone`, `cfg.bot_handle`)
                           "config", "cfg", "conf", "configuration", "settings", "constants", "consts"})
# Words that make a value fixed wherever they appear (`knowledge_cutoff`, `policy_date`).
_STABLE_WORDS = frozenset({"cutoff", "policy", "effective", "version", "copyright", "founded", "release",
                           "released", "deadline", "birthday", "anniversary", "year", "month", "model",
                           # addresses of things are configuration, whatever they address
                           "url", "uri", "link", "links", "endpoint", "homepage", "website",
                           # a standing timetable, not today's (`weekly_schedule`, `default_city`)
                           "weekly", "standard", "regular", "default", "usual", "typical"})
# A deploy's own settings (`deploy_region`, `deployment_name`); not its log or status.
_DEPLOY_SETTINGS = frozenset({"region", "zone", "name", "target", "env", "environment", "stage", "tier", "mode",
                              "channel", "host"})
# Words of conditions that are a contract, not the state of things now.
_TERMS = frozenset({"terms", "use", "hire", "sale", "service", "contract", "entry", "booking", "membership",
                    "rental", "participation", "purchase", "carriage", "general", "special"})
# A setting's first word (`max_sources`, `limit_results`).
_LIMITS = frozenset({"max", "maximum", "min", "minimum", "limit", "default", "allowed"})
# Words of a time fixed per deploy (`built_at`, `released_at`).
_DEPLOYED = frozenset({"built", "build", "released", "release", "published", "deployed", "compiled", "shipped"})
# Words that make a time the clock now (`user.local_time`), not a time of someone's.
_CLOCK_QUALIFIERS = frozenset({"local", "current", "now", "utc", "server", "system", "clock", "today"})
# Last words of a name for text written for the model (`TOOL_GAUGE_PROMPT`, `memory_instructions`).
_PROMPT_TEXT = frozenset({"prompt", "prompts", "instructions", "instruction", "guidelines"})
# Words before `prompt` that make it what someone asked, not prompt text (`user_prompt`).
_ASKED = frozenset({"user", "human", "input", "query", "latest", "last", "current", "customer", "caller"})
# Calls and filters that put a collection in a fixed order.
_SORTING = frozenset({"sort", "sorted", "dictsort", "tosorted", "sortby", "sort_by", "orderby", "localecompare"})
# Words that say nothing on their own and defer to the rest of the path.
_NEUTRAL = frozenset({"current", "the", "a", "an", "id", "name", "value", "str", "string", "text", "info", "data",
                      "list", "block", "blocks", "content", "raw", "formatted", "fmt", "iso", "local", "utc", "at",
                      "of", "for", "is", "has", "last", "latest", "all", "get", "my", "new", "full"})


# The phrases by their first word, in table order (the first that matches wins).
_PHRASES_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _phrase, _joined in _PHRASES:
    _PHRASES_BY_FIRST.setdefault(_phrase[0], []).append((_phrase, _joined))


def _compound(ws: list[str]) -> list[str]:
    """Join known phrases into single words, keeping order."""
    out: list[str] = []
    i = 0
    while i < len(ws):
        for phrase, joined in _PHRASES_BY_FIRST.get(ws[i], ()):
            if tuple(ws[i : i + len(phrase)]) == phrase:
                out.append(joined)
                i += len(phrase)
                break
        else:
            out.append(ws[i])
            i += 1
    return out


@lru_cache(maxsize=8192)
def _compound_of(part: str) -> tuple[str, ...]:
    """The compound words of one path part, read once per name (a file of thousands of
    ``{{ user.name }}`` asks the same question thousands of times)."""
    return tuple(_compound(words(part)))


def _is_pinned(path: tuple[str, ...]) -> bool:
    """`session_started_at`, `process.boot_time`: a clock captured once per session."""
    flat = [w for p in path for w in _compound_of(p)]
    return bool(_PINNED.intersection(flat)) and bool(
        _PINNED_SCOPE.intersection(flat) or {"at", "time", "timestamp", "date"}.intersection(flat)
    )


# The object a method reads its own fields through: `self.max_iterations` says what
# `max_iterations` says (a setting), not what a path that starts with `self` would.
_RECEIVERS = frozenset({"self", "this", "cls"})


# Nouns of a place on disk. A name that ends in one is where something is kept, not the
# thing: `memory_dir` is no memory of the conversation, `CURSOR_PLUGIN_ROOT` no cursor.
_LOCATIONS = frozenset({"root", "dir", "dirs", "directory", "directories", "folder", "folders"})


@lru_cache(maxsize=8192)
def _by_name(path: tuple[str, ...]) -> tuple[str, str, str] | None:
    """(kind, frequency, the word it rests on) from a variable path, leaf first."""
    found = _judged(path)
    last = words(path[-1]) if path else []
    if (found is not None and found[:2] != ("environment", "per-session") and len(last) > 1
            and last[-1] in _LOCATIONS):
        # Where it is kept changes with the installation, as a working directory does, not with
        # each request; a name the words before it say nothing of stays unjudged.
        return ("environment", "per-session", "_".join(last))
    return found


def _judged(path: tuple[str, ...]) -> tuple[str, str, str] | None:
    """:func:`_by_name`, before a place's name is read as the place."""
    held = len(path) > 1 and path[0] in _RECEIVERS  # what follows is the object's own field
    if held:
        path = path[1:]
    parts = [list(_compound_of(p)) for p in path]
    flat = [w for part in parts for w in part]
    if not flat:
        return None
    fixed = (parts[0] and parts[0][0] in _STABLE_ROOTS) or _STABLE_WORDS.intersection(flat) or (
        len(flat) > 1 and flat[0] in ("deploy", "deployment") and flat[-1] in _DEPLOY_SETTINGS)
    if fixed and not (_RETRIEVED.intersection(flat) and flat[0] in ("policy", "policies")):
        return None  # `policy_date`, `agent_name`; but `policy_excerpts` are passages fetched for the question
    if flat[0] in _LIMITS and len(flat) > 1:
        return None  # `max_sources`, `min_age`: a setting, however the rest reads
    if flat[-1] in _PROMPT_TEXT and len(flat) > 1 and not _ASKED.intersection(flat[:-1]) and not (
            (flat[-2].endswith("s") or flat[-1] not in ("prompt", "prompts"))
            and (_lookup(flat[-2]) or ("",))[0] == "tool-order"):
        # `TOOL_GAUGE_PROMPT`, `memory_update_instructions`: prompt text the developers wrote
        # (how to update the memory, not the memory); not `user_prompt` (what was asked),
        # `user_instructions` (a user's own), `skills_prompt` nor `tool_instructions` (each
        # tool's, in the tools' order).
        return None
    if flat[-1] in ("report", "reports") and not _STABLE_WORDS.intersection(flat):
        return ("retrieval", "per-request", "_".join(flat))  # `launch_report`; not `report_style`
    if flat[-1] == "conditions" and not _TERMS.intersection(flat):
        return ("retrieval", "per-request", "_".join(flat))  # `green_conditions`: now; not terms and conditions
    if flat[-1] == "log" and len(flat) > 1:
        return ("retrieval", "per-request", "_".join(flat))  # `deploy_log`, `training_log` (not `log_level`)
    if _is_pinned(path):
        return ("timestamp", "per-session", "_".join(flat))
    if len(flat) > 1 and flat[-1] == "at" and not _DEPLOYED.intersection(flat):
        return ("timestamp", "per-request", "_".join(flat))  # `last_run_at`, `seen_at`: when it happened
    if _REFRESHED.intersection(flat) and ({"at", "time", "timestamp", "on"}.intersection(flat[1:])
                                          or (flat[0] == "last" and flat[-1] in _REFRESHED)):
        return ("timestamp", "per-request", "_".join(flat))  # `generated_at`: stamped as the prompt is made
    if len(flat) > 1 and flat[0] == "open" and not _STABLE_WORDS.intersection(flat) and not any(
            (_lookup(w) or ("",))[0] == "tool-order" for w in flat[1:]):
        return ("retrieval", "per-request", "_".join(flat))  # `openPermits`: what is open now
    # `recentOrders`, `recent_attempts`, `live_jobs`: fetched for this request, unless a word
    # says which kind (`recent_memories`).
    if len(flat) > 1 and flat[0] in ("recent", "live") and not any(
            (_lookup(w) or ("",))[0] in ("memory", "environment", "identity", "retrieval") for w in flat[1:]):
        return ("retrieval", "per-request", "_".join(flat))
    # `vcs.status`, `repo.diff`: a phrase across the parts of a path.
    across = (set(_compound(flat)) & {"gitstatus", "gitdiff"}) if len(parts) > 1 else set()
    if across:
        return ("environment", "per-request", across.pop())
    # `scratchpad_id`, `trace.uuid`: an id of something per-request or per-session,
    # unless it identifies a user (`user_id` is identity).
    if len(flat) > 1 and flat[-1] in ("id", "uuid", "guid", "ref", "reference") and not any(
        (_lookup(w) or ("",))[0] in ("identity", "session-id", "tool-order") for w in flat[:-1]
    ):
        scope = "per-session" if _PINNED_SCOPE.intersection(flat) else "per-request"
        return ("session-id", scope, "_".join(flat))
    # `visitor.trek_time`, `guest.booking_ref`: one detail of a person's record is who they
    # are (their booking, their time), not a clock or a look-up; not their lists
    # (`customer.orders`) nor a clock said to be one (`user.local_time`).
    if len(parts) > 1 and parts[0] and (_lookup(parts[0][-1]) or ("",))[0] == "identity" and _detail(path[-1]):
        return ("identity", "per-session", parts[0][-1])
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
                if index == len(parts) - 1 and (index > 0 or held):
                    # `step.tool_name`, `call.toolName`, `self.query_tool_name`: the leaf is one
                    # tool's name, whatever holds it (a workflow step is no per-request id here)
                    return weak
                continue  # `toolRefs.read`, `BASH_TOOL_NAME`: a constant, not a list
            if word in _PERSON_NAMES and _THINGS.intersection(flat[: flat.index(word)]):
                continue  # `repo.full_name`, `project.display_name`: the name of a thing

            if word in _WEAK_WORDS:
                weak = weak or (kind, frequency, word)
                continue
            return (kind, frequency, word)
    # `inspector.name`, `rider.email`: a record of a person, named by their role. Not one
    # identifier (`outfitter_name` is the business the assistant is deployed for).
    if (weak is None and len(parts) > 1 and parts[-1] and parts[-1][-1] in PERSON_LEAVES and parts[-2]
            and is_person_role(parts[-2][-1])):
        return ("identity", "per-session", parts[-2][-1])
    if weak is None and len(flat) > 1 and flat[0] in ("current", "latest"):
        # `current_task`, `current_phase`, `latest_message`: where the conversation stands
        # now, which no fixed value is called (a fixed one says `version`, `year`, `model`).
        return ("memory" if flat[0] == "current" else "retrieval", "per-request", "_".join(flat))
    return weak


# Words of passages fetched for a question, which a `policy` before them does not make fixed.
# Words that stamp a value with the moment it was made (`generated_at`, `last_updated`);
# not `built_at` or `released_at`, which are fixed per deploy.
_REFRESHED = frozenset({"generated", "updated", "refreshed", "rendered", "fetched", "synced", "polled", "received",
                        "sent", "modified"})
# Things whose names end like a person's role (`server_name` is a thing's name, `adjuster_name` a person's).
_ROLE_LIKE_THINGS = frozenset({"server", "printer", "folder", "container", "cluster", "provider", "router",
                               "controller", "scheduler", "handler", "adapter", "parameter", "filter", "header",
                               "footer", "layer", "buffer", "marker", "counter", "monitor", "sensor", "motor",
                               "vector", "tensor", "browser", "computer", "identifier", "trigger", "tier",
                               "register", "chapter", "character", "letter", "paper", "water", "river",
                               "center", "centre", "theater", "theatre", "corridor", "sector", "elevator",
                               "generator", "color", "colour", "flavor", "flavour", "calendar",
                               "component", "segment", "document", "department", "element", "environment",
                               "plant", "restaurant", "variant", "constant", "event", "agent", "assistant",
                               "client", "tenant", "parent", "content", "payment", "account", "number", "answer",
                               "ledger", "roster", "poster", "banner", "filler", "timer", "power", "summer",
                               "winter", "matter", "manner", "border", "pattern", "pointer"})
_ROLE_SUFFIXES = ("er", "or", "ist", "ian", "ant", "ent", "ee", "ess")


def _detail(leaf: str) -> bool:
    """Whether the last part of a person's path is one detail of their record: a time or date
    of theirs (`trek_time`, `birth_date`), one booking or its reference (`booking_ref`); not
    a clock (`local_time`, `time`), a list (`orders`), nor a session or request id."""
    raw = words(leaf)
    judged = _by_name((leaf,))
    if judged is None or not raw or len(raw) < 2 or any(_plural(w) for w in raw):
        return False
    if _CLOCK_QUALIFIERS.intersection(raw) or _PINNED_SCOPE.intersection(raw) or "request" in raw:
        return False
    if judged[0] == "session-id":
        return raw[-1] in ("ref", "reference", "number", "code")
    return judged[0] in ("timestamp", "retrieval")


def _plural(word: str) -> bool:
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))  # not `status`, `address`


def _is_role(word: str) -> bool:
    """A noun that names a person by what they do (`adjuster`, `officer`, `pharmacist`)."""
    return (len(word) > 5 and word.endswith(_ROLE_SUFFIXES) and word not in _ROLE_LIKE_THINGS
            and word not in _THINGS and word not in _STABLE_ROOTS)


# Nouns of a role that name an organisation or a piece of software more often than a person.
_NOT_PEOPLE = frozenset({"vendor", "partner", "supplier", "sponsor", "carrier", "dealer", "retailer", "publisher",
                         "developer", "manufacturer", "insurer", "lender", "broker", "issuer", "distributor",
                         "reseller", "merchant", "worker", "runner", "builder", "loader", "reader", "writer",
                         "parser", "logger", "listener", "consumer", "producer", "exporter", "importer",
                         "formatter", "linter", "compiler", "bundler", "installer", "launcher", "tracker",
                         "crawler", "scraper", "renderer", "transformer", "encoder", "decoder", "tokenizer",
                         "optimizer", "executor", "processor", "connector", "detector", "extractor", "collector",
                         "selector", "validator", "iterator", "emitter", "wrapper", "helper", "mapper", "reducer",
                         "resolver", "checker", "matcher", "modifier", "qualifier", "delimiter", "separator",
                         "indicator", "behavior", "behaviour", "reminder", "disclaimer", "placeholder",
                         "comment", "moment", "statement", "argument", "requirement", "assignment", "attachment",
                         "intent", "extent", "current", "recent",
                         # parts of a program (`value.constructor.name` is a class's name)
                         "constructor", "decorator", "descriptor", "accessor", "interceptor", "initializer",
                         "serializer", "deserializer", "allocator", "comparator", "evaluator", "emulator",
                         "simulator", "mutator", "enumerator", "aggregator", "orchestrator"})
# The leaf of a path that is a person's name or address (`inspector.name`).
PERSON_LEAVES = frozenset({"name", "fullname", "firstname", "lastname", "displayname", "nickname", "email",
                            "phone", "initials"})


def is_person_role(word: str) -> bool:
    """A noun of a role that names a person (`inspector`, `projectionist`), not a thing."""
    return _is_role(word) and word not in _NOT_PEOPLE


_RETRIEVED = frozenset({"documents", "docs", "doc", "excerpt", "excerpts", "chunks", "passages", "snippets", "clauses",
                        "sections", "matches", "hits", "results", "searchresults", "retrieved"})

# Name words that say who a person is, unless a thing is named (`repo.full_name`,
# `support_email`, `clinic_phone`: the organisation's own address is configuration).
_PERSON_NAMES = frozenset({"fullname", "displayname", "nickname", "firstname", "lastname", "username", "email",
                           "phone", "address"})
_THINGS = frozenset({"repo", "repository", "project", "org", "organization", "team", "workspace", "channel",
                     "server", "guild", "file", "document", "doc", "product", "company", "app", "branch", "model",
                     "tool", "dataset", "database", "table", "service", "package", "library", "course", "group",
                     "store", "shop", "business", "site", "brand", "device", "agent", "bot", "assistant", "support",
                     "contact", "hr", "clinic", "help", "helpdesk", "sales", "office", "billing", "admin", "noreply",
                     "team", "department", "school", "hotel", "restaurant", "hospital", "bank", "firm",
                     # bodies and desks of the organisation the assistant serves (`committeeEmail`,
                     # `trade_email`, `bookings_phone`), whose addresses are configuration
                     "committee", "board", "council", "society", "club", "association", "reception",
                     "frontdesk", "desk", "secretary", "trade", "bookings", "booking", "orders", "enquiries",
                     "inquiries", "reservations", "press", "media", "accounts", "general", "main", "info",
                     "hello", "events", "membership", "hire", "returns", "complaints", "feedback", "careers",
                     "jobs",
                     # the places an assistant answers for (`centre_phone`, `hall_email`)
                     "centre", "center", "hall", "venue", "studio", "library", "museum", "gallery", "theatre",
                     "theater", "cinema", "gym", "farm", "yard", "depot", "workshop", "garage", "salon", "surgery",
                     "practice", "pharmacy", "station", "kiosk", "lab", "warehouse", "market", "marina", "arena"})


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
                        "definitions", "specs", "json", "formatted", "str", "string", "md", "markdown",
                        "registry", "registries"})


def _names_one_tool(parts: list[list[str]], index: int, position: int) -> bool:
    """Whether the tool word at ``parts[index][position]`` is qualified into a reference to
    one tool (`toolRefs.read`, `tools.bash`, `ToolNames.EDIT`, `READ_TOOL_NAME`) or a number."""
    after = parts[index][position + 1 :] + [w for part in parts[index + 1 :] for w in part]
    if after == ["index"] and _plural(parts[index][position]):
        return False  # `SKILLS_INDEX`: an index of them all (`tool_index` is one tool's number)
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


