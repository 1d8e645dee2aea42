"""What checking a source tree for prompts built in code costs, next to only reading and
parsing the same files with the same parsers (``ast`` for Python, tree-sitter for
TypeScript).

Run from the repository root:

    .venv/bin/python bench/code_throughput.py             # 2,000 files, 5 % of them prompt builders
    .venv/bin/python bench/code_throughput.py --files 500 --builders 0.1

A folder of generated source files is written to a temporary directory: ordinary modules
(classes, loops, logging with timestamps; one in eight mentions ``system`` or ``prompt`` in
passing, so it passes the byte sniff and is parsed) and, among them, prompt builders copied
from the labelled corpus. Printed: the baseline (read every file, parse it), promptlint's
``check_paths`` over the folder (walk, sniff, parse, evaluate, analyse, rules; one process,
no result cache), and the ratio. Figures, not assertions: it exits 0 whatever they are.
"""

from __future__ import annotations

import argparse
import ast
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))

CORPUS = REPO_ROOT / "fixtures" / "corpus" / "code"

_PY_MODULE = '''"""{title} helpers for the {area} service."""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime

log = logging.getLogger(__name__)


@dataclass
class {cls}:
    name: str
    size: int = 0
    tags: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return f"{{self.name}} ({{self.size}} items, tags: {{', '.join(sorted(self.tags))}})"

    def grow(self, by: int) -> None:
        log.info("growing %s at %s", self.name, datetime.now().isoformat())
        self.size += by


def {fn}(items: list[{cls}], limit: int = {limit}) -> list[str]:
    out = []
    for item in items[:limit]:
        if item.size > {threshold}:
            out.append(item.describe())
        else:
            out.append(f"small: {{item.name}}")
    return out


def summarise_{area}(items: list[{cls}]) -> dict[str, int]:
    totals: dict[str, int] = {{}}
    for item in items:
        for tag in item.tags:
            totals[tag] = totals.get(tag, 0) + item.size
    return dict(sorted(totals.items()))
{extra}
'''
_PY_EXTRA = [
    "\n\ndef restart() -> None:\n    import os\n    os.system('systemctl restart {area}')\n",
    "\n\ndef ask_user() -> str:\n    return input('prompt> ')\n",
]
_TS_MODULE = '''// {title} helpers for the {area} service.
export interface {cls} {{
  name: string;
  size: number;
  tags: string[];
}}

export function describe(item: {cls}): string {{
  return `${{item.name}} (${{item.size}} items, tags: ${{[...item.tags].sort().join(", ")}})`;
}}

export function {fn}(items: {cls}[], limit = {limit}): string[] {{
  const out: string[] = [];
  for (const item of items.slice(0, limit)) {{
    if (item.size > {threshold}) {{
      out.push(describe(item));
    }} else {{
      out.push(`small: ${{item.name}}`);
    }}
  }}
  console.log(`described ${{out.length}} at ${{new Date().toISOString()}}`);
  return out;
}}

export function summarise(items: {cls}[]): Record<string, number> {{
  const totals: Record<string, number> = {{}};
  for (const item of items) {{
    for (const tag of item.tags) {{
      totals[tag] = (totals[tag] ?? 0) + item.size;
    }}
  }}
  return totals;
}}
{extra}
'''
_TS_EXTRA = [
    "\nexport const isSystemTag = (tag: string) => tag.startsWith('system:');\n",
    "\nexport const promptUser = (q: string) => window.prompt(q);\n",
]
_AREAS = ["billing", "search", "auth", "inventory", "shipping", "reports", "chat", "media"]


def generate(folder: Path, count: int, builder_share: float, seed: int = 14) -> tuple[int, int]:
    """Write ``count`` source files under ``folder``; returns (files, prompt builders)."""
    rng = random.Random(seed)
    builders = sorted(p for p in CORPUS.rglob("*") if p.suffix in (".py", ".ts"))
    n_builders = int(count * builder_share)
    for i in range(count):
        language = "py" if i % 2 == 0 else "ts"
        sub = folder / f"pkg{i % 40:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        if i < n_builders:
            source = builders[i % len(builders)]
            (sub / f"builder_{i}{source.suffix}").write_text(source.read_text())
            continue
        area = rng.choice(_AREAS)
        values = {"title": area.title(), "area": area, "cls": f"{area.title()}Item{i}", "fn": f"collect_{i}",
                  "limit": rng.randint(5, 50), "threshold": rng.randint(1, 20)}
        mentions = i % 8 == 1
        if language == "py":
            extra = _PY_EXTRA[i % 2].format(**values) if mentions else ""
            text = _PY_MODULE.format(extra=extra, **values)
        else:
            extra = _TS_EXTRA[i % 2] if mentions else ""
            text = _TS_MODULE.format(extra=extra, **values)
        (sub / f"module_{i}.{language}").write_text(text)
    return count, n_builders


def baseline(folder: Path) -> float:
    """Read and parse every file with the parser promptlint uses for it."""
    from promptlint.loaders.code.typescript import parse

    started = time.perf_counter()
    for path in sorted(folder.rglob("*")):
        if path.suffix == ".py":
            ast.parse(path.read_bytes().decode("utf-8"))
        elif path.suffix == ".ts":
            parse(path.read_bytes().decode("utf-8"), "typescript")
    return time.perf_counter() - started


def promptlint_run(folder: Path) -> tuple[float, int, int]:
    from promptlint.api import check_paths

    started = time.perf_counter()
    report = check_paths([str(folder)], cache=None, jobs=1)
    return time.perf_counter() - started, len(report.files), len(report.findings)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--builders", type=float, default=0.05, help="share of files that build a prompt")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="promptlint-throughput-") as tmp:
        folder = Path(tmp) / "src"
        files, builders = generate(folder, args.files, args.builders)
        size = sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
        print(f"{files:,} source files ({size / 1e6:.1f} MB): {builders} prompt builders, "
              f"the rest ordinary modules (1 in 8 of them mentions `system` or `prompt`)")
        base_times, lint_times = [], []
        checked = findings = 0
        for _ in range(args.repeat):
            base_times.append(baseline(folder))
            elapsed, checked, findings = promptlint_run(folder)
            lint_times.append(elapsed)
        base, lint = statistics.median(base_times), statistics.median(lint_times)
        print(f"  read + parse every file (ast / tree-sitter): {base:6.2f} s  (median of {args.repeat})")
        print(f"  promptlint check, one process, no cache:     {lint:6.2f} s  (median; first run "
              f"{lint_times[0]:.2f} s with the tokenizer load)  {checked} file(s) reported, {findings} finding(s)")
        print(f"  ratio: {lint / base:.2f}x the cost of reading and parsing them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
