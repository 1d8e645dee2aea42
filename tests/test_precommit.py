"""The real pre-commit hook, run by the real `pre-commit` against a temporary git repo.

The hook repository is this checkout, working tree included: its tracked and untracked
(not ignored) files are committed into a snapshot repository with a fixed author and
date, so the same working tree always gives the same commit sha and pre-commit reuses
the hook environment it built for it (PRE_COMMIT_HOME lives in the checkout's .venv).
The first run builds that environment from PyPI, which takes a while.

The user's `.pre-commit-config.yaml` is the README's own snippet, read from the README:
the remote variant with its URL replaced by the snapshot's path (the one thing the README
says to replace), pinned by `pre-commit autoupdate --freeze` as the README says; and the
`repo: local` variant exactly as printed, with this checkout's promptlint on PATH.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from readme_blocks import blocks

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT_HOME = REPO_ROOT / ".venv" / "pre-commit-home"
SNAPSHOT = REPO_ROOT / ".venv" / "pre-commit-snapshot"
TIMEOUT = 600
CLOCK = '{{ now().strftime("%H:%M:%S") }}'
FIXED_IDENTITY = {
    "GIT_AUTHOR_NAME": "promptlint tests",
    "GIT_AUTHOR_EMAIL": "tests@promptlint.invalid",
    "GIT_COMMITTER_NAME": "promptlint tests",
    "GIT_COMMITTER_EMAIL": "tests@promptlint.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+0000",
}


def _pre_commit() -> str:
    exe = Path(sys.executable).with_name("pre-commit")
    if exe.exists():
        return str(exe)
    found = shutil.which("pre-commit")
    if found is None:
        pytest.fail("pre-commit is not installed (pip install -e '.[test]')")
    return found


def _git(*args: str, cwd: Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "core.autocrlf=false", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, f"git {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _snapshot() -> tuple[Path, str]:
    """A git repo holding this checkout's working tree; returns (path, commit sha)."""
    listed = _git("ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=REPO_ROOT)
    if SNAPSHOT.exists():
        shutil.rmtree(SNAPSHOT)
    SNAPSHOT.mkdir(parents=True)
    _git("init", "-q", cwd=SNAPSHOT)
    for rel in filter(None, listed.split("\0")):
        source = REPO_ROOT / rel
        if not source.is_file() and not source.is_symlink():
            continue  # deleted in the working tree
        target = SNAPSHOT / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    _git("add", "-A", cwd=SNAPSHOT)
    _git("commit", "-q", "--no-verify", "-m", "promptlint working tree", cwd=SNAPSHOT, env=FIXED_IDENTITY)
    return SNAPSHOT, _git("rev-parse", "HEAD", cwd=SNAPSHOT).strip()


def _prune_stale_environments(sha: str) -> None:
    """Drop hook environments built for earlier snapshots (about 150 MB each)."""
    import sqlite3

    db = PRE_COMMIT_HOME / "db.db"
    if not db.exists():
        return
    try:
        with sqlite3.connect(db) as conn:
            rows = conn.execute("SELECT ref, path FROM repos WHERE repo = ?", (str(SNAPSHOT),)).fetchall()
            for ref, path in rows:
                if ref != sha:
                    shutil.rmtree(path, ignore_errors=True)
                    conn.execute("DELETE FROM repos WHERE repo = ? AND ref = ?", (str(SNAPSHOT), ref))
    except sqlite3.Error:
        pass  # pre-commit's own store layout changed: leave it alone


@pytest.fixture(scope="module")
def hook_repo() -> tuple[Path, str]:
    path, sha = _snapshot()
    _prune_stale_environments(sha)
    return path, sha


def _readme_config(local: bool) -> str:
    """The README's pre-commit snippet: the `repo: local` one, or the other one."""
    found = [b.text for b in blocks("yaml", section="pre-commit") if ("repo: local" in b.text) == local]
    assert len(found) == 1, f"the README's pre-commit section has {len(found)} such snippets"
    return found[0]


def _pre_commit_env() -> dict[str, str]:
    PRE_COMMIT_HOME.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "PRE_COMMIT_HOME": str(PRE_COMMIT_HOME), "PRE_COMMIT_COLOR": "never"}
    env.pop("VIRTUAL_ENV", None)
    return env


def _new_repo(tmp_path: Path, config: str) -> Path:
    repo = tmp_path / "user-repo"
    repo.mkdir()
    _git("init", "-q", cwd=repo)
    (repo / ".pre-commit-config.yaml").write_text(config)
    return repo


