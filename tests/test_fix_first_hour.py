"""Issue 9, fix: what a new user meets in the first hour, each item with the test that
would have caught it.

5. `fix` on a request body claimed a failed proof (the JSON lines were moved as if they
   were the prompt); bodies are now never rewritten, and each value says why and what to do.
6. `check` said `fixable` where `fix` then moved nothing ("the stable prefix did not grow"),
   without a word about the findings; one outlook now serves both, and says why per finding.
7. `--unsafe-fixes` said "→ end of file" for text it put before a trailing block, and
   refused its own sort of a `.items()` loop; the messages say where text went, and the
   proof of a sort checks the multiset of rendered lines.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from promptlint.loaders import load_text

REPO_ROOT = Path(__file__).resolve().parents[1]
REQUESTS = sorted((REPO_ROOT / "fixtures" / "requests").glob("*.json"))
RULES = "\n".join(
    f"Rule {i}: answer politely, cite the handbook section you rely on, and never invent facts." for i in range(1, 6)
)
LONG_RULES = "\n".join(
    f"Rule {i}: answer politely, cite the handbook section you rely on, and never invent facts." for i in range(1, 40)
)


def _findings(run_cli: Any, *paths: str) -> list[dict[str, Any]]:
    out = run_cli("check", "--format", "json", *paths)
    assert out.exit_code in (0, 1), out.output
    return json.loads(out.stdout)["findings"]


# -- 5. request bodies: never a failed proof; per value, why not and what to do ----------

@pytest.mark.parametrize("body", REQUESTS, ids=lambda p: p.name)
def test_fix_on_a_shipped_request_body_claims_no_failed_proof(run_cli: Any, body: Path) -> None:
    check = run_cli("check", str(body))
    result = run_cli("fix", "--diff", str(body))
    assert "not written" not in result.output and "does not parse" not in result.output, result.output
    assert result.exit_code == 0, result.output  # nothing would change: `fix --diff` has nothing to show
    assert check.exit_code in (0, 1)
    values = [f for f in _findings(run_cli, str(body)) if f["rule"] in ("PC201", "PC208")]
    for finding in values:
        assert finding["fixable"] is False
        assert "request bodies" in finding["unfixable_reason"]
        assert re.search(rf"line {finding['line']}: \w[\w-]* `[^`]+`: not rewritten: .*latest user message",
                         result.output), result.output


def _openai_body(system: str) -> dict[str, Any]:
    return {"model": "gpt-5.5", "messages": [
        {"role": "system", "content": system},
        {"role": "user", "content": "Where is my order 4411?"},
    ]}


def _anthropic_body(system: str) -> dict[str, Any]:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100,
            "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": "Where is my order 4411?"}]}


@pytest.mark.parametrize("make", [_openai_body, _anthropic_body], ids=["openai", "anthropic"])
@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_a_body_with_a_clock_in_its_system_prompt_is_reported_not_fixable_in_both_outputs(
    run_cli: Any, write: Any, make: Any, unsafe: bool
) -> None:
    text = json.dumps(make(f"You are Atlas.\nCurrent time: 2026-11-30T14:03:27Z\n\n{LONG_RULES}"), indent=2) + "\n"
    body = write("body.json", text)
    check = run_cli("check", str(body))
    assert check.exit_code == 1

    findings = _findings(run_cli, str(body))
    assert findings and all(f["fixable"] is False and f["unfixable_reason"] for f in findings), findings
    clock_line = next(f["line"] for f in findings if f["rule"] in ("PC201", "PC208"))

    flags = ["--unsafe-fixes"] if unsafe else []
    fixed = run_cli("fix", *flags, str(body))
    assert fixed.exit_code == 0, fixed.output
    assert "not written" not in fixed.output and "not fixed" not in fixed.output
    assert body.read_text() == text  # formatting and all: nothing is rewritten
    assert f"line {clock_line}: timestamp `2026-11-30T14:03:27Z`: not rewritten" in fixed.output
    assert "send the value in the latest user message" in fixed.output

    # Exit codes as for any file whose findings fix cannot fix: `fix --check` finds nothing
    # to change, `check --fix` still fails on the findings, as `check` does.
    assert run_cli("fix", "--check", *flags, str(body)).exit_code == 0
    assert run_cli("check", "--fix", *flags, str(body)).exit_code == check.exit_code
    assert body.read_text() == text


def test_a_malformed_body_fails_fix_as_it_fails_check(run_cli: Any, write: Any) -> None:
    body = write("body.json", '{"model": "gpt-5.5", "messages": [\n')
    assert run_cli("check", str(body)).exit_code == 2
    assert run_cli("fix", str(body)).exit_code == 2


# -- 6. `fixable` is what `fix` does; a fix that cannot help says why, per finding -------

# A clock before an unsorted tool loop: moving the clock alone takes "Current time:" out
# of the prefix, which still ends at the loop (the safe fix does not move tool loops).
BLOCKED = f"""You are Atlas.
Current time: {{{{ now().strftime("%H:%M") }}}}

