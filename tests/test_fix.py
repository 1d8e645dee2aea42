"""promptlint fix: what moves where, what is refused and why, the proof, and safe writing."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from promptlint.core.fixability import is_fixable
from promptlint.fix import FileChangedError, fix_file, plan_fix, prove, write_atomic
from promptlint.loaders import load_text

RULES = "\n".join(
    f"Rule {i}: answer politely, cite the handbook section you rely on, and never invent facts."
    for i in range(1, 16)
)


def plan(source: str, syntax: str = "jinja", unsafe: bool = False):  # type: ignore[no-untyped-def]
    return plan_fix(load_text("prompt", source, syntax), None, unsafe)


def fixed(source: str, syntax: str = "jinja", unsafe: bool = False) -> str:
    result = plan(source, syntax, unsafe)
    assert not result.problems, result.problems
    assert result.changed, result.not_fixable
    return result.new_source


def words(text: str) -> Counter[str]:
    return Counter(text.split())


# ---------------------------------------------------------------------------------------
# What moves


def test_a_line_moves_to_the_tail_after_one_blank_line() -> None:
    source = f"You are Atlas.\n\nThe time is {{{{ now() }}}}.\n\n{RULES}\n"
    result = plan(source)
    assert result.changed
    assert result.new_source == f"You are Atlas.\n\n{RULES}\n\nThe time is {{{{ now() }}}}.\n"
    assert result.moved == ["line 3 (timestamp `now()`) → end of file"]
    assert result.stable_after > result.stable_before


def test_a_paragraph_of_running_prose_moves_whole() -> None:
    source = f"You are Atlas and you talk with\n{{{{ user.name }}}} about orders,\nrefunds and shipping.\n\n{RULES}\n"
    assert fixed(source) == (
        f"{RULES}\n\nYou are Atlas and you talk with\n{{{{ user.name }}}} about orders,\nrefunds and shipping.\n"
    )
    assert plan(source).moved[0].startswith("paragraph on lines 1–3")


def test_a_line_that_is_a_statement_of_its_own_leaves_its_paragraph() -> None:
    source = f"You are Atlas.\nYou talk with {{{{ user.name }}}}.\nBe kind.\n\n{RULES}\n"
    assert fixed(source) == f"You are Atlas.\nBe kind.\n\n{RULES}\n\nYou talk with {{{{ user.name }}}}.\n"


def test_an_intro_line_and_a_comment_go_with_what_they_introduce() -> None:
    source = f"You are Atlas.\n{{# why #}}\nRelevant passages:\n{{{{ documents }}}}\n\n{RULES}\n"
    assert fixed(source) == f"You are Atlas.\n\n{RULES}\n\n{{# why #}}\nRelevant passages:\n{{{{ documents }}}}\n"


def test_a_list_item_moves_with_its_continuation_and_leaves_its_siblings() -> None:
    source = (
        "Facts:\n- You are Atlas.\n- It is {{ current_time }} now,\n  keep it in mind.\n- Be brief.\n\n"
        f"{RULES}\n"
    )
    new = fixed(source)
    assert new == (
        "Facts:\n- You are Atlas.\n- Be brief.\n\n"
        f"{RULES}\n\n- It is {{{{ current_time }}}} now,\n  keep it in mind.\n"
    )
    assert plan(source).moved[0].startswith("list item on lines 3–4")


def test_numbered_list_items_move_as_items() -> None:
    source = f"1. First.\n2. Session {{{{ session_id }}}}.\n3. Third.\n\n{RULES}\n"
    assert fixed(source) == f"1. First.\n3. Third.\n\n{RULES}\n\n2. Session {{{{ session_id }}}}.\n"


def test_an_if_block_moves_whole() -> None:
    source = f"You are Atlas.\n\n{{% if user %}}\nYou talk with {{{{ user.name }}}}.\n{{% endif %}}\n\n{RULES}\n"
    new = fixed(source)
    assert new.endswith("{% if user %}\nYou talk with {{ user.name }}.\n{% endif %}\n")
    assert new.startswith("You are Atlas.\n\nRule 1")
    assert "`{% if %}` block on lines 3–5" in plan(source).moved[0]


def test_a_for_block_moves_with_the_paragraph_it_stands_in() -> None:
    source = f"Documents:\n{{% for d in documents %}}\n- {{{{ d.text }}}}\n{{% endfor %}}\n\n{RULES}\n"
    new = fixed(source)
    assert new == f"{RULES}\n\nDocuments:\n{{% for d in documents %}}\n- {{{{ d.text }}}}\n{{% endfor %}}\n"


def test_a_mustache_section_moves_whole() -> None:
    source = f"You are Atlas.\n\n{{{{#user}}}}\nYou talk with {{{{name}}}}.\n{{{{/user}}}}\n\n{RULES}\n"
    new = fixed(source, "mustache")
    assert new == f"You are Atlas.\n\n{RULES}\n\n{{{{#user}}}}\nYou talk with {{{{name}}}}.\n{{{{/user}}}}\n"


def test_several_units_keep_their_order_at_the_tail() -> None:
    source = f"Time: ${{now}}\n\nIntro.\n\nDir: ${{cwd}}\n\n{RULES}\n"
    assert fixed(source, "dollar") == f"Intro.\n\n{RULES}\n\nTime: ${{now}}\n\nDir: ${{cwd}}\n"


def test_format_and_mustache_templates_move_too() -> None:
    assert fixed(f"Docs: {{documents}}\n\n{RULES}\n", "format").endswith("\n\nDocs: {documents}\n")
    assert fixed(f"Hi {{{{user.name}}}}\n\n{RULES}\n", "mustache").endswith("\n\nHi {{user.name}}\n")


def test_units_already_at_the_tail_are_left_alone() -> None:
    result = plan(f"{RULES}\n\nThe time is {{{{ now() }}}}.\n")
    assert not result.changed and not result.problems and not result.not_fixable


def test_tool_loops_are_left_alone_without_unsafe_fixes() -> None:
    result = plan(f"Tools:\n{{% for t in tools %}}\n- {{{{ t.name }}}}\n{{% endfor %}}\n\n{RULES}\n")
    assert not result.changed


# ---------------------------------------------------------------------------------------
# What is refused, and why


def test_a_macro_used_later_is_not_moved_past_its_use() -> None:
    source = (
        "{% macro who() %}{{ user.name }}{% endmacro %}Hi {{ user.name }}.\n\n"
        f"{RULES}\n\nSigned: {{{{ who() }}}}, not now.\n"
    )
    result = plan(source)
    assert not result.changed
    assert any("defines `who` used on line 19" in r for r in result.not_fixable), result.not_fixable


def test_a_set_name_used_later_is_not_moved_past_its_use() -> None:
    source = f"{{% set n = user.name %}}Hello {{{{ n }}}}.\n\n{RULES}\n{{% if n %}}Known user.{{% endif %}}\n"
    result = plan(source)
    assert not result.changed
    assert any("defines `n` used on line 18" in r for r in result.not_fixable), result.not_fixable


def test_a_unit_that_reads_a_name_set_later_is_not_moved_past_the_set() -> None:
    source = f"Hello {{{{ user.name }}}} {{{{ tone }}}}.\n\n{RULES}\n{{% set tone = 'formal' %}}\nBye.\n"
    result = plan(source)
    assert not result.changed
    assert any("reads `tone`, which is set again on line 18" in r for r in result.not_fixable)


def test_a_value_inside_a_code_fence_is_not_fixable() -> None:
    result = plan(f"Example:\n\n```\nnow: {{{{ now() }}}}\n```\n\n{RULES}\n")
    assert not result.changed
    assert any("inside a code fence (lines 3–5)" in r for r in result.not_fixable)


def test_nothing_moves_into_a_code_fence_left_open_at_the_end() -> None:
    result = plan(f"Time {{{{ now() }}}}\n\n{RULES}\n\n```\nunfinished example\n")
    assert not result.changed
    assert any("ends inside the code fence opened on line 19" in r for r in result.not_fixable)


def test_a_value_in_a_table_row_is_not_fixable() -> None:
    result = plan(f"| who | when |\n|---|---|\n| {{{{ user.name }}}} | today |\n\n{RULES}\n")
    assert not result.changed
    assert any("table row" in r for r in result.not_fixable)


def test_a_table_at_the_tail_is_closed_by_a_blank_line_before_moved_text() -> None:
    source = f"Time {{{{ now() }}}}\n\n{RULES}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    assert fixed(source).endswith("| a | b |\n|---|---|\n| 1 | 2 |\n\nTime {{ now() }}\n")


def test_a_closed_code_fence_at_the_tail_stays_closed() -> None:
    source = f"Time {{{{ now() }}}}\n\n{RULES}\n\n```\ncode\n```\n"
    assert fixed(source).endswith("```\ncode\n```\n\nTime {{ now() }}\n")


def test_a_fix_is_refused_where_the_next_run_would_read_the_file_in_another_syntax(tmp_path: Path) -> None:
    # `.md` is read as `str.format` because of its two fields; moving the clock's paragraph
    # puts "being careful…" right after `{agent_name}`, which then reads as a placeholder
    # being explained, and the next check would read the file as static text: the clock
    # would vanish from the report without moving from the prompt.
    from promptlint.loaders.base import infer_syntax

    source = (f"You are {{agent_name}}\n\nNow: {{current_time}} (UTC).\n\nbeing careful, answer each question "
              f"and cite the handbook section you rely on.\n\n{RULES}\n")
    path = tmp_path / "agent.md"
    path.write_text(source)
    assert infer_syntax(str(path), source).syntax == "format"
    result = fix_file(str(path))
    assert not result.changed and path.read_text() == source
    assert any("after the fix the file would be read as static text" in r for r in result.not_fixable)
    # Where the syntax is given, it is given again on the next run: the fix is made.
    assert fix_file(str(path), syntax="format", write=False).changed


def test_a_value_moved_past_a_fence_like_line_leaves_the_file_read_as_before(tmp_path: Path) -> None:
    # "```}" does not close the fence "```" opens: the fix's layout and the syntax inference
    # must both know it. The inference once took it for a close, and the last "```" for an
    # open fence that hid the moved `{{user}}`: the next run read the file as `{UPPER_CASE}`
    # placeholders and moved `{n_id}` too (found by fuzzing `fix`).
    from promptlint.loaders.base import infer_syntax

    path = tmp_path / "agent.md"
    path.write_text("{{user}}\n{n_id}\n```\n```}\n```")
    assert fix_file(str(path)).changed
    fixed_source = path.read_text()
    assert fixed_source.endswith("{{user}}") and infer_syntax(str(path), fixed_source).syntax == "mustache"
    assert not fix_file(str(path)).changed


def test_a_paragraph_that_runs_to_the_end_is_reported() -> None:
    result = plan(f"{RULES}\n\nIt is {{{{ now() }}}} and you are\nAtlas, so answer the customer politely and\nbriefly and cite your sources\n")
    assert not result.changed
    assert any("already ends the file" in r for r in result.not_fixable)


def test_values_behind_an_unmovable_one_are_not_moved() -> None:
    source = f"```\n{{{{ now() }}}}\n```\n\nIntro.\n\nUser {{{{ user.name }}}}\n\n{RULES}\n"
    result = plan(source)
    assert not result.changed and not result.problems
    assert any("line 2 holds a value that cannot be moved" in r for r in result.not_fixable)


def test_is_fixable_agrees_with_the_plan() -> None:
    from promptlint.core.analysis import find_units

    movable = load_text("p", f"Time {{{{ now() }}}}\n\n{RULES}\n", "jinja")
    fenced = load_text("p", f"```\n{{{{ now() }}}}\n```\n\n{RULES}\n", "jinja")
    assert is_fixable(movable, find_units(movable)[0])
    assert not is_fixable(fenced, find_units(fenced)[0])


def test_check_marks_movable_findings_fixable(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    import json

    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    fenced = write("b.j2", f"```\n{{{{ now() }}}}\n```\n\n{RULES}\n")
    out = run_cli("check", "--format", "json", str(path), str(fenced))
    findings = {(Path(f["path"]).name, f["rule"]): f["fixable"] for f in json.loads(out.stdout)["findings"]}
    assert findings[("a.j2", "PC101")] is True
    assert findings[("b.j2", "PC101")] is False


# ---------------------------------------------------------------------------------------
# Unsafe fixes


def test_unsafe_coarsens_a_clock_format_and_moves_it() -> None:
    source = f'Now: {{{{ now().strftime("%A %d %B %Y, %H:%M:%S") }}}}\n\n{RULES}\n'
    assert fixed(source) == f'{RULES}\n\nNow: {{{{ now().strftime("%A %d %B %Y, %H:%M:%S") }}}}\n'
    new = fixed(source, unsafe=True)
    assert new == f'{RULES}\n\nNow: {{{{ now().strftime("%A %d %B %Y") }}}}\n'
    assert plan(source, unsafe=True).rewritten == ["line 1: clock format '%A %d %B %Y, %H:%M:%S' → '%A %d %B %Y' (unsafe)"]


def test_unsafe_coarsens_a_format_field_spec() -> None:
    assert fixed(f"{RULES}\n\nAt {{now:%H:%M}}\n", "format", unsafe=True) == f"{RULES}\n\nAt {{now:%Y-%m-%d}}\n"


def test_unsafe_does_not_rewrite_isoformat() -> None:
    result = plan(f"{RULES}\n\nAt {{{{ now().isoformat() }}}}\n", unsafe=True)
    assert not result.changed
    assert any("no format string to coarsen" in r for r in result.not_fixable)


def test_unsafe_sorts_a_tool_loop_by_name() -> None:
    source = f"Tools:\n{{% for t in tools %}}\n- {{{{ t.name }}}}\n{{% endfor %}}\n\n{RULES}\n"
    result = plan(source, unsafe=True)
    assert result.changed and not result.problems
    assert result.new_source == source.replace("in tools %}", 'in tools | sort(attribute="name") %}')
    assert result.stable_after > result.stable_before


def test_unsafe_uses_dictsort_for_items() -> None:
    source = f"{{% for k, v in tools.items() %}}\n- {{{{ k }}}}: {{{{ v }}}}\n{{% endfor %}}\n\n{RULES}\n"
    assert "{% for k, v in tools | dictsort %}" in fixed(source, unsafe=True)


def test_unsafe_moves_a_mustache_tool_loop_it_cannot_sort() -> None:
    source = f"{{{{#tools}}}}\n- {{{{name}}}}\n{{{{/tools}}}}\n\n{RULES}\n"
    assert not plan(source, "mustache").changed
    result = plan(source, "mustache", unsafe=True)
    assert result.changed and result.new_source.startswith("Rule 1")
    assert any("only Jinja `{% for %}` loops can be sorted" in r for r in result.not_fixable)


# ---------------------------------------------------------------------------------------
# The proof


def test_the_proof_accepts_a_real_move_and_refuses_broken_ones() -> None:
    template = load_text("p", f"Hello {{{{ user.name }}}}.\n\n{RULES}\n", "jinja")
    good = plan_fix(template).new_source
    assert prove(template, good) == []
    assert any("does not parse" in p for p in prove(template, good + "{% if %}"))
    assert any("words lost" in p for p in prove(template, good.replace("Rule 3:", "")))
    assert any("words added" in p for p in prove(template, good + "\nExtra.\n"))
    swapped = template.source.replace("Hello {{ user.name }}.", "Hello {{ user.email }}.")
    assert any("rendered lines differ" in p for p in prove(template, swapped))
    assert any("did not grow" in p for p in prove(template, template.source + " "))


def _nested(depth: int, body: str, syntax: str = "jinja") -> str:
    if syntax == "jinja":
        opens = "".join(f"{{% for item{i} in group{i}.items %}}\n" for i in range(depth))
        return opens + body + "{% endfor %}\n" * depth
    opens = "".join(f"{{{{#group{i}}}}}\n" for i in range(depth))
    return opens + body + "".join(f"{{{{/group{i}}}}}\n" for i in reversed(range(depth)))


@pytest.mark.parametrize("syntax", ["jinja", "mustache"])
def test_the_proof_catches_a_line_moved_to_an_outer_loop(syntax: str) -> None:
    # Five loops deep, where every loop still renders twice: the line moved from the
    # innermost loop's body to the one around it renders half as often.
    from promptlint.fix.render import render_ir, render_jinja

    inner = "Keep this line inside.\n"
    source = _nested(5, inner, syntax) + f"\n{RULES}\n"
    moved = _nested(4, _nested(1, "", syntax) + inner, syntax) + f"\n{RULES}\n"
    template = load_text("p", source, syntax)
    first = render_jinja([source], 1, "s", False)[0][0] if syntax == "jinja" else render_ir(template, 0, "s")
    assert first.count("Keep this line inside.") == 2 ** 5
    assert any("rendered lines differ with value set 1" in p for p in prove(template, moved))


@pytest.mark.parametrize("syntax", ["jinja", "mustache"])
def test_deeply_nested_loops_render_a_bounded_number_of_bodies(syntax: str) -> None:
    from promptlint.core.ir import LOOP_ITEMS_DEPTH
    from promptlint.fix.render import render_ir, render_jinja

    source = _nested(20, "Body {{ item19.name }}.\n" if syntax == "jinja" else "Body {{name}}.\n", syntax)
    template = load_text("p", source, syntax)
    first = render_jinja([source], 1, "s", False)[0][0] if syntax == "jinja" else render_ir(template, 0, "s")
    assert first.count("Body ") == 2 ** LOOP_ITEMS_DEPTH  # not 2 ** 20
    # And the fix of a clock before such loops is proved (it rendered 2^20 bodies, 13 s, before).
    clocked = f"Now: {{{{ now() }}}}\n\n{RULES}\n\n{source}" if syntax == "jinja" else \
        f"Now: {{{{current_time}}}}\n\n{RULES}\n\n{source}"
    result = plan(clocked, syntax)
    assert result.changed and not result.problems


def test_the_proof_renders_values_the_template_cannot_take_from_the_ir() -> None:
    source = f"{{% if user.age > 3 %}}Adult {{{{ user.name }}}}{{% endif %}}\n\n{RULES}\n"
    assert fixed(source).startswith("Rule 1")


def test_fixing_twice_changes_nothing(write) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"A {{{{ now() }}}}\n\nB\n\n- c {{{{ cwd }}}}\n- d\n\n{RULES}\n")
    first = fix_file(str(path))
    assert first.written
    second = fix_file(str(path))
    assert not second.changed and not second.written and not second.problems


# ---------------------------------------------------------------------------------------
# Writing


def test_crlf_bom_and_missing_final_newline_are_kept(write) -> None:  # type: ignore[no-untyped-def]
    body = f"Intro.\r\n\r\nTime {{{{ now() }}}}\r\n\r\n{RULES}".replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    path = write("a.j2", b"\xef\xbb\xbf" + body.encode())
    result = fix_file(str(path))
    assert result.written, result
    data = path.read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    assert b"\n" not in data.replace(b"\r\n", b"")
    assert not data.endswith(b"\n")
    assert data.endswith(b"\r\n\r\nTime {{ now() }}")


def test_a_final_newline_is_kept(write) -> None:  # type: ignore[no-untyped-def]
    path = write("a.md.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    assert fix_file(str(path)).written
    assert path.read_text().endswith("Time {{ now() }}\n") and not path.read_text().endswith("\n\n")


def test_the_file_mode_is_kept(write) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    os.chmod(path, 0o640)
    assert fix_file(str(path)).written
    assert (path.stat().st_mode & 0o777) == 0o640


def test_a_file_changed_on_disk_is_not_overwritten(write, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import promptlint.fix.apply as fix_mod

    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    real_plan = fix_mod.plan_fix

    def plan_then_edit(*args, **kwargs):  # type: ignore[no-untyped-def]
        result = real_plan(*args, **kwargs)
        path.write_text("Someone else's edit.\n")
        return result

    monkeypatch.setattr(fix_mod, "plan_fix", plan_then_edit)
    result = fix_file(str(path))
    assert not result.written
    assert any("changed on disk" in p for p in result.problems)
    assert path.read_text() == "Someone else's edit.\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.j2"]


def test_write_atomic_refuses_unexpected_bytes(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_bytes(b"current")
    with pytest.raises(FileChangedError):
        write_atomic(path, "new", b"what was read")
    assert path.read_bytes() == b"current"
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]


def test_an_exception_before_the_rename_leaves_the_original_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "a.j2"
    path.write_bytes(b"original")

    def interrupted(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(path, "rewritten", b"original")
    assert path.read_bytes() == b"original"
    assert [p.name for p in tmp_path.iterdir()] == ["a.j2"]


def test_a_fix_killed_between_temp_file_and_rename_leaves_the_original_intact(tmp_path: Path) -> None:
    """A real SIGKILL while the rewritten text sits in the temporary file."""
    path = tmp_path / "a.j2"
    original = f"Time {{{{ now() }}}}\n\n{RULES}\n".encode()
    path.write_bytes(original)
    script = textwrap.dedent(
        """
        import os, sys, time
        import promptlint.fix as fix

        def stalled(src, dst):
            print("READY", src, flush=True)
            time.sleep(120)

        os.replace = stalled
        fix.fix_file(sys.argv[1])
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("READY"), line
        temp = Path(line.split(" ", 1)[1].strip())
        assert temp.exists() and temp.parent == tmp_path
        assert temp.read_bytes() != original  # the rewrite was written, not yet renamed
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == original
    assert load_text("a.j2", path.read_text(), "jinja").source == original.decode()


