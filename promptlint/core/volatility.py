"""How volatile is the value that fills a slot or drives a loop?

The judgement rests on evidence the template itself carries, strongest first:
user configuration, the functions called and the format string they are given
(``now().strftime("%H:%M")``), then the words of the variable path
(``user.name``, ``CURRENT_DATETIME``, ``workPath``). Unknown names are stable per
deploy. Every :class:`Volatility` says what it rests on, so a user can correct it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from promptlint.core.ir import Expr
# The vocabulary, the clock and the name readers live in their own modules; the names
# other modules import from here are re-exported (see __all__).
from promptlint.core.clocks import PRECISIONS, _clock, _named_clock, precision_of_format
from promptlint.core.kinds import CROSS_USER_KINDS, FREQUENCIES, KINDS, Volatility
from promptlint.core.names import _SORTING, _by_name, _is_pinned, words

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
    # The rules fix acts on (PC101, PC102, PC103, PC104) that select/ignore turn off: check
    # reports nothing for those values, so fix leaves them as they are.
    disabled: frozenset[str] = frozenset()


# Filters and calls that count a list (`{{ tools | length }}`).
_COUNTING = frozenset({"length", "count", "len", "size"})


def classify(expr: Expr, overrides: Overrides | None = None, *, collection: bool = False) -> Volatility | None:
    """The volatility of the value an expression yields, or None when it is stable.

    ``collection`` is set for the iterable of a loop, whose order matters as much as
    its content.
    """
    if overrides is not None and (overrides.stable or overrides.volatile):  # names the config lists
        if configured_stable(expr, overrides):
            return None
        dotted = [".".join(p) for p in expr.paths] or [expr.name]
        for n in dotted:
            for key in (n, n.split(".")[0]):
                if overrides.volatile and key in overrides.volatile:
                    kind, frequency = overrides.volatile[key]
                    return Volatility(kind, frequency, f"`{key}` is configured as {kind}", confidence="high")
    found = _classify(expr, collection)
    if found is not None and set(expr.calls) == {"getenv"} and (found.kind, found.frequency) != (
            "environment", "per-session"):  # the value itself read from the environment (not one built from it)
        # `os.getenv("OWNER")`, `process.env.DB_USER`: whatever the name says, a variable of the
        # environment is the same for a whole process, set per deployment or machine; not a
        # signed-in user's name, nor what a request fetched.
        return Volatility("environment", "per-session",
                          f"`{expr.name}` is read from the environment: one value per process, set where it runs")
    if found is not None and expr.evidence:
        return replace(found, evidence=expr.evidence, assumed=None, confidence="high")
    if found is not None and expr.pinned and found.frequency == "per-request":
        # Computed once per process (a module-level constant, a memoised builder).
        return replace(found, frequency="per-session", evidence=f"{found.evidence}; {expr.pinned}", assumed=None)
    return found


def configured_stable(expr: Expr, overrides: Overrides | None) -> bool:
    """Whether the configuration lists the expression's name (or its root) as stable."""
    if overrides is None or not overrides.stable:
        return False  # no names listed (most configs): the names are not even joined
    stable = overrides.stable
    return any(n in stable or n.split(".")[0] in stable for n in [".".join(p) for p in expr.paths] or [expr.name])


@lru_cache(maxsize=8192)
def _classify(expr: Expr, collection: bool) -> Volatility | None:
    """What the expression's own calls, format and names say (no configuration): once per
    expression, however many slots repeat it (`user.name` in every file of a run)."""
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
        if collection and kind == "session-id" and word not in ("sessions", "requests"):
            continue  # a list of `steps` or `turns` is content, not a counter or an id
        if kind == "tool-order" and _SORTING.intersection(c.lower() for c in expr.calls + expr.filters):
            return None
        if kind == "tool-order" and not collection and _COUNTING.intersection(
                c.lower() for c in expr.calls + expr.filters):
            return None  # `tools | length`: how many, which no order changes
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
    r"currently\s+active|hot[\s-]?reload(?:ed)?|come and go|"
    # a folder's listing, in whatever order the file system returns it
    r"(?:loaded|read|scanned|listed|found)\s+(?:from|in)\s+(?:the\s+)?(?:[\w.-]+\s+)?(?:folder|directory|dir))\b",
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
        because = f"{base}, and the prompt says they change at run time ({found.group().strip()!r} just before it)"
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


__all__ = [
    "CROSS_USER_KINDS", "FREQUENCIES", "KINDS", "PRECISIONS", "Overrides", "Volatility", "classify", "configured_stable",
    "order_can_change", "precision_of_format", "words",
]