## Tools
{{% for name, server in mcp_servers.items() %}}
- {{{{ name }}}}: {{{{ server.description }}}}
{{% endfor %}}

{RULES}
{{% if debug %}}
Hello {{{{ user.name }}}}.
{{% endif %}}
"""


def test_a_fix_that_would_not_help_is_not_fixable_and_says_why_per_finding(run_cli: Any, write: Any) -> None:
    path = write("a.j2", BLOCKED)
    clock = next(f for f in _findings(run_cli, str(path)) if f["rule"] == "PC101" and f["line"] == 2)
    assert clock["fixable"] is False
    assert "would not grow the stable prefix" in clock["unfixable_reason"]
    assert "line 5, where tool-order `mcp_servers.items()` is not moved" in clock["unfixable_reason"]

    result = run_cli("fix", str(path))
    assert result.exit_code == 0
    assert path.read_text() == BLOCKED
    assert "nothing moved" in result.output
    assert clock["unfixable_reason"] in result.output  # the same words, per finding
    assert "line 15: identity `user.name`: not fixable" in result.output
    assert "line 5: tool-order `mcp_servers.items()`: not moved" in result.output


def _moved_lines(messages: list[str]) -> set[int]:
    lines: set[int] = set()
    for message in messages:
        where = message.split(" → ")[0].split(" (")[0]
        match = re.search(r"lines? (\d+)(?:–(\d+))?", where)
        assert match, message
        lines.update(range(int(match.group(1)), int(match.group(2) or match.group(1)) + 1))
    return lines


def _targets(tmp_path: Path) -> list[list[str]]:
    from promptlint.testing import load_cases, materialize

    targets = [[str(REPO_ROOT / "fixtures" / name)] for name in ("agents", "corpus", "corpus-heldout")]
    for file in sorted((REPO_ROOT / "fixtures" / "rules").glob("*.yaml")):
        data = load_cases(file)
        for i, case in enumerate(data["cases"]):
            targets.append(materialize(case, tmp_path / f"{data['rule']}-{i}"))
    return targets


def test_check_fixable_agrees_with_what_fix_does_on_every_fixture(tmp_path: Path) -> None:
    """Over the demo workspace, both corpora and every rule case: a PC101/PC104 finding is
    fixable exactly when `fix` moves its line, a PC102 one exactly when `fix --unsafe-fixes`
    sorts or moves its loop; no proof fails; and a finding that is not fixable says why, in
    the words `fix` prints."""
    from promptlint.api import check_paths
    from promptlint.fix import fix_file

    disagreements = []
    for paths in _targets(tmp_path):
        by_path: dict[str, list[Any]] = {}
        for finding in check_paths(paths).findings:
            if finding.rule in ("PC101", "PC102", "PC104"):
                by_path.setdefault(finding.path, []).append(finding)
        for path, findings in by_path.items():
            runs = {False: fix_file(path, write=False), True: fix_file(path, write=False, unsafe=True)}
            for run in runs.values():
                assert not run.problems, (path, run.problems)
            for finding in findings:
                run = runs[finding.rule == "PC102"]
                sorted_here = any(r.startswith(f"line {finding.line}: loop over") for r in run.rewritten)
                done = run.changed and (finding.line in _moved_lines(run.moved) or sorted_here)
                if finding.fixable != done:
                    disagreements.append((path, finding.rule, finding.line, finding.fixable, run.not_fixable))
                    continue
                if not finding.fixable:
                    reason = finding.extra.get("unfixable_reason")
                    # Said elsewhere: a value at the tail needs no move; an included file's value
                    # is fixed by moving the include, in the file that includes it.
                    elsewhere = reason and ("already stands at the end" in reason or reason.startswith("not moved here"))
                    if not reason or (not elsewhere and reason not in run.not_fixable):
                        disagreements.append((path, finding.rule, finding.line, reason, run.not_fixable))
    assert not disagreements, disagreements


def test_a_clock_read_through_datetime_now_is_moved_not_refused_by_the_proof(write: Any) -> None:
    """The proof rendered `datetime.now()` with the machine's clock, twice: microseconds
    apart, the old and new source never rendered the same line."""
    from promptlint.fix import fix_file

    path = write("a.j2", f"You are a research agent.\nSession clock: {{{{ datetime.now().isoformat() }}}}\n\n{LONG_RULES}\n")
    result = fix_file(str(path))
    assert not result.problems, result.problems
    assert result.written and path.read_text().endswith("Session clock: {{ datetime.now().isoformat() }}\n")


def test_a_draft_that_does_not_settle_is_not_fixable_in_check_nor_made_by_fix(
    run_cli: Any, write: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The round limit is part of the one outlook: with no round left to confirm the fixed
    point, check says not fixable and fix moves nothing; neither claims a failed proof."""
    monkeypatch.setattr("promptlint.core.draft.MOVE_ROUNDS", 0)
    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{LONG_RULES}\n")
    finding = next(f for f in _findings(run_cli, str(path)) if f["rule"] == "PC101")
    assert finding["fixable"] is False and "do not settle" in finding["unfixable_reason"]
    result = run_cli("fix", str(path))
    assert result.exit_code == 0 and "not written" not in result.output
    assert finding["unfixable_reason"] in result.output


