"""Issue 9, fix: what a new user meets in the first hour, each item with the test that
would have caught it."""

from __future__ import annotations

from typing import Any

LONG_RULES = "\n".join(
    f"Rule {i}: answer politely, cite the handbook section you rely on, and never invent facts." for i in range(1, 40)
)


# -- 6. a safe move `check` calls fixable is not refused by its own proof -----------------

def test_a_clock_read_through_datetime_now_is_moved_not_refused_by_the_proof(write: Any) -> None:
    """The proof rendered `datetime.now()` with the machine's clock, twice: microseconds
    apart, the old and new source never rendered the same line."""
    from promptlint.fix import fix_file

    path = write("a.j2", f"You are a research agent.\nSession clock: {{{{ datetime.now().isoformat() }}}}\n\n{LONG_RULES}\n")
    result = fix_file(str(path))
    assert not result.problems, result.problems
    assert result.written and path.read_text().endswith("Session clock: {{ datetime.now().isoformat() }}\n")