# ---------------------------------------------------------------------------------------
# The command line


def test_fix_diff_writes_nothing(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    before = path.read_bytes()
    out = run_cli("fix", "--diff", str(path))
    assert out.exit_code == 1  # a fix is pending, as `check --diff` says (issue 9, item 18)
    assert "-Time {{ now() }}" in out.stdout and "+Time {{ now() }}" in out.stdout
    assert path.read_bytes() == before


def test_fix_check_exit_codes(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    dirty = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    clean = write("b.j2", f"{RULES}\n\nTime {{{{ now() }}}}\n")
    before = dirty.read_bytes()
    assert run_cli("fix", "--check", str(dirty)).exit_code == 1
    assert dirty.read_bytes() == before
    assert run_cli("fix", "--check", str(clean)).exit_code == 0
    assert run_cli("fix", "--check", str(dirty.parent / "missing.j2")).exit_code == 2


def test_fix_reports_the_stable_prefix_before_and_after(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    out = run_cli("fix", str(path))
    assert out.exit_code == 0
    assert re.search(r"fixed; stable prefix \d+ → \d+ of \d+ tokens \(\d+% → 9\d%\)", out.stdout), out.stdout
    assert path.read_text().endswith("\n\nTime {{ now() }}\n")


def test_fix_bad_input_exits_2_with_one_line(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    path = write("bad.j2", "{% if %}\n")
    out = run_cli("fix", str(path))
    assert out.exit_code == 2
    assert "bad.j2: error: line 1: malformed Jinja template" in out.stdout
    binary = write("bin.j2", b"\x00\x01")
    assert run_cli("fix", str(binary)).exit_code == 2


def test_check_fix_fixes_then_checks(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    out = run_cli("check", "--fix", str(path))
    assert "fixed; stable prefix" in out.stdout
    assert path.read_text().endswith("\n\nTime {{ now() }}\n")
    assert "PC101" in out.stdout  # the clock at the tail is still reported, a level lower


def test_check_diff_exits_1_and_writes_nothing(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"Time {{{{ now() }}}}\n\n{RULES}\n")
    before = path.read_bytes()
    out = run_cli("check", "--diff", str(path))
    assert out.exit_code == 1 and "+Time {{ now() }}" in out.stdout
    assert path.read_bytes() == before


def test_check_unsafe_fixes_sorts_loops(write, run_cli) -> None:  # type: ignore[no-untyped-def]
    path = write("a.j2", f"{{% for t in tools %}}\n- {{{{ t.name }}}}\n{{% endfor %}}\n\n{RULES}\n")
    run_cli("check", "--fix", "--unsafe-fixes", str(path))
    assert 'tools | sort(attribute="name")' in path.read_text()


# ---------------------------------------------------------------------------------------
# Rule cases as data (fixtures/rules/<CODE>.yaml)

_RULE_CASES = Path(__file__).resolve().parents[1] / "fixtures" / "rules"


# Rules whose fix is unsafe (clock coarsening, loop sorting); every other fixable case
# is fixed by a safe move (PC101, PC104) or an `order` rewrite (PC106).
_UNSAFE_FIXES = {"PC102", "PC103"}


def _fixable_cases() -> list[tuple[str, str, dict]]:  # type: ignore[type-arg]
    from promptlint.testing import load_cases

    cases = []
    for file in sorted(_RULE_CASES.glob("*.yaml")):
        data = load_cases(file)
        for case in data["cases"]:
            if case.get("fixable") and case.get("expect"):
                cases.append((f"{data['rule']}:{case.get('name')}", data["rule"], case))
    return cases


@pytest.mark.parametrize(("rule", "case"), [(r, c) for _, r, c in _fixable_cases()], ids=[i for i, _, _ in _fixable_cases()])
def test_fixable_rule_cases_pass_check_after_the_fix(rule: str, case: dict, tmp_path: Path) -> None:  # type: ignore[type-arg]
    """Every fail case marked fixable: after `promptlint fix` the folder has no error-level
    finding of the rule, and the stable prefix of what was fixed grew."""
    from promptlint.api import check_paths
    from promptlint.fix import fix_paths
    from promptlint.testing import materialize

    targets = materialize(case, tmp_path / "case")
    report = fix_paths(targets, unsafe=rule in _UNSAFE_FIXES)
    assert not report.errors and not [r for r in report.files if r.error or r.problems], [
        (r.path, r.error, r.problems, r.not_fixable) for r in report.files
    ]
    fixed = [r for r in report.files if r.written]
    assert fixed, [(r.path, r.not_fixable) for r in report.files]
    assert all(r.stable_after > r.stable_before for r in fixed), [(r.path, r.stable_before, r.stable_after) for r in fixed]
    if case.get("fixed") is not None:
        from promptlint.testing import case_filename

        assert (tmp_path / "case" / case_filename(case)).read_text(encoding="utf-8") == case["fixed"]
    after = check_paths(targets)
    errors = [f for f in after.findings if f.rule == rule and f.severity == "error"]
    assert not errors, [f"{f.path}:{f.line} {f.message}" for f in errors]


def test_fix_with_a_provider_reports_the_cost_before_and_after(tmp_path: Path) -> None:
    from promptlint.fix import fix_file

    rules = "\n".join(
        f"Rule {i}: answer politely, cite the handbook section you rely on, and never invent facts "
        "about orders, refunds, shipping or warranties; escalate when unsure."
        for i in range(1, 70)
    )
    long_prompt = tmp_path / "long.j2"
    long_prompt.write_text("You are Atlas.\nCurrent time: {{ now().strftime('%H:%M:%S') }}\n\n" + rules + "\n")
    result = fix_file(str(long_prompt), provider="openai")
    assert result.written
    assert result.cost_before is not None and result.cost_after is not None
    # 2,200 stable tokens become cacheable at a tenth of the input price.
    assert result.cost_after < result.cost_before / 3
    assert result.cost_basis is not None and result.cost_basis.startswith("openai gpt-5.5, prices as of ")

    short_prompt = tmp_path / "short.j2"
    short_prompt.write_text("You are Atlas.\nCurrent time: {{ now().strftime('%H:%M:%S') }}\n\n" + rules[:1200] + "\n")
    short = fix_file(str(short_prompt), provider="openai")
    assert short.written and short.cost_before == short.cost_after
    assert short.cost_basis is not None and "still nothing cached" in short.cost_basis


def test_a_move_that_changes_the_units_around_it_is_planned_to_a_fixed_point() -> None:
    """Found by hypothesis: moving the `{% if %}` block joins the continuation line below it
    to the list item above, which a second run would then move. The plan settles first."""
    source = "- You\n{% if now %}\n{{ now }}\n{% endif %}\n  {{ now }}:\n| {{ now }}"
    plan = plan_fix(load_text("p", source, "jinja"))
    assert not plan.problems
    if plan.changed:
        again = plan_fix(load_text("p", plan.new_source, "jinja"))
        assert not again.changed


# Templates whose names jinja2 reads in every kind of frame: assignments, loops and their
# `loop`, macros and their arguments, call blocks, `with`, blocks, namespaces, globals.
_NAMED_TEMPLATES = [
    "Hello {{ user.name }} at {{ now() }}.",
    "{% set greeting = 'hi' %}{{ greeting }} {{ other }}",
    "{% for tool in tools | sort(attribute='name') %}{{ loop.index }} {{ tool.name }} {{ suffix }}{% endfor %}",
    "{% macro row(item, sep=', ') %}{{ item }}{{ sep }}{{ outer }}{% endmacro %}{{ row(first) }}",
    "{% call(x) wrapper(y) %}{{ x }} {{ z }}{% endcall %}",
    "{% with a = b %}{{ a }} {{ c }}{% endwith %}",
    "{% block body %}{{ inside }}{% endblock %}{{ range(3) | list }} {{ namespace(n=1).n }}",
    "{% set ns = namespace(total=0) %}{% for x in xs %}{% set ns.total = ns.total + x %}{% endfor %}{{ ns.total }}",
    "{% if flag %}{{ a }}{% elif other_flag %}{{ b }}{% else %}{{ 1 + 2 }}{% endif %}",
    "{% set captured %}{{ inner }}{% endset %}{{ captured }}{{ cycler('a', 'b').next() }}",
]


@pytest.mark.parametrize("source", _NAMED_TEMPLATES)
def test_the_proof_reads_the_names_jinja2s_meta_module_reads(source: str) -> None:
    # The proof gives values to the names a template reads but never sets; it reads them from
    # its own compile of the template, not from another pass of jinja2's code generator.
    from jinja2 import meta

    from promptlint.fix.render import _compile, _jinja_values
    from promptlint.loaders.jinja import environment

    env = environment()
    code, names = _compile(env, env.parse(source))
    assert names == meta.find_undeclared_variables(env.parse(source))
    # And the code is the template's: it renders as env.from_string's (or fails as it fails:
    # generated values cannot satisfy every expression, and the proof then renders the IR).
    def outcome(template: Any) -> object:
        try:
            return template.render(_jinja_values(names, 0, "s", False))
        except Exception as exc:  # noqa: BLE001 - compared, not hidden
            return type(exc)

    compiled = env.template_class.from_code(env, code, env.make_globals(None), None)
    assert outcome(compiled) == outcome(env.from_string(source))


def test_the_loaders_parse_tree_is_jinja2s_own() -> None:
    # The proof compiles the tree the loader parsed: it is the tree env.parse makes of the source.
    from promptlint.loaders.jinja import environment, parse_tree

    # (Where every tag is an if, a for or a set, the loader checks the template without the
    # whole parse and keeps no tree: the proof then parses the text.)
    kept = 0
    for source in [*_NAMED_TEMPLATES, "{{ 'a\r\nb' }}\r\n{% raw %}{{ x }}{% endraw %}\n", f"{RULES}\n"]:
        tree = load_text("p.j2", source).jinja_tree
        assert tree is None or tree == environment().parse(source), source
        kept += tree is not None
        assert parse_tree(source) == environment().parse(source), source  # what the proof parses where none was kept
    assert kept >= 3


def test_the_proof_renders_from_the_loaders_tree_as_from_the_text() -> None:
    from promptlint.fix.render import render_jinja

    source = "Now: {{ now() }}\n{% for t in tools %}- {{ t.name }}\n{% endfor %}\nYou are {{ agent }}.\n"
    other = "{% for t in tools %}- {{ t.name }}\n{% endfor %}\nYou are {{ agent }}.\nNow: {{ now() }}\n"
    from_text = render_jinja([source, other], 3, "salt", False)
    trees = [load_text("a.j2", source).jinja_tree, load_text("b.j2", other).jinja_tree]
    assert render_jinja([source, other], 3, "salt", False, trees=trees) == from_text
    assert from_text is not None and "- tools" in from_text[0][0]


def test_a_template_proved_twice_is_parsed_again_the_second_time() -> None:
    # Compiling folds constants in the tree: the proof takes the template's tree, and a
    # second proof of the same template parses its text.
    # (a macro: the loader keeps jinja2's tree of a template whose tags it does not check itself)
    macro = "{% macro unit() %}s{% endmacro %}"
    source = f"{macro}Now: {{{{ now() }}}} ({{{{ 60 * 60 }}}} {{{{ unit() }}}})\n\n{RULES}\n"
    template = load_text("p.j2", source)
    moved = f"{macro}{RULES}\n\nNow: {{{{ now() }}}} ({{{{ 60 * 60 }}}} {{{{ unit() }}}})\n"
    assert template.jinja_tree is not None
    first = prove(template, moved)
    assert template.jinja_tree is None
    assert prove(template, moved) == first


def test_a_rewrite_that_fixing_would_change_again_is_refused() -> None:
    # A rewrite not drafted by the fix (the clock moved, the user's name left before the
    # rules): planning on it moves the name, so the proof refuses it.
    source = f"Now: {{{{ now() }}}}\n\nUser: {{{{ user_name }}}}\n\n{RULES}\n"
    halfway = f"User: {{{{ user_name }}}}\n\n{RULES}\n\nNow: {{{{ now() }}}}\n"
    assert "not idempotent: fixing the result would change it again" in prove(load_text("p.j2", source), halfway)


@pytest.mark.parametrize("unsafe", [False, True])
def test_the_drafts_last_round_is_the_proofs_second_fix(unsafe: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    # When the draft's last round planned on the rewrite itself and changed nothing, the
    # proof takes that round as the second fix: it plans nothing again, and says what
    # planning again says, on every fixture template with a fix.
    import dataclasses
    import importlib

    from promptlint.core import fixability

    prove_module = importlib.import_module("promptlint.fix.prove")
    planned = prove_module.outlook
    asked: list[str] = []
    forget = False  # whether the proof is told that no round settled on the rewrite

    def outlook(template: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(template.source)
        look = planned(template, *args, **kwargs)
        return dataclasses.replace(look, settled_on=None) if forget else look

    monkeypatch.setattr(prove_module, "outlook", outlook)
    fixtures = Path(__file__).resolve().parent.parent / "fixtures"
    proved = 0
    for path in sorted(fixtures.rglob("*.j2")) + sorted(fixtures.rglob("*.mustache")):
        source = path.read_text(encoding="utf-8")
        try:
            look = fixability.outlook(load_text(str(path), source), unsafe=unsafe)
        except Exception:  # noqa: BLE001 - a fixture that does not load is not this test's
            continue
        if look.source == source or look.settled_on is None:
            continue
        results = []
        for forget in (False, True):
            asked.clear()
            results.append(prove(load_text(str(path), source), look.source, unsafe))
            assert (look.source in asked) is forget, path  # planned again only when told to
        assert results[0] == results[1], path
        proved += 1
    assert proved >= 5
