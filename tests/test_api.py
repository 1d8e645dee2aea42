"""The Python API as the README documents it: typed paths, and the CLI's exit code."""

from __future__ import annotations

import doctest
from pathlib import Path

import pytest
from readme_blocks import blocks

from promptlint.api import check_paths

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURES = REPO_ROOT / "fixtures"
SOUL = "fixtures/agents/SOUL.md"


def test_the_readme_api_block_runs_as_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's Python API block is a doctest, run in fixtures/ as it says."""
    (block,) = blocks("python", section="Python API")
    monkeypatch.chdir(FIXTURES)
    test = doctest.DocTestParser().get_doctest(
        block.text, {}, "README.md: Python API", str(REPO_ROOT / "README.md"), block.line - 1
    )
    assert len(test.examples) >= 5, "the README's API example is not a doctest"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0, "the README's Python API block does not run as printed (doctest output above)"


def test_a_string_is_one_path_not_its_characters(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    missing = check_paths("xyz.md")  # not x, y, z, ., m, d
    assert missing.errors == ["xyz.md: no such file or directory"]
    assert missing.files == []
    report = check_paths(SOUL)  # one of its characters is "/": it must not be walked
    assert [r.path for r in report.files] == [SOUL]
    assert report.errors == []


@pytest.mark.parametrize(
    "paths",
    [Path(SOUL), [Path(SOUL)], (SOUL,), iter([SOUL]), {SOUL: None}.keys()],
    ids=["Path", "list of Path", "tuple", "iterator", "keys"],
)
def test_paths_are_str_pathlike_or_an_iterable_of_them(paths: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO_ROOT)
    report = check_paths(paths)  # type: ignore[arg-type]
    assert [r.path for r in report.files] == [SOUL]


def test_bytes_are_refused_plainly() -> None:
    with pytest.raises(TypeError, match="not bytes"):
        check_paths(b"fixtures/agents/SOUL.md")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="not int"):
        check_paths([SOUL, 3])  # type: ignore[list-item]


