"""What `promptlint check` costs on a large set of prompt files, next to a floor.

Run from the repository root:

    .venv/bin/python bench/throughput.py                  # 2,000 files, about 10 MB
    .venv/bin/python bench/throughput.py --files 400      # a quicker look
    .venv/bin/python bench/throughput.py --profile 40     # cProfile's top 40 of the per-file pass
    .venv/bin/python bench/throughput.py --repeat 3       # each command 3 times, the fastest shown

A folder of prompt files is generated (seeded: the same files on every run) in a temporary
directory: Jinja (.j2), Mustache/Handlebars (.mustache/.hbs), ``str.format`` (.fmt), ``${}``
(.tmpl), Markdown with placeholders (.md) and request bodies (.json), a few of them with 500+
volatile slots, plus the realistic extremes: a 1 MB prompt with a clock every 2 KB, a file of
2,000 volatile slots, loops nested 20 deep, and a 5 MB template (a config beside the folder
raises ``max-file-size`` so that it is read).

Printed, each in fresh processes: the floor (read every file and tokenise it once with
tiktoken's o200k_base, loaded by tiktoken itself), ``promptlint check --no-cache -j 1`` and
``-j 2`` with the text report, the same with ``--format json`` (which also plans each
finding's fix, to say whether it is fixable) and ``--format sarif`` (which also proves the
fix of each fixable file, to offer it), and, when Tryaii's cachelint is installed in
the peers venv (see bench/peers.py), cachelint over the files it accepts (all but the
request bodies) with ``promptlint check -j 1`` on those same files next to it. Each line
gives wall time, files/s, MB/s, the ratio to the floor (for each ``check`` line, to the
floor runs made alternately with its own, shown beside it) and the peak RSS of the largest
process (``getrusage(RUSAGE_CHILDREN)`` of a wrapper around the run). Then where the time
of a text-report run goes at each ``--jobs`` (imports, the folder walk, the encoding, the
files, the rules over several files, the report), and how much less time the files take
in N processes than in one, next to the whole run and the most it could gain (Amdahl's
bound: the rest of a -j 1 run is serial, and bounds how a run scales). Then the slowest
single files, timed one by one in one process (encoding loaded).
The package is byte-compiled first, as pip compiles an installed one (see
bench/installed.py). Figures, not assertions: it exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from installed import byte_compiled, describe, promptlint_command, python_command  # noqa: E402
import peers  # noqa: E402

REPO_ROOT = Path(__file__).resolve().parent.parent
SEED = 13

_WORDS = (
    "the agent reads every file before it edits it and keeps the diff small while it explains "
    "each step to the user in plain words tests must pass before a change is reported done "
    "never guess a path ask when the request is ambiguous prefer the project's own scripts "
    "summaries stay short and cite the lines they rely on refunds follow the written policy "
    "orders ship within five business days escalate billing disputes to a human colleague"
).split()
# (name, volatile?) placeholders; the volatile ones are what the rules look for.
_VOLATILE = ("current_date", "now", "user_name", "session_id", "cwd", "git_status", "retrieved_docs",
             "user_memory", "request_id", "current_time")
_STABLE = ("agent_name", "product_name", "support_email", "company", "tone", "language")


def _prose(rng: random.Random, chars: int) -> str:
    """Paragraphs, headings and bullet lists of about ``chars`` characters."""
    out: list[str] = []
    size = 0
    while size < chars:
        kind = rng.random()
        if kind < 0.1:
            piece = f"## {' '.join(rng.choices(_WORDS, k=3)).capitalize()}\n\n"
        elif kind < 0.4:
            piece = "".join(f"- {' '.join(rng.choices(_WORDS, k=rng.randint(6, 14)))}.\n"
                            for _ in range(rng.randint(2, 5))) + "\n"
        else:
            sentences = (" ".join(rng.choices(_WORDS, k=rng.randint(8, 18))).capitalize() + "."
                         for _ in range(rng.randint(2, 5)))
            piece = " ".join(sentences) + "\n\n"
        out.append(piece)
        size += len(piece)
    return "".join(out)


def _slot(syntax: str, name: str) -> str:
    return {"j2": "{{ %s }}", "mustache": "{{%s}}", "hbs": "{{%s}}", "fmt": "{%s}", "tmpl": "${%s}",
            "md": "{{%s}}"}[syntax] % name


def _template(rng: random.Random, syntax: str, chars: int, slots: int) -> str:
    """Prose with ``slots`` placeholders (about a third stable), and for Jinja and Mustache a
    loop and a conditional."""
    parts = [f"You are {_slot(syntax, 'agent_name')}, an assistant for {_slot(syntax, 'product_name')}.\n\n"]
    per = max(1, chars // max(1, slots))
    for _ in range(slots):
        name = rng.choice(_STABLE) if rng.random() < 0.3 else rng.choice(_VOLATILE)
        parts.append(_prose(rng, per))
        parts.append(f"Context: {_slot(syntax, name)}\n\n")
    if syntax == "j2":
        parts.append("{% for tool in tools %}- {{ tool.name }}: {{ tool.description }}\n{% endfor %}\n"
                     "{% if user_memory %}Memory: {{ user_memory }}\n{% endif %}\n")
    elif syntax in ("mustache", "hbs"):
        parts.append("{{#tools}}- {{name}}: {{description}}\n{{/tools}}\n")
    parts.append(_prose(rng, per // 2 + 200))
    return "".join(parts)


def _request(rng: random.Random, chars: int) -> str:
    system = _prose(rng, chars) + f"Current time: 2026-11-30T14:{rng.randint(10, 59)}:27Z\n"
    tools = [{"type": "function", "function": {"name": f"tool_{i}", "description": _prose(rng, 80).strip(),
                                               "parameters": {"type": "object", "properties": {}}}}
             for i in range(rng.randint(1, 4))]
    body = {"model": "gpt-5.5", "messages": [{"role": "system", "content": system},
                                             {"role": "user", "content": "Hello."}], "tools": tools}
    return json.dumps(body, indent=2)


_SUFFIXES = ("j2", "mustache", "hbs", "fmt", "tmpl", "md", "json")


def generate(folder: Path, files: int) -> list[Path]:
    """The benchmark's prompt files in ``folder`` (deterministic for a given ``files``)."""
    rng = random.Random(SEED)
    written: list[Path] = []

    def put(name: str, text: str) -> None:
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)

    clock = ("{{ now().strftime('%H:%M:%S') }}", "Checked at {{ current_time }}.")
    put("extreme_clock_1mb.j2", "".join(_prose(rng, 2000) + rng.choice(clock) + "\n" for _ in range(512)))
    put("extreme_slots_2000.j2", "".join(f"{_prose(rng, 60)}{{{{ user.name }}}} asked about item {i}.\n"
                                         for i in range(2000)))
    nested = "".join("  " * d + f"{{% for item{d} in group{d}.items %}}\n" for d in range(20))
    nested += "  " * 20 + "{{ item19.title }} ({{ current_date }})\n"
    nested += "".join("  " * d + "{% endfor %}\n" for d in reversed(range(20)))
    put("extreme_nested_20.j2", _prose(rng, 3000) + nested + _prose(rng, 3000))
    put("extreme_5mb.j2", _template(rng, "j2", 5 * 1024 * 1024, 600))
    many = [s for s in _SUFFIXES if s != "json"]
    for i, suffix in enumerate(many):  # 500+ volatile slots each, one per syntax
        put(f"many_slots_{i}.{suffix}", _template(rng, suffix, 40_000, 520 + 10 * i))
    for i in range(max(0, files - len(written))):
        suffix = _SUFFIXES[i % len(_SUFFIXES)]
        chars = int(rng.lognormvariate(6.6, 0.6))  # median 0.7 KB before slots, a tail of tens of KB
        if suffix == "json":
            put(f"request_{i}.json", _request(rng, chars))
        else:
            put(f"prompt_{i}.{suffix}", _template(rng, suffix, chars, rng.randint(1, 12)))
    return written


