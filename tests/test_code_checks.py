"""Prompt builders in code through the whole check: findings, suppressions, folder walks,
config, the fix's refusal, and the fixture agent project."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from promptlint.api import check_paths, check_text
from promptlint.config import Config, ConfigError, parse
from promptlint.core.fixability import is_fixable
from promptlint.loaders import load_text

REPO = Path(__file__).resolve().parent.parent
# One line, so that line numbers in the sources below stay as written.
RULES = " ".join(f"Rule {n}: read the code before you change it, and run the tests before you commit."
                 for n in range(12))


def check_py(body: str, config: Config | None = None):  # type: ignore[no-untyped-def]
    return check_text(textwrap.dedent(body).replace("@RULES@", RULES), path="agent.py", config=config)


def check_ts(body: str, path: str = "agent.ts"):  # type: ignore[no-untyped-def]
    return check_text(textwrap.dedent(body).replace("@RULES@", RULES), path=path)


def kinds(result) -> set[tuple[int, str, str]]:  # type: ignore[no-untyped-def]
    return {(f.line, f.kind, f.severity) for f in result.findings if f.rule in ("PC101", "PC102")}


# --------------------------------------------------------------------------- detection


def test_python_clock_user_and_tool_loop_are_found_at_their_lines() -> None:
    result = check_py('''
        from datetime import datetime
        RULES = """@RULES@"""
        def build_system_prompt(user, tools):
            parts = [f"You are Atlas. Time: {datetime.now():%H:%M}", f"User: {user.display_name}"]
            for tool in tools:
                parts.append(f"- {tool.name}")
            parts.append(RULES)
            return "\\n".join(parts)
    ''')
    assert kinds(result) == {(5, "timestamp", "error"), (5, "identity", "error"), (6, "tool-order", "error")}
    assert result.syntax == "python" and result.tokens and result.stable_prefix_tokens is not None
    assert all(not f.fixable and f.extra.get("unfixable_reason") for f in result.findings if f.kind)


def test_ts_clock_user_and_tool_loop_are_found_at_their_lines() -> None:
    result = check_ts('''
        const RULES = `@RULES@`;
        export function buildSystemPrompt(user, tools) {
          const lines = [`You are Nova. Time: ${new Date().toISOString()}`, `User: ${user.displayName}`];
          for (const name of Object.keys(tools)) {
            lines.push(`- ${name}`);
          }
          lines.push(RULES);
          return lines.join("\\n");
        }
    ''')
    assert kinds(result) == {(4, "timestamp", "error"), (4, "identity", "error"), (5, "tool-order", "error")}


@pytest.mark.parametrize("expression, kind, frequency", [
    ("date.today().isoformat()", "timestamp", "per-day"),
    ("datetime.now().isoformat()[:10]", "timestamp", "per-day"),
    ("datetime.now().strftime('%Y-%m-%d %H:00')", "timestamp", "per-session"),
    ("time.time()", "timestamp", "per-request"),
    ("uuid.uuid4()", "session-id", "per-request"),
    ("os.getcwd()", "environment", "per-session"),
    ("platform.system()", "environment", "per-session"),
    ("subprocess.check_output(['git', 'diff'])", "environment", "per-request"),
    ("subprocess.check_output('git branch --show-current', shell=True)", "environment", "per-session"),
    ("memory_store.load()", "memory", "per-request"),
    ("retriever.retrieve(query)", "retrieval", "per-request"),
    ("profile.email", "identity", "per-session"),
])
def test_python_volatility_is_read_from_the_expression(expression: str, kind: str, frequency: str) -> None:
    result = check_py(f'''
        import os, platform, subprocess, time, uuid
        from datetime import date, datetime
        RULES = """@RULES@"""
        def build_system_prompt(profile, memory_store, retriever, query):
            return f"You are Atlas, a coding agent.\\nValue: {{{expression}}}\\n" + RULES
    ''')
    (finding,) = [f for f in result.findings if f.rule == "PC101"]
    assert (finding.kind, finding.frequency, finding.line) == (kind, frequency, 6)


@pytest.mark.parametrize("expression, kind, frequency", [
    ("Date.now()", "timestamp", "per-request"),
    ("new Date().toLocaleTimeString()", "timestamp", "per-request"),
    ("new Date().toLocaleDateString()", "timestamp", "per-day"),
    ("crypto.randomUUID()", "session-id", "per-request"),
    ("nanoid()", "session-id", "per-request"),
    ("process.cwd()", "environment", "per-session"),
    ("os.platform()", "environment", "per-session"),
    ("execSync('git status --short').toString()", "environment", "per-request"),
    ("await vectorStore.similaritySearch(q)", "retrieval", "per-request"),
    ("fs.readFileSync('MEMORY.md', 'utf8')", "memory", "per-request"),
    ("user.profile.displayName", "identity", "per-session"),
])
def test_ts_volatility_is_read_from_the_expression(expression: str, kind: str, frequency: str) -> None:
    result = check_ts(f'''
        const RULES = `@RULES@`;
        export async function buildSystemPrompt(user, vectorStore, q) {{
          return `You are Nova, a coding agent.\\nValue: ${{{expression}}}\\n` + RULES;
        }}
    ''')
    (finding,) = [f for f in result.findings if f.rule == "PC101"]
    assert (finding.kind, finding.frequency, finding.line) == (kind, frequency, 4)


def test_traps_stay_quiet() -> None:
    result = check_py('''
        import logging
        from datetime import datetime
        from functools import lru_cache
        log = logging.getLogger()
        DATE_FORMAT = "%Y-%m-%d %H:%M:%S"
        RULES = """@RULES@"""
        @lru_cache(maxsize=1)
        def build_system_prompt(tools):
            lines = [f"You are Atlas. Dates look like {DATE_FORMAT}."]
            for name, tool in sorted(tools.items()):
                lines.append(f"- {name}: {tool}")
            lines.append(RULES)
            return "\\n".join(lines)
        def send(client, tools, q):
            log.info("sent at %s", datetime.now())
            return client.messages.create(system=build_system_prompt(tools),
                                          messages=[{"role": "user", "content": f"{q} ({datetime.now()})"}])
    ''')
    assert result.findings == []


def test_memoised_clock_is_a_warning_not_an_error() -> None:
    result = check_py('''
        from datetime import datetime
        from functools import cache
        RULES = """@RULES@"""
        @cache
        def build_system_prompt():
            return f"You are Relay. Started {datetime.now():%H:%M}.\\n" + RULES
    ''')
    (finding,) = [f for f in result.findings if f.rule == "PC101"]
    assert (finding.frequency, finding.severity) == ("per-session", "warning")
    assert "once per process" in finding.message


def test_clock_at_the_very_end_is_a_warning() -> None:
    result = check_ts('''
        const RULES = `@RULES@`;
        export const buildSystemPrompt = () => `You are Vesper.\\n${RULES}\\nNow: ${new Date().toISOString()}`;
    ''')
    assert {f.severity for f in result.findings if f.rule == "PC101"} == {"warning"}


def test_several_prompts_are_analysed_each_on_its_own() -> None:
    result = check_py('''
        from datetime import datetime
        RULES = """@RULES@"""
        def planner_prompt():
            return "You are Planner, who plans the week.\\n" + RULES + f"\\nNow: {datetime.now():%H:%M}"
        def reviewer_prompt(user):
            return f"You are Reviewer for {user.name}.\\n" + RULES
    ''')
    # The clock ends the planner's prompt: a warning, whatever text the reviewer's prompt has.
    assert kinds(result) == {(5, "timestamp", "warning"), (7, "identity", "error")}
    assert [p["name"] for p in result.extra["prompts"]] == ["planner_prompt()", "reviewer_prompt()"]
    assert result.tokens == sum(p["tokens"] for p in result.extra["prompts"])


def test_advice_points_after_the_prompts_last_text() -> None:
    result = check_py('''
        from datetime import datetime
        def build_system_prompt():
            return (f"You are Atlas. Time: {datetime.now():%H:%M:%S}.\\n"
                    + "Always run the tests before you commit, and say which command you ran. " * 8)
    ''')
    pc101 = next(f for f in result.findings if f.rule == "PC101")
    assert "after line 5" in pc101.message and "latest user message" in pc101.message


# --------------------------------------------------------------------------- suppressions


def test_python_line_comment_suppresses_the_next_line() -> None:
    result = check_py('''
        from datetime import datetime
        RULES = """@RULES@"""
        def build_system_prompt(user):
            parts = ["You are Atlas, a coding agent."]
            # promptlint: disable=PC101
            parts.append(f"Time: {datetime.now():%H:%M}")
            parts.append(f"User: {user.name}")
            parts.append(RULES)
            return "\\n".join(parts)
    ''')
    assert {(f.rule, f.line) for f in result.findings} == {("PC103", 7), ("PC101", 8)}


def test_python_comment_above_a_multiline_statement_covers_it() -> None:
    result = check_py('''
        from datetime import datetime
        RULES = """@RULES@"""
        # promptlint: disable=PC101,PC103
        SYSTEM_PROMPT = f"""You are Atlas, a coding agent.
        Some context first.
        Time: {datetime.now():%H:%M}
        """ + RULES
    ''')
    assert result.findings == []


def test_python_comment_above_a_statement_covers_it_below_lone_carriage_returns() -> None:
    # Python ends a line at a lone CR, findings do not: the statement a comment covers was
    # numbered as Python numbers it, two lines below the finding it should have silenced.
    body = textwrap.dedent('''
        import os@import re@import sys
        from datetime import datetime
        RULES = """@RULES@"""
        def build_system_prompt(user):
            # promptlint: disable=PC101,PC103
            prompt = f"Time: {datetime.now():%H:%M}\\n" + (
                RULES
            )
            return prompt
    ''').replace("@RULES@", RULES)
    assert check_text(body.replace("@", "\n"), path="agent.py").findings == []
    assert check_text(body.replace("@", "\r"), path="agent.py").findings == []
    loud = check_text(body.replace("@", "\r").replace("# promptlint: disable=PC101,PC103", "pass"), path="agent.py")
    assert {(f.rule, f.line) for f in loud.findings} == {("PC101", 7), ("PC103", 7)}


def test_ts_line_and_block_comments_and_disable_file() -> None:
    body = '''
        const RULES = `@RULES@`;
        export function buildSystemPrompt(user) {
          const lines = ["You are Nova."];
          lines.push(`Time: ${new Date().toISOString()}`); // promptlint: disable=PC101,PC103
          /* promptlint: disable-next-line=PC101 */
          lines.push(`User: ${user.name}`);
          lines.push(RULES);
          return lines.join("\\n");
        }
    '''
    assert check_ts(body).findings == []
    assert check_ts("// promptlint: disable-file\n" + textwrap.dedent(body).replace(
        "// promptlint: disable=PC101,PC103", "").replace("/* promptlint: disable-next-line=PC101 */", "")).findings == []


def test_hash_comments_are_not_directives_outside_code() -> None:
    result = check_text("# promptlint: disable=PC101\nTime: {{ now().strftime('%H:%M') }}\n" + RULES, path="p.j2")
    assert any(f.rule == "PC101" for f in result.findings)


# --------------------------------------------------------------------------- folder walks


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_folder_walk_checks_builders_and_skips_other_code_quietly(tmp_path: Path) -> None:
    _write(tmp_path, "agent/prompt.py", 'SYSTEM_PROMPT = f"You are Atlas, a coding agent for {user.name}."\n')
    _write(tmp_path, "agent/util.py", "def add(a, b):\n    return a + b\n")
    _write(tmp_path, "agent/sys_info.py", "import os\nos.system('ls')\n")  # passes the sniff, builds none
    _write(tmp_path, "web/prompt.ts", "export const systemPrompt = `You are Nova, the assistant of ${team.name}.`;\n")
    _write(tmp_path, "web/broken.js", "export const x = ;\n")
    _write(tmp_path, "old/legacy.py", "print 'python 2'\nSYSTEM_PROMPT = 'You are old.'\n")
    report = check_paths([str(tmp_path)])
    checked = sorted(os.path.relpath(r.path, tmp_path) for r in report.files)
    assert checked == ["agent/prompt.py", "web/broken.js", "web/prompt.ts"] or checked == [
        "agent/prompt.py", "web/prompt.ts"]
    assert not report.failed
    assert [w for w in report.warnings if "legacy.py" in w] and not report.notes


def test_named_code_file_without_a_prompt_is_one_quiet_note(tmp_path: Path) -> None:
    first = _write(tmp_path, "util.py", "def add(a, b):\n    return a + b\n")
    second = _write(tmp_path, "system_check.py", "import os\nos.system('true')\n")
    report = check_paths([str(first), str(second)])
    assert report.files == [] and not report.failed and report.exit_code() == 0
    assert len(report.notes) == 1 and "no prompt" in report.notes[0]


def test_named_code_file_that_does_not_parse_is_an_error(tmp_path: Path) -> None:
    path = _write(tmp_path, "prompt.py", "SYSTEM_PROMPT = (\n")
    report = check_paths([str(path)])
    assert report.failed and "not valid Python" in (report.files[0].error or "")


def test_sniff_reads_no_grammar_for_files_without_prompt_words(tmp_path: Path) -> None:
    from promptlint.discovery import may_build_prompt

    plain = _write(tmp_path, "a.ts", "export const add = (a: number, b: number) => a + b;\n")
    named = _write(tmp_path, "b.ts", "export const CHARTER = `Team rules for ${team}`;\n")
    assert not may_build_prompt(str(plain))
    assert not may_build_prompt(str(named)) and may_build_prompt(str(named), ("CHARTER",))


# --------------------------------------------------------------------------- config


def test_prompt_names_config_is_validated(tmp_path: Path) -> None:
    config = parse(tmp_path / "promptlint.toml", {"code": {"prompt-names": ["*_charter", "brief"]}})
    assert config.prompt_names == ("*_charter", "brief")
    for bad in ({"code": {"prompt-names": [1]}}, {"code": {"names": ["x"]}}, {"code": "x"},
                {"code": {"prompt-names": ["no spaces"]}}):
        with pytest.raises(ConfigError):
            parse(tmp_path / "promptlint.toml", bad)


def test_prompt_names_config_finds_more_prompts(tmp_path: Path) -> None:
    _write(tmp_path, "promptlint.toml", '[code]\nprompt-names = ["*_CHARTER"]\n')
    _write(tmp_path, "charter.ts", "export const TEAM_CHARTER = `Team rules, escalate to ${onCall.displayName}.`;\n")
    report = check_paths([str(tmp_path)])
    assert [f.kind for f in report.findings] == ["identity"]


def test_code_files_are_in_the_default_include_and_the_hook_pattern() -> None:
    from promptlint.config import DEFAULT_INCLUDE

    assert {"*.py", "*.ts", "*.tsx", "*.js", "*.mjs", "*.cjs"} <= set(DEFAULT_INCLUDE)
    hook = (REPO / ".pre-commit-hooks.yaml").read_text()
    assert all(ext in hook for ext in ("|py|", "|ts|", "|tsx|", "|js|", "|mjs|", "|cjs"))


# --------------------------------------------------------------------------- fix


def test_code_units_are_never_fixable() -> None:
    from promptlint.core.analysis import find_units

    template = load_text("a.py", 'SYSTEM_PROMPT = f"You are Atlas. {user.name}. Be brief and precise always."\n')
    part = template.prompts[0]
    (unit,) = find_units(part)
    assert is_fixable(part, unit) is False


def test_fix_on_code_says_it_does_not_rewrite_it_per_finding(tmp_path: Path) -> None:
    from promptlint.fix import fix_paths

    path = _write(tmp_path, "agent.py", f'''
        from datetime import datetime
        RULES = """{RULES}"""
        def build_system_prompt(user):
            return f"You are Atlas. Time: {{datetime.now():%H:%M}}. User: {{user.name}}.\\n" + RULES
    ''')
    before = path.read_text()
    report = fix_paths([str(path)])
    (result,) = report.files
    assert not result.changed and not result.written and not result.problems and not report.failed
    assert len(result.not_fixable) == 2
    assert all("not rewritten" in line and "line 5:" in line for line in result.not_fixable)
    assert path.read_text() == before


def test_cli_fix_on_code_exits_zero_and_claims_no_failed_proof(tmp_path: Path) -> None:
    path = _write(tmp_path, "agent.ts", f"const RULES = `{RULES}`;\n"
                  "export const systemPrompt = `You are Nova, helping ${user.name}.\\n${RULES}`;\n")
    proc = subprocess.run([sys.executable, "-m", "promptlint", "fix", str(path)], capture_output=True, text=True,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "not rewritten" in proc.stdout and "proof" not in proc.stdout and "not fixed" not in proc.stdout


# --------------------------------------------------------------------------- the fixture project


def test_fixture_code_agent_project() -> None:
    """The clock, the user profile and the unsorted tool loop at their source lines; nothing
    on the builders that sort and send per-request values in the latest user message."""
    proc = subprocess.run([sys.executable, "-m", "promptlint", "check", "fixtures/code-agent/", "--format", "json",
                           "--no-cache"], capture_output=True, text=True, cwd=REPO, check=False)
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    found = {(Path(f["path"]).name, f["line"], f["kind"]) for f in data["findings"]}
    prompt_py = (REPO / "fixtures/code-agent/agent/prompt.py").read_text().splitlines()
    clock = next(n for n, line in enumerate(prompt_py, 1) if "current_time()" in line and "Current time" in line)
    profile = next(n for n, line in enumerate(prompt_py, 1) if "profile.display_name" in line)
    loop = next(n for n, line in enumerate(prompt_py, 1) if "for name, tool in registry.tools.items()" in line)
    assert {("prompt.py", clock, "timestamp"), ("prompt.py", profile, "identity"),
            ("prompt.py", loop, "tool-order")} <= found
    assert ("systemPrompt.ts", 21, "identity") in found and ("systemPrompt.ts", 23, "tool-order") in found
    checked = {Path(f["path"]).name for f in data["files"]}
    assert {"clean_prompt.py", "cleanPrompt.ts"} <= checked
    assert not {name for name, _, _ in found} & {"clean_prompt.py", "cleanPrompt.ts", "storage.py", "format.ts"}
    assert not {"storage.py", "format.ts", "README.md"} & checked