def test_exit_code_is_the_command_lines(tmp_path: Path, long_rules: str, run_cli) -> None:  # type: ignore[no-untyped-def]
    """Without an argument, exit_code() uses the configured fail-on, as the CLI does."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "tail.j2").write_text(f"{long_rules}\nTime: {{{{ now() }}}}\n")
    report = check_paths(tmp_path / "p" / "tail.j2")
    assert {f.severity for f in report.findings} == {"warning"}
    assert report.exit_code() == 1
    assert report.exit_code("error") == 0
    (tmp_path / "p" / "promptlint.toml").write_text('fail-on = "error"\n')
    report = check_paths(tmp_path / "p" / "tail.j2")
    assert report.exit_code() == 0
    assert report.exit_code("warning") == 1
    assert check_paths(tmp_path / "p" / "tail.j2", fail_on="warning").exit_code() == 1
    assert run_cli("check", "p/tail.j2", cwd=tmp_path).exit_code == 0


def test_fail_on_of_an_explicit_config_file_is_used(tmp_path: Path, long_rules: str, run_cli) -> None:  # type: ignore[no-untyped-def]
    """`--config FILE` is the config of every file, its fail-on included."""
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "tail.j2").write_text(f"{long_rules}\nTime: {{{{ now() }}}}\n")
    (tmp_path / "lenient.toml").write_text('fail-on = "error"\n')
    assert run_cli("check", "p/tail.j2", cwd=tmp_path).exit_code == 1
    assert run_cli("check", "--config", "lenient.toml", "p/tail.j2", cwd=tmp_path).exit_code == 0
    assert check_paths("p/tail.j2", config_file=Path("lenient.toml")).exit_code() == 0


def test_the_garbage_collector_is_left_as_it_was_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # check_paths keeps what each file leaves out of the collector's full passes while it
    # runs, and hands every object back to it at the end; a caller's own freeze is kept.
    import gc

    monkeypatch.chdir(tmp_path)
    for n in range(3):
        (tmp_path / f"p{n}.j2").write_text("Now: {{ now() }}\nstable\n", encoding="utf-8")
    frozen_during: list[int] = []
    import promptlint.api as api

    real = api._check_or_skip

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        frozen_during.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "_check_or_skip", spy)
    assert gc.get_freeze_count() == 0
    report = check_paths(str(tmp_path))
    assert len(report.files) == 3
    assert frozen_during[0] == 0 and frozen_during[-1] > 0  # the first files' objects were set aside
    assert gc.get_freeze_count() == 0 and gc.isenabled()
    held = [object() for _ in range(10)]
    gc.freeze()
    try:
        before = gc.get_freeze_count()
        frozen_during.clear()
        check_paths(str(tmp_path))
        # Not frozen more, and not unfrozen (which would leave none); a frozen object may
        # still be freed (a context variable's set replaces the frozen mapping it held).
        assert before // 2 < gc.get_freeze_count() <= before
        assert all(before // 2 < count <= before for count in frozen_during)
    finally:
        gc.unfreeze()
    del held


@pytest.mark.skipif("fork" not in __import__("multiprocessing").get_all_start_methods(), reason="no fork here")
def test_a_parallel_run_forks_its_workers_from_a_frozen_heap_and_unfreezes_it(  # type: ignore[no-untyped-def]
    processes_for_any_size: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Frozen before the fork, the workers' collections leave what they share with the parent
    # alone (the gc module's advice for fork without exec); handed back at the end.
    import concurrent.futures
    import gc

    for n in range(6):
        (tmp_path / f"p{n}.j2").write_text("Now: {{ now() }}\nstable\n", encoding="utf-8")
    real = concurrent.futures.ProcessPoolExecutor
    frozen_at_fork: list[int] = []

    def pool(*args, **kwargs):  # type: ignore[no-untyped-def]
        frozen_at_fork.append(gc.get_freeze_count())
        return real(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", pool)
    assert gc.get_freeze_count() == 0
    report = check_paths(str(tmp_path), jobs=2)
    assert len(report.files) == 6 and all(r.findings for r in report.files)
    assert len(frozen_at_fork) == 1 and frozen_at_fork[0] > 1000  # the modules, the engine, the encoding
    assert gc.get_freeze_count() == 0


def test_a_run_keeps_the_template_only_of_files_that_include_others(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    # A large project's templates and analyses are not all held to the end of the run: a
    # file that includes nothing is kept as its result, and read again only if asked.
    import promptlint.api as api
    from promptlint.project import CachedFile

    (tmp_path / "part.j2").write_text("Time: {{ now }}\n", encoding="utf-8")
    (tmp_path / "main.j2").write_text('{% include "part.j2" %}\n' + "Be brief.\n" * 300, encoding="utf-8")
    (tmp_path / "other.j2").write_text("Today: {{ today }}\n" + "Cite sources.\n" * 300, encoding="utf-8")
    kept: dict[str, object] = {}
    real = api._kept

    def spy(checked, syntax):  # type: ignore[no-untyped-def]
        kept[Path(checked.path).name] = found = real(checked, syntax)
        return found

    monkeypatch.setattr(api, "_kept", spy)
    report = check_paths([tmp_path / "main.j2", tmp_path / "part.j2", tmp_path / "other.j2"])
    assert not isinstance(kept["main.j2"], CachedFile)  # it includes: the include rules read it
    assert isinstance(kept["part.j2"], CachedFile)  # read again when the include rule asked
    assert any(f.rule == "PC104" for r in report.files for f in r.findings)  # the volatile include is still seen
    light = kept["other.j2"]
    assert isinstance(light, CachedFile) and light._full is None  # no rule asked: never read again
    assert light.template.source.startswith("Today: {{ today }}")  # and it can be, on demand
    assert [f.rule for f in light.result.findings] == [f.rule for r in report.files if r.path.endswith("other.j2")
                                                       for f in r.findings]


def _templates_alive_after(run: object) -> tuple[object, list[str]]:
    """What ``run()`` returns, and the paths of the templates still alive after it, the
    cyclic garbage collector off meanwhile: a template that only the collector would free
    (one held by a cycle) is counted. A run's settled heap froze such garbage once it had
    lived into the oldest generation, to the run's end (see ``promptlint.api._Heap``)."""
    import gc

    from promptlint.core.ir import Template

    gc.collect()
    gc.disable()
    try:
        returned = run()  # type: ignore[operator]
        # type(), not isinstance(): the latter reads each object's __class__, which some
        # libraries' deprecated objects warn of (torch's, when another test imported it).
        alive = [o.path for o in gc.get_objects() if type(o) is Template]
    finally:
        gc.enable()
    return returned, alive


