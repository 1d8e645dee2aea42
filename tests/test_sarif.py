"""``--format sarif`` (validated against the official SARIF 2.1.0 schema) and
``--format github`` (workflow annotation commands)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
CLOCK = '{{ now().strftime("%H:%M:%S") }}'


@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    return json.loads((DATA / "sarif-2.1.0-rtm.5.json").read_text())


def _sarif(run_cli, *args, cwd=None):
    result = run_cli("check", "--format", "sarif", *args, cwd=cwd)
    return result, json.loads(result.stdout)


def test_sarif_of_the_demo_validates_against_the_official_schema(run_cli, sarif_schema):
    root = Path(__file__).resolve().parents[1]
    result, log = _sarif(run_cli, str(root / "fixtures/agents"), str(root / "fixtures/requests"))
    assert result.exit_code == 1
    jsonschema.validate(log, sarif_schema)
    run = log["runs"][0]
    assert log["version"] == "2.1.0" and run["columnKind"] == "utf16CodeUnits"
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert rules["PC101"]["shortDescription"]["text"] and "## Why is this bad?" in rules["PC101"]["help"]["markdown"]
    assert rules["PC101"]["fullDescription"]["text"].startswith("Finds a value that changes")
    levels = {r["level"] for r in run["results"]}
    assert levels <= {"error", "warning", "note"} and "error" in levels
    for r in run["results"]:
        assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        region = r["locations"][0]["physicalLocation"]["region"]
        assert region["endLine"] >= region["startLine"]
    assert run["invocations"][0]["executionSuccessful"] is True


def test_sarif_columns_are_utf16_code_units(run_cli, write, long_rules):
    # "🙂" is one code point but two UTF-16 code units.
    path = write("a.j2", f"🙂 Now: {CLOCK}\n{long_rules}\n")
    _, log = _sarif(run_cli, str(path), "--select", "PC101")
    (result,) = log["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startColumn"] == len("🙂 Now: ".encode("utf-16-le")) // 2 + 1 == 9
    assert region["endColumn"] - region["startColumn"] == len(CLOCK)


def test_sarif_fingerprints_survive_line_moves(run_cli, write, long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    _, before = _sarif(run_cli, str(path), "--select", "PC101")
    path.write_text(f"Intro line.\n\nNow: {CLOCK}\n{long_rules}\n")
    _, after = _sarif(run_cli, str(path), "--select", "PC101")
    (old,), (new,) = before["runs"][0]["results"], after["runs"][0]["results"]
    assert old["locations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert new["locations"][0]["physicalLocation"]["region"]["startLine"] == 3
    assert old["partialFingerprints"] == new["partialFingerprints"]


def test_sarif_reports_unreadable_files_as_failed_execution(run_cli, write, sarif_schema):
    bad = write("bad.j2", b"\xff\xfe bad")
    result, log = _sarif(run_cli, str(bad))
    assert result.exit_code == 2
    jsonschema.validate(log, sarif_schema)
    invocation = log["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "bad.j2" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def _apply(text: str, change: dict) -> str:
    for replacement in sorted(change["replacements"], key=lambda r: -r["deletedRegion"]["charOffset"]):
        start = replacement["deletedRegion"]["charOffset"]
        end = start + replacement["deletedRegion"]["charLength"]
        text = text[:start] + replacement["insertedContent"]["text"] + text[end:]
    return text


def test_sarif_fixes_of_a_long_file_of_recurring_lines_rewrite_it_as_fix_does(run_cli, write, sarif_schema):
    # Over 200 lines, where difflib's junk heuristic applies: the blank lines and the clock
    # line recur all through the file, and the replacements still give fix's text.
    sections = [f"## Rule {i}\n\nAlways answer question {i} with care and cite the policy.\n\nNow: {CLOCK}\n\n"
                f"Session: {{{{ session_id_{i} }}}}\n\n" for i in range(60)]
    path = write("long.j2", "".join(sections) + "Answer in English.\n")
    _, log = _sarif(run_cli, str(path), "--select", "PC101")
    jsonschema.validate(log, sarif_schema)
    results = log["runs"][0]["results"]
    assert len(results) >= 60  # the clock once (it is written 60 times), each session id
    # One rewrite fixes them all: offered once, on the first fixable finding.
    offered = [r for r in results if "fixes" in r]
    assert len(offered) == 1 and offered[0] is next(r for r in results if r["properties"]["fixable"])
    assert sum(r["properties"]["fixable"] for r in results) > 1
    (change,) = offered[0]["fixes"][0]["artifactChanges"]
    fixed = _apply(path.read_text(), change)
    assert run_cli("fix", str(path)).exit_code in (0, 1)
    assert fixed == path.read_text() and fixed.count(f"Now: {CLOCK}") == 60
    assert len(change["replacements"]) >= 60  # each value's lines taken out where they stood, not one block


def test_github_annotations_escape_and_map_levels(run_cli, write, long_rules):
    path = write("a, b.j2", f"Now: {CLOCK}\n{long_rules}\n")
    result = run_cli("check", "--format", "github", str(path))
    assert result.exit_code == 1
    lines = result.stdout.strip().splitlines()
    assert lines and all(line.startswith(("::error ", "::warning ", "::notice ")) for line in lines)
    first = lines[0]
    assert "file=" in first and "a%2C b.j2" in first and ",line=1,col=6," in first
    assert "title=PC101 volatile-before-stable::" in first
    assert "\n" not in first


def test_github_annotation_names_a_file_whose_name_holds_an_escape_sequence(run_cli, write, long_rules):
    # click strips escape sequences from what is not a terminal: the annotation named
    # `a[31m.j2`, a file that is not there, and GitHub attached it to nothing.
    path = write("a\x1b[31m.j2", f"Now: {CLOCK}\n{long_rules}\n")
    result = run_cli("check", "--format", "github", str(path))
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert f"file={path}," in first.replace("%3A", ":")


def test_sarif_fixes_rewrite_the_file_as_promptlint_fix_does(run_cli, write, long_rules, sarif_schema):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    _, log = _sarif(run_cli, str(path), "--select", "PC101")
    jsonschema.validate(log, sarif_schema)
    (result,) = log["runs"][0]["results"]
    (change,) = result["fixes"][0]["artifactChanges"]
    text = path.read_text()
    for replacement in sorted(change["replacements"], key=lambda r: -r["deletedRegion"]["charOffset"]):
        start = replacement["deletedRegion"]["charOffset"]
        end = start + replacement["deletedRegion"]["charLength"]
        text = text[:start] + replacement["insertedContent"]["text"] + text[end:]
    assert run_cli("fix", str(path)).exit_code in (0, 1)
    assert text == path.read_text() and text.endswith(f"Now: {CLOCK}\n")


def test_sarif_fixes_are_diffed_where_the_file_was_checked(processes_for_any_size, run_cli, write, long_rules,
                                                            monkeypatch):
    # With -j N each worker sends its file's line replacements, not the file's text and its
    # rewrite (two copies of every fixable file through the pipe, and a serial diff here);
    # the log is the one a single process writes.
    import promptlint.fix.linediff as linediff

    paths = [write(f"p{n}.j2", f"Now: {CLOCK}\n{long_rules}\nUser {n}.\n") for n in range(4)]
    folder = str(paths[0].parent)
    one = run_cli("check", "--format", "sarif", "--no-cache", "-j", "1", folder)
    diffed_in: list[int] = []
    real = linediff.line_edits

    def watched(old: str, new: str):  # type: ignore[no-untyped-def]
        diffed_in.append(os.getpid())
        return real(old, new)

    monkeypatch.setattr(linediff, "line_edits", watched)
    two = run_cli("check", "--format", "sarif", "--no-cache", "-j", "2", folder)
    assert two.output == one.output and two.exit_code == one.exit_code == 1
    # The workers inherit the patch, but what they note stays in their memory: any entry is a
    # diff made here.
    assert diffed_in == []
    offered = [r for r in json.loads(two.output)["runs"][0]["results"] if "fixes" in r]
    assert len(offered) == 4


@pytest.mark.parametrize("case", ["demo", "unreadable", "clean"])
def test_sarif_written_a_result_at_a_time_is_json_dumps_of_the_log(run_cli, write, case):
    # The log is written in chunks; they must be the characters json.dumps(log, indent=2)
    # writes (a parsed and dumped again log is the same text).
    if case == "demo":
        result = run_cli("check", "--format", "sarif", str(REPO / "fixtures/agents"))
    elif case == "unreadable":
        bad = write("bad.j2", "")
        bad.write_bytes(b"\x00\x01binary")
        result = run_cli("check", "--format", "sarif", str(bad), str(write("ok.j2", "Time: {{ now() }}\n")))
    else:
        result = run_cli("check", "--format", "sarif", str(write("calm.md", "Nothing volatile here.\n")))
    assert result.stdout == json.dumps(json.loads(result.stdout), indent=2, ensure_ascii=False) + "\n"
    assert (case == "clean") == ('"results": []' in result.stdout)


def test_sarif_of_a_file_whose_name_is_no_utf8(run_cli, write, long_rules, sarif_schema):
    # Such a name reaches the reporter with lone surrogates (os.fsdecode's): hashing it into
    # the fingerprint as strict UTF-8 ended the run in "internal error: UnicodeEncodeError".
    name = os.fsdecode(b"caf\xe9.j2")
    path = write(name, f"Now: {CLOCK}\n{long_rules}\n")
    result, log = _sarif(run_cli, name, "--select", "PC101", cwd=path.parent)
    assert result.exit_code == 1
    jsonschema.validate(log, sarif_schema)
    (found,) = log["runs"][0]["results"]
    assert found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "caf%E9.j2"


@pytest.mark.parametrize("name", ["with space.j2", "café.j2", "notes#1.j2", "why?.j2", "c:draft.j2", "100%.j2"])
def test_sarif_uris_are_percent_encoded_references_to_the_file(run_cli, write, long_rules, name):
    # Written raw, `notes#1.j2` was the file `notes` with a fragment, `c:draft.j2` a URI of
    # the scheme `c`, `with space.j2` no URI reference at all.
    from urllib.parse import unquote, urlsplit

    path = write(name, f"Now: {CLOCK}\n{long_rules}\n")
    result, log = _sarif(run_cli, name, "--select", "PC101", cwd=path.parent)
    assert result.exit_code == 1
    (found,) = log["runs"][0]["results"]
    uri = found["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    parts = urlsplit(uri)
    assert (parts.scheme, parts.query, parts.fragment) == ("", "", "")
    assert uri.isascii() and " " not in uri and unquote(parts.path) == name
    base = log["runs"][0]["originalUriBaseIds"]["SRCROOT"]["uri"]
    assert Path(unquote(urlsplit(base + uri).path)) == path
