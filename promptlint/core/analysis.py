"""From a parsed template to volatile units, token counts and the stable prefix.

The stable prefix is measured the way a provider's cache sees it: the template is
rendered twice, with different values in every volatile unit (and a different order
for every volatile loop), and the longest common prefix of the two token sequences
is the part that can be cached. BPE merges across a slot boundary are thereby counted
exactly (``Today is {{date}}``: the space before the value belongs to its first token).

Rendering here never evaluates the template: text segments are copied, slots receive
sample values, every branch of a conditional is rendered once and every loop twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, TypeAlias

from promptlint.core import tokens
from promptlint.core.suffixtokens import SuffixTokens, shared_prefix_tokens, spliced_encoding
from promptlint.core.ir import (CODE_SYNTAXES, RENDERED_BLOCKS, Block, Expr, Segment, Slot, Tag, Template, Text,
                                finished_walk, walk)
from promptlint.core.clocks import _CLOCK_CALLS
from promptlint.core.lead import judge_by_label, record_of_person_above
from promptlint.core.names import PERSON_LEAVES, is_person_role, words
from promptlint.core.volatility import Overrides, Volatility, classify, configured_stable, order_can_change

# Stable loops nested up to this depth render two items each (see `render`).
_DOUBLED_LOOP_DEPTH = 4
# Blocks whose expression is a collection iterated in order.
_LOOP_BLOCKS = frozenset({"for", "each", "section"})
# Mustache/Handlebars blocks that change the lookup context to their value.
_CONTEXT_BLOCKS = frozenset({"section", "each", "with"})

_SAMPLES: dict[str, tuple[str, str]] = {
    "identity": ("Alice Martin", "Bob Okafor"),
    "session-id": ("3f2b9c1e-8d4a-4f6b-9a7e-2c5d1b0e7f43", "a9d04c77-1e52-4b8f-b3a6-f0c2e8d91b25"),
    "environment": ("/home/alice/projects/webshop", "/srv/work/billing-api"),
    "retrieval": (
        (
            "[1] Refunds are issued to the original payment method within 5 business days.\n"
            "[2] Orders above 50 EUR ship free within the EU."
        ),
        (
            "[1] Passwords must be rotated every 90 days for admin accounts.\n"
            "[2] Two-factor authentication is mandatory since March."
        ),
    ),
    "memory": (
        "- Prefers answers in bullet points.\n- Working on the invoicing module this week.",
        "- Asked to avoid jargon.\n- Deploys on Fridays are frozen until January.",
    ),
    "tool-order": ("search, read_file, write_file", "write_file, search, read_file"),
}
_CLOCK_SAMPLES: dict[str | None, tuple[str, str]] = {
    "day": ("2026-11-30", "2026-12-01"),
    "month": ("2026-11", "2026-12"),
    "year": ("2026", "2027"),
    "hour": ("2026-11-30 14:00", "2026-12-01 09:00"),
    None: ("2026-11-30 14:03:27", "2026-12-01 09:41:55"),
}


@dataclass
class Unit:
    """A volatile slot or block: the smallest piece of the template that carries it."""

    segment: Slot | Block | Tag
    volatility: Volatility
    # The loop or section a unit stands in, and the expression it was judged on.
    expr: Expr
    depth: int = 0
    # For an include: the IncludedValue (the file and value that make it volatile).
    origin: Any = None

    @property
    def is_loop(self) -> bool:
        # An empty `{% block %}` a child template fills is a value, not a loop.
        return isinstance(self.segment, Block) and self.segment.kind != "block"

    @property
    def is_include(self) -> bool:
        return isinstance(self.segment, Tag)


@dataclass
class Analysis:
    template: Template
    encoding: str
    units: list[Unit]
    tokens: int
    stable_prefix_tokens: int
    stable_text: str
    rendered: str
    _offsets: dict[int, int] = field(default_factory=dict, repr=False)
    # The stable text encoded once, for every unit's count of what follows it.
    _suffixes: SuffixTokens | None = field(default=None, repr=False, compare=False)
    # The stable text's tokens, for its suffix counts (dropped once they are read).
    _stable_ids: list[int] | None = field(default=None, repr=False, compare=False)
    # How many of them stand before the sync point after each unit, and that sync point (see
    # SuffixTokens).
    _stable_before: dict[int, int] | None = field(default=None, repr=False, compare=False)
    _stable_following: dict[int, int] | None = field(default=None, repr=False, compare=False)

    def offset_of(self, segment: Segment) -> int:
        """Where a segment's output starts in the stable-only rendering."""
        return self._offsets[id(segment)]

    def stable_tokens_after(self, segment: Segment) -> int:
        """Tokens of stable content rendered after a unit: what its volatility costs."""
        return self.stable_tokens_from(self._offsets[id(segment)])

    def stable_tokens_from(self, offset: int) -> int:
        """Tokens of ``stable_text[offset:]`` encoded on its own (the whole stable text at 0),
        read from one encoding of the stable text however many units ask."""
        if self._suffixes is None:
            self._suffixes = SuffixTokens(self.stable_text, self.encoding, self._stable_ids, self._stable_before,
                                          self._stable_following)
            self._stable_ids = self._stable_before = self._stable_following = None
        return self._suffixes.after(offset)

    @property
    def volatile_kinds(self) -> set[str]:
        return {u.volatility.kind for u in self.units}