def _clocked_templates(folder: Path, rules: str, count: int) -> list[Path]:
    """Templates of every text syntax with a clock before their rules (and, in Jinja, a tool
    loop: the unsafe fix's rewrite is parsed again), each fixable."""
    shapes = [
        ("j2", "Now: {{ now() }}\n{% for t in tools %}- {{ t.name }}\n{% endfor %}\n"),
        ("mustache", "Now: {{current_time}}\n"),
        ("fmt", "Now: {current_time}\n"),
        ("tmpl", "Now: ${current_time}\n"),
    ]
    paths = []
    for i in range(count):
        suffix, head = shapes[i % len(shapes)]
        path = folder / f"agent_{i}.{suffix}"
        path.write_text(f"{head}\nAgent {i}.\n\n{rules}\n", encoding="utf-8")
        paths.append(path)
    return paths


def test_a_checked_template_is_held_by_no_cycle(tmp_path: Path, long_rules: str) -> None:
    # Nested walks that recurse name themselves, a layout names its template, and the fix's
    # outlooks (JSON, SARIF) name it through their analyses: cycles, which held each file's
    # template, its segments and its parse tree until the collector ran (a JSON check of the
    # 2,000 bench files held 536 templates to its end). None is left.
    _clocked_templates(tmp_path, long_rules, 8)
    for options in ({}, {"plan_fixes": True}, {"plan_fixes": True, "prove_fixes": True}):
        report, alive = _templates_alive_after(lambda: check_paths(tmp_path, **options))
        assert len(report.files) == 8 and all(r.findings for r in report.files)  # type: ignore[attr-defined]
        if options:
            assert sum(f.fixable for f in report.findings) >= 8  # type: ignore[attr-defined]
        assert not [p for p in alive if p.startswith(str(tmp_path))], options


def test_a_worker_lets_each_template_go_as_it_returns_its_result(tmp_path: Path, long_rules: str) -> None:
    from promptlint import api

    paths = _clocked_templates(tmp_path, long_rules, 8)
    api._init_worker(None, None, {"plan_fixes": True, "prove_fixes": True}, None, {})
    try:
        results, alive = _templates_alive_after(lambda: [api._check_in_worker(str(p)) for p in paths])
    finally:
        api._worker_setup = None
    assert all(any(f.fixable for f in r.findings) for r in results)  # type: ignore[union-attr]
    assert not [p for p in alive if p.startswith(str(tmp_path))]


def test_a_fixed_template_is_held_by_no_cycle(tmp_path: Path, long_rules: str) -> None:
    # promptlint fix plans and proves every file before it writes any: each template is let
    # go as soon as its rewrite is planned, not when the garbage collector runs.
    from promptlint.fix import fix_paths

    _clocked_templates(tmp_path, long_rules, 8)
    report, alive = _templates_alive_after(lambda: fix_paths([str(tmp_path)], write=False))
    assert sum(r.changed for r in report.files) >= 4  # type: ignore[attr-defined]
    assert not [p for p in alive if p.startswith(str(tmp_path))]


def test_a_config_path_with_a_nul_is_an_error_not_an_exception(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A NUL cannot reach the command line, but the API takes any string: `os.stat` raised
    ValueError out of check_paths."""
    from promptlint.api import check_paths

    prompt = tmp_path / "a.md"
    prompt.write_text("Static.\n", encoding="utf-8")
    report = check_paths([str(prompt)], config_file="a\x00b.toml")
    assert report.exit_code() == 2 and "NUL" in report.errors[0]
