"""The text report writes plain characters itself when there is no colour, and they are
the characters rich would print."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from promptlint.api import check_text
from promptlint.core.findings import Report
from promptlint.reporters import text


def test_the_plain_report_is_what_rich_prints_without_colour() -> None:
    source = ("You are Atlas.\nCurrent time: {{ now().strftime('%H:%M:%S') }} \x1b[31m\n"
              + "\n".join(f"- rule {i}: keep every diff small and explain each step." for i in range(30)) + "\n")
    result = check_text(source, path="agent.j2", syntax="jinja")
    report = Report(files=[result], notes=["a note"], warnings=["a warning"])
    sources = {"agent.j2": source.split("\n")}
    plain = io.StringIO()
    text.render(report, Console(file=plain, color_system=None, highlight=False, soft_wrap=True, width=80), sources)
    recorded = Console(file=io.StringIO(), color_system=None, highlight=False, soft_wrap=True, width=80, record=True)
    text.render(report, recorded, sources)  # record=True takes rich's own path
    assert plain.getvalue() == recorded.export_text()
    assert "PC101" in plain.getvalue() and "\x1b" not in plain.getvalue()


def test_a_plain_report_is_written_in_few_writes_and_the_same_characters() -> None:
    # Where the stream writes through (PYTHONUNBUFFERED), each write is a system call: a
    # report of many findings is gathered and written some 64 KB at a time.
    source = "User: {{ user.name }}\n" + "Keep the diff small and explain each step.\n" * 200
    paths = [f"agents/agent-{i}.j2" for i in range(300)]
    report = Report(files=[check_text(source, path=path, syntax="jinja") for path in paths])
    sources = {path: source.split("\n") for path in paths}

    class Counting(io.StringIO):
        writes = 0

        def write(self, piece: str) -> int:
            Counting.writes += 1
            return super().write(piece)

    out = Counting()
    text.render(report, text.PlainConsole(out, 80), sources)
    rich_out = io.StringIO()
    text.render(report, Console(file=rich_out, color_system=None, highlight=False, soft_wrap=True, width=80), sources)
    assert out.getvalue() == rich_out.getvalue()
    assert len(out.getvalue()) > 1 << 16 and Counting.writes <= len(out.getvalue()) // (1 << 16) + 1


def _render(report: Report) -> str:
    from promptlint.cli import _source_lines

    out = io.StringIO()
    text.render(report, Console(file=out, color_system=None, highlight=False, soft_wrap=True, width=100),
                _source_lines(report))
    return out.getvalue()


def test_code_frames_show_the_text_as_checked_without_reading_the_file_again(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from promptlint.api import check_paths

    path = tmp_path / "agent.j2"
    path.write_bytes(b"\xef\xbb\xbfYou are Atlas.\r\nCurrent time: {{ now() }}\r\n"
                     + b"".join(b"- rule %d: keep every diff small and explain each step.\r\n" % i for i in range(30)))
    report = check_paths([str(path)], jobs=1)
    shown = report.files[0].shown_lines
    lines = path.read_bytes().decode("utf-8-sig").split("\n")
    assert shown is not None and len(shown) == len(lines)
    assert shown.lines and all(shown[i] == lines[i] for i in shown.lines)
    before = _render(report)
    path.write_text("changed on disk after the check\n", encoding="utf-8")
    assert _render(report) == before  # the frames come from the checked text
    assert "Current time: {{ now() }}" in before and "changed on disk" not in before


def test_a_finding_the_kept_lines_do_not_cover_is_framed_from_the_file(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import dataclasses

    from promptlint.api import check_paths

    path = tmp_path / "agent.j2"
    path.write_text("Current time: {{ now() }}\n" + "".join(f"- rule {i}: keep diffs small.\n" for i in range(40)),
                    encoding="utf-8")
    report = check_paths([str(path)], jobs=1)
    result = report.files[0]
    assert result.shown_lines is not None and 30 - 1 not in result.shown_lines.lines
    # As a rule that reads several files adds one after the check.
    result.findings.append(dataclasses.replace(result.findings[0], line=30, column=3, end_line=30, end_column=7,
                                               message="added later"))
    assert not result.shown_lines.covers(result.findings)
    assert " > 30 │ - rule 28: keep diffs small." in _render(report)


def _fix_report(tmp_path, source: str, console: Console) -> None:  # type: ignore[no-untyped-def]
    from promptlint.fix import fix_paths
    from promptlint.reporters import fixreport

    path = tmp_path / "agent.j2"
    path.write_bytes(source.encode("utf-8"))  # its line ends as given
    fixreport.render(fix_paths([str(path)], write=False), console, show_diff=True, write=False)


def test_the_plain_fix_report_is_what_rich_prints_without_colour(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = "Current time: {{ now() }}\n" + "".join(f"- rule {i}: keep every diff small.\n" for i in range(20))
    plain = io.StringIO()
    _fix_report(tmp_path, source, Console(file=plain, color_system=None, highlight=False, soft_wrap=True))
    recorded = Console(file=io.StringIO(), color_system=None, highlight=False, soft_wrap=True, record=True)
    _fix_report(tmp_path, source, recorded)
    assert "+Current time: {{ now() }}" in plain.getvalue()
    assert plain.getvalue() == recorded.export_text()


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_diff_shows_a_templates_escape_sequences_on_a_terminal_and_keeps_them_in_a_pipe(  # type: ignore[no-untyped-def]
    tmp_path, newline: str
) -> None:
    import subprocess

    source = ("Current time: {{ now() }}\nYou are \x1b[31mred\x1b[0m.\n"
              + "".join(f"- rule {i}: keep every diff small.\n" for i in range(20))).replace("\n", newline)
    terminal = io.StringIO()
    _fix_report(tmp_path, source, Console(file=terminal, force_terminal=True, color_system="standard",
                                          highlight=False, soft_wrap=True))
    assert "\\x1b[31mred\\x1b[0m" in terminal.getvalue() and "\x1b[31mred" not in terminal.getvalue()
    piped = io.StringIO()
    _fix_report(tmp_path, source, Console(file=piped, color_system=None, highlight=False, soft_wrap=True))
    diff = piped.getvalue()
    diff = diff[diff.index("--- a/"):diff.rindex("\n1 file(s)") + 1]
    assert f" You are \x1b[31mred\x1b[0m.{newline}" in diff and f"+Current time: {{{{ now() }}}}{newline}" in diff
    # The diff names `a/tmp/…/agent.j2` (an absolute path, as git writes it): applied from `/`.
    applied = subprocess.run(["git", "apply", "--check", "-"], input=diff, text=True, capture_output=True, cwd="/")
    assert applied.returncode == 0, applied.stderr


def test_a_message_that_quotes_a_templates_escape_sequence_shows_it_as_an_escape(tmp_path) -> None:  # type: ignore[no-untyped-def]
    source = 'Current time: {{ now() ~ "\x1b[2J" }}\n' + "".join(f"- rule {i}: keep every diff small.\n" for i in range(20))
    report = Report(files=[check_text(source, path="agent.j2", syntax="jinja")])
    out = io.StringIO()
    text.render(report, Console(file=out, force_terminal=True, color_system="standard", highlight=False,
                                soft_wrap=True), {"agent.j2": source.split("\n")})
    assert '`now() ~ "\\x1b[2J"`' in out.getvalue() and "\x1b[2J" not in out.getvalue()
    fixed = io.StringIO()
    _fix_report(tmp_path, source, Console(file=fixed, force_terminal=True, color_system="standard", highlight=False,
                                          soft_wrap=True))
    assert '`now() ~ "\\x1b[2J"`' in fixed.getvalue() and "\x1b[2J" not in fixed.getvalue()


def test_the_json_report_written_in_chunks_is_json_dumps_of_the_contract() -> None:
    import json

    from promptlint.core.findings import FileResult
    from promptlint.reporters import json as json_reporter

    def dumped(report: Report) -> str:  # the report as one object, as it was written before
        data = report.to_json()
        for key in ("errors", "warnings", "notes"):
            if getattr(report, key):
                data[key] = list(getattr(report, key))
        return json.dumps(data, indent=2, ensure_ascii=False)

    checked = check_text("Zeit: {{ now() }}\nÜberall „gleich“ – line\\nbreak \"quoted\"\n", path="a.j2", syntax="jinja")
    checked.extra["nested"] = {"list": [1, {"x": []}], "empty": {}}
    reports = [
        Report(),
        Report(files=[FileResult(path="empty.j2")]),
        Report(files=[checked, FileResult(path="b.j2", error="binary file")], errors=["e: missing"],
               warnings=["w1", "w2"], notes=["n"]),
    ]
    for report in reports:
        assert json_reporter.render(report) == dumped(report)
        json.loads(json_reporter.render(report))


_json_leaves = (st.none() | st.booleans() | st.integers() | st.floats() | st.text()
                | st.sampled_from([float("nan"), float("inf"), -0.0, 1e300, 2**70, "\u2028", "\x00\x1f\\\"", "é\n"]))
_json_values = st.recursive(
    _json_leaves,
    lambda inner: (st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
                   | st.tuples(inner, inner) | st.dictionaries(st.integers() | st.booleans(), inner, max_size=2)),
    max_leaves=20,
)


@given(value=_json_values, level=st.integers(min_value=0, max_value=4))
def test_the_reports_json_encoder_writes_what_json_dumps_writes(value: object, level: int) -> None:
    # The JSON and SARIF reports write each file, finding and result with it: the same
    # characters as json.dumps(…, indent=2, ensure_ascii=False), indented `level` levels in.
    import json

    from promptlint.reporters.json import indented

    newline = "\n" + "  " * level
    assert indented(value, newline) == json.dumps(value, indent=2, ensure_ascii=False).replace("\n", newline)


def test_a_file_name_with_a_line_break_or_an_escape_is_quoted_in_the_diff_and_escaped_in_the_report(  # type: ignore[no-untyped-def]
    tmp_path
) -> None:
    import subprocess

    from promptlint.fix import fix_paths
    from promptlint.reporters import fixreport

    source = "Current time: {{ now() }}\n" + "".join(f"- rule {i}: keep every diff small.\n" for i in range(20))
    for name in ("a\nb.j2", "c\x1b[31md.j2"):
        (tmp_path / name).write_text(source, encoding="utf-8")
    out = io.StringIO()
    fixreport.render(fix_paths([str(tmp_path)], write=False), Console(file=out, color_system=None, highlight=False,
                     soft_wrap=True), show_diff=True, write=False)
    report = out.getvalue()
    assert "\x1b" not in report and "a\\nb.j2: would fix" in report and "c\\x1b[31md.j2: would fix" in report
    shown = str(tmp_path).lstrip("/")
    assert f'--- "a/{shown}/a\\nb.j2"\n' in report and f'+++ "b/{shown}/c\\033[31md.j2"\n' in report
    diffs, inside = [], False
    for line in report.splitlines(keepends=True):  # each file's diff: from its `---` to its last hunk line
        inside = line.startswith("--- ") or (inside and line[:1] in (" ", "+", "-", "@", "\\"))
        if inside:
            diffs.append(line)
    applied = subprocess.run(["git", "apply", "--check", "-"], input="".join(diffs), text=True, capture_output=True,
                             cwd="/")
    assert applied.returncode == 0, applied.stderr


# -- code frames cut a long line before they show it --------------------------------------------

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from promptlint.core.findings import Finding  # noqa: E402

_LINE = st.text(alphabet=st.sampled_from(["a", " ", "\t", "\x1b", "\x07", "\r", "é", "…", "\u200b"]), max_size=300)


def _framed_whole(finding: Finding, lines: list[str], width: int) -> str:
    """The frame as first made: every line shown (tabs and control characters mapped) whole,
    then cut to the width."""
    out = []
    first, last = max(1, finding.line - 1), min(len(lines), finding.line + 1)
    number_width = len(str(last))
    room = width - (number_width + 6)
    for number in range(first, last + 1):
        source = text._printable(lines[number - 1].rstrip("\r\n").expandtabs(1))
        if number == finding.line:
            start = finding.column - 1
            end = finding.end_column - 1 if finding.end_line == finding.line else len(source)
            source, start, end = text._clip(source, start, max(start, min(end, len(source))), room)
            out.append(f" > {number:>{number_width}} │ {source}\n")
            out.append(f"   {'':>{number_width}} │ " + " " * start + "^" * max(1, min(end, len(source)) - start) + "\n")
        else:
            out.append(f"   {number:>{number_width}} │ {text._clip(source, 0, 0, room)[0]}\n")
    return "".join(out)


@given(lines=st.lists(_LINE.map(lambda s: s + "\r" if s.endswith("a") else s), min_size=1, max_size=4),
       data=st.data(), width=st.sampled_from([20, 40, 80, 200]))
def test_a_frame_cut_before_it_is_shown_is_the_frame_of_the_whole_line(lines, data, width) -> None:  # type: ignore[no-untyped-def]
    # The frame reads only the part of a line it shows (8,000 findings on one 100,000-character
    # line each mapped the whole line); a tab and a control character are one column either way.
    line = data.draw(st.integers(1, len(lines)))
    size = len(lines[line - 1].rstrip("\r\n"))
    column = data.draw(st.integers(1, size + 1))
    end_line = data.draw(st.sampled_from([line, min(len(lines), line + 1)]))
    end_column = data.draw(st.integers(column, size + 2))
    finding = Finding(path="p", line=line, column=column, end_line=end_line, end_column=end_column, rule="PC101",
                      name="volatile-before-stable", severity="error", kind=None, frequency=None, message="m")
    assert text._frame(finding, lines, width).plain == _framed_whole(finding, lines, width)


@pytest.mark.parametrize("color_system", ["standard", "256", "truecolor"])
def test_the_coloured_report_is_what_rich_prints(color_system: str) -> None:
    # In colour each piece is written in its style's escape codes, as rich renders it (rich
    # took 2 s of a coloured check of 2,000 files); a styled piece with a line break in it
    # (the summary's "read as" line) is written a line at a time, as rich writes it.
    source = ("You are Atlas.\nCurrent time: {{ now().strftime('%H:%M:%S') }} \x1b[31m\n"
              + "\n".join(f"- rule {i}: keep\tevery diff small, {{{{user_name}}}}." for i in range(30)) + "\n")
    results = [check_text(source, path="agent.j2", syntax="jinja"),
               check_text("Hello {{user_name}}, it is {{current_time}}.\n" + LONG, path="agent.md")]
    assert "inferred" in results[1].extra.get("syntax_evidence", "")
    report = Report(files=results, notes=["a note"], warnings=["a warning"])
    sources = {"agent.j2": source.split("\n"),
               "agent.md": ("Hello {{user_name}}, it is {{current_time}}.\n" + LONG).split("\n")}
    options = dict(force_terminal=True, color_system=color_system, highlight=False, soft_wrap=True, width=80)
    ours, theirs = io.StringIO(), io.StringIO()
    text.render(report, Console(file=ours, **options), sources)  # type: ignore[arg-type]
    text.render(report, Console(file=theirs, record=True, **options), sources)  # type: ignore[arg-type]
    assert ours.getvalue() == theirs.getvalue()
    assert "\x1b[" in ours.getvalue() and "read as" in ours.getvalue() and "\x1b[31m\n" not in ours.getvalue()


LONG = "\n".join(f"{i}. Read the files a change touches before you edit them." for i in range(40)) + "\n"


_ENVIRONMENTS = [
    {}, {"COLUMNS": "132"}, {"COLUMNS": "0"}, {"COLUMNS": "wide"}, {"LINES": "40", "COLUMNS": "90"},
    {"FORCE_COLOR": ""}, {"FORCE_COLOR": "1"}, {"FORCE_COLOR": "0"}, {"TTY_COMPATIBLE": "0"},
    {"TTY_COMPATIBLE": "1"}, {"TTY_COMPATIBLE": "0", "FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "2", "FORCE_COLOR": ""},
    {"TERM": "dumb"}, {"NO_COLOR": "1"}, {"TERM": "xterm-256color", "COLUMNS": "100"},
]


@pytest.mark.parametrize("stream", ["pipe", "memory", "terminal", "pipe beside a terminal"])
@pytest.mark.parametrize("environ", _ENVIRONMENTS, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()) or "none")
def test_the_console_is_plain_where_rich_would_print_no_colour_and_as_wide(
    stream: str, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The report's console skips rich where rich would write plain characters: it must
    # decide as rich decides, on the same stream and environment, and clip to its width.
    import os

    closing = []
    restore: list[int] = []
    out: Any
    if stream == "memory":
        out = io.StringIO()
    elif stream == "terminal":
        pty = pytest.importorskip("pty")
        leader, follower = pty.openpty()
        out = os.fdopen(follower, "w")
        closing += [out, os.fdopen(leader)]
    else:
        read, write = os.pipe()
        out = os.fdopen(write, "w")
        closing += [out, os.fdopen(read)]
    if stream == "pipe beside a terminal":  # standard input a terminal 123 columns wide: rich's width
        import fcntl
        import struct
        import termios

        pty = pytest.importorskip("pty")
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 123, 0, 0))
        restore.append(os.dup(0))
        os.dup2(follower, 0)
        closing += [os.fdopen(leader), os.fdopen(follower)]
    monkeypatch.setattr("sys.stdout", out)
    try:
        ours = text.console(environ=environ)
        theirs = Console(highlight=False, soft_wrap=True, _environ=environ)
        if isinstance(ours, text.PlainConsole):
            assert text.plain_output(theirs) and ours.width == theirs.width and ours.file is out
        else:  # rich's own, which decides for itself
            assert isinstance(ours, Console)
        # Where the environment says nothing of a terminal, a stream that is not one is
        # written without rich; where it does, rich decides (its readings of TTY_COMPATIBLE
        # and FORCE_COLOR changed between versions).
        told = "TTY_COMPATIBLE" in environ or "FORCE_COLOR" in environ
        assert isinstance(ours, text.PlainConsole) == (stream != "terminal" and not told)
    finally:
        for saved in restore:
            os.dup2(saved, 0)
            os.close(saved)
        for handle in closing:
            handle.close()


def _columns(line: str) -> int:
    import unicodedata

    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in line)


@pytest.mark.parametrize("before", ["現在時刻: ", "安定した方針のテキストです。" * 12 + "現在時刻: ", "Now 🙂: "])
def test_a_frame_of_wide_characters_fits_the_width_and_underlines_the_value(before: str) -> None:
    # A CJK character takes two columns: the carets stood under the wrong text (one column per
    # character), and a long line cut at the width in characters took twice the width.
    line = f"{before}{{{{ current_time }}}} です。" + "安定した方針のテキストです。" * 12
    column = len(before) + 1
    finding = Finding(path="p", line=1, column=column, end_line=1, end_column=column + len("{{ current_time }}"),
                      rule="PC101", name="volatile-before-stable", severity="error", kind=None, frequency=None,
                      message="m")
    shown, carets = text._frame(finding, [line], 80).plain.splitlines()
    assert max(_columns(shown), _columns(carets)) <= 80
    at = carets.index("^")
    assert carets.count("^") == len("{{ current_time }}")
    assert _columns(shown[: shown.index("{{")]) == at