def find_units(template: Template, overrides: Overrides | None = None) -> list[Unit]:
    """Every volatile unit of a template, outermost first; units inside a unit are covered."""
    units: list[Unit] = []
    # Labels are read in prompt text, not in code or request bodies (whose values are literals).
    by_label = template.syntax not in CODE_SYNTAXES and template.syntax not in ("json", "markdown")
    names_inverted: list[set[str]] = []

    def inverted() -> set[str]:
        """The names of the template's inverted sections, found once, when first asked."""
        if not names_inverted:
            names_inverted.append({b.expr.name for b in walk(template.segments)
                                   if isinstance(b, Block) and b.kind == "inverted" and b.expr is not None})
        return names_inverted[0]

    def visit(segments: list[Segment], bound: frozenset[str], depth: int) -> None:
        for seg in segments:
            if isinstance(seg, Slot):
                if bound and (  # names bound by an enclosing loop or section
                        seg.expr.root in bound or (not seg.expr.path and "this" in bound and not seg.expr.calls) or (
                        _ITEM_FIELDS in bound and seg.expr.path and not seg.expr.calls
                        and not seg.expr.source.startswith(("../", "@root")))):
                    # An item's field is not judged by its name, but its label still speaks
                    # ("{{#presenter}}Presenter on the desk: {{name}}{{/presenter}}").
                    found = (_by_label(template.source, seg.span.start, seg.expr, overrides)
                             if by_label and _ITEM_FIELDS in bound else None)
                    if found is not None and found[0].kind == "identity":
                        units.append(Unit(seg, found[0], found[1], depth))
                    continue
                judged = _judge_slot(seg, overrides)
                if judged is not None and judged[0].kind == "identity" and _RUN_BY.search(
                        template.source, max(0, seg.span.start - 40), seg.span.start):
                    judged = None  # "the station run by {{operatorName}}": the business, fixed per deploy
                if judged is None and by_label:
                    judged = _by_label(template.source, seg.span.start, seg.expr, overrides)
                if judged is None and by_label and _under_person(template, seg, units, overrides):
                    record = record_of_person_above(template.source, seg.span.start, seg.expr)
                    judged = None if record is None else (record, seg.expr)
                if judged is not None and judged[0].fixed_order:
                    nearby = template.source[max(0, seg.span.start - _NEARBY_CHARS) : seg.span.end]
                    judged = (order_can_change(judged[0], nearby, seg.expr), judged[1])
                if judged is not None:
                    units.append(Unit(seg, judged[0], judged[1], depth))
            elif isinstance(seg, Tag):
                if seg.tag in ("include", "partial") and overrides is not None and overrides.includes:
                    found = overrides.includes(seg)
                    if found is not None:
                        expr = Expr(source=f"{{% include {seg.target!r} %}}", path=(seg.target or "",))
                        units.append(Unit(seg, found.volatility, expr, depth, origin=found))
            elif isinstance(seg, Block):
                if seg.kind not in RENDERED_BLOCKS:
                    continue
                if seg.kind == "block" and seg.target and renders_nothing(seg.body):
                    found = _empty_block(seg, overrides)
                    if found is not None:
                        units.append(Unit(seg, found[0], found[1], depth))
                        continue
                # A section named like a flag (`{{#is_new_profile}}`) is an `if`: its value is
                # never printed, and only what its body renders is judged.
                if seg.kind == "if" and seg.expr is not None:
                    # A test on the clock picks what renders by the time of day.
                    test = classify(seg.expr, overrides)
                    if test is not None and test.kind == "timestamp" and _CLOCK_CALLS.intersection(
                            c.lower() for c in seg.expr.calls):
                        units.append(Unit(seg, replace(test, evidence=f"the test {test.evidence}, choosing "
                                                                       "what this block renders"), seg.expr, depth))
                        continue
                flag = template.syntax == "mustache" and seg.kind == "section" and (
                    not _lists_items(seg) or _either_or(seg, inverted()))
                if seg.expr is not None and seg.kind in _LOOP_BLOCKS | _CONTEXT_BLOCKS and not flag:
                    vol = classify(seg.expr, overrides, collection=True)
                    if vol is None and seg.kind == "with":
                        vol = _person_record(seg, overrides)
                    if vol is None and by_label and seg.kind in _LOOP_BLOCKS | {"with"}:
                        vol = (_by_label(template.source, seg.open.start, seg.expr, overrides) or (None, None))[0]
                    if vol is None and seg.kind in _LOOP_BLOCKS and seg.loop_vars:
                        vol = _by_item_name(seg, overrides) or _by_item_fields(seg, overrides)
                    if vol is not None and vol.fixed_order:
                        vol = order_can_change(vol, _nearby(template.source, seg), seg.expr)
                    if vol is not None and not (seg.sorted and vol.kind == "tool-order"):
                        units.append(Unit(seg, vol, seg.expr, depth))
                        if vol.kind == "tool-order":
                            # Sorting the outer loop does not order an inner one.
                            _inner_loops(seg.body, depth + 1)
                        continue
                inner = set(bound) | set(seg.loop_vars)
                if template.syntax == "mustache" and seg.kind in ("each", "section") and _lists_items(seg):
                    inner.add(_ITEM_FIELDS)
                visit(seg.body, frozenset(inner), depth + 1)

    def _inner_loops(segments: list[Segment], depth: int) -> None:
        for seg in segments:
            if isinstance(seg, Block) and seg.kind in _LOOP_BLOCKS and seg.expr is not None and not seg.sorted:
                vol = classify(seg.expr, overrides, collection=True)
                if vol is not None and vol.kind == "tool-order":
                    units.append(Unit(seg, vol, seg.expr, depth))
            if isinstance(seg, Block):
                _inner_loops(seg.body, depth + 1)

    visit(template.segments, frozenset(), 0)
    visit = _inner_loops = finished_walk  # they recurse: a cycle holding the template (see finished_walk)
    if units and _ends_with_the_users_input(template, units[-1]):
        # "Question: {question}" closing the template: the user's latest input, which nothing
        # cached follows (the template is the user's turn, or the question is sent as one).
        units = units[:-1]
    cut = _user_turn_start(template)
    if cut is not None:
        # What a "User message template" heading introduces is the latest user turn, after
        # which nothing is cached: its values cost nothing.
        units = [u for u in units if (u.segment.open.start if isinstance(u.segment, Block) else u.segment.span.start) < cut]
    return units


