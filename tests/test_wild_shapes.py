"""Shapes found in public agent prompts that the checker once missed or misread: Go
templates, `{UPPER}` tokens replaced in code beside JSON, pages that document
placeholders, list sections whose names are the items' fields, a layout's empty block
filled by a checked child, and words of names (a project folder, a repository's name)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import assert_tiles
from promptlint.api import check_paths, check_text
from promptlint.core.clocks import precision_of_format
from promptlint.core.names import _by_name
from promptlint.loaders import LoadError, infer_syntax, load_text

RULES = "\n".join(
    f"- Rule {i}: read the files a change touches before editing, keep each diff small, run the tests "
    "after every edit and report failures verbatim."
    for i in range(1, 30)
)


def found(result) -> list[tuple[int, str | None, str]]:  # type: ignore[no-untyped-def]
    return [(f.line, f.kind, f.severity) for f in result.findings]


# --------------------------------------------------------------------------- Go templates

GO = (
    "You are Gopher.\n"
    "- Time: {{.Time}}\n"
    "- Session: {{ .SessionID }}\n"
    "{{- if .Memory}}\n"
    "Saved facts:\n"
    "{{.Memory}}\n"
    "{{- end}}\n"
    "{{/* tools are registered at start-up */}}\n"
    "{{range $i, $t := .Tools}}- {{$t.Name}}: {{.Description}}\n{{end}}\n"
    f"{RULES}\n"
)


def test_go_template_is_inferred_and_tiles() -> None:
    inferred = infer_syntax("SYSTEM.md", GO)
    assert inferred.syntax == "go"
    assert "`{{.Field}}` actions (.Time, .SessionID, .Memory, .Description)" in inferred.evidence
    template = load_text("SYSTEM.md", GO)
    assert_tiles(template)


def test_go_template_values_are_judged_by_their_fields() -> None:
    result = check_text(GO, path="SYSTEM.md")
    assert found(result) == [
        (2, "timestamp", "error"),
        (3, "session-id", "error"),
        (6, "memory", "error"),
        (9, "tool-order", "error"),  # a range over a slice keeps the slice's order
    ]
    # inside the range, `.Description` and `$t.Name` are the item's, not judged by name
    assert all(f.line != 9 or f.rule == "PC102" for f in result.findings)


def test_go_trim_markers_render_without_the_whitespace() -> None:
    template = load_text("a.gotmpl", "A\n  {{- .X -}}  \nB")
    rendered = "".join(getattr(s, "text", "<slot>") for s in template.segments)
    assert rendered == "A<slot>B"
    assert_tiles(template)


def test_go_sorted_range_and_layout_precision() -> None:
    sorted_tools = check_text("{{range sortAlpha .Tools}}- {{.}}\n{{end}}\n" + RULES, path="a.gotmpl")
    assert [f.rule for f in sorted_tools.findings] == []
    clock = check_text('Date: {{.Now.Format "2006-01-02"}}\n' + RULES, path="a.gotmpl")
    assert found(clock) == [(1, "timestamp", "warning")]


@pytest.mark.parametrize(
    ("layout", "precision"),
    [("2006-01-02", "day"), ("2006-01-02 15:04", "minute"), ("15:04:05", "second"),
     ("Mon Jan 2 15:04:05 MST 2006", "second"), ("2006-01-02T15:04:05.000Z07:00", "millisecond"),
     ("RFC3339", "second"), ("time.DateOnly", "day")],
)
def test_go_layouts(layout: str, precision: str) -> None:
    assert precision_of_format(layout) == precision


@pytest.mark.parametrize("text", ["{{.Time", "{{if .X}}open\n", "{{end}}"])
def test_go_template_errors_name_the_line(text: str) -> None:
    with pytest.raises(LoadError) as caught:
        load_text("a.gotmpl", text)
    assert caught.value.line == 1
    assert "\n" not in caught.value.message


def test_go_suppression_comment() -> None:
    text = "{{/* promptlint: disable-next-line=PC101 */}}\nTime: {{.Time}}\n" + RULES
    assert check_text(text, path="a.gotmpl").findings == []


# --------------------------------------------------------------------------- `{UPPER}` replaced in code

PLANNER = (
    "Current time: {CURRENT_TIME}\n\nReply with a JSON plan:\n\n"
    '{"goal": "one sentence", "tasks": [{"agent": "searcher"}]}\n\n' + RULES
)


def test_upper_case_tokens_beside_json_are_slots() -> None:
    inferred = infer_syntax("planner.txt", PLANNER)
    assert inferred.syntax == "placeholders"
    result = check_text(PLANNER, path="planner.txt")
    assert found(result) == [(1, "timestamp", "error")]
    assert_tiles(load_text("planner.txt", PLANNER))


@pytest.mark.parametrize(
    "text",
    [
        'Reply with {ANSWER} only.\n{"a": 1}\n',  # one token that names nothing volatile: prose
        'Write {ANSWER} where {ANSWER} is one word.\n{"a": 1}\n',  # explained in prose
    ],
)
def test_lone_or_explained_upper_token_stays_static(text: str) -> None:
    assert infer_syntax("p.txt", text).syntax == "markdown"


def test_a_volatile_snake_case_token_beside_raw_json_is_a_slot() -> None:
    text = "Results of your searches:\n{search_results}\n\n```json\n{\"steps\": [{\"query\": \"x\"}]}\n```\n" + RULES
    assert infer_syntax("research.md", text).syntax == "placeholders"
    # the JSON example is literal text, not a field named `"steps"`
    assert found(check_text(text, path="research.md")) == [(2, "retrieval", "error")]


# --------------------------------------------------------------------------- documentation pages

@pytest.mark.parametrize(
    "page",
    [
        "# Variables\n\n| variable | meaning |\n|---|---|\n| `{{USER_NAME}}` | the user's name |\n"
        "| `{{CURRENT_TIME}}` | the time |\n\nAvoid `{{CURRENT_TIME}}` at the top.\n",
        "# Variables\n\n- `{{USER_NAME}}`: the user's name.\n- `{{CURRENT_DATE}}`: today's date.\n",
    ],
)
def test_a_page_that_documents_placeholders_is_static(page: str) -> None:
    assert infer_syntax("vars.md", page).syntax == "markdown"
    assert check_text(page + RULES, path="vars.md").findings == []


def test_prose_that_names_placeholders_is_about_templates() -> None:
    page = "Prompt files may use the placeholders `{{USER_NAME}}` and `{{CURRENT_DATE}}`; the loader replaces them.\n"
    assert infer_syntax("notes.md", page + RULES).syntax == "markdown"


def test_placeholders_in_code_spans_in_a_prompt_are_still_slots() -> None:
    text = "Working directory: `{{WORKING_DIRECTORY}}`\nNow: `{{CURRENT_DATETIME}}`\n" + RULES
    assert infer_syntax("AGENT.md", text).syntax == "mustache"


# --------------------------------------------------------------------------- Mustache list sections

def test_fields_of_a_list_section_are_judged_with_the_list() -> None:
    faq = "FAQ:\n{{#faq}}\n**{{question}}**\n{{answer}}\n{{/faq}}\n" + RULES
    assert check_text(faq, path="a.mustache").findings == []
    # a flag section renders the outer context: its names are judged as they are
    flag = "{{#show_header}}\nTime: {{current_time}}\n{{/show_header}}\n" + RULES
    assert found(check_text(flag, path="a.mustache")) == [(2, "timestamp", "error")]
    # a flag section's value is never printed: like an `if`, it is not judged by its name
    assert check_text("{{#is_new_profile}}\nSay hello.\n{{/is_new_profile}}\n" + RULES, path="a.mustache").findings == []
    # and a list the request fills is judged by its name
    orders = "Open orders:\n{{#each recentOrders}}\n- {{this.id}}: {{status}}\n{{/each}}\n" + RULES
    assert found(check_text(orders, path="a.hbs")) == [(2, "retrieval", "error")]


# --------------------------------------------------------------------------- layouts and children

def test_an_empty_block_a_checked_child_fills_is_judged_in_the_child(tmp_path: Path) -> None:
    (tmp_path / "base.j2").write_text("You are Ledger.\n{% block context %}{% endblock %}\n" + RULES)
    alone = check_paths([tmp_path / "base.j2"])
    assert [(f.line, f.kind) for f in alone.files[0].findings] == [(2, "retrieval")]
    (tmp_path / "answer.j2").write_text(
        '{% extends "base.j2" %}\n{% block context %}\n{% for d in retrieved_docs %}{{ d.text }}\n'
        "{% endfor %}\n{% endblock %}\n")
    both = check_paths([tmp_path])
    by_name = {Path(r.path).name: [(f.line, f.kind) for f in r.findings] for r in both.files}
    assert by_name == {"base.j2": [], "answer.j2": [(3, "retrieval")]}


# --------------------------------------------------------------------------- roles, literals

def test_a_request_body_named_user_is_not_a_user_turn(tmp_path: Path) -> None:
    body = ('{"model": "gpt-4.1", "messages": [{"role": "system", "content": "Current time: '
            '2026-03-04T09:12:44Z. ' + RULES.replace("\n", " ") + '"}, {"role": "user", "content": "hi"}]}')
    path = tmp_path / "tail_user.json"
    path.write_text(body)
    result = check_paths([path]).files[0]
    assert "role" not in result.extra
    assert ("timestamp", "error") in [(f.kind, f.severity) for f in result.findings]


def test_a_labelled_trace_id_and_a_patient_are_rendered_values(tmp_path: Path) -> None:
    rules = RULES.replace("\n", " ")
    body = ('{"model": "gpt-4.1", "instructions": "Trace 7f3e9a12c4b84d0e. Patient: Ana Lima (ana@example.org). '
            + rules + '", "input": "hi"}')
    path = tmp_path / "request.json"
    path.write_text(body)
    kinds = {f.kind for f in check_paths([path]).files[0].findings}
    assert {"session-id", "identity"} <= kinds


# --------------------------------------------------------------------------- words of names

@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("PROJECT_DIR", "environment"), ("IS_REPO", "environment"), ("OS_RELEASE", "environment"),
        ("LAST_COMMITS", "environment"), ("runtime", "environment"), ("vcs.status", "environment"),
        ("system_time", "timestamp"), ("recentOrders", "retrieval"), ("order_history", "retrieval"),
        ("pr.diff", "retrieval"), ("open_tickets", "retrieval"),
        ("repo.full_name", None), ("project.display_name", None), ("user.full_name", "identity"),
        ("system_prompt", None), ("app_version", None), ("trip.home_airport", None), ("home_dir", "environment"),
        ("CHANGED_FILES", "environment"), ("active_users", "identity"), ("PR_AUTHOR", "identity"),
        ("people_channel", None), ("cart", "retrieval"),
        ("customer_email", "identity"), ("support_email", None), ("clinic_phone", None), ("preferred_language", "identity"),
        ("weather_forecast", "retrieval"), ("tracking_number", "retrieval"), ("stack_trace", "environment"),
        ("selected_text", "environment"), ("todo_list", "memory"), ("browser", "environment"),
        ("live_jobs", "retrieval"), ("WorkDir", "environment"), ("openSlots", "retrieval"), ("player_name", "identity"),
        ("cellarInventory", "retrieval"), ("live_memories", "memory"), ("current_phase", "memory"),
        ("latest_message", "retrieval"), ("current_year", None), ("current_model", None), ("current_version", None),
        ("policy_excerpts", "retrieval"), ("policy_date", None), ("deployLog", "retrieval"), ("log_level", None),
        ("dispatcher.name", "identity"),
    ],
)
def test_words_of_names(name: str, kind: str | None) -> None:
    judged = _by_name(tuple(name.split(".")))
    assert (judged[0] if judged else None) == kind


# --------------------------------------------------------------------------- wild-4's traps

def test_escaped_handlebars_tags_are_literal_text() -> None:
    text = "Keep \\{{userName}} and \\{{count}} as written.\n" + RULES
    template = load_text("a.hbs", text)
    assert_tiles(template)
    assert "".join(getattr(s, "text", "") for s in template.segments).startswith("Keep {{userName}} and {{count}}")
    assert check_text(text, path="a.hbs").findings == []


def test_placeholders_shown_as_a_style_are_prose() -> None:
    text = "Cite as {author} ({year}), or ({author}, {year}) at the end of a sentence.\n"
    assert infer_syntax("style.txt", text).syntax == "markdown"


def test_an_unsorted_loop_inside_an_unsorted_tool_loop_is_reported_too() -> None:
    # both are sorted by one `fix`; reported once each (the blind labels mark the outer only)
    text = "{{#each mcpServers}}\n{{#each this.tools}}\n- {{name}}\n{{/each}}\n{{/each}}\n" + RULES
    assert found(check_text(text, path="a.hbs")) == [(1, "tool-order", "error"), (2, "tool-order", "error")]


def test_a_sorted_list_of_steps_is_content_not_a_counter() -> None:
    text = '{% for step in onboarding_steps | sort(attribute="order") %}- {{ step.title }}\n{% endfor %}\n' + RULES
    assert check_text(text, path="a.j2").findings == []
    assert found(check_text("Step {{ step_number }} of the plan.\n" + RULES, path="a.j2"))[0][1] == "session-id"


def test_the_name_vocabulary_file_is_consistent() -> None:
    """`data/names.toml`: known kinds and frequencies, no word in two groups that disagree
    (the later would win silently), and phrases of two words or more."""
    import tomllib
    from collections import defaultdict

    from promptlint.core.kinds import FREQUENCIES, KINDS

    data = tomllib.loads((Path(__file__).resolve().parents[1] / "promptlint" / "data" / "names.toml").read_text())
    said: defaultdict[str, set[tuple[str, str]]] = defaultdict(set)
    for group in data["words"]:
        assert group["kind"] in KINDS and group["frequency"] in FREQUENCIES, group
        for word in " ".join(group["words"]).split():
            assert word == word.lower() and word.isalnum(), word
            said[word].add((group["kind"], group["frequency"]))
    assert {word: what for word, what in said.items() if len(what) > 1} == {}
    for words, joined in data["phrases"].items():
        assert len(words.split()) >= 2 and joined.isalnum(), (words, joined)


@pytest.mark.parametrize("name", ["hut_name", "HutName", "HUT_NAME", "tower_name"])
def test_a_places_name_is_a_deploy_constant(name: str) -> None:
    """A mountain hut's or a tower's name is where the agent is deployed, not who it serves."""
    assert _by_name((name,)) is None


# --------------------------------------------------------------------------- people named by their role

@pytest.mark.parametrize("name", ["inspector.name", "projectionist_email", "rigger.full_name"])
def test_a_role_nouns_name_is_a_person(name: str) -> None:
    assert _by_name(tuple(name.split("."))) is not None
    assert _by_name(tuple(name.split(".")))[0] == "identity"  # type: ignore[index]


@pytest.mark.parametrize("name", ["vendor.name", "server.name", "worker.name", "parser.name", "reminder_name"])
def test_a_thing_named_like_a_role_is_not_a_person(name: str) -> None:
    found_kind = _by_name(tuple(name.split(".")))
    assert found_kind is None or found_kind[0] != "identity"


def test_a_with_block_over_a_role_that_prints_a_name_is_a_person() -> None:
    person = check_text(f"You support the booth.\n{{{{#with projectionist}}}}{{{{name}}}} is on tonight.{{{{/with}}}}\n{RULES}\n",
                        syntax="mustache")
    assert found(person) == [(2, "identity", "error")]
    thing = check_text(f"You support the booth.\n{{{{#with vendor}}}}{{{{name}}}} built it.{{{{/with}}}}\n{RULES}\n",
                       syntax="mustache")
    assert found(thing) == []


def test_data_under_a_line_that_says_when_it_was_refreshed_is_of_this_request() -> None:
    text = ("You watch the sap lines.\nReadings refreshed {{ now().strftime('%H:%M') }}\nVacuum by line:\n"
            "{% for line in tap_lines.values() %}- {{ line.name }}: {{ line.vacuum }}\n{% endfor %}\n\n" + RULES + "\n")
    assert (4, "retrieval", "error") in found(check_text(text, syntax="jinja"))
    # A paragraph break ends what the line dates.
    apart = text.replace("Vacuum by line:\n", "\nVacuum by line:\n")
    assert [f for f in found(check_text(apart, syntax="jinja")) if f[1] == "retrieval"] == []


def test_counts_are_taken_for_the_request() -> None:
    assert found(check_text(f"You assist the nursery.\n{{{{{{larvaeCounts}}}}}}\n{RULES}\n", syntax="mustache")) == [
        (2, "retrieval", "error")]


def test_a_name_and_address_of_whoever_is_on_duty_in_a_request_body_is_identity() -> None:
    import json

    rules = " ".join(f"Rule {i}: answer from the written procedure and cite it." for i in range(60))
    body = {"model": "claude-sonnet-4-5", "max_tokens": 512, "system": [
        {"type": "text", "text": "Operator on duty: Ruth Calder <ruth.calder@sugarbush.example>"},
        {"type": "text", "text": rules, "cache_control": {"type": "ephemeral"}}],
        "messages": [{"role": "user", "content": "Is the evaporator running?"}]}
    result = check_text(json.dumps(body, indent=2), syntax="json")
    assert [(f.rule, f.kind) for f in result.findings if f.kind == "identity"] == [("PC201", "identity")]


@pytest.mark.parametrize("name", ["outfitter_name", "outfitterName", "studio_name"])
def test_one_identifier_naming_the_business_is_not_a_person(name: str) -> None:
    result = check_text(f"You are the launch desk assistant for {{{{{name}}}}}.\n{RULES}\n", syntax="mustache")
    assert found(result) == []


@pytest.mark.parametrize("name, kind", [("TOOL_GAUGE_PROMPT", None), ("MEMORY_RULES_PROMPT", None),
                                        ("skills_prompt", "tool-order"), ("user_prompt", "identity")])
def test_prompt_text_the_developers_wrote_is_stable(name: str, kind: str | None) -> None:
    judged = _by_name(tuple(name.split(".")))
    assert (judged[0] if judged else None) == kind


@pytest.mark.parametrize("line, kind", [
    ("Piano on file: ${PIANO_RECORD}", "retrieval"),
    ("Working directory: ${DIRECTORY}", "environment"),
    ("Wind at the weir: ${wind.speed} km/h", "retrieval"),
    ("Rider: ${rider.name}", "identity"),
])
def test_labels_and_words_of_the_case_at_hand(line: str, kind: str) -> None:
    assert [f[1] for f in found(check_text(f"{line}\n{RULES}\n", syntax="dollar"))] == [kind]


def test_a_label_that_says_what_the_user_asks_about() -> None:
    text = f"Job card for the piece the customer is asking about:\n{{job_card}}\n\n{RULES}\n"
    assert found(check_text(text, syntax="format")) == [(2, "retrieval", "error")]


# --------------------------------------------------------------------------- shapes from wild-13

def test_a_handlebars_raw_block_renders_verbatim_and_tiles() -> None:
    source = f"Rules.\n{{{{{{{{raw}}}}}}}}Fields: {{{{sessionDay}}}}, {{{{guestName}}}}{{{{{{{{/raw}}}}}}}}\n{RULES}\n"
    template = load_text("notice.hbs", source)
    assert_tiles(template)
    assert found(check_text(source, syntax="mustache")) == []
    with pytest.raises(LoadError, match="unclosed Handlebars raw block"):
        load_text("broken.hbs", "x {{{{raw}}}} never closed")


def test_values_under_a_user_message_heading_are_the_user_turn() -> None:
    text = f"# Reprint desk\n{RULES}\n\n## User Message Template\n\nToday is {{{{current_date}}}}. Order {{{{order_number}}}}\n"
    assert found(check_text(text, syntax="mustache")) == []
    before = text.replace("## User Message Template\n", "## Notes\n")
    assert found(check_text(before, syntax="mustache")) != []


def test_a_record_under_the_line_that_names_the_user() -> None:
    text = f"Buyer: ${{BUYER_NAME}}\nStanding order: ${{STANDING_ORDER}}\nCompany: ${{COMPANY_NAME}}\n{RULES}\n"
    assert [(line, kind) for line, kind, _ in found(check_text(text, syntax="dollar"))] == [
        (1, "identity"), (2, "retrieval")]


def test_a_loop_written_twice_is_reported_once() -> None:
    loop = "{% for hit in context %}- {{ hit.title }}\n{% endfor %}\n"
    text = f"Sources:\n{loop}{RULES}\nSources again:\n{loop}{RULES}\n"
    findings = [f for f in check_text(text, syntax="jinja").findings if f.rule == "PC101"]
    assert [f.line for f in findings] == [2]
    assert "also written on line" in findings[0].message


@pytest.mark.parametrize("line", ["Wind at the top station: {{wind_speed_top}} km/h",
                                  "Slots still free this week:\n{{#slots}}- {{day}}\n{{/slots}}"])
def test_the_weather_now_and_what_is_still_free(line: str) -> None:
    assert [f[1] for f in found(check_text(f"{line}\n{RULES}\n", syntax="mustache"))] == ["retrieval"]


def test_an_organisations_own_address_is_configuration() -> None:
    assert found(check_text(f"Questions go to ${{committeeEmail}}.\n{RULES}\n", syntax="dollar")) == []


def _system_kinds(first_system: str) -> set[str | None]:
    """The kinds found in an OpenAI chat body whose first system message is ``first_system``,
    before a second one of rules."""
    import json

    rules = " ".join(f"Rule {i}: answer from the written procedure and cite it." for i in range(80))
    body = {"model": "gpt-5.5", "messages": [
        {"role": "system", "content": first_system}, {"role": "system", "content": rules},
        {"role": "user", "content": "Is it open?"}]}
    return {f.kind for f in check_text(json.dumps(body, indent=2), syntax="json").findings}


@pytest.mark.parametrize("first_system", [
    "Counter clock: 08:15, Tuesday 1 December 2026",
    "You are Marlow. The current time and date is 07:15 AM on Saturday May 02, 2026.",
    "Track status at 18:42: open session running, banking dry.",
    "Briefing generated Saturday 14 June, 09:42 UTC. Winch launches only.",
])
def test_a_time_said_in_a_request_body_is_a_clock(first_system: str) -> None:
    assert "timestamp" in _system_kinds(first_system)


def test_it_is_a_time_in_a_request_body_is_a_clock() -> None:
    assert "timestamp" in _system_kinds("It is 18:42 on Thursday 5 March at the wall.")
    assert "timestamp" not in _system_kinds("It is a climbing wall; ask the desk for the opening times.")


# --------------------------------------------------------------------------- shapes from wild-14

def test_a_tmpl_file_of_go_functions_is_go() -> None:
    source = ('Today is {{ now | date "Mon 02 Jan 2006" }}.\n\nShared notes (rewritten after each session):\n'
              '{{ includeFile ".forge/notes.md" }}\n\nWorkshop repository changes:\n{{ exec "git status --short" }}\n\n'
              f"{RULES}\n")
    assert infer_syntax("notes.tmpl", source).syntax == "go"
    assert infer_syntax("plain.tmpl", "Hello ${name}.\n").syntax == "dollar"
    assert [(line, kind) for line, kind, _ in found(check_text(source, syntax="go"))] == [
        (1, "timestamp"), (4, "memory"), (7, "environment")]


def test_a_loop_is_judged_by_the_readings_its_items_print() -> None:
    probes = "Probes:\n{% for probe in still_probes.values() %}- {{ probe.temperature_c }} C\n{% endfor %}\n"
    assert found(check_text(probes + RULES + "\n", syntax="jinja")) == [(2, "retrieval", "error")]
    holidays = "Holidays:\n{% for h in holidays %}- {{ h.date }} {{ h.name }}\n{% endfor %}\n"
    assert found(check_text(holidays + RULES + "\n", syntax="jinja")) == []


@pytest.mark.parametrize("name", ["GitLatestCommit", "GitHasChanges"])
def test_git_state_named_in_words_is_live_environment(name: str) -> None:
    assert _by_name((name,)) is not None and _by_name((name,))[0] == "environment"  # type: ignore[index]


@pytest.mark.parametrize("name", ["diver_name", "climbers", "paddler.name"])
def test_people_by_what_they_do_on_the_day(name: str) -> None:
    judged = _by_name(tuple(name.split(".")))
    assert judged is not None and judged[0] == "identity"



# --------------------------------------------------------------------------- shapes from wild-15

@pytest.mark.parametrize("name, kind", [
    ("visitor.trekTime", "identity"), ("guest.bookingRef", "identity"), ("filer.filing_status", "identity"),
    ("user.local_time", "timestamp"), ("user.time", "timestamp"), ("customer.orders", "retrieval"),
    ("user.session_id", "session-id"), ("layout_status", "retrieval"), ("track_gauge", None),
])
def test_a_detail_of_a_persons_record_is_who_they_are(name: str, kind: str | None) -> None:
    judged = _by_name(tuple(name.split(".")))
    assert (judged[0] if judged else None) == kind


def test_a_loop_over_the_same_list_again_is_the_same_value() -> None:
    text = ("Devices:\n{% for d in devices %}- {{ d.name }} = {{ d.state }}\n{% endfor %}\n"
            "By area:\n{% for area in devices | groupby('area_name') %}- {{ area.grouper }}\n{% endfor %}\n" + RULES + "\n")
    assert [f.line for f in check_text(text, syntax="jinja").findings if f.rule == "PC101"] == [2]



# --------------------------------------------------------------------------- shapes from wild-16

def test_a_file_whose_head_says_it_is_a_rendered_prompt_is_a_render() -> None:
    rules = "\n".join(f"- Rule {i}: log every borehole depth and casing length before the crew leaves." for i in range(30))
    text = f"# Rendered system prompt: field desk\n\nDate: Tuesday 3 March 2026\nTime: 07:55\n\n{rules}\n"
    assert found(check_text(text, syntax="markdown")) == [(3, "timestamp", "warning"), (4, "timestamp", "error")]
    # Plain "Date:" and "Time:" labels in a file not known to be a render are a policy's dates.
    plain = text.replace("# Rendered system prompt: field desk", "# Field desk policy")
    assert found(check_text(plain, syntax="markdown")) == []


def test_how_many_tools_is_no_order() -> None:
    text = "You have {{ tools | length }} tools.\n" + RULES + "\n"
    assert found(check_text(text, syntax="jinja")) == []


@pytest.mark.parametrize("line, kind", [
    ("Foreman on call today: {{ foreman.name }}", "identity"),
    ("Conditions at {{ report_time.strftime('%H:%M') }}:\n{{ groomed_trails }}", "retrieval"),
    ("Expected arrivals:\n{% for a in arrivals %}- {{ a.boat }}\n{% endfor %}", "retrieval"),
    ("Last heartbeat: {{ LAST_RUN_AT }}", "timestamp"),
])
def test_people_on_call_today_data_at_a_time_arrivals_and_when_it_ran(line: str, kind: str) -> None:
    assert kind in [f[1] for f in found(check_text(f"{line}\n{RULES}\n", syntax="jinja"))]



# --------------------------------------------------------------------------- shapes from wild-17

def test_an_index_of_skills_loaded_from_a_folder_can_change_order() -> None:
    text = f"Skills available (loaded from the skills folder at start-up):\n{{{{SKILLS_INDEX}}}}\n\n{RULES}\n"
    assert found(check_text(text, syntax="mustache")) == [(2, "tool-order", "error")]
    registered = f"Skills available:\n{{{{SKILLS_INDEX}}}}\n\n{RULES}\n"
    assert found(check_text(registered, syntax="mustache")) == [(2, "tool-order", "warning")]
    assert _by_name(("tool_index",)) is None  # one tool's number


def test_values_under_an_examples_label_are_made_up() -> None:
    text = ("Turn the grower's message into JSON.\n\nExamples:\n"
            "Grower: lift the whips on friday (current time: 2026-01-12T08:00:00Z)\n"
            '{"task": "Lift whips", "due": "2026-01-16T09:00:00Z"}\n\n' + RULES + "\n")
    assert found(check_text(text, syntax="markdown")) == []


# --------------------------------------------------------------------------- shapes from wild-18

@pytest.mark.parametrize("line, kind", [
    ("Green conditions:\n${GREEN_CONDITIONS}", "retrieval"),
    ("Collections requested:\n${collections}", "retrieval"),
    ("Parties on the ice:\n${parties}", "retrieval"),
])
def test_conditions_now_what_was_requested_and_who_is_out_there(line: str, kind: str) -> None:
    assert [f[1] for f in found(check_text(f"{line}\n\n{RULES}\n", syntax="dollar"))] == [kind]


@pytest.mark.parametrize("line", ["Hire terms and conditions:\n${hire_terms_and_conditions}",
                                  "Course sites this season:\n${course_sites}"])
def test_terms_and_conditions_and_this_season_are_standing(line: str) -> None:
    assert found(check_text(f"{line}\n\n{RULES}\n", syntax="dollar")) == []


# --------------------------------------------------------------------------- shapes from wild-19

def test_a_loop_sorted_after_a_set_alias_is_sorted() -> None:
    text = ('{%- set builtin_tools = builtin_tools | default(["browser"]) -%}\nTools:\n'
            "{% for tool in builtin_tools | sort %}- `{{ tool }}`\n{% endfor %}\n" + RULES + "\n")
    assert found(check_text(text, syntax="jinja")) == []


def test_a_lone_volatile_field_on_its_own_line_makes_a_text_a_format_template() -> None:
    text = f"You answer from the catalogue entries below.\nEntries found for this question:\n{{documents}}\n{RULES}\n"
    assert infer_syntax("costume_rag.txt", text).syntax == "format"
    assert infer_syntax("notes.txt", "Write the {answer} in one sentence.\n").syntax == "markdown"


@pytest.mark.parametrize("line", ["Reports received in the last six hours:\n${observer_reports}",
                                  "Movements on the board:\n${movements}"])
def test_what_came_in_lately_and_what_is_on_the_board(line: str) -> None:
    assert [f[1] for f in found(check_text(f"{line}\n\n{RULES}\n", syntax="dollar"))] == ["retrieval"]


def test_a_list_of_this_plant_is_standing() -> None:
    assert found(check_text(f"Presses in this plant:\n${{presses}}\n\n{RULES}\n", syntax="dollar")) == []


def test_a_snapshot_with_a_working_directory_and_git_status_is_a_render() -> None:
    rules = "\n".join(f"- Rule {i}: run the queue tests before every commit and report failures." for i in range(30))
    text = f"You are the engineering agent.\n\nWorking directory: /srv/app\nGit status: M src/queue.py\n\n{rules}\n"
    assert [(line, kind) for line, kind, _ in found(check_text(text, syntax="markdown"))] == [
        (3, "environment"), (4, "environment")]


@pytest.mark.parametrize("name", ["pen_user_template.j2", "user_template.hbs"])
def test_a_user_template_by_its_name_is_the_user_turn(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(f"{RULES}\nMy notes: {{{{ clipboard }}}}\n", encoding="utf-8")
    result = check_paths([str(path)]).files[0]
    assert result.extra.get("role") == "user"


# --------------------------------------------------------------------------- shapes from wild-20

@pytest.mark.parametrize("line, kind", [
    ("Tool calls so far in this task: {{.ToolCallCount}} of {{.ToolCallLimit}}", "session-id"),
    ("## Fields of the order in front of you\n{{range .OrderFields}}- {{.}}\n{{end}}", "retrieval"),
    ("Angler on this chat: {{.AnglerName}}", "identity"),
])
def test_counts_so_far_the_case_in_front_of_you_and_who_is_on_this_chat(line: str, kind: str) -> None:
    assert kind in [f[1] for f in found(check_text(f"{line}\n{RULES}\n", syntax="go"))]


def test_a_timestamp_in_backticks_is_an_example_of_a_format() -> None:
    text = f"# Sheet dates\n\nAll sheets are in local time. Never write:\n- `2026-04-07T14:30:00Z`\n\n{RULES}\n"
    assert found(check_text(text, syntax="markdown")) == []


# --------------------------------------------------------------------------- shapes from wild-21 and wild-22

@pytest.mark.parametrize("name, kind", [
    ("trade_email", None), ("hirer_email", "identity"), ("email", "identity"), ("maxSources", None),
    ("max_tokens", None), ("launch_report", "retrieval"), ("report_style", None), ("enrolled_students", "identity"),
    ("areas", None),
])
def test_a_desks_address_a_setting_and_a_report(name: str, kind: str | None) -> None:
    judged = _by_name((name,))
    assert (judged[0] if judged else None) == kind


def test_a_desks_address_under_any_label_is_configuration() -> None:
    assert found(check_text(f"Shop phone: {{shop_phone}}. Trade orders: {{trade_email}}.\n{RULES}\n",
                            syntax="format")) == []


def test_a_go_with_block_over_a_person_by_role_that_prints_the_name() -> None:
    text = "{{with .Driver}}Driver: {{.Name}}, van {{.Van}}{{end}}\n" + RULES + "\n"
    assert found(check_text(text, syntax="go")) == [(1, "identity", "error")]


def test_a_flag_section_with_an_inverted_twin_is_fixed_text() -> None:
    text = ("{{#posts_plants}}\nPlant orders can be posted.\n{{/posts_plants}}\n"
            "{{^posts_plants}}\nAll orders are collection only.\n{{/posts_plants}}\n" + RULES + "\n")
    assert found(check_text(text, syntax="mustache")) == []


def test_someone_on_the_gate_is_a_person() -> None:
    assert found(check_text(f"Steward on the gate: {{{{ steward.call_sign }}}}\n{RULES}\n", syntax="jinja")) == [
        (1, "identity", "error")]
