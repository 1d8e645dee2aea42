"""The folder walk's .gitignore reading: its one-regex shortcut answers as pathspec does."""

from __future__ import annotations

from pathlib import Path

import pathspec
from hypothesis import given
from hypothesis import strategies as st

from promptlint import discovery

_LINES = st.sampled_from(["*", "*.md", "!keep*.md", "build/", "/dist", "**/node_modules", "a/**/b", "docs/*.txt",
                          "!docs/keep.txt", "# a comment", "", "\\#hash", "x?y", "[ab]*.j2", "!*", "deep/",
                          "/top.md", "*.log\\ ", "!build/"])
_PARTS = st.sampled_from(["a", "b", "build", "dist", "docs", "keep1.md", "x.md", "node_modules", "xzy", "a.j2",
                          "keep.txt", "top.md", "#hash", "deep", "c.log "])


@given(st.lists(_LINES, max_size=8), st.lists(_PARTS, min_size=1, max_size=4), st.booleans())
def test_the_joined_patterns_answer_as_the_spec(lines: list[str], parts: list[str], is_dir: bool) -> None:
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    ignore = discovery._GitIgnore(spec)
    ignore.asked = discovery._JOIN_AFTER - 1  # the next question joins them
    rel = "/".join(parts) + ("/" if is_dir else "")
    assert ignore.match_file(rel) == bool(spec.match_file(rel))
    assert ignore.anchored is not None  # the shortcut was taken


def test_a_walk_past_the_join_keeps_what_a_negation_keeps(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.md\n!keep*.md\ngenerated/\n")
    names = [f"note{i}.md" for i in range(discovery._JOIN_AFTER)] + ["keep1.md", "keep2.md", "agent.j2"]
    for name in names:
        (tmp_path / "agents" / name).parent.mkdir(exist_ok=True)
        (tmp_path / "agents" / name).write_text("You are a helpful assistant.\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "x.j2").write_text("You are {{ who }}.\n")
    found = list(discovery.prompt_files(str(tmp_path), discovery.Config()))
    assert sorted(Path(p).name for p in found) == ["agent.j2", "keep1.md", "keep2.md"]