# A heading that says the rest of the file is the user's message ("## User Message Template").
_USER_TURN_LINE = (r"[ \t]*#{1,6}[ \t]*(?:the[ \t]+)?(?:user|human|customer)(?:'s)?[ \t]+"
                   r"(?:message|prompt|turn|input|query)(?:[ \t]+template)?[ \t]*:?[ \t]*(?=\n|\Z)")
# The heading on the first line, or after a line break (a search for "\n" is fast where one
# for "^" is not).
_USER_TURN_HEADING_FIRST = re.compile(r"(?i)" + _USER_TURN_LINE)
_USER_TURN_HEADING = re.compile(r"(?i)\n" + _USER_TURN_LINE)


# What, just before a name, says it names who runs the business, not a user.
_RUN_BY = re.compile(r"\b(?:run|operated|owned|managed|provided|powered|built|made)\s+by\s*$")


# Names of the user's own latest input, which a template may end with.
_USERS_INPUT = frozenset({"question", "query", "message", "input", "userinput", "userquestion", "usermessage",
                          "userquery", "usermsg", "messagetext", "questiontext"})


def _ends_with_the_users_input(template: Template, unit: Unit) -> bool:
    """Whether ``unit`` is a slot of the user's latest input with nothing after it."""
    seg = unit.segment
    if not isinstance(seg, Slot) or template.syntax in CODE_SYNTAXES or template.syntax == "json":
        return False
    name = re.sub(r"[^a-z]", "", (seg.expr.path[-1] if seg.expr.path else seg.expr.name).lower())
    return name in _USERS_INPUT and not template.source[seg.span.end :].strip()


