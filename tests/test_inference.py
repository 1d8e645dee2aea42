"""Placeholders in .md, .txt and .prompt files: the syntax is inferred from the content,
with the evidence said in the JSON output and in one line of the text output; literal
braces (JSON, LaTeX, shell, `{answer}` instructions) keep a file static."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from promptlint.api import check_paths, check_text
from promptlint.loaders import infer_syntax, load_text

RULES = "\n".join(
    f"{i}. Read the files a change touches before you edit them, keep each diff as small as the task "
    "allows, run the project's own tests after every edit and report failures verbatim."
    for i in range(1, 31)
)


@pytest.mark.parametrize(
    ("path", "text", "syntax"),
    [
        # {{UPPER_CASE}} replacement, with or without backticks around it
        ("AGENT.md", "Now: {{CURRENT_DATETIME}}\nCwd: {{WORKING_DIRECTORY}}\n", "mustache"),
        ("retro.md", "- Current datetime: `{{CURRENT_DATETIME}}`\n", "mustache"),
        # str.format: two fields, balanced braces, JSON escaped as {{ }}
        ("rag.txt", "Excerpts:\n{context}\n\nReturn {{\"answer\": \"…\"}}\nQuestion: {question}\n", "format"),
        ("assistant.prompt", "Time: {current_datetime}\nUser: {user_name}\n", "format"),
        # `${name}`: JavaScript template literals, Python's string.Template
        ("concierge.md", "Guest: ${guest_name}, room ${room_number}\n", "dollar"),
        # one field is not several: a lone `{name}` stays static text, unless its snake_case
        # name says what changes (`{user_name}`, `{search_results}`)
        ("p.txt", "Hello {name}, welcome.\n", "markdown"),
        ("p.txt", "Write {final_answer} last.\n", "markdown"),
        ("p.txt", "Hello {user_name}, welcome.\n", "format"),
        # beside a raw JSON example (which str.format would reject): a token replaced in code
        ("research.md", "Results:\n{search_results}\n\n```json\n{\"plan\": []}\n```\n", "placeholders"),
        # `{answer}` as an instruction, in code spans or explained in prose
        ("grade.md", "Reply as `ANSWER: {answer}` and `REASON: {reason}`.\n", "markdown"),
        ("style.md", "Write it as {answer}, then {sources}, where {answer} is at most four sentences.\n", "markdown"),
        ("defs.txt", "Use {verdict} and {reason}: {verdict} is one of CORRECT or WRONG.\n", "markdown"),
        # a JSON object written as-is: not a format template
        ("extract.md", 'Return {"order_id": null} for {customer} and {order}.\n', "markdown"),
        # LaTeX and shell examples
        ("math.md", "Fractions as $\\frac{a}{b}$, indices as $x_{i}$, sets as $\\{1, 2\\}$.\n", "markdown"),
        ("setup.md", "Run:\n\n```sh\nexport PATH=\"${HOME}/bin:${PATH}\"\n```\n", "markdown"),
        ("docs.md", "A template looks like:\n\n```\nHello {{name}}, today is {{date}}\n```\n", "markdown"),
        # a prompt about templates: placeholders in code spans are examples, unless UPPER_CASE
        ("guide.md", "Use `${variable}` syntax in templates, like `${name}` or `{{user}}`.\n", "markdown"),
        ("retro.txt", "Started: `${SESSION_START}`\n", "dollar"),
        # unbalanced braces cannot be a format template
        ("code.txt", "Write `if (x) {` on one line and {close} it with {brace later\n", "markdown"),
        # Markdown heading attributes (MkDocs, Pandoc) open with `{#`: no Jinja comment without
        # `#}`. Read as Jinja, each page of a documentation site was a malformed template.
        ("agents.md", "# Agents\n\n## Choose the next guide {#choose-the-next-guide}\n\nText.\n", "markdown"),
        ("setup.md", "## Setup {#setup .important}\nRun it.\n", "markdown"),
        ("notes.md", "Hello {{ name }}.\n{# a Jinja comment #}\n", "jinja"),
        ("notes.md", "You are kind.\n{# was: {{ user }} #}\n", "jinja"),
        # A page about Jinja prompts: its statements are examples in fences, and `{{}}` in prose
        # is no expression (read as Jinja, the page was a malformed template)
        ("guide.md", "Put the input name in `{{}}`.\n\n```jinja\n{% for ex in examples %}\n{{ ex.text }}\n"
                     "{% endfor %}\n```\n", "markdown"),
        ("prompt.md", "Examples:\n{% for ex in examples %}\n```\n{{ ex.text }}\n```\n{% endfor %}\n", "jinja"),
        ("agent.md", "Tools:\n{{ range .Tools }}- {{ .Name }}\n{{ end }}\n", "go"),
        # A URL's path parameters are API documentation (a skill's reference, a README's curl
        # call), filled by the reader: browser-use and 12-factor-agents read as templates
        ("api.md", "## Get Task\nGET https://api.example.com/v2/tasks/{task_id}\n\n"
                   "**GET /files/tasks/{task_id}/output-files/{file_id}** returns a URL.\n", "markdown"),
        ("README.md", "Reject it:\n\n    curl -X POST 'http://localhost:3000/thread/{thread_id}/response'\n", "markdown"),
        # beside a field that is evidence, the template's own URL is filled too
        ("p.txt", "Fetch https://api.example.com/users/{user_id}/orders for {user_name}.\n", "format"),
        # Hugo shortcodes, `{{% notice %}}` and `{{< ref >}}`: no Jinja statement
        ("page.md", "{{% notice tip %}}\nUse the thing.\n{{% /notice %}}\nSee {{< ref \"other.md\" >}}.\n", "markdown"),
    ],
)
def test_inferred_syntax(path: str, text: str, syntax: str) -> None:
    assert infer_syntax(path, text).syntax == syntax


def test_the_evidence_names_the_style_and_the_placeholders() -> None:
    inferred = infer_syntax("AGENT.md", "{{CURRENT_DATETIME}} {{WORKING_DIRECTORY}} {{FOLDER_STRUCTURE}}")
    assert inferred.from_content
    assert "3 `{{UPPER_CASE}}` placeholders (CURRENT_DATETIME, WORKING_DIRECTORY, FOLDER_STRUCTURE)" in inferred.evidence
    fmt = infer_syntax("rag.txt", "{context}\n{question}\n{{ }}")
    assert fmt.syntax == "format" and "2 `{name}` str.format fields (context, question)" in fmt.evidence
    assert "escaped braces" in fmt.evidence
    by_extension = infer_syntax("a.j2", "{{ x }}")
    assert (by_extension.evidence, by_extension.from_content) == ("extension .j2", False)
    # Tokens replaced in code (a JSON example beside them: no format template) are named in
    # the case they are written in.
    tokens = 'Results:\n{search_results}\n\nReply as JSON: {"answer": "..."}\n'
    assert infer_syntax("rag.md", tokens).evidence == "inferred from content: 1 `{name}` placeholders (search_results)"
    upper = infer_syntax("rag.md", tokens.replace("{search_results}", "{SEARCH_RESULTS} {CURRENT_TIME}"))
    assert upper.evidence == "inferred from content: 2 `{UPPER_CASE}` placeholders (SEARCH_RESULTS, CURRENT_TIME)"


def test_load_text_keeps_the_evidence() -> None:
    template = load_text("p.md", "Hi {{USER_NAME}} at {{USER_LOCATION}}")
    assert template.syntax == "mustache"
    assert template.syntax_evidence is not None and template.syntax_evidence.startswith("inferred from content")
    assert load_text("p.md", "x", "jinja").syntax_evidence is None


def _agent_md() -> str:
    # The three placeholders at the top of ~1,000 tokens of rules.
    return (
        "# Forge\n\nYou are Forge, a coding agent.\n\n"
        "Current date and time: {{CURRENT_DATETIME}}\n"
        "Working directory: {{WORKING_DIRECTORY}}\n\n"
        "Project layout:\n{{FOLDER_STRUCTURE}}\n\n## Rules\n\n" + RULES + "\n"
    )


def test_markdown_with_upper_case_placeholders_is_checked_as_mustache(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("AGENT.md", _agent_md())
    result = run_cli("check", "--no-frames", "AGENT.md", cwd=tmp_path)
    lines = result.stdout.splitlines()
    clock = next(line for line in lines if "CURRENT_DATETIME" in line and "PC101" in line)
    cwd = next(line for line in lines if "WORKING_DIRECTORY" in line and "PC101" in line)
    tree = next(line for line in lines if "FOLDER_STRUCTURE" in line and "PC101" in line)
    assert "[error] timestamp" in clock
    assert "[warning] environment" in cwd and "[warning] environment" in tree
    said = [line for line in lines if "read as Mustache-style placeholders" in line]
    assert len(said) == 1 and "CURRENT_DATETIME, WORKING_DIRECTORY, FOLDER_STRUCTURE" in said[0]
    assert "--syntax" in said[0]  # how to override it

    data = json.loads(run_cli("check", "--format", "json", "AGENT.md", cwd=tmp_path).stdout)
    assert data["files"][0]["syntax"] == "mustache"
    assert data["files"][0]["syntax_evidence"].startswith("inferred from content: 3 `{{UPPER_CASE}}` placeholders")
    kinds = {(f["line"], f["kind"], f["severity"]) for f in data["findings"] if f["rule"] == "PC101"}
    assert kinds == {(5, "timestamp", "error"), (6, "environment", "warning"), (9, "environment", "warning")}
    assert data["files"][0]["tokens"] > 1000


def test_static_text_says_nothing_about_inference(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("SOUL.md", "# Soul\n\nBe kind. Answer as {answer}.\n")
    result = run_cli("check", "SOUL.md", cwd=tmp_path)
    assert "read as" not in result.stdout
    data = json.loads(run_cli("check", "--format", "json", "SOUL.md", cwd=tmp_path).stdout)
    assert data["files"][0]["syntax"] == "markdown"
    assert data["files"][0]["syntax_evidence"] == "extension .md"


def test_syntax_option_and_config_glob_override_inference(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("prompts/a.txt", "{context}\n{question}\n")
    write("promptlint.toml", '[syntax]\n"prompts/*.txt" = "markdown"\n')
    data = json.loads(run_cli("check", "--format", "json", "prompts/a.txt", cwd=tmp_path).stdout)
    assert data["files"][0]["syntax"] == "markdown"
    assert data["files"][0]["syntax_evidence"] == "config [syntax] 'prompts/*.txt' in promptlint.toml"
    forced = json.loads(run_cli("check", "--format", "json", "--syntax", "jinja", "prompts/a.txt", cwd=tmp_path).stdout)
    assert (forced["files"][0]["syntax"], forced["files"][0]["syntax_evidence"]) == ("jinja", "--syntax jinja")


def test_format_txt_reports_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "rag.txt"
    path.write_text("You answer from the excerpts.\nExcerpts:\n{context}\n\n" + RULES + "\n\nQuestion: {question}\n")
    report = check_paths([str(path)])
    found = {(f.line, f.kind, f.severity) for f in report.findings if f.rule == "PC101"}
    # The question closing the file is the user's latest input: nothing cached follows it.
    assert found == {(3, "retrieval", "error")}
    assert report.files[0].syntax == "format"


@pytest.mark.parametrize(
    "text",
    [
        'Return {"order_id": "string or null", "items": []} for {customer} and {order}.\n',
        "Answer in the form `VERDICT: {verdict}` then `REASON: {reason}`.\n",
        "Write {answer}, then {sources}, where {answer} is at most four sentences.\n",
        "```sh\nexport PATH=\"${HOME}/.local/bin:${PATH}\"\n```\n",
    ],
)
def test_literal_brace_traps_stay_quiet(text: str) -> None:
    result = check_text(text + RULES, path="prompt.md")
    assert result.syntax == "markdown"
    assert result.findings == []


@pytest.mark.parametrize(
    ("text", "syntax"),
    [
        ("Visit log opened {now:%Y-%m-%d %H:%M:%S}.\n\nAnswer briefly.\n", "format"),
        ("The current timestamp is: {timestamp}\n", "format"),
        ("Write the answer as {answer} and nothing else.\n", "markdown"),  # an instruction, not a slot
        # JSON whose braces are doubled: `str.format` fills the field; `{{step}}` is a literal
        # `{step}` (browser-use's system prompt read as Mustache, `{{step}}` a per-request id)
        ("Use at most {max_actions} actions.\n<step_{{step}}>:\nReply as:\n{{\n  \"memory\": \"…\"\n}}\n", "format"),
        ('Reply {{"navigate": "…"}} in {language}.\n', "format"),
    ],
)
def test_one_field_is_a_format_template_only_with_evidence(text: str, syntax: str) -> None:
    assert infer_syntax("notes.txt", text).syntax == syntax


def test_a_markdown_go_template_named_md_tpl_is_walked_and_read_as_go(tmp_path: Path) -> None:
    # crush keeps its system prompt as `coder.md.tpl`: a folder walk passed it over, and its
    # git status before 460 stable tokens went unseen. A Helm chart's `_helpers.tpl` is no prompt.
    prompts = tmp_path / "templates"
    prompts.mkdir()
    (prompts / "coder.md.tpl").write_text("You are Crush, a coding agent.\n<env>\nGit status: {{.GitStatus}}\n</env>\n"
                                          + "Always read a file before you edit it.\n" * 30)
    (prompts / "_helpers.tpl").write_text('{{- define "chart.name" -}}{{ now | date "15:04" }}{{- end }}\n')
    report = check_paths([tmp_path])
    assert [(f.path.rsplit("/", 1)[-1], f.syntax) for f in report.files] == [("coder.md.tpl", "go")]
    assert [f.rule for f in report.findings] == ["PC101"] and "GitStatus" in report.findings[0].message
    assert infer_syntax("notes.tpl", "Plain words.\n").syntax == "markdown"


def test_a_go_comment_makes_a_tmpl_file_a_go_template() -> None:
    # `{{/* … */}}` is Go's comment; read as Mustache it would close a section never opened.
    text = "{{/* stable prompt: the list arrives in the user turn */}}\nYou book visits.\n"
    assert infer_syntax("organ.tmpl", text).syntax == "go"
    assert check_text(text, path="organ.tmpl").error is None


def test_a_files_suffixes_are_read_as_pathlib_reads_them() -> None:
    # The syntax is chosen from the name's suffixes, read from the string (asked twice per
    # file); they must be pathlib's, lower-cased, for any name.
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from pathlib import PurePath

    from promptlint.loaders.base import _suffixes

    part = st.text(alphabet="aB.-_ 1é", min_size=0, max_size=8)

    @settings(max_examples=400, deadline=None)
    @given(st.lists(part, min_size=1, max_size=4))
    def same(parts: list[str]) -> None:
        path = "/".join(parts)
        assert _suffixes(path) == tuple(s.lower() for s in PurePath(path).suffixes)

    same()
    assert _suffixes("1.1/.") == (".1",) and _suffixes("a.j2/") == (".j2",)


# -- `${name}` placeholders are found in a time linear in the text ------------------------------

from hypothesis import example, given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from promptlint.loaders import base  # noqa: E402


@given(st.lists(st.sampled_from(["$", "{", "}", "\\", "\n", "a", "${", "${a}", "\\${b}"]), max_size=30).map("".join))
def test_dollar_placeholders_are_the_patterns_matches(text: str) -> None:
    # The scan finds what the pattern's finditer finds; the pattern read each `${` to the end
    # of its line (100,000 `${` on one line took minutes).
    assert base._dollar_names(text) == [m.group(1) for m in base._DOLLAR_MARKERS.finditer(text)]


# Each marker pattern as it was written first, its look-behind before the brace: the oracle
# of the pattern that opens with the brace (scanned for it: ten times faster).
_LOOKBEHIND_FIRST = {"_JINJA_MARKERS": r"(?<!\{)\{%-?\s*\w+|\{\{-?\s*[\w(]|\{#",
                     "_JINJA_STATEMENT": r"(?<!\{)\{%-?\s*(\w+)",
                     "_DOLLAR_MARKERS": r"(?<!\\)\$\{([^}\n]+)\}"}


@example("{%x")  # at the start: nothing before the brace
@example("{{% notice %}}\\${a}")
@given(st.lists(st.sampled_from(["{", "{{", "%", "{%", "{%-", "#", "$", "${", "\\", "}", "(", "-", " ", "x", "\n"]),
                max_size=30).map("".join))
def test_marker_patterns_find_what_their_look_behind_first_forms_find(text: str) -> None:
    import re

    for name, written in _LOOKBEHIND_FIRST.items():
        pattern = getattr(base, name)
        assert [(m.span(), m.groups()) for m in pattern.finditer(text)] == \
               [(m.span(), m.groups()) for m in re.finditer(written, text)], name


@given(st.lists(st.sampled_from(["`", "{", "{{", "${", " ", "\t", "X", "x", "\u017f", "\u212a", "\u0131", "}", "|", "- ",
                                  "\n", "placeholders ", "Variables like ", "_", ":", " is", "\u2014"]),
                max_size=24).map("".join))
@example("the placeholders `{user_name}` and `{{ \u017fession }}`")
@example("| `{{USER_NAME}}` | the user's name |\n- `${TODAY}`: today")
def test_a_page_documents_placeholders_as_its_patterns_say(text: str) -> None:
    # A brace in a code span is looked for first (3.4 s of 11,890 real pages went to the two
    # patterns); the answer is theirs, case-blind letters included.
    by_patterns = "`" in text and bool(base._DEFINED.search(text) or base._NAMED.search(text)) and not (
        base._UPPER_PLACEHOLDER.search(base._CODE_SPAN.sub(lambda m: " " * len(m.group()), text)))
    assert base._documents_placeholders(text) == by_patterns


def test_a_line_of_unclosed_dollar_braces_reads_as_a_dollar_template() -> None:
    text = "${" * 100_000
    assert base._dollar_names(text) == []
    assert base._dollar_names("Hi ${user}, " + "${" * 50_000 + "\nand ${ today }") == ["user", " today "]


def test_a_survey_that_quotes_templates_in_code_spans_is_markdown() -> None:
    # fixtures/corpus-survey.md quotes Jinja, Go and Mustache constructs in table cells' code
    # spans: read as Jinja it was a malformed template, then as Go an "unclosed Go template
    # action {{each}}"; it is about templates, not one.
    path = Path(__file__).resolve().parents[1] / "fixtures" / "corpus-survey.md"
    assert infer_syntax(str(path), path.read_text(encoding="utf-8")).syntax == "markdown"


def test_a_page_whose_template_syntax_does_not_parse_is_read_as_its_extension_says(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # A page that quotes template syntax in prose (fixtures/corpus-heldout/README.md: 179
    # `{% … %}` in code spans, some across line breaks) was read as Jinja and refused, exit 2.
    # A syntax the content suggested is a guess: the file is read as static text, with why.
    text = "# Notes\nWrite `{% raw %}` to keep braces, and `{% if level ==\n... %}` for a test.\n"
    write("notes.md", text)
    result = run_cli("check", "--format", "json", "notes.md", cwd=tmp_path)
    assert result.exit_code == 0, result.output
    (entry,) = json.loads(result.stdout)["files"]
    assert entry["syntax"] == "markdown" and entry["error"] is None
    assert "but it does not parse as Jinja (line " in entry["syntax_evidence"]
    # Named as a template, by its extension or --syntax, it is still an error.
    write("notes.j2", text)
    assert run_cli("check", "notes.j2", cwd=tmp_path).exit_code == 2
    assert run_cli("check", "--syntax", "jinja", "notes.md", cwd=tmp_path).exit_code == 2


# Each pattern the inference searches only where the text holds one of these strings (a
# search for one character or two is many times faster than a pattern's scan): no match
# without one of them.
_NEEDED = [
    (base._LIQUID, ("|", "{%")),
    (base._CODE_SPAN, ("`",)),
    (base._JINJA_STATEMENT, ("{%",)),
    (base._JINJA_COMMENT, ("{#",)),
    (base._GO_COMMENT, ("/*",)),
    (re.compile(r"\{\{\s*[\w.]+\s*\|"), ("|",)),
    (re.compile(r"\{\{[^}]*[(|]"), ("(", "|")),
    (re.compile(r"\{\{-?\s*[\w.]+\s*\("), ("(",)),
    (re.compile(r"\{\{~?\s*[>!]"), ("{{",)),  # and _MUSTACHE_SECTION matches where it does
]


@given(st.lists(st.sampled_from(["{", "}", "{{", "%", "#", "|", "(", ")", "`", "/", "*", "!", ">", "~", "-", ":",
                                 "a", "x.y", "date", "assign", " ", "\n"]), max_size=30).map("".join))
def test_a_pattern_is_searched_only_where_it_can_match(text: str) -> None:
    for pattern, needles in _NEEDED:
        if pattern.search(text):
            assert any(needle in text for needle in needles), pattern.pattern
    if re.search(r"\{\{~?\s*[>!]", text):
        assert base._MUSTACHE_SECTION.search(text)


def _format_fields_validated_first(text: str) -> list[str]:
    """:func:`base._format_fields` as it was: the text validated as a format string, then
    its fields looked for (now looked for first: most text has none)."""
    import string

    try:
        list(string.Formatter().parse(text))
    except ValueError:
        return []
    if base._JSON_OBJECT.search(text):
        return []
    scanned = base._spans_blanked(base._outside_fences(text))
    fields = []
    for match in base._FORMAT_FIELD.finditer(scanned):
        before = scanned[max(0, match.start() - 40) : match.start()].rsplit("\n", 1)[-1]
        if base._explained(before, scanned[match.end() : match.end() + 40]):
            return []
        if not base._url_parameter(scanned, match.start(), match.end()):
            fields.append(match.group(1))
    return fields


@given(st.lists(st.sampled_from(["{", "}", "{{", "}}", "{a}", "{b.c}", "{x:%H}", "{!r}", "{0}", '{"k": 1}', "`", "```\n",
                                 "/", "where ", " is your", "a", " ", "\n", ":", "!"]), max_size=30).map("".join))
def test_format_fields_are_those_of_a_text_validated_first(text: str) -> None:
    assert base._format_fields(text) == _format_fields_validated_first(text)