_WRAPPER = r"""
import json, resource, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
wall = time.perf_counter() - start
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(json.dumps({"wall": wall, "rss_kib": rss, "rc": proc.returncode, "err": proc.stderr[-400:]}))
"""

_FLOOR_DRIVER = r"""
import sys
import tiktoken
from tiktoken.load import load_tiktoken_bpe
from tiktoken_ext import openai_public
# tiktoken's own o200k_base, its ranks read by tiktoken from the file promptlint ships.
original = openai_public.load_tiktoken_bpe
openai_public.load_tiktoken_bpe = lambda _url, expected_hash=None: load_tiktoken_bpe(sys.argv[1], expected_hash)
enc = tiktoken.Encoding(**openai_public.ENCODING_CONSTRUCTORS["o200k_base"]())
total = 0
for line in open(sys.argv[2], encoding="utf-8"):
    with open(line.rstrip("\n"), encoding="utf-8") as f:
        total += len(enc.encode_ordinary(f.read()))
print(total)
"""

# bench/peers.py's cachelint driver, over a list of files in one process (one process per
# file would time 2,000 interpreter starts).
_CACHELINT_BATCH = r"""
import sys
from tryaii.cachelint import analyze
found = 0
for line in open(sys.argv[1], encoding="utf-8"):
    text = open(line.rstrip("\n"), encoding="utf-8").read()
    result = analyze({"prompt": {"system": text}, "llm": {"provider": "anthropic", "name": "claude-sonnet-4-5"}})
    found += sum(1 for item in result.get("items", []) for f in item.get("findings", []) if f.get("section") == "system")
print(found)
"""


