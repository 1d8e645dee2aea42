"""Configuration: found by walking up from each checked file, validated key by key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint import config as config_mod
from promptlint.config import Config, ConfigError

CORE = ("--select", "PC101,PC102")


@pytest.fixture
def prompts(write, long_rules: str, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    write("proj/agents/deep/user.j2", f"Hello {{{{ user.name }}}}.\n{long_rules}\n")
    write("proj/agents/deep/agent.j2", f"You are {{{{ agent_name }}}}.\n{long_rules}\n")
    return tmp_path / "proj"


def findings(run_cli, cwd: Path, *args: str) -> tuple[int, list[tuple[str, str]]]:  # type: ignore[no-untyped-def]
    result = run_cli("check", "--format", "json", *CORE, *args, cwd=cwd)
    data = json.loads(result.stdout)
    return result.exit_code, [(Path(f["path"]).name, f["kind"]) for f in data["findings"]]


def test_no_config_defaults(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    code, found = findings(run_cli, prompts, "agents/deep/user.j2", "agents/deep/agent.j2")
    assert (code, found) == (1, [("user.j2", "identity")])


def test_pyproject_tool_table_found_walking_up(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.promptlint]\nstable = ["user.name"]\n')
    code, found = findings(run_cli, prompts / "agents", "deep/user.j2")
    assert (code, found) == (0, [])


def test_promptlint_toml_top_level_keys(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "agents" / "promptlint.toml").write_text('stable = ["user"]\n')
    code, found = findings(run_cli, prompts, "agents/deep/user.j2")
    assert (code, found) == (0, [])


def test_nearest_config_wins(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "pyproject.toml").write_text('[tool.promptlint]\nstable = ["user"]\n')
    (prompts / "agents" / "deep" / "promptlint.toml").write_text('model = "gpt-4"\n')
    result = run_cli("check", "--format", "json", *CORE, "agents/deep/user.j2", cwd=prompts)
    data = json.loads(result.stdout)
    assert data["files"][0]["encoding"] == "cl100k_base"
    assert [f["kind"] for f in data["findings"]] == ["identity"]


def test_pyproject_without_tool_table_is_skipped(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "promptlint.toml").write_text('stable = ["user"]\n')
    (prompts / "agents" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    code, found = findings(run_cli, prompts, "agents/deep/user.j2")
    assert (code, found) == (0, [])


def test_volatile_table_creates_a_finding(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "pyproject.toml").write_text('[tool.promptlint.volatile]\nagent_name = "identity"\n')
    code, found = findings(run_cli, prompts, "agents/deep/agent.j2")
    assert (code, found) == (1, [("agent.j2", "identity")])


def test_volatile_table_with_kind_and_frequency(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "promptlint.toml").write_text(
        '[volatile]\nagent_name = { kind = "environment", frequency = "per-request" }\n'
    )
    result = run_cli("check", "--format", "json", *CORE, "agents/deep/agent.j2", cwd=prompts)
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["kind"], finding["frequency"], finding["severity"]) == ("environment", "per-request", "error")


def test_config_option_uses_that_file(run_cli, prompts: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    other = tmp_path / "elsewhere" / "custom.toml"
    other.parent.mkdir()
    other.write_text('stable = ["user"]\n[volatile]\nagent_name = "identity"\n')
    code, found = findings(run_cli, prompts, "--config", str(other), "agents/deep/user.j2", "agents/deep/agent.j2")
    assert (code, found) == (1, [("agent.j2", "identity")])


def test_config_option_with_pyproject(run_cli, prompts: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text('[tool.promptlint]\nstable = ["user"]\n')
    code, found = findings(run_cli, prompts, "--config", str(pyproject), "agents/deep/user.j2")
    assert (code, found) == (0, [])


def test_config_option_overrides_nearby_config(run_cli, prompts: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "promptlint.toml").write_text('stable = ["user"]\n')
    explicit = tmp_path / "strict.toml"
    explicit.write_text('select = ["PC1"]\n')
    code, found = findings(run_cli, prompts, "--config", str(explicit), "agents/deep/user.j2")
    assert (code, found) == (1, [("user.j2", "identity")])


@pytest.mark.parametrize(
    ("filename", "content", "key"),
    [
        ("promptlint.toml", 'stabel = ["user"]\n', "stabel"),
        ("pyproject.toml", '[tool.promptlint]\nfail_onn = "error"\n', "fail_onn"),
        ("promptlint.toml", '[assembly]\nordr = ["a"]\n', "assembly.ordr"),
    ],
)
def test_unknown_key_exits_2_naming_it(run_cli, prompts: Path, filename: str, content: str, key: str) -> None:  # type: ignore[no-untyped-def]
    (prompts / filename).write_text(content)
    result = run_cli("check", "agents/deep/user.j2", cwd=prompts)
    assert result.exit_code == 2
    assert f"`{key}`" in result.output
    assert filename in result.output
    assert "Traceback" not in result.output


def test_unknown_key_in_explicit_config_exits_2(run_cli, prompts: Path, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "bad.toml"
    bad.write_text("colour = 'red'\n")
    result = run_cli("check", "--config", str(bad), "agents/deep/user.j2", cwd=prompts)
    assert result.exit_code == 2
    assert "`colour`" in result.output


def test_unknown_key_when_checking_a_folder(run_cli, prompts: Path) -> None:  # type: ignore[no-untyped-def]
    (prompts / "promptlint.toml").write_text("bogus = 1\n")
    result = run_cli("check", "agents", cwd=prompts)
    assert result.exit_code == 2
    assert "`bogus`" in result.output


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('fail-on = "fatal"\n', "fail-on"),
        ('[volatile]\nx = "weather"\n', "volatile.x"),
        ('[volatile]\nx = { kind = "identity", frequency = "hourly" }\n', "volatile.x"),
        ("stable = 3\n", "stable"),
        ("model = 4\n", "model"),
        ('[syntax]\n"*.txt" = "latex"\n', "syntax"),
        ("this is not toml\n", "invalid TOML"),
        # A price that is not a finite amount: nan and 1e308 gave "$nan" and "$inf" cost lines.
        ("[prices]\ninput = nan\n", "prices.input"),
        ("[prices]\ncache_read = inf\n", "prices.cache_read"),
        ('[prices."gpt-4.1-mini"]\ninput = 1e308\n', 'prices."gpt-4.1-mini".input'),
        ("[providers.vllm]\nblock_size = 0\n", "providers.vllm.block_size"),
        ("[providers.openai]\nmodel = \"gpt-4o\"\n", "providers.openai.model"),
    ],
)
def test_invalid_values_are_refused(tmp_path: Path, content: str, fragment: str) -> None:
    path = tmp_path / "promptlint.toml"
    path.write_text(content)
    with pytest.raises(ConfigError, match=fragment.replace(".", r"\.")):
        config_mod.load_file(path)


def test_parse_maps_keys_to_fields(tmp_path: Path) -> None:
    path = tmp_path / "promptlint.toml"
    path.write_text(
        'select = ["PC1"]\nignore = "PC102"\nfail-on = "error"\nmodel = "gpt-4"\n'
        'extend_exclude = ["drafts"]\nstable = ["agent"]\n[volatile]\nwho = "identity"\n'
        '[syntax]\n"*.txt" = "jinja"\n'
    )
    config = config_mod.load_file(path)
    assert config is not None
    assert config.select == ("PC1",)
    assert config.ignore == ("PC102",)
    assert config.fail_on == "error"
    assert config.model == "gpt-4"
    assert config.extend_exclude == ("drafts",)
    assert config.volatile == {"who": ("identity", "per-session")}
    assert config.syntax == {"*.txt": "jinja"}
    assert config.key_lines["model"] == 4
    assert config.rule_enabled("PC101") and not config.rule_enabled("PC102")


def test_find_for_walks_up(tmp_path: Path) -> None:
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    (tmp_path / "a" / "pyproject.toml").write_text('[tool.promptlint]\nmodel = "gpt-4"\n')
    found = config_mod.find_for(deep)
    assert found.model == "gpt-4"
    assert found.path == tmp_path / "a" / "pyproject.toml"


def test_promptlint_toml_wins_over_pyproject_in_the_same_folder(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.promptlint]\nmodel = "gpt-4"\n')
    (tmp_path / "promptlint.toml").write_text('model = "gpt-4o"\n')
    assert config_mod.find_for(tmp_path).model == "gpt-4o"


def test_fail_on_from_config(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("p/tail.j2", f"{long_rules}\nTime: {{{{ now() }}}}\n")
    assert run_cli("check", *CORE, "p/tail.j2", cwd=tmp_path).exit_code == 1
    (tmp_path / "p" / "promptlint.toml").write_text('fail-on = "error"\n')
    assert run_cli("check", *CORE, "p/tail.j2", cwd=tmp_path).exit_code == 0
    # The command line wins over config.
    assert run_cli("check", *CORE, "--fail-on", "warning", "p/tail.j2", cwd=tmp_path).exit_code == 1


def test_syntax_globs_from_config(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("p/system.txt", f"Hi {{user_name}}.\n{long_rules}\n")
    (tmp_path / "p" / "promptlint.toml").write_text('[syntax]\n"*.txt" = "format"\n')
    result = run_cli("check", "--format", "json", *CORE, "p/system.txt", cwd=tmp_path)
    data = json.loads(result.stdout)
    assert data["files"][0]["syntax"] == "format"
    assert [f["kind"] for f in data["findings"]] == ["identity"]


def test_default_config() -> None:
    config = Config()
    assert config.fail_on == "warning"
    assert config.rule_enabled("PC101")
    assert "*.j2" in config.include and ".git" in config.exclude


def test_a_run_looks_each_folder_up_once_and_the_next_run_sees_an_edit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from promptlint.api import check_paths

    (tmp_path / "promptlint.toml").write_text('ignore = ["PC101"]\n')
    for name in ("a.md", "b.md", "c.md"):
        (tmp_path / name).write_text("Today is {current_date}.\n" + "Be brief and cite sources.\n" * 400)
    looked: list[Path] = []
    own = config_mod._own_config
    monkeypatch.setattr(config_mod, "_own_config", lambda folder: looked.append(folder) or own(folder))
    first = check_paths([tmp_path / n for n in ("a.md", "b.md", "c.md")])
    assert looked == [tmp_path.resolve()]  # once for the three files of the folder
    assert not [f for r in first.files for f in r.findings if f.rule == "PC101"]
    (tmp_path / "promptlint.toml").write_text('select = ["PC101"]\n')
    second = check_paths([tmp_path / "a.md"])
    assert len(looked) == 2  # a new run looks again, and reads the edit
    assert [f.rule for r in second.files for f in r.findings] == ["PC101"]
    assert config_mod._RUN_LOOKUPS.get() is None  # nothing left behind between runs


def test_a_run_reads_each_folder_once_and_the_config_above_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A folder without a config has its parent's: a walk of 6,000 folders looked up through
    # every folder above each one, and parsed the same pyproject.toml again for each.
    from promptlint.api import check_paths

    (tmp_path / "pyproject.toml").write_text('[tool.promptlint]\nignore = ["PC101"]\n')
    for folder in ("a", "a/b", "a/b/c", "d"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "p.md").write_text("Today is {current_date}.\n" + "Be brief and cite sources.\n" * 400)
    (tmp_path / "d" / "promptlint.toml").write_text('select = ["PC101"]\n')
    looked: list[Path] = []
    read: list[Path] = []
    own, load = config_mod._own_config, config_mod.load_file
    monkeypatch.setattr(config_mod, "_own_config", lambda folder: looked.append(folder) or own(folder))
    monkeypatch.setattr(config_mod, "load_file", lambda path: read.append(path) or load(path))
    report = check_paths([tmp_path])
    root = tmp_path.resolve()
    assert sorted(looked) == sorted([root, root / "a", root / "a/b", root / "a/b/c", root / "d"])
    assert sorted(p.name for p in read) == ["promptlint.toml", "pyproject.toml"]
    rules = {Path(r.path).parent.name: sorted({f.rule for f in r.findings} & {"PC101"}) for r in report.files}
    assert rules == {"a": [], "b": [], "c": [], "d": ["PC101"]}


def test_options_are_applied_once_per_config_within_a_run_and_checked_each_time() -> None:
    # A run applies the same command-line options to every file's config: within
    # one_lookup_per_folder it makes the copy once; outside, every call makes its own.
    base = Config(fail_on="error")
    options = {"select": ("PC1",), "model": None, "plan_fixes": False}
    with config_mod.one_lookup_per_folder():
        first = base.with_options(**options)
        assert first is base.with_options(**options)
        assert first.select == ("PC1",) and first.plan_fixes is False and first.fail_on == "error"
        other = base.with_options(select=("PC2",))
        assert other is not first and other.select == ("PC2",)
        assert Config().with_options(**options) is not first  # another config, its own copy
        with pytest.raises(ConfigError, match="select"):
            base.with_options(select=("PCX9",))  # an unknown code is refused every time
        assert base.with_options(stable=["name"]).stable == ["name"]  # unhashable: not kept, still applied
    assert base.with_options(**options) is not first
    assert base.with_options() is base  # nothing given: the config itself


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["*.j2", "a.j2", "sub/a.j2", "sub/*", "*", "b?.md", "[ab].j2", "sub/b1.md",
                                 "a.j2", "x/**/y.md", "*.md"]), max_size=8),
       st.sampled_from(["a.j2", "sub/a.j2", "b1.md", "sub/b1.md", "c.txt", "x/z/y.md", "ab.j2"]))
def test_the_first_matching_glob_is_the_first_fnmatch_finds(globs: list[str], rel: str) -> None:
    import fnmatch
    import os

    from promptlint.config import matching_glob

    base = Path("/project")
    table = dict.fromkeys(globs, "jinja")
    expected = next((p for p in table if fnmatch.fnmatch(rel, p) or fnmatch.fnmatch(os.path.basename(rel), p)), None)
    assert matching_glob(str(base / rel), base, table) == expected