# A comment that opens a template and says the template is the latest user turn
# ("{# Template of the latest user turn: appended after the history #}").
_USER_TURN = (r"(?:(?:latest|last|current|next)\s+(?:user|human|customer)(?:'s)?\s+(?:turn|message)|"
              r"(?:user|human)[ -](?:turn|message)\s+template)\b")
_USER_TURN_COMMENT = re.compile(r"(?i)\b" + _USER_TURN)


# A first line that says so of its own template ("This template is the latest user turn").
_THIS_IS_THE_USER_TURN = re.compile(
    r"(?i)^\W*this\s+(?:template|file|prompt|text)\s+(?:is|renders|holds|builds)\s+(?:the\s+)?" + _USER_TURN
)


def _user_turn_start(template: Template) -> int | None:
    """Where a prompt file's own heading starts its latest user turn (text prompts only), or
    0 when the comment that opens the template says the whole template is that turn."""
    if template.syntax in CODE_SYNTAXES or template.syntax == "json":
        return None
    first = next((seg for seg in template.segments if not (isinstance(seg, Text) and not seg.text.strip())), None)
    if isinstance(first, Tag) and first.tag == "comment" and _USER_TURN_COMMENT.search(
            template.source[first.span.start : first.span.end]):
        return 0
    if isinstance(first, Text) and _THIS_IS_THE_USER_TURN.match(first.text.lstrip().split("\n", 1)[0]):
        return 0  # "This template is the latest user turn, sent after the cached system prompt."
    if "#" not in template.source:
        return None
    if _USER_TURN_HEADING_FIRST.match(template.source):
        return 0
    found = _USER_TURN_HEADING.search(template.source)
    return found.start() + 1 if found is not None else None


def units_of(template: Template, overrides: Overrides | None = None) -> list[Unit]:
    """:func:`find_units`, once per template and overrides: the check's analysis, each round
    of the fix draft and the judgement of the draft ask for the same template's units (a
    template is not edited once loaded). The list is shared: read it, never change it."""
    for key, found in template.units_found:
        if key == overrides:
            return found  # type: ignore[no-any-return]
    units = find_units(template, overrides)
    template.units_found.append((overrides, units))
    return units


# Bound inside a Mustache section over a list: a bare name (`{{question}}` in `{{#faq}}`)
# is a field of the item, judged with the list it comes from.
_ITEM_FIELDS = "\0item"
# A section named like a flag renders its body once, in the outer context (`{{#show_time}}`).
_FLAG_WORDS = frozenset({"is", "has", "show", "include", "enable", "enabled", "use", "with", "want", "needs",
                         "can", "should", "allow", "hide", "no", "not"})


def _either_or(block: Block, inverted: set[str]) -> bool:
    """A section that prints no field and has an inverted twin (`{{#posts_plants}}…{{/…}}
    {{^posts_plants}}…`; ``inverted``: the names of the template's inverted sections): fixed
    text chosen by a flag, not a list of items."""
    if block.expr is None or block.expr.name not in inverted:
        return False
    return not any(isinstance(seg, Slot) for seg in walk(block.body))


def _lists_items(block: Block) -> bool:
    """Whether a Mustache section or `#each` repeats its body per item of a list (its
    names are the item's fields), rather than testing a flag."""
    if block.kind == "each":
        return True
    name = block.expr.name if block.expr is not None else ""
    first = words(name.split(".")[-1])[:1]
    return bool(first) and first[0] not in _FLAG_WORDS


def renders_nothing(body: list[Segment]) -> bool:
    """A block body of whitespace and comments: a place a child template fills."""
    return all((isinstance(seg, Text) and not seg.text.strip()) or (isinstance(seg, Tag) and seg.tag == "comment")
               for seg in body)


def _empty_block(block: Block, overrides: Overrides | None) -> tuple[Volatility, Expr] | None:
    """An empty `{% block context %}{% endblock %}`: what child templates put there, judged
    by the block's name (retrieved documents for `context`, a user for `user_info`)."""
    name = block.target or ""
    expr = Expr(source=f"{{% block {name} %}}", path=(name,), paths=((name,),))
    vol = classify(expr, overrides)
    if vol is None:
        return None
    return replace(vol, evidence=f"`{{% block {name} %}}` is empty here: templates that extend this one fill it; "
                                 f"{vol.evidence}"), expr