# Where one run's time goes: `promptlint check` run in this driver's process, with its
# phases timed by wrapping the functions that start and end them (the bench's own
# instrument: the command itself is unchanged). Seconds from the start of the driver's
# code (the interpreter's own start, `python -c pass`, is before it).
_PHASES_DRIVER = r"""
import json, sys, time
start = time.perf_counter()
from promptlint import api, cli, parallel
from promptlint.core import tokens
marks = {"imports": time.perf_counter() - start}
spans = {}

def timed(module, name, key):
    original = getattr(module, name)
    def wrapper(*args, **kwargs):
        began = time.perf_counter() - start
        try:
            return original(*args, **kwargs)
        finally:
            spans.setdefault(key, (began, time.perf_counter() - start))  # the first call's
    setattr(module, name, wrapper)

timed(api, "gather", "walk")
timed(tokens, "_build", "encoding")
timed(parallel, "prepare_fork", "fork_prep")
timed(api, "_check_project", "project")
timed(cli, "_print_report", "report")
mapped = parallel.map_in_order
def map_in_order(*args, **kwargs):
    for result in mapped(*args, **kwargs):
        yield result
    spans["pool"] = (None, time.perf_counter() - start)  # when the last result came in
parallel.map_in_order = map_in_order
out, sys.argv = sys.argv[1], ["promptlint", "check", *sys.argv[2:]]
try:
    cli.main()
except SystemExit:
    pass
marks["total"] = time.perf_counter() - start
marks.update({f"{key}_start": s for key, (s, _) in spans.items() if s is not None})
marks.update({f"{key}_end": e for key, (_, e) in spans.items()})
with open(out, "w") as handle:
    json.dump(marks, handle)
"""


# How many times each command is run (``--repeat``); the fastest run is shown, as the
# least disturbed by whatever else the machine runs.
REPEAT = 1


def measure(argv: list[str]) -> dict[str, float | int | str]:
    """Wall time and the largest child's peak RSS of the fastest of ``REPEAT`` runs, each in
    a fresh wrapper process."""
    runs = [_run_once(argv) for _ in range(REPEAT)]
    return min(runs, key=lambda run: float(run["wall"]))


def measure_beside(argv: list[str], floor_argv: list[str]) -> tuple[dict[str, float | int | str], float]:
    """:func:`measure` of ``argv``, with the floor run just before each of its runs: the
    fastest run of each. A ratio of the two is not thrown off by the machine's speed
    drifting between a floor measured once and a command measured minutes later (seen
    here: a quarter)."""
    runs: list[dict[str, float | int | str]] = []
    floors: list[float] = []
    for _ in range(REPEAT):
        floors.append(float(_run_once(floor_argv)["wall"]))
        runs.append(_run_once(argv))
    return min(runs, key=lambda run: float(run["wall"])), min(floors)


def _run_once(argv: list[str]) -> dict[str, float | int | str]:
    proc = subprocess.run([sys.executable, "-c", _WRAPPER, *argv], capture_output=True, text=True, check=True)
    result: dict[str, float | int | str] = json.loads(proc.stdout)
    return result


