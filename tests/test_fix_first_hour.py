"""Issue 9, fix: what a new user meets in the first hour, each item with the test that
would have caught it."""

from __future__ import annotations

import json
from typing import Any

from promptlint.loaders import load_text

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


# -- 7. the proof of an unsafe sort checks the multiset of rendered lines ----------------

def _findings(run_cli: Any, *paths: str) -> list[dict[str, Any]]:
    out = run_cli("check", "--format", "json", *paths)
    assert out.exit_code in (0, 1), out.output
    return json.loads(out.stdout)["findings"]


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