@pytest.fixture
def user_repo(tmp_path: Path, hook_repo: tuple[Path, str]) -> Path:
    """A repository whose config is the README's remote snippet, pinned as the README says."""
    path, sha = hook_repo
    snippet = _readme_config(local=False)
    (url,) = {repo["repo"] for repo in yaml.safe_load(snippet)["repos"]}
    repo = _new_repo(tmp_path, snippet.replace(url, str(path)))
    proc = subprocess.run(
        [_pre_commit(), "autoupdate", "--freeze"], cwd=repo, capture_output=True, text=True,
        env=_pre_commit_env(), timeout=TIMEOUT, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (pinned,) = yaml.safe_load((repo / ".pre-commit-config.yaml").read_text())["repos"]
    assert pinned["rev"] == sha, "autoupdate --freeze did not pin the snapshot's commit"
    return repo


@pytest.fixture
def local_repo(tmp_path: Path) -> Path:
    """A repository whose config is the README's `repo: local` snippet, as printed."""
    return _new_repo(tmp_path, _readme_config(local=True))


def _run_hook(repo: Path, *files: str, path_first: Path | None = None) -> subprocess.CompletedProcess[str]:
    _git("add", "-A", cwd=repo)
    env = _pre_commit_env()
    if path_first is not None:
        env["PATH"] = f"{path_first}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        [_pre_commit(), "run", "promptlint", "--files", *files],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=TIMEOUT,
        check=False,
    )


def _body() -> str:
    return "\n".join(
        f"Rule {i}: answer the customer politely, cite the handbook section you rely on, "
        "and never invent facts about orders, refunds or shipping."
        for i in range(1, 26)
    )


def test_hook_fails_on_a_cache_breaking_prompt(user_repo: Path) -> None:
    (user_repo / "prompts").mkdir()
    (user_repo / "prompts" / "system.j2").write_text(f"You are Atlas.\nTime: {CLOCK}\n{_body()}\n")
    proc = _run_hook(user_repo, "prompts/system.j2")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "Traceback" not in output
    assert "prompts/system.j2:2:7 PC101" in output
    assert "Failed" in output


def test_hook_checks_all_staged_files_in_one_run(user_repo: Path) -> None:
    # pre-commit splits a hook's files into a run per core unless the hook is serial: each
    # run built the tokenizer again and forked its own -j workers, and a summary line
    # counted only its share. One run checks them all, in its own worker processes.
    (user_repo / "prompts").mkdir()
    names = [f"prompts/p{n}.j2" for n in range(12)]
    for name in names:
        (user_repo / name).write_text(f"You are Atlas.\nTime: {CLOCK}\n{_body()}\n")
    proc = _run_hook(user_repo, *names)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert re.findall(r"\d+ file\(s\) checked", output) == ["12 file(s) checked"], output


def test_hook_passes_on_a_clean_prompt(user_repo: Path) -> None:
    (user_repo / "prompts").mkdir()
    (user_repo / "prompts" / "system.j2").write_text(f"You are Atlas.\n{_body()}\n")
    proc = _run_hook(user_repo, "prompts/system.j2")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Traceback" not in output
    assert "Passed" in output


def test_hook_only_runs_on_prompt_files(user_repo: Path) -> None:
    """The hook's `files` pattern keeps it off files that hold no prompt: a stylesheet is
    skipped, not checked."""
    (user_repo / "style.css").write_text("body { color: black; }\n")
    proc = _run_hook(user_repo, "style.css")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "no files to check" in output.lower()


def test_hook_checks_prompt_builders_in_code(user_repo: Path) -> None:
    """Python and TypeScript files are passed to the hook: one that builds a prompt with a
    clock fails it; one that builds none passes with one quiet note."""
    (user_repo / "app.py").write_text(
        "from datetime import datetime\n\n"
        "SYSTEM_PROMPT = f\"Time: {datetime.now():%H:%M}. You are a helpful assistant for the shop.\""
        # Stable text after the clock (a module-level clock is per process: a warning only
        # when it stands before stable content).
        " + \"Answer politely, cite the handbook and never invent order numbers.\\n\" * 20\n"
    )
    (user_repo / "util.ts").write_text("export const add = (a: number, b: number) => a + b;\n")
    proc = _run_hook(user_repo, "app.py", "util.ts")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "app.py:3:" in output and "PC10" in output