def phases(argv: list[str], root: Path) -> dict[str, float]:
    """One run's phases (see ``_PHASES_DRIVER``), from the fastest of ``REPEAT`` runs."""
    found = []
    for number in range(REPEAT):
        out = root / f"phases-{number}.json"
        subprocess.run([*python_command(), "-c", _PHASES_DRIVER, str(out), *argv], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False)
        found.append(json.loads(out.read_text(encoding="utf-8")))
    return min(found, key=lambda marks: marks["total"])


def phase_lines(by_jobs: dict[int, dict[str, float]]) -> list[str]:
    """Where the time goes at each job count, and how the per-file phase scales: the part
    of a run that more processes can share, and the part they cannot (the serial rest)."""
    lines = []
    files_phase: dict[int, float] = {}
    for jobs, m in by_jobs.items():
        walk = m["walk_end"] - m["walk_start"]
        report = m["report_end"] - m["report_start"]
        project = m["project_end"] - m["project_start"]
        encoding = m.get("encoding_end", 0.0) - m.get("encoding_start", 0.0)
        parts = [f"imports {m['imports']:.2f}", f"folder walk {walk:.2f}"]
        if "pool_end" in m:  # the files went to worker processes
            prep = m["fork_prep_end"] - m["fork_prep_start"]
            files = m["pool_end"] - m["fork_prep_end"]
            parts += [f"before the fork {prep:.2f} (the encoding {encoding:.2f}, the rules, the Jinja lexer)",
                      f"the files, in {jobs} processes {files:.2f}"]
        else:
            files = m["project_start"] - m["walk_end"] - encoding
            parts += [f"the encoding {encoding:.2f}", f"the files {files:.2f}"]
        files_phase[jobs] = files
        parts += [f"rules over several files {project:.2f}", f"report {report:.2f}"]
        lines.append(f"  -j {jobs}: " + " | ".join(parts) + f" | total {m['total']:.2f} s "
                     f"(serial, outside the files: {m['total'] - files:.2f} s)")
    one = files_phase.get(1)
    for jobs, files in files_phase.items():
        if one is not None and jobs > 1:
            total = by_jobs[1]["total"]
            whole = total / by_jobs[jobs]["total"]
            # Amdahl's bound: were the files shared out perfectly and nothing added to the
            # serial part of -j 1 (the imports, the encoding, the report), the run would be
            # this much faster; each process that tokenises needs the encoding built once.
            bound = total / (total - one + one / jobs)
            lines.append(f"  -j {jobs}: the files take {one / files:.2f}x less time than at -j 1, the whole run "
                         f"{whole:.2f}x (at best {bound:.2f}x with the serial {total - one:.2f} s of -j 1)")
    return lines


def _line(label: str, run: dict[str, float | int | str], files: int, mb: float, floor: float | None) -> str:
    wall = float(run["wall"])
    ratio = f"{wall / floor:5.2f}x floor" if floor else "   (floor)  "
    return (f"{label:40} {wall:7.2f} s  {files / wall:7.1f} files/s  {mb / wall:6.2f} MB/s  {ratio}  "
            f"peak RSS {int(run['rss_kib']) / 1024:6.0f} MiB")


