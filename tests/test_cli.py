"""The command line: the JSON output contract, exit codes, options, `rules`, folders."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import pytest

CLOCK = '{{ now().strftime("%H:%M:%S") }}'
CORE = ("--select", "PC101,PC102")

# The output contract of DESIGN.md, as a JSON schema. Fields may be added; none of the
# listed ones may be missing or change type.
NULLABLE_STR = {"type": ["string", "null"]}
NULLABLE_INT = {"type": ["integer", "null"], "minimum": 0}
SCHEMA = {
    "type": "object",
    "required": ["version", "files", "findings"],
    "properties": {
        "version": {"const": 1},
        "files": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "syntax", "encoding", "tokens", "stable_prefix_tokens", "error"],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "syntax": {
                        "oneOf": [
                            {"enum": ["jinja", "mustache", "format", "dollar", "markdown", "json"]},
                            {"type": "null"},
                        ]
                    },
                    "encoding": {"oneOf": [{"enum": ["o200k_base", "cl100k_base"]}, {"type": "null"}]},
                    "tokens": NULLABLE_INT,
                    "stable_prefix_tokens": NULLABLE_INT,
                    "error": NULLABLE_STR,
                },
            },
        },
        "findings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [
                    "path", "line", "column", "end_line", "end_column", "rule", "name", "severity",
                    "kind", "frequency", "message", "tokens_lost", "fixable",
                ],
                "properties": {
                    "path": {"type": "string", "minLength": 1},
                    "line": {"type": "integer", "minimum": 1},
                    "column": {"type": "integer", "minimum": 1},
                    "end_line": {"type": "integer", "minimum": 1},
                    "end_column": {"type": "integer", "minimum": 1},
                    "rule": {"type": "string", "pattern": "^[A-Z]+[0-9]+$"},
                    "name": {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$"},
                    "severity": {"enum": ["error", "warning", "info"]},
                    "kind": NULLABLE_STR,
                    "frequency": {
                        "oneOf": [
                            {"enum": ["per-request", "per-session", "per-day", "per-deploy"]},
                            {"type": "null"},
                        ]
                    },
                    "message": {"type": "string", "minLength": 1},
                    "tokens_lost": {"type": "integer", "minimum": 0},
                    "fixable": {"type": "boolean"},
                },
            },
        },
    },
}


def test_schema_rejects_what_the_contract_forbids() -> None:
    """The schema used below is strict enough to fail."""
    good = {"version": 1, "files": [], "findings": []}
    jsonschema.validate(good, SCHEMA)
    for bad in (
        {"version": 2, "files": [], "findings": []},
        {"version": 1, "files": [{"path": "a"}], "findings": []},
        {"version": 1, "files": [], "findings": [{"path": "a", "line": 0}]},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


@pytest.fixture
def project(write, long_rules: str, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    write("bad.j2", f"You are Atlas.\nTime: {CLOCK}\n{long_rules}\n")
    write("tail.j2", f"You are Atlas.\n{long_rules}\nTime: {CLOCK}\n")
    write("clean.md", f"# Atlas\n\n{long_rules}\n")
    return tmp_path


def test_json_output_validates_against_the_contract(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", *CORE, "bad.j2", "clean.md", cwd=project)
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    assert [f["path"] for f in data["files"]] == ["bad.j2", "clean.md"]
    bad, clean = data["files"]
    assert (bad["syntax"], bad["encoding"], bad["error"]) == ("jinja", "o200k_base", None)
    assert clean["syntax"] == "markdown"
    assert clean["stable_prefix_tokens"] == clean["tokens"] > 300
    assert bad["stable_prefix_tokens"] < 15 and bad["tokens"] > 300
    [finding] = data["findings"]
    assert finding["path"] == "bad.j2"
    assert (finding["line"], finding["column"]) == (2, 7)
    assert (finding["end_line"], finding["end_column"]) == (2, 7 + len(CLOCK))
    assert (finding["rule"], finding["name"], finding["severity"]) == ("PC101", "volatile-before-stable", "error")
    assert (finding["kind"], finding["frequency"]) == ("timestamp", "per-request")
    assert finding["tokens_lost"] > 100


def test_json_output_with_a_failed_file(run_cli, project: Path, write) -> None:  # type: ignore[no-untyped-def]
    write("broken.j2", "ok\n{% if x %}\nnever closed\n")
    result = run_cli("check", "--format", "json", *CORE, "broken.j2", "clean.md", "missing.md", cwd=project)
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    jsonschema.validate(data, SCHEMA)
    files = {f["path"]: f for f in data["files"]}
    assert isinstance(files["broken.j2"]["error"], str) and "line 2" in files["broken.j2"]["error"]
    assert files["clean.md"]["error"] is None and files["clean.md"]["tokens"] > 0
    assert "missing.md" in json.dumps(data)


def test_path_is_as_given(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", *CORE, "./bad.j2", str(project / "clean.md"), cwd=project)
    paths = [f["path"] for f in json.loads(result.stdout)["files"]]
    assert paths == ["./bad.j2", str(project / "clean.md")]
    assert json.loads(result.stdout)["findings"][0]["path"] == "./bad.j2"


def test_text_output_names_file_line_and_column(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", *CORE, "bad.j2", cwd=project)
    assert result.exit_code == 1
    assert "bad.j2:2:7 PC101" in result.stdout
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("files", "code"),
    [
        (["clean.md"], 0),
        (["bad.j2"], 1),
        (["tail.j2"], 1),
        (["clean.md", "bad.j2"], 1),
        (["missing.md"], 2),
        (["clean.md", "missing.md"], 2),
        (["bad.j2", "missing.md"], 2),
    ],
)
def test_exit_codes(run_cli, project: Path, files: list[str], code: int) -> None:  # type: ignore[no-untyped-def]
    assert run_cli("check", *CORE, *files, cwd=project).exit_code == code


def test_malformed_file_exits_2_and_others_are_still_checked(run_cli, project: Path, write) -> None:  # type: ignore[no-untyped-def]
    write("broken.mustache", "Hi {{#items}} never closed\n")
    result = run_cli("check", *CORE, "broken.mustache", "bad.j2", "clean.md", cwd=project)
    assert result.exit_code == 2
    assert "bad.j2:2:7 PC101" in result.stdout
    assert "clean.md: stable prefix" in result.stdout
    assert [line for line in result.output.splitlines() if "broken.mustache" in line] == [
        "broken.mustache: error: line 1: unclosed Mustache section 'items'"
    ]


def test_exit_zero(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    assert run_cli("check", *CORE, "--exit-zero", "bad.j2", cwd=project).exit_code == 0
    # --exit-zero never hides a failed run.
    assert run_cli("check", *CORE, "--exit-zero", "bad.j2", "missing.md", cwd=project).exit_code == 2


def test_select_and_ignore(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    def rules(*args: str) -> list[str]:
        result = run_cli("check", "--format", "json", *args, "bad.j2", cwd=project)
        return sorted({f["rule"] for f in json.loads(result.stdout)["findings"]})

    assert "PC101" in rules()
    assert rules("--select", "PC101") == ["PC101"]
    assert rules("--select", "pc101") == ["PC101"]
    assert rules("--select", "PC102") == []
    assert "PC101" not in rules("--ignore", "PC101")
    assert rules("--select", "PC101,PC102", "--ignore", "PC101") == []
    assert run_cli("check", "--select", "PC102", "bad.j2", cwd=project).exit_code == 0
    assert run_cli("check", "--select", "PC101", "--ignore", "PC101", "bad.j2", cwd=project).exit_code == 0


def test_fail_on(run_cli, project: Path, write, long_rules: str) -> None:  # type: ignore[no-untyped-def]
    # tail.j2 carries only a warning (a per-request clock at the very end).
    tail = run_cli("check", "--format", "json", *CORE, "tail.j2", cwd=project)
    assert [f["severity"] for f in json.loads(tail.stdout)["findings"]] == ["warning"]
    assert tail.exit_code == 1
    assert run_cli("check", *CORE, "--fail-on", "error", "tail.j2", cwd=project).exit_code == 0
    assert run_cli("check", *CORE, "--fail-on", "error", "bad.j2", cwd=project).exit_code == 1
    # An info-only file passes by default and fails with --fail-on info.
    write("info.j2", f"{long_rules}\nWorking directory: {{{{ cwd }}}}\n")
    info = run_cli("check", "--format", "json", *CORE, "info.j2", cwd=project)
    assert [f["severity"] for f in json.loads(info.stdout)["findings"]] == ["info"]
    assert info.exit_code == 0
    assert run_cli("check", *CORE, "--fail-on", "info", "info.j2", cwd=project).exit_code == 1


def test_bad_option_value_exits_2(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    assert run_cli("check", "--format", "yaml", "bad.j2", cwd=project).exit_code == 2
    assert run_cli("check", "--fail-on", "fatal", "bad.j2", cwd=project).exit_code == 2
    assert run_cli("check", cwd=project).exit_code == 2


def test_model_picks_the_encoding(run_cli, project: Path) -> None:  # type: ignore[no-untyped-def]
    for model, encoding in (("gpt-4", "cl100k_base"), ("gpt-4o", "o200k_base"), ("claude-sonnet-4-5", "o200k_base")):
        result = run_cli("check", "--format", "json", *CORE, "--model", model, "clean.md", cwd=project)
        assert json.loads(result.stdout)["files"][0]["encoding"] == encoding


def test_syntax_option_overrides_detection(run_cli, write, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("p.txt", "Hello {customer}, welcome.\n")
    plain = json.loads(run_cli("check", "--format", "json", *CORE, "p.txt", cwd=tmp_path).stdout)
    forced = json.loads(run_cli("check", "--format", "json", *CORE, "--syntax", "format", "p.txt", cwd=tmp_path).stdout)
    assert plain["files"][0]["syntax"] == "markdown" and plain["findings"] == []
    assert forced["files"][0]["syntax"] == "format"
    assert [f["kind"] for f in forced["findings"]] == ["identity"]


# ---------------------------------------------------------------------------------------
# promptlint rules


def test_rules_lists_the_core_rules(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("rules")
    assert result.exit_code == 0
    assert "PC101" in result.stdout and "volatile-before-stable" in result.stdout
    assert "PC102" in result.stdout and "unsorted-tool-loop" in result.stdout


@pytest.mark.parametrize("code", ["PC101", "pc101", "volatile-before-stable"])
def test_rules_explains_one(run_cli, code: str) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("rules", code)
    assert result.exit_code == 0
    assert "PC101 volatile-before-stable" in result.stdout
    assert "What it does" in result.stdout
    assert "Why is this bad?" in result.stdout
    assert "PC102" not in result.stdout.split("\n", 1)[0]


def test_rules_unknown_code_exits_2(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("rules", "NOPE")
    assert result.exit_code == 2
    assert "NOPE" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_python_dash_m_help(run_process) -> None:  # type: ignore[no-untyped-def]
    result = run_process("--help")
    assert result.exit_code == 0
    assert "check" in result.stdout and "rules" in result.stdout
    check_help = run_process("check", "--help")
    assert check_help.exit_code == 0
    for option in ("--format", "--select", "--ignore", "--fail-on", "--exit-zero", "--config", "--model", "--syntax"):
        assert option in check_help.stdout


def test_console_script_version(tmp_path: Path) -> None:
    import subprocess

    script = Path(sys.executable).with_name("promptlint")
    if not script.exists():
        pytest.skip("no promptlint console script next to this interpreter")
    proc = subprocess.run([str(script), "--version"], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert proc.stdout.startswith("promptlint")


def test_a_real_process_exits_with_the_run_s_code_and_all_of_its_output(run_process, project: Path) -> None:  # type: ignore[no-untyped-def]
    # The process ends without tearing the interpreter down: the report must be whole.
    clean = run_process("check", "--format", "json", str(project / "clean.md"))
    assert clean.exit_code == 0 and json.loads(clean.stdout)["findings"] == []
    failing = run_process("check", "--format", "json", str(project / "bad.j2"))
    assert failing.exit_code == 1 and "PC101" in {f["rule"] for f in json.loads(failing.stdout)["findings"]}
    missing = run_process("check", str(project / "missing.j2"))
    assert missing.exit_code == 2 and missing.stdout.startswith("error:") and "no such file" in missing.stdout


def test_a_reader_that_stops_early_gets_one_line_not_an_internal_error(write, tmp_path: Path) -> None:
    import subprocess

    # A report of 2,400 findings, 1.2 MB: far over a pipe's 64 KB buffer, so the check blocks
    # on the pipe until the reader has closed it (a report that fits was written whole before
    # the close, now and then, and the run ended with exit 1).
    for n in range(60):
        write(f"many/p{n}.j2", "".join(f"Session: {{{{ session_id_{i} }}}}\n" for i in range(40)) + "stable text\n" * 50)
    proc = subprocess.Popen([sys.executable, "-m", "promptlint", "check", str(tmp_path / "many")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read()
    assert proc.wait(timeout=120) == 2
    assert err.strip().splitlines() == ["promptlint: the output was closed before the report ended (broken pipe)"]


# ---------------------------------------------------------------------------------------
# Folders


@pytest.fixture
def tree(write, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    for name in (
        "repo/agents/SOUL.md",
        "repo/agents/system.j2",
        "repo/agents/tools.hbs",
        "repo/agents/nested/deep.txt",
        "repo/agents/notes.fmt",
        "repo/agents/shell.tmpl",
        "repo/agents/script.py",
        "repo/agents/data.json",
        "repo/agents/README.rst",
        "repo/node_modules/pkg/README.md",
        "repo/.venv/lib/site.md",
        "repo/build/out.md",
        "repo/pkg.egg-info/PKG-INFO.md",
        "repo/agents/ignored.md",
        "repo/agents/generated/auto.md",
        "repo/agents/keep.log",
    ):
        write(name, "You are a helpful assistant.\n")
    write("repo/.gitignore", "agents/ignored.md\ngenerated/\n*.log\n")
    return tmp_path / "repo"


def checked(run_cli, cwd: Path, *args: str) -> list[str]:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", *CORE, *args, cwd=cwd)
    assert result.exit_code in (0, 1), result.output
    return [f["path"] for f in json.loads(result.stdout)["files"]]


def test_folder_walk_uses_include_exclude_and_gitignore(run_cli, tree: Path) -> None:  # type: ignore[no-untyped-def]
    import os

    assert sorted(os.path.normpath(p) for p in checked(run_cli, tree, ".")) == [
        "agents/SOUL.md",
        "agents/nested/deep.txt",
        "agents/notes.fmt",
        "agents/shell.tmpl",
        "agents/system.j2",
        "agents/tools.hbs",
    ]


def test_folder_paths_start_with_the_folder_as_given(run_cli, tree: Path) -> None:  # type: ignore[no-untyped-def]
    found = checked(run_cli, tree, "agents")
    assert found == checked(run_cli, tree, "agents")  # a stable order
    assert sorted(found) == [
        "agents/SOUL.md",
        "agents/nested/deep.txt",
        "agents/notes.fmt",
        "agents/shell.tmpl",
        "agents/system.j2",
        "agents/tools.hbs",
    ]
    assert checked(run_cli, tree.parent, "repo/agents/nested") == ["repo/agents/nested/deep.txt"]


def test_explicit_file_is_checked_even_if_not_included(run_cli, tree: Path) -> None:  # type: ignore[no-untyped-def]
    assert checked(run_cli, tree, "agents/README.rst") == ["agents/README.rst"]


def test_include_and_extend_exclude_from_config(run_cli, tree: Path, write) -> None:  # type: ignore[no-untyped-def]
    (tree / "promptlint.toml").write_text('include = ["*.j2", "*.hbs", "*.md"]\nextend-exclude = ["nested", "tools.*"]\n')
    assert checked(run_cli, tree, "agents") == ["agents/SOUL.md", "agents/system.j2"]


def test_folder_without_prompt_files_exits_2(run_cli, tmp_path: Path, write) -> None:  # type: ignore[no-untyped-def]
    write("empty/code.py", "print('hi')\n")
    (tmp_path / "really-empty").mkdir()
    for folder in ("empty", "really-empty"):
        result = run_cli("check", folder, cwd=tmp_path)
        assert result.exit_code == 2
        lines = [line for line in result.output.splitlines() if folder in line]
        assert len(lines) == 1
        assert "no prompt files" in lines[0]
        assert "Traceback" not in result.output


def test_folder_and_file_in_one_run(run_cli, tree: Path, project: Path) -> None:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", *CORE, str(tree / "agents" / "nested"), str(project / "bad.j2"))
    data = json.loads(result.stdout)
    assert result.exit_code == 1
    assert [Path(f["path"]).name for f in data["files"]] == ["deep.txt", "bad.j2"]


def test_a_text_report_does_not_plan_the_fix_and_json_does(run_cli, project: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Planning the fix is half a check's time and only JSON and SARIF say what it fixes."""
    import promptlint.core.fixability as fixability

    asked: list[str] = []
    original = fixability.fix_status

    def spy(template, unit, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(template.path)
        return original(template, unit, *args, **kwargs)

    monkeypatch.setattr(fixability, "fix_status", spy)
    text = run_cli("check", "--no-cache", "bad.j2", cwd=project)
    assert text.exit_code == 1 and "PC101" in text.stdout and asked == []
    data = json.loads(run_cli("check", "--no-cache", "--format", "json", "bad.j2", cwd=project).stdout)
    assert asked and data["findings"][0]["fixable"] is True


@pytest.mark.parametrize(("args", "said"), [
    (("check", "--bogus", "x"), "No such option '--bogus'. Did you mean '--jobs'? (see 'promptlint check --help')"),
    (("check", "-j", "abc", "x"), "Invalid value for '-j' / '--jobs': 'abc' is not a valid integer range."),
    (("check", "--format", "xml", "x"), "Invalid value for '--format': 'xml' is not one of"),
    (("check",), "Missing argument 'PATHS...'. (see 'promptlint check --help')"),
    (("nosuch",), "No such command 'nosuch'. (see 'promptlint --help')"),
])
def test_a_mistyped_command_line_is_one_error_line(run_cli, args: tuple[str, ...], said: str) -> None:  # type: ignore[no-untyped-def]
    """As every other error: one line, exit 2 (click's own is Usage, Try, a blank line, Error)."""
    result = run_cli(*args)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [result.stderr.strip()] and result.stderr.startswith("error: ")
    assert said in result.stderr and result.stdout == ""


def test_help_and_version_are_still_click_s_own(run_cli) -> None:  # type: ignore[no-untyped-def]
    bare = run_cli()
    assert bare.stderr.startswith("Usage: promptlint") and "Commands:" in bare.stderr
    assert run_cli("--version").exit_code == 0 and run_cli("check", "--help").exit_code == 0


@pytest.mark.parametrize(("args", "said"), [
    (("check", ""), "error: '': a blank path: name a file or a folder"),
    (("check", "  "), "error: '  ': a blank path: name a file or a folder"),
    (("fix", ""), "error: '': a blank path: name a file or a folder"),
    (("check", "--config", "", "."), "error: --config '': a blank file name"),
    (("replay", ""), "error: LOG '': a blank path: name a JSONL log of requests"),
])
def test_a_blank_path_is_named_as_blank(run_cli, tmp_path: Path, args: tuple[str, ...], said: str) -> None:  # type: ignore[no-untyped-def]
    """`promptlint check "$UNSET"` said "error: : no such file or directory", and a blank
    --config was read as the folder "." ("error: .: not a regular file")."""
    result = run_cli(*args, cwd=tmp_path)
    assert result.exit_code == 2
    assert said in result.output.splitlines()


def test_a_file_named_with_spaces_is_a_file_not_a_blank_path(run_cli, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "  ").write_text("You are a helpful assistant. Always answer briefly.\n")
    result = run_cli("check", "--syntax", "markdown", "  ", cwd=tmp_path)
    assert result.exit_code == 0 and "blank path" not in result.output