def test_the_readme_snippet_pins_a_commit_that_exists() -> None:
    """The remote snippet names no tag that this repository does not have."""
    (repo,) = yaml.safe_load(_readme_config(local=False))["repos"]
    rev = str(repo["rev"])
    tags = _git("tag", "--list", cwd=REPO_ROOT).split()
    assert rev == "HEAD" or rev in tags, f"rev {rev!r} is neither HEAD nor a tag of this repository"


def test_hook_fails_on_a_request_body_with_errors(user_repo: Path) -> None:
    body = REPO_ROOT / "fixtures" / "requests" / "anthropic_timestamp.json"
    shutil.copy(body, user_repo / "request.json")
    proc = _run_hook(user_repo, "request.json")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "no files to check" not in output.lower()
    assert "request.json:39:30 PC201 [error]" in output  # PC201 owns values in bodies


def test_hook_skips_json_that_is_not_a_request_body(user_repo: Path) -> None:
    (user_repo / "package.json").write_text('{"name": "app", "version": "1.0.0"}\n')
    (user_repo / "tsconfig.json").write_text('// comments\n{"compilerOptions": {}}\n')
    proc = _run_hook(user_repo, "package.json", "tsconfig.json")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Passed" in output


def test_hook_fails_on_a_bad_assembly_order(user_repo: Path) -> None:
    shutil.copytree(REPO_ROOT / "fixtures" / "workspaces" / "memory-first", user_repo / "agent")
    _git("add", "-A", cwd=user_repo)
    _git("commit", "-q", "--no-verify", "-m", "agent", cwd=user_repo, env=FIXED_IDENTITY)
    # Only the config changes: the hook is passed promptlint.toml alone.
    config = user_repo / "agent" / "promptlint.toml"
    config.write_text(config.read_text() + "\n")
    proc = _run_hook(user_repo, "agent/promptlint.toml")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "agent/promptlint.toml:3:1 PC106 [error]" in output


def test_hook_passes_a_pyproject_without_promptlint(user_repo: Path) -> None:
    (user_repo / "pyproject.toml").write_text('[project]\nname = "app"\nversion = "1"\n')
    proc = _run_hook(user_repo, "pyproject.toml")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert "Passed" in output


def test_readme_local_hook_as_printed(local_repo: Path) -> None:
    """`repo: local` runs the promptlint installed where you commit from: here, this venv's."""
    bin_dir = Path(sys.executable).parent
    assert (bin_dir / "promptlint").exists()
    (local_repo / "prompts").mkdir()
    (local_repo / "prompts" / "system.j2").write_text(f"You are Atlas.\nTime: {CLOCK}\n{_body()}\n")
    (local_repo / "package.json").write_text('{"name": "app"}\n')
    proc = _run_hook(local_repo, "prompts/system.j2", "package.json", path_first=bin_dir)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1, output
    assert "prompts/system.j2:2:7 PC101" in output
    (local_repo / "prompts" / "system.j2").write_text(f"You are Atlas.\n{_body()}\n")
    proc = _run_hook(local_repo, "prompts/system.j2", "package.json", path_first=bin_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_readme_local_hook_is_the_manifest_s_hook() -> None:
    (local,) = yaml.safe_load(_readme_config(local=True))["repos"]
    (hook,) = local["hooks"]
    (manifest,) = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    for key in ("id", "entry", "types", "files", "require_serial"):
        assert hook.get(key) == manifest.get(key), key


def test_fix_then_commit_with_the_documented_args(local_repo: Path) -> None:
    """README: after `check --fix`, `args: [--fail-on, error]` under the hook lets the commit through."""
    readme = (REPO_ROOT / "README.md").read_text()
    assert "`args: [--fail-on, error]` under `- id: promptlint`" in readme
    bin_dir = Path(sys.executable).parent
    config = yaml.safe_load((local_repo / ".pre-commit-config.yaml").read_text())
    config["repos"][0]["hooks"][0]["args"] = ["--fail-on", "error"]
    (local_repo / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config))
    (local_repo / "system.j2").write_text(f"You are Atlas.\nTime: {CLOCK}\n{_body()}\n")
    fixed = subprocess.run(
        [str(bin_dir / "promptlint"), "check", "--fix", "system.j2"], cwd=local_repo,
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert fixed.returncode == 1 and "remain after the fix" in fixed.stdout, fixed.stdout + fixed.stderr
    proc = _run_hook(local_repo, "system.j2", path_first=bin_dir)
    assert proc.returncode == 0, proc.stdout + proc.stderr
