"""The folder walk's .gitignore reading: its one-regex shortcut answers as pathspec does."""

from __future__ import annotations

from pathlib import Path

import pathspec
import pytest
from hypothesis import given, settings
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


@settings(deadline=None)  # each example makes a folder tree on disk: no per-example time limit
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


def _mixed_folder(root: Path, rules: str) -> None:
    """Prompt files beside JSON and code files whose bytes decide whether they are prompts."""
    import json

    (root / "agents").mkdir()
    (root / "agents" / "a.md").write_text(f"Today is {{{{current_date}}}}.\n{rules}")
    (root / "package.json").write_text('{"name": "x", "dependencies": {}}\n')  # no request key
    (root / "agents" / "tools.json").write_text('{"messages": 5}\n')  # a request key, not a body
    body = {"model": "gpt-4o", "messages": [{"role": "system", "content": f"Now: 2026-12-07T10:42:17Z.\n{rules}"},
                                            {"role": "user", "content": "hi"}]}
    (root / "agents" / "body.json").write_text(json.dumps(body))
    (root / "helper.py").write_text("def add(a, b):\n    return a + b\n")  # no prompt word
    code = Path(__file__).resolve().parents[1] / "fixtures" / "code-agent" / "agent"
    for name in ("prompt.py", "storage.py"):  # one builds a prompt; one names the word, and builds none
        (root / name).write_bytes((code / name).read_bytes())
    (root / "only_json").mkdir()
    (root / "only_json" / "a.json").write_text('{"system": 3}\n')
    (root / "only_json" / "b.json").write_text('{"name": "y"}\n')


@pytest.mark.parametrize("jobs", [1, 2])
def test_files_looked_at_in_the_check_are_reported_as_a_walk_that_reads_them(
        jobs: int, tmp_path: Path, long_rules: str, monkeypatch: pytest.MonkeyPatch,
        processes_for_any_size: None) -> None:
    """A walk leaves the JSON and code files to the check (its workers, with -j), which skips
    those that are no prompts as quietly: the report is the one a walk that reads them gives,
    a folder of none still has no prompt files, and a file named again is checked once."""
    from promptlint import api, targets
    from promptlint.resultcache import ResultCache

    _mixed_folder(tmp_path, long_rules)
    runs = [[tmp_path], [tmp_path / "only_json"], [tmp_path, tmp_path / "agents" / "tools.json"],
            [tmp_path / "agents", tmp_path / "agents" / "body.json", tmp_path], [tmp_path / "agents", tmp_path]]

    def reports(cache: ResultCache | None = None) -> list[tuple[object, ...]]:
        made = [api.check_paths(paths, jobs=jobs, cache=cache) for paths in runs]
        return [(r.to_json(), r.errors, r.warnings, r.notes, r.exit_code()) for r in made]

    later = reports()
    cached = [reports(ResultCache(tmp_path.parent / f"cache-{jobs}")) for _ in range(2)]  # cold, then warm
    eager = targets.gather
    monkeypatch.setattr(api, "gather", lambda *a, **k: eager(*a, **{**k, "look_later": False}))
    assert later == reports() == cached[0] == cached[1]
    assert "no prompt files found" in str(later[1][1])
    checked = [Path(f["path"]).name for f in later[0][0]["files"]]  # type: ignore[index]
    assert sorted(checked) == ["a.md", "body.json", "prompt.py"]
    named = [Path(f["path"]).name for f in later[2][0]["files"]]  # type: ignore[index]
    assert sorted(named) == ["a.md", "body.json", "prompt.py", "tools.json"]  # named: its error is said


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_cached_result_does_not_bring_back_a_file_the_walk_passes(jobs: int, tmp_path: Path,
                                                                    processes_for_any_size: None) -> None:
    """A code file the walked folder's prompt names do not pick up stays out of a walk, even
    where the result cache holds it from a check that named it (its own folder's config
    names its prompt)."""
    from promptlint import api
    from promptlint.resultcache import ResultCache

    (tmp_path / ".git").mkdir()
    for name in ("a.md", "b.md", "c.md", "d.md"):  # enough for two workers
        (tmp_path / name).write_text("You are a helpful assistant.\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "promptlint.toml").write_text('[code]\nprompt-names = ["charter"]\n')
    (tmp_path / "sub" / "crew.py").write_text('CHARTER = f"Serve {user.name} well. Keep answers short."\n')
    cache = ResultCache(tmp_path.parent / "cache")
    named = api.check_paths(tmp_path / "sub" / "crew.py", cache=cache)
    assert [Path(r.path).name for r in named.files] == ["crew.py"]
    walked = api.check_paths(tmp_path, cache=cache, jobs=jobs)
    assert [Path(r.path).name for r in walked.files] == ["a.md", "b.md", "c.md", "d.md"]
    assert walked.to_json() == api.check_paths(tmp_path, jobs=jobs).to_json()


_ENTRIES = st.lists(st.tuples(st.sampled_from(["", "a", "a/b", "c"]), st.sampled_from(["d1", "d2", "f1", "f2", "l1"]),
                              st.sampled_from(["dir", "file", "fifo", "link-file", "link-dir", "dangling", "loop"])),
                    max_size=12)


@settings(deadline=None)  # each example makes a folder tree on disk: no per-example time limit
@given(_ENTRIES)
def test_the_walks_listing_is_os_walks_with_the_types_lstat_gives(entries: list[tuple[str, str, str]]) -> None:
    """The walk lists what os.walk lists, in its order, and tells links and regular files
    apart as lstat does."""
    import os
    import stat
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for sub in ("a/b", "c"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        (root / "c" / "target.md").write_text("x\n")
        for sub, name, kind in entries:
            path = root / sub / name
            if os.path.lexists(path):
                continue
            if kind == "dir":
                path.mkdir()
            elif kind == "file":
                path.write_text("x\n")
            elif kind == "fifo":
                os.mkfifo(path)
            elif kind == "link-file":
                path.symlink_to(root / "c" / "target.md")
            elif kind == "link-dir":
                path.symlink_to(root / "a")
            elif kind == "dangling":
                path.symlink_to(root / "nowhere")
            else:
                path.symlink_to(path)
        expected = [(f, sorted(d), sorted(n)) for f, d, n in os.walk(folder)]
        walked = []
        for f, listing in discovery._walk(folder, lambda exc: None):
            walked.append((f, sorted(listing.dirs), sorted(listing.files)))
            for name in listing.dirs:
                assert (name in listing.links) == os.path.islink(os.path.join(f, name))
            for name in listing.files:
                assert (name in listing.regular) == stat.S_ISREG(os.lstat(os.path.join(f, name)).st_mode)
        assert sorted(walked) == sorted(expected) and [w[0] for w in walked] == [e[0] for e in expected]