# How much text before a loop is read for what the prompt says about its list.
_NEARBY_CHARS = 400


def _nearby(source: str, block: Block) -> str:
    """The prose just before a loop and its opening tag ("extensions you can enable or
    disable", "skills shipped with this installation")."""
    return source[max(0, block.open.start - _NEARBY_CHARS) : block.open.end]


def worst_first(vol: Volatility) -> tuple[bool, int]:
    """A sort key: per-request/per-user values above session values above daily ones."""
    order = ("per-deploy", "per-day", "per-session", "per-request")
    return (vol.varies_per_request_or_user, order.index(vol.frequency))


# An item named like this makes the list it comes from a tool catalogue.
_TOOL_ITEMS = frozenset({"tool", "plugin", "function", "mcp", "server"})


def _by_item_name(loop: Block, overrides: Overrides | None) -> Volatility | None:
    """A loop whose list's name says nothing, judged by the name of its item: `for name, tool
    in registry.items()` renders a tool catalogue, in whatever order the registry holds it."""
    assert loop.expr is not None
    if configured_stable(loop.expr, overrides or Overrides()):
        return None
    item = next((v for v in reversed(loop.loop_vars) if v.lstrip("$").lower() in _TOOL_ITEMS), None)
    if item is None:
        return None
    return Volatility("tool-order", "per-session",
                      f"judged by the name of its item (`{item}` in `{loop.expr.source}`): a tool list",
                      assumed="a catalogue rendered in the order its source holds it")


def _by_item_fields(loop: Block, overrides: Overrides | None) -> Volatility | None:
    """A loop whose name says nothing, judged by the fields its items print: a reading the
    vocabulary knows (`{{ probe.temperature_c }}`) makes the list one taken for this request.
    Only retrieval is read this way (an item's `date` or `email` says nothing of the list)."""
    assert loop.expr is not None
    if configured_stable(loop.expr, overrides or Overrides()):
        return None
    from promptlint.core.names import _by_name

    for seg in walk(loop.body):
        if not isinstance(seg, Slot) or seg.expr.root not in loop.loop_vars or len(seg.expr.path) < 2:
            continue
        judged = _by_name((seg.expr.path[-1],))
        if judged is not None and judged[0] == "retrieval" and judged[1] == "per-request":
            return Volatility("retrieval", "per-request", f"judged by what its items print (`{seg.expr.source}`): "
                              f"{judged[2]!r}, taken for this request", assumed="the list is read for this request")
    return None


def _under_person(template: Template, slot: Slot, units: list[Unit], overrides: Overrides | None) -> bool:
    """Whether the last unit found is a person's identity on the line just above ``slot``,
    and ``slot``'s name is not configured stable (and says nothing the vocabulary knows)."""
    if not units or units[-1].volatility.kind != "identity" or configured_stable(slot.expr, overrides or Overrides()):
        return False
    if any(_by_name_says(part) for path in slot.expr.paths for part in path):
        return False
    last = units[-1].segment
    above = template.position(last.open.start if isinstance(last, Block) else last.span.start).line
    return template.position(slot.span.start).line == above + 1


def _by_name_says(part: str) -> bool:
    """Whether a word of a name is one the vocabulary or its fixed words judge (a stable
    `company_name` is judged too: it is not left to the line above)."""
    from promptlint.core.names import _STABLE_ROOTS, _STABLE_WORDS, _lookup

    return any(_lookup(w) is not None or w in _STABLE_ROOTS or w in _STABLE_WORDS for w in words(part))


def _person_record(block: Block, overrides: Overrides | None) -> Volatility | None:
    """A `{{#with inspector}}` block that prints the record's name: a person, named by
    their role (the record's name alone says nothing the vocabulary knows)."""
    assert block.expr is not None
    if not block.expr.path or configured_stable(block.expr, overrides or Overrides()):
        return None
    role = (words(block.expr.path[-1]) or [""])[-1]
    if not is_person_role(role):
        return None
    # A field of the record: `{{name}}` (Mustache, Handlebars), `{{.Name}}` (Go's dot).
    prints_name = any(isinstance(seg, Slot) and seg.expr.path
                      and (len(seg.expr.path) == 1 or (len(seg.expr.path) == 2 and seg.expr.path[0] in (".", "this")))
                      and (words(seg.expr.path[-1]) or [""])[-1] in PERSON_LEAVES for seg in block.body)
    if not prints_name:
        return None
    return Volatility("identity", "per-session", f"judged by the name `{block.expr.name}`: a person, named by "
                      "their role, whose name the block prints", assumed="the record is a person's")


