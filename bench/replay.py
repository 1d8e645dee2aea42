"""How fast `promptlint replay` is: a 10,000-request log built in memory, replayed once.

    .venv/bin/python bench/replay.py [N]

Prints requests replayed per second (figures, not assertions). The log is 200 Anthropic agent
conversations of 50 turns each (a ~1,500-token system prompt with a breakpoint, a growing
history), 10 s between turns, conversations interleaved, the clock in the system prompt on
half of them.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from promptlint import replay

RULES = "\n".join(f"Rule {i}: read the files you change before editing, and explain each command." for i in range(90))


def build(total: int, turns: int = 50) -> list[str]:
    conversations = max(1, total // turns)
    lines: list[str] = []
    for turn in range(turns):
        for conversation in range(conversations):
            if len(lines) >= total:
                break
            clock = conversation % 2 == 0
            moment = 1_800_000_000 + turn * 10 + conversation * 10 / conversations
            system = (f"Current time: {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(moment))}\n\n" if clock else "") + RULES
            messages = []
            for earlier in range(turn + 1):
                messages.append({"role": "user", "content": f"Conversation {conversation}, step {earlier}: check module_{earlier}.py"})
                if earlier < turn:
                    messages.append({"role": "assistant", "content": f"module_{earlier}.py is fine."})
            body = {"model": "claude-sonnet-4-5", "max_tokens": 256,
                    "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                    "messages": messages}
            lines.append(json.dumps({"request": body, "timestamp": moment, "routing_key": f"c{conversation}"}))
    return lines


def main() -> None:
    total = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    lines = build(total)
    start = time.perf_counter()
    entries = [replay.parse_line(line, f"<memory>:{n}") for n, line in enumerate(lines, 1)]
    parsed = time.perf_counter()
    result = replay.replay(entries)
    done = time.perf_counter()
    summary = result["summary"]
    print(f"{len(entries):,} requests, {summary['tokens']:,} tokens (≈)")
    print(f"parse + render: {parsed - start:.2f} s; tokenise + simulate + diagnose: {done - parsed:.2f} s")
    print(f"{len(entries) / (done - start):,.0f} requests replayed per second")
    print(f"predicted hit rate {summary['predicted_hit_rate']:.1%}; breaks {summary['breaks']:,}; "
          f"lost by cause {summary['tokens_lost_by_cause']}")


if __name__ == "__main__":
    main()