def slowest_files(paths: list[Path], config: Path, top: int, profile: int) -> list[tuple[float, Path]]:
    """Each file checked alone in this process (the encoding loaded first), slowest first."""
    from promptlint.api import check_paths
    from promptlint.core import tokens

    tokens.get_encoding("o200k_base")
    timed: list[tuple[float, Path]] = []
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    for path in paths:
        start = time.perf_counter()
        # As `promptlint check` with the text report: findings are not planned as fixes.
        check_paths([str(path)], config_file=str(config), jobs=1, plan_fixes=False)
        timed.append((time.perf_counter() - start, path))
    if profiler is not None:
        import pstats

        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(profile)
    return sorted(timed, reverse=True)[:top]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--top", type=int, default=5, help="how many of the slowest files to show")
    parser.add_argument("--profile", type=int, default=0, metavar="N",
                        help="print cProfile's top N functions of the per-file pass")
    parser.add_argument("--keep", action="store_true", help="leave the generated folder in place")
    parser.add_argument("--repeat", type=int, default=1, metavar="N",
                        help="run each command N times and show the fastest (a busy machine varies by a quarter)")
    args = parser.parse_args()
    global REPEAT
    REPEAT = max(1, args.repeat)
    root = Path(tempfile.mkdtemp(prefix="promptlint-throughput-"))
    try:
        folder = root / "prompts"
        folder.mkdir()
        paths = generate(folder, args.files)
        # Beside the folder, not in it: named with --config, it raises the size limit for the 5 MB file.
        config = root / "config" / "promptlint.toml"
        config.parent.mkdir()
        config.write_text('max-file-size = "8MB"\n', encoding="utf-8")
        listing = root / "files.txt"
        listing.write_text("".join(f"{p}\n" for p in paths), encoding="utf-8")
        mb = sum(p.stat().st_size for p in paths) / 1e6
        print(f"{describe(REPO_ROOT)}; {byte_compiled()}")
        print(f"{len(paths):,} files, {mb:.1f} MB in {folder} (seed {SEED})")
        bpe = REPO_ROOT / "promptlint" / "data" / "o200k_base.tiktoken"
        floor_argv = [*python_command(), "-c", _FLOOR_DRIVER, str(bpe), str(listing)]
        floor_run = measure(floor_argv)
        floor = float(floor_run["wall"])
        print(_line("floor: tiktoken read + tokenise", floor_run, len(paths), mb, None))
        # The text report (what `promptlint check` prints); JSON, which also plans each
        # finding's fix to say whether it is fixable; SARIF, which also proves each fixable
        # file's fix, to offer it (what code scanning uploads).
        for output, label in (("text", ""), ("json", " --format json"), ("sarif", " --format sarif")):
            for jobs in args.jobs:
                argv = [*promptlint_command(), "check", "--no-cache", "--format", output,
                        "--config", str(config), "-j", str(jobs), str(folder)]
                run, beside = measure_beside(argv, floor_argv)
                if int(run["rc"]) not in (0, 1):
                    print(f"promptlint check{label} -j {jobs} failed (exit {run['rc']}): {run['err']}")
                    continue
                print(_line(f"promptlint check{label} -j {jobs}", run, len(paths), mb, beside)
                      + f"  (floor beside it {beside:.2f} s)")
        print("where the time goes (seconds, text report; the interpreter's own start is before it):")
        by_jobs = {jobs: phases(["--no-cache", "--config", str(config), "-j", str(jobs), str(folder)], root)
                   for jobs in args.jobs}
        for line in phase_lines(by_jobs):
            print(line)
        venv_dir = peers.peers_venv()
        if "cachelint" in peers.installed_peers(venv_dir):
            accepted = [p for p in paths if peers.peer_accepts("cachelint", p)]
            peer_list = root / "cachelint-files.txt"
            peer_list.write_text("".join(f"{p}\n" for p in accepted), encoding="utf-8")
            peer_mb = sum(p.stat().st_size for p in accepted) / 1e6
            run = measure([str(peers._python(venv_dir)), "-c", _CACHELINT_BATCH, str(peer_list)])
            label = f"Tryaii cachelint ({len(accepted):,} non-JSON)"
            print(_line(label, run, len(accepted), peer_mb, floor) if int(run["rc"]) == 0
                  else f"{label}: failed (exit {run['rc']}): {run['err']}")
            # The same files, named on the command line (cachelint reads no request body).
            run = measure([*promptlint_command(), "check", "--no-cache", "--config", str(config), "-j", "1",
                           *map(str, accepted)])
            label = f"promptlint check -j 1 (the same {len(accepted):,})"
            print(_line(label, run, len(accepted), peer_mb, floor) if int(run["rc"]) in (0, 1)
                  else f"{label}: failed (exit {run['rc']}): {run['err']}")
        else:
            print(f"Tryaii cachelint: not installed in {venv_dir} (pip install 'tryaii[cachelint]==0.8.3' there)")
        print("slowest files, each checked alone (one process, encoding loaded):")
        for seconds, path in slowest_files(paths, config, args.top, args.profile):
            print(f"  {seconds:7.3f} s  {path.name}  ({path.stat().st_size / 1e3:,.0f} KB)")
    finally:
        if args.keep:
            print(f"kept {root}")
        else:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