def _by_label(source: str, start: int, expr: Expr, overrides: Overrides | None) -> tuple[Volatility, Expr] | None:
    """A value whose name said nothing, judged by the label it stands under (unless the
    configuration says the name is stable)."""
    if configured_stable(expr, overrides):
        return None
    vol = judge_by_label(source, start, expr)
    return None if vol is None else (vol, expr)


def _judge_slot(slot: Slot, overrides: Overrides | None) -> tuple[Volatility, Expr] | None:
    """A slot's volatility, following `{% set %}` aliases (the worst branch wins) and
    `{% set name %}…{% endset %}` captures to their source."""
    if slot.capture is not None:
        inner = [u for u in find_units(Template("", "jinja", "", slot.capture.body), overrides)]
        if not inner:
            return None
        worst = max(inner, key=lambda u: worst_first(u.volatility))
        vol = worst.volatility
        captured = replace(vol, evidence=f"`{slot.expr.name}` captures {worst.expr.source!r}: {vol.evidence}")
        return captured, slot.expr
    if not slot.alias_options:  # one expression (most slots): judged alone
        expr = slot.alias_of or slot.expr
        found = classify(expr, overrides)
        return None if found is None else (found, expr)
    judged = [(v, e) for e in slot.alias_options if (v := classify(e, overrides)) is not None]
    if not judged:
        return None
    return max(judged, key=lambda pair: worst_first(pair[0]))


def _value(seg: Slot | Tag, unit: Unit, variant: int) -> str:
    """What a volatile slot or include renders in a request."""
    if variant == 0 and isinstance(seg, Slot) and seg.expr.evidence:
        return seg.expr.source  # a literal value: the first rendering is the file's own
    return _slot_sample(unit.volatility, variant)


def _slot_sample(vol: Volatility, variant: int) -> str:
    if vol.kind == "timestamp":
        return _CLOCK_SAMPLES.get(vol.precision, _CLOCK_SAMPLES[None])[variant]
    return _SAMPLES[vol.kind][variant]


def render(
    template: Template,
    units: list[Unit],
    variant: int | None,
    on_segment: Callable[[Segment, int], None] | None = None,
    on_unit: Callable[[int, int], None] | None = None,
) -> str:
    """Render with sample values; ``variant`` None leaves volatile units empty.

    ``on_unit(start, end)``: where each outermost unit's output stands in the rendering
    (only when ``variant`` is given). Without them, the rendering is the one ``variant``
    None gives: nothing else differs between the two."""
    rendering = _Rendering({id(u.segment): u for u in units}, variant, on_segment, on_unit)
    rendering.visit(template.segments, None, None)
    return "".join(rendering.out)


# Where an outermost unit stands in the stable rendering, and what the first and the second
# request render there.
Insert: TypeAlias = tuple[int, str, str]


def renderings(template: Template, units: list[Unit]) -> tuple[str, dict[int, int], list[Insert]]:
    """``render(template, units, None)``, where each segment's output starts in it (by the
    segment's id), and what each outermost unit renders in the first and the second request,
    where it stands (each of their renderings is the stable one with these put in: see
    :func:`render`). Only the units are rendered again, not the whole template twice more."""
    by_id = {id(u.segment): u for u in units}
    met: list[tuple[int, Unit, str | None, str | None, int]] = []
    offsets: dict[int, int] = {}
    stable = _Rendering(by_id, None, offsets=offsets, met=met)
    stable.visit(template.segments, None, None)
    inserts: list[Insert] = []
    if met:
        first, second = _Rendering(by_id, 0), _Rendering(by_id, 1)
        for at, unit, loop_label, volatile_label, loop_depth in met:
            seg = unit.segment
            if isinstance(seg, Block):
                values = first.alone(seg, unit, loop_label, volatile_label, loop_depth), \
                    second.alone(seg, unit, loop_label, volatile_label, loop_depth)
            else:  # a value: what it renders depends on nothing around it
                values = _value(seg, unit, 0), _value(seg, unit, 1)
            if values[0] or values[1]:
                inserts.append((at, *values))
    return "".join(stable.out), offsets, inserts


