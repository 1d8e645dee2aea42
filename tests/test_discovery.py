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


_LAYOUT = st.lists(st.tuples(st.sampled_from(["a", "a/b", "a/b/c", "a/d", "e", "e/f"]),
                             st.sampled_from([".gitignore", ".git"])), max_size=8)


@given(_LAYOUT, st.permutations(["", "a", "a/b", "a/b/c", "a/d", "e", "e/f"]))
def test_a_walks_chains_are_each_folders_own(layout: list[tuple[str, str]], order: list[str]) -> None:
    """Each folder's chain, built from its parent's, is the one found by climbing from the
    folder itself, whichever folder is asked first."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder).resolve()
        (root / ".git").mkdir()  # the walk stays inside one repository, as real walks do
        for sub in ("a/b/c", "a/d", "e/f"):
            (root / sub).mkdir(parents=True)
        (root / ".gitignore").write_text("*.log\n")
        for sub, name in layout:
            if name == ".git":
                (root / sub / ".git").mkdir(exist_ok=True)
            else:
                (root / sub / ".gitignore").write_text(f"{sub.replace('/', '_')}.md\n")
        chains: dict = {}  # type: ignore[type-arg]
        for sub in order:
            assert discovery._walk_chain(root / sub, chains) == discovery._ignore_chain(root / sub)
