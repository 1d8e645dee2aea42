"""How fast `promptlint replay` is, and how much memory it holds, on generated logs.

    .venv/bin/python bench/replay.py [--requests N] [--lines M] [--impl PATH]

Writes two logs to a temporary folder and replays each in a fresh process (figures, not
assertions): requests replayed per second (of wall time and of the process's CPU time, which a
busy machine distorts less) and peak resident memory (RSS).

* ``big``: N requests (default 10,000, about 100 MB): 200 Anthropic agent conversations of
  50 turns each (a ~1,500-token system prompt with a breakpoint, a growing history), 10 s
  between turns, conversations interleaved, the clock in the system prompt on half of them.
* ``many``: M lines (default 100,000): 5,000 shorter conversations of 20 turns.

``--impl PATH``: replay with the promptlint package found under PATH (e.g. a checkout of main),
to compare before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = "\n".join(f"Rule {i}: read the files you change before editing, and explain each command." for i in range(90))
SHORT_RULES = "\n".join(RULES.splitlines()[:12])

CHILD = """
import resource, sys, time
from promptlint import replay
path = sys.argv[1]
start, cpu = time.perf_counter(), time.process_time()
if hasattr(replay, "iter_log"):
    result = replay.replay(lambda: replay.iter_log(path))
else:
    result = replay.replay(replay.read_log(path))
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
summary = result["summary"]
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{summary['requests']} {seconds:.3f} {cpu:.3f} {rss:.0f} {summary['predicted_hit_rate']} {summary['breaks']}")
"""


def lines(total: int, turns: int, rules: str) -> Iterator[str]:
    conversations = max(1, total // turns)
    count = 0
    for turn in range(turns):
        for conversation in range(conversations):
            if count >= total:
                return
            count += 1
            clock = conversation % 2 == 0
            moment = 1_800_000_000 + turn * 10 + conversation * 10 / conversations
            system = (f"Current time: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(moment))}\n\n" if clock else "") + rules
            messages = []
            for earlier in range(turn + 1):
                messages.append({"role": "user", "content": f"Conversation {conversation}, step {earlier}: check module_{earlier}.py"})
                if earlier < turn:
                    messages.append({"role": "assistant", "content": f"module_{earlier}.py is fine."})
            body = {"model": "claude-sonnet-4-5", "max_tokens": 256,
                    "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                    "messages": messages}
            yield json.dumps({"request": body, "timestamp": moment, "routing_key": f"c{conversation}"})


def run(name: str, path: Path, impl: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(impl)}
    out = subprocess.run([sys.executable, "-c", CHILD, str(path)], env=env, cwd=impl, capture_output=True, text=True,
                         check=False)
    if out.returncode:
        print(f"{name}: failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
        return
    requests, seconds, cpu, rss, rate, breaks = out.stdout.split()
    size = path.stat().st_size / 1e6
    print(f"{name}: {int(requests):,} requests, {size:,.0f} MB: {float(seconds):.1f} s wall, {float(cpu):.1f} s CPU, "
          f"{int(requests) / float(seconds):,.0f} requests/s ({int(requests) / float(cpu):,.0f} per CPU second), "
          f"peak RSS {float(rss):,.0f} MB "
          f"(hit rate {float(rate):.1%}, {int(breaks):,} breaks)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--impl", type=Path, default=ROOT)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="promptlint-replay-bench-") as folder:
        for name, total, turns, rules in (("big", args.requests, 50, RULES), ("many", args.lines, 20, SHORT_RULES)):
            if not total:
                continue
            path = Path(folder) / f"{name}.jsonl"
            with path.open("w") as handle:
                for line in lines(total, turns, rules):
                    handle.write(line + "\n")
            run(name, path, args.impl)
            path.unlink()


if __name__ == "__main__":
    main()