def put_in(text: str, inserts: list[Insert], variant: int) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with one request's strings of ``inserts`` put in, and where each non-empty
    one stands in the result."""
    parts: list[str] = []
    spans: list[tuple[int, int]] = []
    done = shift = 0
    for at, first, second in inserts:
        value = second if variant else first
        if value:
            parts += text[done:at], value
            spans.append((at + shift, at + shift + len(value)))
            shift += len(value)
            done = at
    parts.append(text[done:])
    return "".join(parts), spans


class _Rendering:
    """One rendering in progress (see :func:`render`): its pieces, its length so far."""

    __slots__ = ("by_id", "variant", "on_segment", "offsets", "on_unit", "met", "out", "length", "in_unit",
                 "loop_depth")

    def __init__(self, by_id: dict[int, Unit], variant: int | None,
                 on_segment: Callable[[Segment, int], None] | None = None,
                 on_unit: Callable[[int, int], None] | None = None,
                 offsets: dict[int, int] | None = None,
                 met: list[tuple[int, Unit, str | None, str | None, int]] | None = None) -> None:
        """``by_id``: the units by their segment's id; ``offsets``: filled with where each
        segment's output starts (as ``on_segment`` is told, without a call per segment);
        ``met``: where each unit met stands, with the labels and loop depth it is met under
        (``variant`` None, where no unit renders and each one met is outermost)."""
        self.by_id = by_id
        self.variant = variant
        self.on_segment = on_segment
        self.offsets = offsets
        self.on_unit = on_unit if variant is not None else None
        self.met = met
        self.out: list[str] = []
        self.length = 0
        self.in_unit = False
        self.loop_depth = 0

    def alone(self, seg: Segment, unit: Unit, loop_label: str | None, volatile_label: str | None,
              loop_depth: int) -> str:
        """What one outermost unit renders, met under these labels and loop depth."""
        self.out, self.in_unit, self.loop_depth = [], True, loop_depth
        self.one(seg, unit, loop_label, volatile_label)
        return "".join(self.out)

    def emit(self, text: str) -> None:
        self.out.append(text)
        self.length += len(text)

    def visit(self, segments: list[Segment], loop_label: str | None, volatile_label: str | None) -> None:
        out, by_id, on_segment, offsets, on_unit = self.out, self.by_id, self.on_segment, self.offsets, self.on_unit
        for seg in segments:
            if offsets is not None:
                offsets[id(seg)] = self.length
            elif on_segment is not None:
                on_segment(seg, self.length)
            if type(seg) is Text:  # most segments, and never a unit: written here, without a call
                out.append(seg.text)
                self.length += len(seg.text)
                continue
            unit = by_id.get(id(seg))
            if unit is not None and not self.in_unit:
                if on_unit is not None:
                    self.in_unit, start = True, self.length
                    self.one(seg, unit, loop_label, volatile_label)
                    self.in_unit = False
                    if self.length > start:
                        on_unit(start, self.length)
                    continue
                if self.met is not None:
                    self.met.append((self.length, unit, loop_label, volatile_label, self.loop_depth))
            self.one(seg, unit, loop_label, volatile_label)

    def one(self, seg: Segment, unit: Unit | None, loop_label: str | None, volatile_label: str | None) -> None:
        variant, emit = self.variant, self.emit
        if isinstance(seg, Text):
            emit(seg.text)
        elif isinstance(seg, Tag):
            # An include renders its file; only a volatile one changes between calls.
            if unit is not None and variant is not None:
                emit(_value(seg, unit, variant))
        elif isinstance(seg, Slot):
            if unit is not None:
                if variant is not None:
                    emit(_value(seg, unit, variant))
            elif volatile_label is not None:
                emit(f"{seg.expr.name}-{volatile_label}")
            elif loop_label is not None:
                emit(f"{seg.expr.name}-{loop_label}")
            else:
                emit(seg.expr.name)
        elif isinstance(seg, Block):
            if seg.kind not in RENDERED_BLOCKS:
                return
            if unit is not None:
                if variant is None:
                    # Nothing inside renders; what stands inside starts here too.
                    if self.offsets is not None:
                        self.offsets.update((id(inner), self.length) for inner in walk(seg.body))
                    elif self.on_segment is not None:
                        for inner in walk(seg.body):
                            self.on_segment(inner, self.length)
                    return
                if seg.kind in ("block", "if"):
                    # What a child puts there; which branch a test on the clock picks.
                    emit(_slot_sample(unit.volatility, variant))
                labels = ("one", "two") if variant == 0 else ("two", "one")
                # A volatile loop yields different items in a different order.
                for label in labels if unit.is_loop and seg.kind in _LOOP_BLOCKS else labels[:1]:
                    self.visit(seg.body, loop_label, f"{label}-{variant}")
            elif seg.kind in _LOOP_BLOCKS and seg.kind != "section":
                self.loop_depth += 1
                # Two items show what a loop repeats; nested deeper than a few levels,
                # one item each keeps the rendering linear instead of 2^depth.
                for label in ("one", "two") if self.loop_depth <= _DOUBLED_LOOP_DEPTH else ("one",):
                    self.visit(seg.body, label, volatile_label)
                self.loop_depth -= 1
            else:
                self.visit(seg.body, loop_label, volatile_label)


def analyze(template: Template, encoding: str = "o200k_base", overrides: Overrides | None = None) -> Analysis:
    rendered_as = compose(template, overrides)
    units = units_of(rendered_as, overrides)
    stable_text, offsets, inserts = renderings(rendered_as, units)
    # The first request's rendering is the stable text with each unit's value put in: the
    # stable text is encoded once, cut around them, and only the windows around them are
    # encoded again.
    rendered, spans = put_in(stable_text, inserts, 0)
    before, following, known = None, None, None
    if not spans:  # no unit renders anything: every rendering is the stable one
        stable_ids = first = tokens.encode(stable_text, encoding)
    else:
        stable_ids, first, before, following = spliced_encoding(stable_text, rendered, spans, encoding)
        # The renderings are the stable text up to the first unit's value: a cut before it
        # (a sync point there, or the start) is where it is in the first rendering too, the
        # tokens before it the same.
        edge = max((at for at in before if at < spans[0][0]), default=None)
        known = None if edge is None else (edge, before[edge])
    # What a second request renders: only the tokens up to where it parts from the first
    # are encoded again.
    stable_prefix = shared_prefix_tokens(rendered, first, put_in(stable_text, inserts, 1)[0], encoding, known)
    if rendered_as is not template:
        # A child template's findings are its own; its parent's volatile parts still count
        # for the stable prefix (they are reported in the parent).
        own = {id(seg) for seg in walk(template.segments)}
        units = [u for u in units if id(u.segment) in own]
    return Analysis(
        template=template,
        encoding=encoding,
        units=units,
        tokens=len(first),
        stable_prefix_tokens=stable_prefix,
        stable_text=stable_text,
        rendered=rendered,
        _offsets=offsets,
        _stable_ids=stable_ids,
        _stable_before=before,
        _stable_following=following,
    )


# An `{% extends %}` chain longer than this is not followed.
_MAX_EXTENDS = 10


def compose(template: Template, overrides: Overrides | None) -> Template:
    """A Jinja child template as it renders: its parent's segments (the parent's parent's,
    along an ``{% extends %}`` chain) with each ``{% block %}`` the child defines in place.
    The template itself when it extends nothing, or nothing that can be read."""
    if overrides is None or overrides.extends is None or template.syntax != "jinja":
        return template
    chain: list[Template] = [template]
    seen = {template.path}
    while len(chain) <= _MAX_EXTENDS:
        tag = next((s for s in chain[-1].segments if isinstance(s, Tag) and s.tag == "extends"), None)
        if tag is None:
            break
        parent = overrides.extends(tag, chain[-1].path)
        if parent is None or parent.path in seen or parent.syntax != "jinja":
            break
        seen.add(parent.path)
        chain.append(parent)
    if len(chain) == 1:
        return template
    # The deepest definition of a block wins: the child's over its parent's.
    blocks: dict[str, Block] = {}
    for link in reversed(chain):
        for seg in walk(link.segments):
            if isinstance(seg, Block) and seg.kind == "block" and seg.target:
                blocks[seg.target] = seg

    own = {id(seg) for seg in walk(template.segments)}

    def substitute(segments: list[Segment]) -> list[Segment]:
        out: list[Segment] = []
        for seg in segments:
            if not isinstance(seg, Block):
                out.append(seg)
                continue
            chosen = blocks.get(seg.target or "", seg) if seg.kind == "block" else seg
            # The child's own blocks stay the objects its findings point at; the parents'
            # are copied with the child's blocks put inside them.
            out.append(chosen if id(chosen) in own else replace(chosen, body=substitute(chosen.body)))
        return out

    root = chain[-1]
    return Template(path=template.path, syntax="jinja", source=template.source, segments=substitute(root.segments))