# -- 7. unsafe fixes: messages say where text went; a sort is proved as a sort -------------

def test_unsafe_message_says_the_line_went_before_a_trailing_block(run_cli: Any, write: Any) -> None:
    path = write("a.j2", BLOCKED)
    result = run_cli("fix", "--unsafe-fixes", str(path))
    assert result.exit_code == 0, result.output
    new = path.read_text()
    clock = new.index("Current time:")
    assert new.index("{% if debug %}") > clock  # where it really went
    assert ("moved line 2 (timestamp `now().strftime(\"%Y-%m-%d\")`) → before the `{% if %}` block on "
            "lines 14–16, which stays at the end of the file") in result.output
    assert "→ end of file" not in result.output


def test_end_of_file_is_said_only_when_the_text_ends_the_file() -> None:
    from promptlint.fix import plan_fix

    source = f"Time {{{{ now() }}}}\n\n{RULES}\n"
    plan = plan_fix(load_text("p", source, "jinja"))
    assert plan.moved == ["line 1 (timestamp `now()`) → end of file"]
    assert plan.new_source.rstrip().endswith("Time {{ now() }}")


# The loop body holds a value the proof's generated values cannot take (`+ 1`), so the
# proof renders from the IR, where a loop used to be known by its expression's text.
ITEMS_LOOP = f"""You are Atlas, connected to these servers:
{{% for name, server in mcp_servers.items() %}}
- {{{{ name }}}} (timeout {{{{ server.timeout + 1 }}}} s)
{{% endfor %}}

{LONG_RULES}
"""


def test_unsafe_sort_of_an_items_loop_passes_its_own_proof(run_cli: Any, write: Any) -> None:
    path = write("a.j2", ITEMS_LOOP)
    loop = next(f for f in _findings(run_cli, str(path)) if f["rule"] == "PC102")
    assert loop["fixable"] is True
    result = run_cli("fix", "--unsafe-fixes", str(path))
    assert result.exit_code == 0, result.output
    assert "not written" not in result.output
    assert "{% for name, server in mcp_servers | dictsort %}" in path.read_text()
    assert "rewrote line 2: loop over `mcp_servers.items()` sorted (unsafe)" in result.output


def test_the_proof_of_a_sort_still_refuses_a_lost_or_changed_line() -> None:
    from promptlint.fix import prove

    template = load_text("p", ITEMS_LOOP, "jinja")
    good = ITEMS_LOOP.replace("mcp_servers.items()", "mcp_servers | dictsort")
    assert prove(template, good, unsafe=True) == []
    changed = good.replace("server.timeout + 1", "server.timeout + 2")
    assert any("rendered lines differ" in p for p in prove(template, changed, unsafe=True))
    other = good.replace("mcp_servers | dictsort", "other_servers | dictsort")
    assert any("rendered lines differ" in p for p in prove(template, other, unsafe=True))
    # Safe moves keep the stricter proof: a sort is not a move.
    assert prove(template, good, unsafe=False)
