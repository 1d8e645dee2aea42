"""The hostile-input corpus (tests/bad_inputs/manifest.toml), one test per input, through
the real command line in a child process.

Each input ends as its manifest says (exit code and outcome: error, finding or clean) with
a one-line message naming the file and the problem, never a traceback or an internal
error, within a hang guard (5 s: a hang, not a speed figure) and a memory bound (500 MB
peak RSS, under a 1.5 GB address-space limit), and no file of its folder changed or
created. Timings and memory figures are printed by bench/bad_inputs.py, not asserted here.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from support import bad_inputs as corpus

CASES = corpus.load()


def test_the_corpus_covers_issue_13() -> None:
    """At least 80 inputs, every outcome class, and every area issue 13 lists."""
    assert len(CASES) >= 80
    assert {c.outcome for c in CASES} == {"error", "finding", "clean"}
    names = " ".join(c.name for c in CASES)
    for area in ("binary", "utf8", "utf16", "nul", "crlf", "lone-cr", "5mb", "1000-deep", "10000-deep",
                 "unclosed", "mismatched", "range", "multiplication", "include-recursive", "etc-passwd",
                 "symlink-loop", "dev-", "fifo", "socket", "unreadable", "config-", "ssti", "replay-", "fix-",
                 "request-tools", "request-role"):
        assert area in names, area


def _line_with(output: str, fragments: tuple[str, ...]) -> str | None:
    """The output line that holds every fragment, in order."""
    for line in output.splitlines():
        position = 0
        for fragment in fragments:
            found = line.find(fragment, position)
            if found < 0:
                break
            position = found + len(fragment)
        else:
            return line
    return None


_UNPRIVILEGED = corpus.can_run_unprivileged()


@pytest.mark.parametrize("case", [
    pytest.param(c, id=c.name, marks=[pytest.mark.xfail(reason=c.xfail, strict=False)] if c.xfail else [])
    for c in CASES
])
def test_bad_input(case: corpus.Case) -> None:
    if case.unprivileged and _UNPRIVILEGED is not None:
        pytest.skip(_UNPRIVILEGED)
    base = corpus.workspace(case)
    try:
        guard = max(case.hang_guard_s or 0, corpus.HANG_GUARD_S)
        result = corpus.run(case, base, timeout=guard)
        assert not result.timed_out, f"hung: no exit within {guard} s (hang guard)"
        where = f"\n--- stdout\n{result.stdout[-3000:]}\n--- stderr\n{result.stderr[-3000:]}"
        assert "Traceback" not in result.output, where
        assert "internal error" not in result.output, where
        assert result.exit == case.exit, f"exit {result.exit}, expected {case.exit} ({case.outcome}){where}"
        assert result.peak_rss_mb < corpus.MAX_RSS_MB, f"peak RSS {result.peak_rss_mb:.0f} MB"
        assert result.changed == [], f"files changed: {result.changed}"
        if case.fragments:
            assert _line_with(result.output, case.fragments) is not None, \
                f"no line holds {case.fragments!r} in order{where}"
        if case.outcome == "error":
            _assert_one_line_error(case, result)
        for text in case.forbid:
            assert text not in result.output, f"{text!r} in the output{where}"
        for name in case.absent:
            assert not os.path.lexists(base / "in" / name), f"{name} was created: template code ran"
    finally:
        corpus.cleanup(base)


def _assert_one_line_error(case: corpus.Case, result: corpus.Outcome) -> None:
    """An error is one line that names the file (the first fragment) and says "error",
    and the line after it is not the rest of its message."""
    lines = result.output.splitlines()
    named = [i for i, line in enumerate(lines) if "error" in line and (not case.fragments or case.fragments[0] in line)]
    assert named, f"no error line names {case.fragments[:1]!r}:\n{result.output[-3000:]}"
    for i in named:
        assert not _continues(lines, i), f"the error spans lines: {lines[i]!r} / {lines[i + 1]!r}"


def _continues(lines: list[str], i: int) -> bool:
    """Whether line ``i + 1`` is a stray continuation of line ``i``: every line the CLI
    prints starts with a path, ``error:``, ``warning:``, ``note:``, a count, or is a code
    frame; a continuation of a message (text after a newline in it) is none of these."""
    if i + 1 >= len(lines):
        return False
    nxt = lines[i + 1]
    if not nxt.strip() or nxt[0] in " \t│|^~-+@":
        return False
    starts = ("error:", "warning:", "note:", "promptlint:")
    if nxt.startswith(starts) or nxt.split(" ", 1)[0].rstrip(":").endswith(("checked", "file(s)")):
        return False
    head = nxt.split(":", 1)[0]
    return not (os.path.sep in head or "." in head or head.isdigit() or nxt[:1].isdigit())


def test_a_case_runs_in_its_own_folder_and_finds_what_it_should(tmp_path: Path) -> None:
    """The harness itself: a known finding is found, and a changed file is seen."""
    clock = next(c for c in CASES if c.name == "crlf-clock-finding")
    base = corpus.workspace(clock)
    try:
        result = corpus.run(clock, base)
        assert result.exit == 1 and "PC101" in result.stdout and result.peak_rss_mb > 1
    finally:
        corpus.cleanup(base)
    folder = tmp_path / "f"
    folder.mkdir()
    (folder / "a.md").write_text("one")
    before = corpus.snapshot(folder)
    (folder / "a.md").write_text("two")
    assert corpus.snapshot(folder) != before
