"""The result cache: a warm run prints what a cold one does, and never a stale result."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from promptlint.resultcache import ResultCache

CLOCK = '{{ now().strftime("%H:%M:%S") }}'


def _entries() -> list[Path]:
    return sorted(Path(os.environ["PROMPTLINT_CACHE_DIR"]).glob("*/*.json"))


def test_a_warm_run_prints_what_the_cold_run_did(run_cli, write, long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    cold = run_cli("check", str(path), "--format", "json")
    assert len(_entries()) == 1
    warm = run_cli("check", str(path), "--format", "json")
    assert warm.exit_code == cold.exit_code == 1
    assert json.loads(warm.stdout) == json.loads(cold.stdout)


def test_the_warm_run_does_not_analyse_again(run_cli, write, long_rules, monkeypatch):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    run_cli("check", str(path))
    import promptlint.api as api

    def no_analysis(*args, **kwargs):
        raise AssertionError("a cached file was analysed again")

    monkeypatch.setattr(api, "_check_template", no_analysis)
    assert run_cli("check", str(path)).exit_code == 1


def test_an_edit_or_other_options_miss_the_cache(run_cli, write, long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    assert run_cli("check", str(path)).exit_code == 1
    path.write_text(f"{long_rules}\nNow: {CLOCK}\n")
    assert json.loads(run_cli("check", str(path), "--format", "json").stdout)["findings"][0]["severity"] == "warning"
    assert run_cli("check", str(path), "--ignore", "PC1").exit_code == 0
    assert len(_entries()) == 3


def test_no_cache_neither_reads_nor_writes(run_cli, write):
    path = write("a.md", "static\n")
    run_cli("check", "--no-cache", str(path))
    assert _entries() == []


def test_a_corrupt_entry_is_ignored_and_replaced(run_cli, write, long_rules):
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    run_cli("check", str(path), "--format", "json")
    (entry,) = _entries()
    entry.write_text("{not json")
    result = run_cli("check", str(path), "--format", "json")
    assert result.exit_code == 1 and json.loads(result.stdout)["findings"]
    assert json.loads(entry.read_text())["schema"] == 1


@pytest.mark.parametrize("where", ["a file", "below a file", "an entry that is a folder"])
def test_a_cache_folder_that_cannot_be_used_only_costs_speed(run_cli, write, long_rules, tmp_path, monkeypatch, where):
    # PROMPTLINT_CACHE_DIR=/dev/null (or a folder where an entry's name is a folder) made the
    # cache's clean-up of an unreadable entry raise NotADirectoryError: an internal error.
    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    expected = run_cli("check", "--no-cache", "--format", "json", str(path))
    folder = tmp_path / "cache-file"
    folder.write_text("not a folder\n")
    if where == "below a file":
        folder = folder / "sub"
    elif where == "an entry that is a folder":
        folder = tmp_path / "cache"
        monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(folder))
        run_cli("check", str(path))
        (entry,) = folder.glob("*/*.json")
        entry.unlink()
        entry.mkdir()
    monkeypatch.setenv("PROMPTLINT_CACHE_DIR", str(folder))
    for _ in range(2):
        result = run_cli("check", "--format", "json", str(path))
        assert result.exit_code == 1 and json.loads(result.stdout) == json.loads(expected.stdout)
    assert (tmp_path / "cache-file").read_text() == "not a folder\n"


def test_files_with_includes_are_never_cached(run_cli, write, long_rules):
    write("part.j2", f"Now: {CLOCK}\n")
    main = write("main.j2", '{% include "part.j2" %}\n' + long_rules + "\n")
    run_cli("check", str(main))
    assert _entries() == []


def test_a_cached_workspace_file_still_takes_part_in_the_assembly_check(run_cli, tmp_path):
    root = Path(__file__).resolve().parents[1] / "fixtures/workspaces/memory-first"
    for name in ("AGENTS.md", "SOUL.md", "MEMORY.md", "promptlint.toml"):
        (tmp_path / name).write_bytes((root / name).read_bytes())
    first = run_cli("check", str(tmp_path), "--format", "json")
    second = run_cli("check", str(tmp_path), "--format", "json")
    assert [f["rule"] for f in json.loads(second.stdout)["findings"]] == ["PC106"]
    assert json.loads(first.stdout) == json.loads(second.stdout)


def test_prune_keeps_the_most_recent_entries(tmp_path):
    cache = ResultCache(tmp_path)
    for i in range(10):
        cache.put(f"{i:02d}" + "0" * 62, {"file": {}, "findings": []})
    cache.prune(keep=4)
    assert len(list(tmp_path.glob("*/*.json"))) == 4


def test_parallel_jobs_report_exactly_what_one_job_does(processes_for_any_size, run_cli):
    root = Path(__file__).resolve().parents[1] / "fixtures"
    folders = [str(root / name) for name in ("agents", "corpus", "requests", "workspaces")]
    one = run_cli("check", *folders, "--format", "json", "--no-cache", "-j", "1")
    two = run_cli("check", *folders, "--format", "json", "--no-cache", "-j", "2")
    assert one.exit_code == two.exit_code == 1
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert len(json.loads(two.stdout)["files"]) > 100


def test_parallel_jobs_analyse_each_include_once_and_report_what_one_job_does(processes_for_any_size, run_cli, tmp_path, monkeypatch):
    # 20 templates that each include the same 10 partials (two of them volatile, one that
    # includes another), and a child that extends one of them.
    rules = "\n".join(f"Rule {i}: answer politely and cite the handbook section." for i in range(12))
    (tmp_path / "partials").mkdir()
    for i in range(10):
        body = "Now: {{ now() }}" if i == 3 else '{% include "partials/p0.j2" %}' if i == 7 else f"Part {i}."
        (tmp_path / "partials" / f"p{i}.j2").write_text(f"{body}\n{rules}\n")
    for k in range(20):
        includes = "".join(f'{{% include "partials/p{i}.j2" %}}\n' for i in range(10))
        (tmp_path / f"t{k:02d}.j2").write_text(f"{{% block body %}}{includes}{{% endblock %}}\n{rules}\n")
    (tmp_path / "child.j2").write_text('{% extends "t00.j2" %}{% block body %}Hello {{ user.name }}.{% endblock %}\n')
    one = run_cli("check", str(tmp_path), "--format", "json", "--no-cache", "-j", "1")
    two = run_cli("check", str(tmp_path), "--format", "json", "--no-cache", "-j", "2")
    assert one.exit_code == two.exit_code == 1
    assert json.loads(one.stdout) == json.loads(two.stdout)
    assert any(f["rule"] == "PC104" for f in json.loads(two.stdout)["findings"])
    import promptlint.core.analysis as analysis

    analysed: list[str] = []
    real = analysis.analyze
    monkeypatch.setattr(analysis, "analyze", lambda template, *a, **k: analysed.append(template.path) or real(template, *a, **k))
    assert run_cli("check", str(tmp_path), "--no-cache", "-j", "2").exit_code == 1
    # In this process: each file that includes or extends others once (it was twice), and
    # each partial at most twice (once as included, once for its own findings), not once
    # per file that includes it (20 times).
    counts = Counter(Path(p).name for p in analysed)
    assert all(counts[f"t{k:02d}.j2"] == 1 for k in range(20)) and counts["child.j2"] == 1
    assert all(counts[f"p{i}.j2"] <= 2 for i in range(10))


def test_jobs_must_be_positive(run_cli, write):
    path = write("a.md", "static\n")
    assert run_cli("check", "-j", "0", str(path)).exit_code == 2


def test_the_project_rules_are_remembered_and_a_bad_record_is_found_again(tmp_path: Path) -> None:
    cache = ResultCache(tmp_path / "cache")
    calls: list[int] = []

    def find() -> list[str]:
        calls.append(1)
        return ["promptlint.rules.assembly_order"]

    assert cache.project_rules(find) == ["promptlint.rules.assembly_order"]
    assert cache.project_rules(find) == ["promptlint.rules.assembly_order"] and len(calls) == 1
    record = tmp_path / "cache" / "project-rules.json"  # a record of the wrong shape is not trusted
    record.write_text(json.dumps({**json.loads(record.read_text()), "modules": 3}))
    assert cache.project_rules(find) == ["promptlint.rules.assembly_order"] and len(calls) == 2


def test_a_warm_run_imports_only_the_rules_that_read_several_files(write, long_rules, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    write("a.j2", "Now: {{ now() }}\n" + long_rules)
    # Colour forced would make the console rich's own (see text.console).
    env = {**{k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "TTY_COMPATIBLE")},
           "PROMPTLINT_CACHE_DIR": str(tmp_path / "cache")}
    # The command line run in this process, so that its modules can be listed after it.
    probe = ("import sys; sys.argv = ['promptlint', 'check', 'a.j2']\nfrom promptlint.cli import main\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "engine = ('promptlint.core.analysis', 'promptlint.core.fixability', 'promptlint.core.volatility',\n"
             "          'tiktoken', 'jinja2', 'rich')\n"
             "print(sorted(m for m in engine if m in sys.modules), file=sys.stderr)\n"
             "print(sorted(m for m in sys.modules if m.startswith('promptlint.rules.')), file=sys.stderr)")
    runs = [subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=env, capture_output=True, text=True,
                           check=False) for _ in range(2)]
    cold, warm = (run.stderr.strip().splitlines()[-1] for run in runs)
    assert "volatile_before_stable" in cold  # the cold run analyses the file with every rule
    assert "volatile_before_stable" not in warm and "assembly_order" in warm
    # Nor does it load the engine, the tokenizer or the template library; neither run loads
    # rich, whose console would print plain characters to the pipe it writes to.
    cold_engine, warm_engine = (run.stderr.strip().splitlines()[-2] for run in runs)
    assert "promptlint.core.analysis" in cold_engine and "jinja2" in cold_engine and "rich" not in cold_engine
    assert warm_engine == "[]"
    assert runs[0].stdout == runs[1].stdout


def test_a_rule_plugin_installed_changes_the_code_fingerprint(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sys

    from promptlint import resultcache

    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    before = resultcache._rule_plugins()
    plugin = tmp_path / "acme_rules-1.0.dist-info"
    plugin.mkdir()
    (plugin / "entry_points.txt").write_text("[promptlint.rules]\nacme = acme_rules.rule\n")
    (plugin / "RECORD").write_text("acme_rules/rule.py,sha256=abc,120\n")
    after = resultcache._rule_plugins()
    assert len(after) == len(before) + 1 and any("acme_rules-1.0.dist-info" in line for line in after)
    # The same plugin installed afresh (new mtimes, a CI job) is the same; another build is not.
    os.utime(plugin / "entry_points.txt", (1, 1))
    assert resultcache._rule_plugins() == after
    (plugin / "RECORD").write_text("acme_rules/rule.py,sha256=def,121\n")
    assert resultcache._rule_plugins() != after
    # A distribution with other entry points (a console script) is no rule plugin.
    other = tmp_path / "tool-2.0.dist-info"
    other.mkdir()
    (other / "entry_points.txt").write_text("[console_scripts]\ntool = tool:main\n")
    assert not any("tool-2.0" in line for line in resultcache._rule_plugins())


def test_a_finding_as_json_is_its_fields_then_its_extra_ones_each_a_copy():
    # What the cache stores and the JSON report prints: asdict's dict, with the extra
    # fields after the others, and containers the caller may change without changing the finding.
    from dataclasses import asdict

    from promptlint.core.findings import Finding

    extra = {"precision": "second", "lines": [3, 4], "fix": {"moved": ["line 2"]}}
    finding = Finding(path="a.j2", line=2, column=1, end_line=2, end_column=9, rule="PC101",
                      name="volatile-before-stable", severity="error", kind="timestamp",
                      frequency="per-request", message="m", extra=json.loads(json.dumps(extra)))
    data = finding.to_json()
    expected = asdict(finding)
    expected.update(expected.pop("extra"))
    assert list(data.items()) == list(expected.items())
    data["lines"].append(5)
    data["fix"]["moved"].append("line 9")
    assert finding.extra == extra
    assert Finding.from_json(finding.to_json()) == finding


def test_a_worker_does_not_analyse_a_cached_file_again(write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # What a worker process runs for each file (check -j N): with the result in the cache,
    # the file is neither analysed again nor loaded to be let go of.
    from promptlint import api

    paths = [write(f"agent_{i}.j2", f"Now: {{{{ now() }}}}\n\nAgent {i}.\n\n{long_rules}\n") for i in range(3)]
    analysed: list[str] = []
    real = api._check_template

    def counted(template, *args, **kwargs):  # type: ignore[no-untyped-def]
        analysed.append(template.path)
        return real(template, *args, **kwargs)

    monkeypatch.setattr(api, "_check_template", counted)
    api._init_worker(None, None, {}, tmp_path / "cache", {})
    try:
        first = [api._check_in_worker(str(p)) for p in paths]
        assert len(analysed) == 3
        analysed.clear()
        again = [api._check_in_worker(str(p)) for p in paths]
    finally:
        api._worker_setup = None
    assert analysed == []
    assert [r.to_json() for r in again] == [r.to_json() for r in first]  # type: ignore[union-attr]


def _agents(write, rules: str, count: int, edited: int = 0) -> list[Path]:  # type: ignore[no-untyped-def]
    return [write(f"agent_{i}.j2", f"Now: {{{{ now() }}}}\n\nAgent {i}{'!' if i < edited else ''}.\n\n{rules}\n")
            for i in range(count)]


def test_a_warm_parallel_run_starts_no_worker(processes_for_any_size, write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # With every result in the cache, -j N looks them up here: no worker process is started,
    # and no encoding is built for them (a warm check of 40 files took 0.45 s at -j 2, 0.13 s at -j 1).
    from promptlint import parallel
    from promptlint.api import check_paths

    _agents(write, long_rules, 8)
    cache = ResultCache(tmp_path / "cache")
    cold = check_paths(tmp_path, jobs=2, cache=cache)

    def no_workers(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a worker was started for cached results")

    monkeypatch.setattr(parallel, "map_in_order", no_workers)
    warm = check_paths(tmp_path, jobs=2, cache=cache)
    assert [f.to_json() for f in warm.findings] == [f.to_json() for f in cold.findings]
    assert len(warm.files) == 8 and warm.exit_code() == cold.exit_code()


def test_a_partly_warm_parallel_run_sends_only_the_changed_files(processes_for_any_size, write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from promptlint import parallel
    from promptlint.api import check_paths

    _agents(write, long_rules, 10)
    cache = ResultCache(tmp_path / "cache")
    check_paths(tmp_path, jobs=2, cache=cache)
    _agents(write, long_rules, 10, edited=4)
    sent: list[str] = []
    real = parallel.map_in_order

    def recorded(function, items, *args, **kwargs):  # type: ignore[no-untyped-def]
        sent.extend(items)
        return real(function, items, *args, **kwargs)

    monkeypatch.setattr(parallel, "map_in_order", recorded)
    warm = check_paths(tmp_path, jobs=2, cache=cache)
    assert sorted(os.path.basename(p) for p in sent) == [f"agent_{i}.j2" for i in range(4)]
    assert [f.to_json() for f in warm.findings] == [f.to_json() for f in check_paths(tmp_path, jobs=1).findings]


def test_a_cold_parallel_run_looks_up_only_its_first_files_before_the_workers_start(processes_for_any_size, write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # Each worker looks its own files up anyway: a cold run does not read and hash every file
    # twice, once here and once in a worker.
    from promptlint import api
    from promptlint.api import check_paths

    _agents(write, long_rules, api._COLD_LOOKUPS + 8)
    looked: list[str] = []
    real = ResultCache.get

    def counted(self, key):  # type: ignore[no-untyped-def]
        looked.append(key)  # in this process only: the workers' lookups are their own
        return real(self, key)

    monkeypatch.setattr(ResultCache, "get", counted)
    report = check_paths(tmp_path, jobs=2, cache=ResultCache(tmp_path / "cache"))
    assert len(report.files) == api._COLD_LOOKUPS + 8
    assert len(looked) == api._COLD_LOOKUPS


def test_a_small_parallel_run_is_checked_in_its_own_process(write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A few small files (a pre-commit hook's): starting workers, and building the encoding
    # for them, took longer than checking them here (9 files: 0.42 s at -j 2, 0.25 s at -j 1).
    from promptlint import parallel
    from promptlint.api import check_paths

    _agents(write, long_rules, 9)

    def no_workers(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("workers were started for a few small files")

    monkeypatch.setattr(parallel, "map_in_order", no_workers)
    report = check_paths(tmp_path, jobs=2)
    assert len(report.files) == 9 and all(r.findings for r in report.files)
    assert sum(os.path.getsize(p) for p in tmp_path.glob("*.j2")) < parallel.PROCESS_MIN_BYTES


def test_a_parallel_run_takes_its_workers_results_to_their_end(processes_for_any_size, write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # The results are read to the end (none left over, the pool shut down as the last came
    # in), not dropped unfinished when the run's loop ends.
    from promptlint import parallel
    from promptlint.api import check_paths

    _agents(write, long_rules, 6)
    real = parallel.map_in_order
    ended: list[bool] = []

    def watched(*args, **kwargs):  # type: ignore[no-untyped-def]
        yield from real(*args, **kwargs)
        ended.append(True)

    monkeypatch.setattr(parallel, "map_in_order", watched)
    report = check_paths(tmp_path, jobs=2)
    assert len(report.files) == 6 and ended == [True]


def test_a_parallel_run_makes_no_per_file_config_for_what_its_workers_checked(processes_for_any_size, write, long_rules, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A worker's result is kept with its file's config; the copy that carries the file's
    # include resolvers is made in the run's process only if the file is analysed again.
    from promptlint import api

    _agents(write, long_rules, 6)
    made: list[str] = []
    real = api.config_for_file
    monkeypatch.setattr(api, "config_for_file", lambda path, *a, **k: made.append(path) or real(path, *a, **k))
    report = api.check_paths(tmp_path, jobs=2)
    assert len(report.files) == 6 and all(r.findings for r in report.files)
    assert made == []  # the workers made theirs (forked, they count in their own copy of the list)
    checked = api.check_paths(tmp_path, jobs=1)
    assert [r.to_json() for r in checked.files] == [r.to_json() for r in report.files]
    assert len(made) == 6


def test_without_a_user_cache_folder_files_are_checked_without_a_cache(run_cli, write, long_rules, tmp_path,
                                                                        monkeypatch):
    # No HOME and a uid the password database does not know (a container run as a bare
    # uid): platformdirs raised RuntimeError, an internal error.
    import platformdirs

    path = write("a.j2", f"Now: {CLOCK}\n{long_rules}\n")
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR")

    def nowhere(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise RuntimeError("could not determine the home directory for '~/.cache'")

    monkeypatch.setattr(platformdirs, "user_cache_dir", nowhere)
    for _ in range(2):
        result = run_cli("check", "--format", "json", str(path), cwd=tmp_path)
        assert result.exit_code == 1 and json.loads(result.stdout)["findings"]


def test_an_edited_word_list_changes_the_code_fingerprint(tmp_path: Path) -> None:
    # data/names.toml is where a word is added "without Python": a result cached before
    # the edit was served after it.
    from promptlint import resultcache

    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "names.py").write_text("WORDS = 1\n")
    (tmp_path / "data").mkdir()
    words = tmp_path / "data" / "names.toml"
    words.write_text('[[words]]\nkind = "memory"\n')
    before = resultcache._stamps([tmp_path])
    words.write_text('[[words]]\nkind = "memory"\nwords = ["scratchpad"]\n')
    after = resultcache._stamps([tmp_path])
    assert before != after and len(before) == len(after) == 2
    import promptlint

    shipped = resultcache._stamps([Path(promptlint.__file__).parent])
    assert {Path(s.rsplit(":", 2)[0]).name for s in shipped} >= {"names.toml", "providers.toml", "cli.py"}


def test_the_readme_workflow_caches_the_folder_promptlint_uses(monkeypatch, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import sys

    import yaml

    from promptlint import resultcache

    sys.path.insert(0, str(Path(__file__).parent))
    from readme_blocks import blocks

    (workflow,) = [yaml.safe_load(b.text) for b in blocks("yaml") if "upload-sarif" in b.text]
    (step,) = [s for s in workflow["jobs"]["promptlint"]["steps"] if str(s.get("uses", "")).startswith("actions/cache")]
    monkeypatch.setenv("HOME", str(tmp_path))  # a Linux runner's home
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("PROMPTLINT_CACHE_DIR", raising=False)
    folder = resultcache.default_folder()
    assert folder is not None and folder.parent == Path(step["with"]["path"]).expanduser()
