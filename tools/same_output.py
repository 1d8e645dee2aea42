"""Whether a change left promptlint's output alone: the same commands run by a commit's tree
and by the working tree, their output compared byte for byte.

    .venv/bin/python tools/same_output.py HEAD~3              # the bench's 2,000 files and fixtures/
    .venv/bin/python tools/same_output.py 8b3f400 --files 0   # fixtures/ only

Each tree runs its own code, rules included: the commit is checked out in a temporary
worktree and run as ``python -P -m promptlint`` with ``PYTHONPATH`` naming it, and its
``rules/`` folder is linked in as ``promptlint/rules``. Without that link an editable install
maps ``promptlint.rules`` to the working tree's ``rules/`` whichever tree imports it, and a
comparison of a change to a rule compares the working tree with itself.

The commands: ``check`` of bench/throughput.py's generated files (seeded: the same files on
every run) as text at ``-j 1`` and ``-j 2`` and as JSON at ``-j 2``; ``check`` of
``fixtures/`` as text, JSON and SARIF; ``fix --diff`` of ``fixtures/agents``. Each in an empty
folder (no configuration found there), with its own result cache. Exit 0 when every
command's stdout, stderr and exit code are the same in both trees, 1 when one differs (its
first differing line is printed), 2 when the commit cannot be checked out.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _commands(bench: Path | None, config: Path) -> list[list[str]]:
    fixtures = str(ROOT / "fixtures")
    commands = []
    if bench is not None:
        for jobs, output in (("1", "text"), ("2", "text"), ("2", "json")):
            commands.append(["check", "--no-cache", "-j", jobs, "--format", output, "--config", str(config),
                             str(bench)])
    for output in ("text", "json", "sarif"):
        commands.append(["check", "--no-cache", "-j", "1", "--format", output, fixtures])
    commands.append(["fix", "--diff", str(ROOT / "fixtures" / "agents")])
    return commands


def _run(tree: Path, command: list[str], workdir: Path) -> tuple[int, bytes, bytes]:
    env = {**os.environ, "PYTHONPATH": str(tree), "PROMPTLINT_CACHE_DIR": str(workdir / f"cache-{tree.name}")}
    done = subprocess.run([sys.executable, "-P", "-m", "promptlint", *command], cwd=workdir, env=env,
                          capture_output=True, check=False)
    return done.returncode, done.stdout, done.stderr


def _first_difference(a: bytes, b: bytes) -> str:
    left, right = a.decode("utf-8", "replace").splitlines(), b.decode("utf-8", "replace").splitlines()
    for number, (x, y) in enumerate(zip(left, right), start=1):
        if x != y:
            return f"line {number}:\n  - {x[:300]}\n  + {y[:300]}"
    return f"one output is {len(left)} lines, the other {len(right)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("commit", help="the commit to compare the working tree with")
    parser.add_argument("--files", type=int, default=2000, help="bench files to generate (0: fixtures only)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="promptlint-same-") as scratch:
        root = Path(scratch)
        base = root / "base"
        added = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.commit],
                               capture_output=True, text=True, check=False)
        if added.returncode != 0:
            print(f"error: cannot check out {args.commit}: {added.stderr.strip()}", file=sys.stderr)
            return 2
        try:
            if (base / "rules").is_dir() and not (base / "promptlint" / "rules").exists():
                (base / "promptlint" / "rules").symlink_to(Path("..") / "rules")
            bench = None
            config = root / "config" / "promptlint.toml"
            config.parent.mkdir()
            config.write_text('max-file-size = "8MB"\n', encoding="utf-8")  # the bench's 5 MB template is read
            if args.files > 0:
                sys.path.insert(0, str(ROOT / "bench"))
                from throughput import generate  # type: ignore[import-not-found]  # bench/, put on the path above

                bench = root / "bench"
                bench.mkdir()
                generate(bench, args.files)
            workdir = root / "work"
            workdir.mkdir()
            same = True
            for command in _commands(bench, config):
                before, after = _run(base, command, workdir), _run(ROOT, command, workdir)
                shown = " ".join(command).replace(str(root), "<tmp>").replace(str(ROOT), ".")
                if before == after:
                    print(f"same (exit {after[0]}, {len(after[1]):,} bytes out, {len(after[2]):,} err): {shown}")
                    continue
                same = False
                print(f"DIFFERENT: {shown}")
                if before[0] != after[0]:
                    print(f"  exit {before[0]} at {args.commit}, {after[0]} now")
                for label, a, b in (("stdout", before[1], after[1]), ("stderr", before[2], after[2])):
                    if a != b:
                        print(f"  {label} {_first_difference(a, b)}")
            return 0 if same else 1
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)],
                           capture_output=True, check=False)


if __name__ == "__main__":
    raise SystemExit(main())
