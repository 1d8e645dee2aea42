"""Prompts built in code, in shapes found in public repositories: a test file of a megabyte
with characters of every UTF-8 width, whose byte positions the TypeScript reader maps to
characters (a loop over its characters took half a second; the map is now summed)."""

from __future__ import annotations

from promptlint.loaders import load_text

# One character of each UTF-8 width: 1, 2, 3 and 4 bytes.
WIDE = "a é — 中 😀 "


def test_ts_slots_point_at_their_expressions_after_characters_of_every_width() -> None:
    source = "".join(
        f"export const SYSTEM_PROMPT_{i} = `{WIDE * i}Heure : ${{now{i}()}} {WIDE}${{user{i}.name}}`;\n"
        for i in range(1, 6)
    ) + f"// {WIDE}\n"
    template = load_text("builder.ts", source)
    spans = [source[s.span.start : s.span.end] for p in template.prompts for s in p.slots()]
    assert spans == [part for i in range(1, 6) for part in (f"now{i}()", f"user{i}.name")]


def test_js_positions_of_a_file_that_starts_and_ends_with_a_wide_character() -> None:
    source = "😀\nconst systemPrompt = `Vous êtes Atlas — ${new Date().toISOString()}`;\n// fin 中"
    template = load_text("builder.js", source)
    (slot,) = [s for p in template.prompts for s in p.slots()]
    assert source[slot.span.start : slot.span.end] == "new Date().toISOString()"
    assert template.position(slot.span.start).line == 2
