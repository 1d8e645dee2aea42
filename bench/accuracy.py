"""Accuracy of promptlint (and of peer linters) on the labelled prompt corpus.

Run from the repository root:

    .venv/bin/python bench/accuracy.py               # promptlint + installed peers
    .venv/bin/python bench/accuracy.py --no-peers    # promptlint only
    .venv/bin/python bench/accuracy.py --corpus fixtures/agents --labels fixtures/agents/expected.yaml

Labels: ``<corpus>/labels.yaml`` maps each file (relative to the corpus folder) to a list of
``{line, kind, severity}``; ``[]`` marks a quiet file (no finding expected). The corpus holds
templates and prompt builders in code (``code/python``, ``code/typescript``); the figures are
also printed per language.

Matching: a reported finding matches a label when it is in the same file on the same line.
On a line with several labels and several findings, same-kind pairs are made first, then the
rest in order. Kind and severity are compared separately, among matched pairs. Reported
findings are first deduplicated per (file, line, kind), keeping the highest severity, so two
rules reporting the same slot count once (the raw count is printed too).

Figures, not assertions: the script exits 0 whatever the scores (2 only when it cannot run).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
# bench/ (for peers.py and installed.py), not the repository root: promptlint is scored
# as installed (an editable install maps the checkout), never a source folder that
# shadows the installed package.
sys.path.insert(0, str(Path(__file__).resolve().parent))

SEVERITY_RANK = {"info": 0, "warning": 1, "error": 2}
NO_KIND = "-"


# --------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Label:
    path: str  # relative to the corpus folder
    line: int
    kind: str
    severity: str


@dataclass(frozen=True)
class Reported:
    path: str  # relative to the corpus folder
    line: int
    kind: str | None = None
    severity: str = "warning"
    rule: str | None = None


@dataclass
class Score:
    files: int = 0
    labels: int = 0
    reported: int = 0
    reported_raw: int = 0
    matched: int = 0
    kind_correct: int = 0
    severity_correct: int = 0
    quiet_files: int = 0
    quiet_fp: int = 0
    quiet_fp_error: int = 0
    quiet_fp_warning: int = 0
    quiet_files_flagged: int = 0
    pairs: list[tuple[Label, Reported]] = field(default_factory=list)
    missed: list[Label] = field(default_factory=list)
    false_positives: list[Reported] = field(default_factory=list)

    @property
    def recall(self) -> float | None:
        return self.matched / self.labels if self.labels else None

    @property
    def precision(self) -> float | None:
        return self.matched / self.reported if self.reported else None

    @property
    def kind_rate(self) -> float | None:
        return self.kind_correct / self.matched if self.matched else None

    @property
    def severity_rate(self) -> float | None:
        return self.severity_correct / self.matched if self.matched else None


# --------------------------------------------------------------------------- labels


def _parse_labels_fallback(text: str) -> dict[str, list[dict[str, object]]]:
    """The labels format without PyYAML: ``path: []`` or ``path:`` + ``- {k: v, ...}`` lines."""
    out: dict[str, list[dict[str, object]]] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.split(" #", 1)[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line.strip():
            continue
        if not raw.startswith(" "):
            key, _, rest = line.partition(":")
            current = key.strip().strip("'\"")
            out[current] = []
            if rest.strip() not in ("", "[]"):
                raise ValueError(f"cannot parse labels line: {raw!r}")
            continue
        item = line.strip()
        if current is None or not item.startswith("- {") or not item.endswith("}"):
            raise ValueError(f"cannot parse labels line: {raw!r}")
        entry: dict[str, object] = {}
        for part in item[3:-1].split(","):
            k, _, v = part.partition(":")
            v = v.strip().strip("'\"")
            entry[k.strip()] = int(v) if v.isdigit() else v
        out[current].append(entry)
    return out


def load_labels(path: Path) -> dict[str, list[Label]]:
    text = path.read_text(encoding="utf-8")
    try:
        import yaml  # type: ignore[import-untyped]

        data = yaml.safe_load(text) or {}
    except ImportError:
        data = _parse_labels_fallback(text)
    out: dict[str, list[Label]] = {}
    for rel, entries in data.items():
        out[str(rel)] = [
            Label(str(rel), int(e["line"]), str(e["kind"]), str(e["severity"]))
            for e in (entries or [])
        ]
    return out


# --------------------------------------------------------------------------- scoring


def dedupe(reported: Iterable[Reported]) -> list[Reported]:
    """One finding per (file, line, kind), keeping the highest severity."""
    best: dict[tuple[str, int, str | None], Reported] = {}
    for r in reported:
        key = (r.path, r.line, r.kind)
        old = best.get(key)
        if old is None or SEVERITY_RANK.get(r.severity, 0) > SEVERITY_RANK.get(old.severity, 0):
            best[key] = r
    return sorted(best.values(), key=lambda r: (r.path, r.line, r.kind or ""))


def match(
    labels: Sequence[Label], reported: Sequence[Reported]
) -> tuple[list[tuple[Label, Reported]], list[Label], list[Reported]]:
    """Pair labels and findings on the same (file, line); same kind first."""
    by_line_l: dict[tuple[str, int], list[Label]] = defaultdict(list)
    by_line_r: dict[tuple[str, int], list[Reported]] = defaultdict(list)
    for lab in labels:
        by_line_l[(lab.path, lab.line)].append(lab)
    for rep in reported:
        by_line_r[(rep.path, rep.line)].append(rep)
    pairs: list[tuple[Label, Reported]] = []
    missed: list[Label] = []
    extra: list[Reported] = []
    for key in sorted(set(by_line_l) | set(by_line_r)):
        ls = list(by_line_l.get(key, []))
        rs = list(by_line_r.get(key, []))
        for lab in list(ls):
            same = next((r for r in rs if r.kind == lab.kind), None)
            if same is not None:
                pairs.append((lab, same))
                ls.remove(lab)
                rs.remove(same)
        while ls and rs:
            pairs.append((ls.pop(0), rs.pop(0)))
        missed.extend(ls)
        extra.extend(rs)
    return pairs, missed, extra


def score(
    labels: dict[str, list[Label]],
    reported: Sequence[Reported],
    files: Iterable[str] | None = None,
) -> Score:
    """Score findings against labels, over ``files`` (default: every labelled file)."""
    scope = set(labels) if files is None else set(files)
    labs = [lab for rel in sorted(scope) for lab in labels.get(rel, [])]
    raw = [r for r in reported if r.path in scope]
    reps = dedupe(raw)
    pairs, missed, extra = match(labs, reps)
    quiet = {rel for rel in scope if not labels.get(rel)}
    quiet_fp = [r for r in reps if r.path in quiet]
    return Score(
        files=len(scope),
        labels=len(labs),
        reported=len(reps),
        reported_raw=len(raw),
        matched=len(pairs),
        kind_correct=sum(1 for lab, rep in pairs if rep.kind == lab.kind),
        severity_correct=sum(1 for lab, rep in pairs if rep.severity == lab.severity),
        quiet_files=len(quiet),
        quiet_fp=len(quiet_fp),
        quiet_fp_error=sum(1 for r in quiet_fp if r.severity == "error"),
        quiet_fp_warning=sum(1 for r in quiet_fp if r.severity == "warning"),
        quiet_files_flagged=len({r.path for r in quiet_fp}),
        pairs=pairs,
        missed=missed,
        false_positives=extra,
    )


def confusion(pairs: Sequence[tuple[Label, Reported]], attr: str) -> dict[str, Counter[str]]:
    """Expected value (row) against reported value (column) among matched pairs."""
    table: dict[str, Counter[str]] = defaultdict(Counter)
    for lab, rep in pairs:
        table[getattr(lab, attr)][getattr(rep, attr) or NO_KIND] += 1
    return table


# --------------------------------------------------------------------------- printing


def pct(x: float | None) -> str:
    return "   n/a" if x is None else f"{100 * x:5.1f}%"


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    for n, row in enumerate(cells):
        print("  " + "  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))))
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


def print_confusion(title: str, table: dict[str, Counter[str]]) -> None:
    print(f"\n{title} (rows: expected, columns: reported; matched findings only)")
    if not table:
        print("  (no matched findings)")
        return
    cols = sorted({c for row in table.values() for c in row})
    rows = []
    for exp in sorted(table):
        rows.append([exp, *(table[exp].get(c, 0) or "." for c in cols), sum(table[exp].values())])
    print_table(["expected \\ reported", *cols, "total"], rows)


def score_row(name: str, s: Score, with_kind: bool) -> list[object]:
    return [
        name, s.files, s.labels, s.reported, s.matched, pct(s.recall), pct(s.precision),
        pct(s.kind_rate) if with_kind else "   n/a",
        pct(s.severity_rate),
        f"{s.quiet_fp} ({s.quiet_files_flagged}/{s.quiet_files} files)", s.quiet_fp_error,
        s.quiet_fp_warning,
    ]


SCORE_HEADERS = ["tool", "files", "labels", "reported", "matched", "recall", "precision",
                 "kind ok", "sev ok", "FP on quiet", "error FP on quiet", "warning FP on quiet"]

SYNTAX_HEADERS = ["syntax (as promptlint reads it)", "tool", "files", "labels", "matched", "recall",
                  "kind ok", "sev ok", "quiet files", "errors on quiet", "warnings on quiet"]


def syntax_groups(files: Sequence[str], syntaxes: dict[str, str]) -> dict[str, list[str]]:
    """Corpus files by the syntax promptlint reads them as (`?` where it could not read one)."""
    groups: dict[str, list[str]] = defaultdict(list)
    for rel in files:
        groups[syntaxes.get(rel) or "?"].append(rel)
    return dict(sorted(groups.items()))


def group_label(syntax: str, files: Sequence[str]) -> str:
    """``mustache (.hbs 3, .md 2)``: the syntax and the extensions of its files."""
    exts = Counter(Path(rel).suffix or "(none)" for rel in files)
    return f"{syntax} ({', '.join(f'{ext} {n}' for ext, n in sorted(exts.items()))})"


def syntax_row(label: str, tool: str, s: Score, with_kind: bool) -> list[object]:
    return [label, tool, s.files, s.labels, s.matched, pct(s.recall),
            pct(s.kind_rate) if with_kind else "   n/a", pct(s.severity_rate),
            s.quiet_files, s.quiet_fp_error, s.quiet_fp_warning]


# --------------------------------------------------------------------------- running


def corpus_files(corpus: Path, labels: dict[str, list[Label]]) -> tuple[list[str], list[str]]:
    """Labelled files that exist, and files on disk that have no label (reported, not scored)."""
    on_disk = {
        p.relative_to(corpus).as_posix()
        for p in corpus.rglob("*")
        if p.is_file() and p.suffix not in (".yaml", ".yml") and not p.name.startswith(".")
    }
    missing = sorted(set(labels) - on_disk)
    if missing:
        print(f"warning: {len(missing)} labelled file(s) not found: {', '.join(missing[:5])}",
              file=sys.stderr)
    return sorted(set(labels) & on_disk), sorted(on_disk - set(labels))


def _relative(path: str, corpus: Path, by_given: dict[str, str]) -> str:
    if path in by_given:
        return by_given[path]
    try:
        return Path(path).resolve().relative_to(corpus.resolve()).as_posix()
    except ValueError:
        return path


def run_promptlint(
    corpus: Path, files: Sequence[str]
) -> tuple[list[Reported], list[str], dict[str, str]] | None:
    """promptlint's findings on the corpus (paths relative to it), per-file errors, and the
    syntax it read each file as."""
    try:
        from promptlint.api import check_paths  # type: ignore[import-not-found]
    except ImportError as exc:
        print(f"promptlint.api is not available ({exc}); skipping promptlint.", file=sys.stderr)
        return None
    from installed import describe, package_info

    print(describe(REPO_ROOT, package_info(), how="scored through promptlint.api.check_paths in this process"))
    given = [str(corpus / rel) for rel in files]
    by_given = dict(zip(given, files))
    report = check_paths(given)
    found = [
        Reported(
            path=_relative(str(f.path), corpus, by_given),
            line=int(f.line),
            kind=getattr(f, "kind", None),
            severity=str(getattr(f, "severity", "warning")),
            rule=getattr(f, "rule", None),
        )
        for f in report.findings
    ]
    errors = [
        f"{_relative(str(r.path), corpus, by_given)}: {r.error}"
        for r in getattr(report, "files", []) if getattr(r, "error", None)
    ]
    syntaxes = {_relative(str(r.path), corpus, by_given): str(r.syntax or "?") for r in report.files}
    return found, errors, syntaxes


def run_peers(corpus: Path, files: Sequence[str]) -> dict[str, tuple[list[str], list[Reported]]]:
    """For each installed peer: the files it accepted and its findings (line and severity)."""
    import peers

    if peers.ensure_peers_venv() is None:
        print("no peers venv could be created; skipping peers.", file=sys.stderr)
        return {}
    out: dict[str, tuple[list[str], list[Reported]]] = {}
    for name in peers.installed_peers():
        accepted: list[str] = []
        found: list[Reported] = []
        for rel in files:
            result = peers.peer_findings(name, corpus / rel)
            if result is None:
                continue
            accepted.append(rel)
            found.extend(Reported(rel, line, None, sev, name) for line, sev in result)
        out[name] = (accepted, found)
    return out


LANGUAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("python", (".py",)),
    ("typescript/javascript", (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")),
)


def language_of(rel: str) -> str:
    suffix = Path(rel).suffix.lower()
    return next((name for name, suffixes in LANGUAGES if suffix in suffixes), "templates")


def print_languages(
    labels: dict[str, list[Label]],
    files: Sequence[str],
    pl_found: list[Reported] | None,
    peer_results: dict[str, tuple[list[str], list[Reported]]],
) -> None:
    """Recall, kind and severity accuracy per language of the corpus (prompt builders in
    code next to templates), with each peer on the files of that language it accepts."""
    groups: dict[str, list[str]] = defaultdict(list)
    for rel in files:
        groups[language_of(rel)].append(rel)
    if set(groups) <= {"templates"}:
        return
    print("\nper language (files of each language; peers on those of them they accept)")
    rows: list[list[object]] = []
    for language in [name for name, _ in LANGUAGES] + ["templates"]:
        scope = groups.get(language)
        if not scope:
            continue
        if pl_found is not None:
            rows.append(score_row(f"{language}: promptlint", score(labels, pl_found, scope), with_kind=True))
        for name, (accepted, found) in peer_results.items():
            theirs = sorted(set(accepted) & set(scope))
            if not theirs:
                rows.append([f"{language}: {name}", 0, "-", "-", "-", "   n/a", "   n/a", "   n/a", "   n/a",
                             "accepts none of these files", "-", "-"])
                continue
            rows.append(score_row(f"{language}: {name}", score(labels, found, theirs), with_kind=False))
            if pl_found is not None and set(theirs) != set(scope):
                rows.append(score_row(f"  promptlint on {name}'s files", score(labels, pl_found, theirs),
                                      with_kind=True))
    print_table(SCORE_HEADERS, rows)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default="fixtures/corpus", help="folder of labelled prompts")
    ap.add_argument("--labels", default=None, help="labels file (default: CORPUS/labels.yaml)")
    ap.add_argument("--no-peers", action="store_true", help="do not run peer linters")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="list promptlint's misses, false positives and mismatches")
    args = ap.parse_args(argv)

    corpus = Path(args.corpus)
    if not corpus.is_absolute():
        corpus = (Path.cwd() / corpus)
    labels_path = Path(args.labels) if args.labels else corpus / "labels.yaml"
    if not labels_path.exists():
        print(f"no labels file at {labels_path}", file=sys.stderr)
        return 2
    labels = load_labels(labels_path)
    files, unlabelled = corpus_files(corpus, labels)
    if unlabelled:
        print(f"note: {len(unlabelled)} file(s) without labels are not scored: "
              f"{', '.join(unlabelled[:5])}", file=sys.stderr)
    labels = {rel: labels[rel] for rel in files}

    n_labels = sum(len(v) for v in labels.values())
    by_sev = Counter(lab.severity for v in labels.values() for lab in v)
    print(f"corpus: {corpus.relative_to(REPO_ROOT) if corpus.is_relative_to(REPO_ROOT) else corpus}"
          f" — {len(files)} files, {sum(1 for v in labels.values() if not v)} quiet, "
          f"{n_labels} labelled findings "
          f"({', '.join(f'{by_sev[s]} {s}' for s in ('error', 'warning', 'info'))})")

    rows: list[list[object]] = []
    pl = run_promptlint(corpus, files)
    pl_found: list[Reported] = []
    pl_syntaxes: dict[str, str] = {}
    main_score: Score | None = None
    if pl is not None:
        pl_found, pl_errors, pl_syntaxes = pl
        main_score = score(labels, pl_found)
        rows.append(score_row("promptlint", main_score, with_kind=True))
        if pl_errors:
            print(f"\npromptlint could not check {len(pl_errors)} file(s):")
            for e in pl_errors:
                print(f"  {e}")

    peer_results = {} if args.no_peers else run_peers(corpus, files)
    for name, (accepted, found) in peer_results.items():
        if not accepted:
            rows.append([name, 0, "-", "-", "-", "   n/a", "   n/a", "   n/a", "   n/a",
                         "accepts none of these files", "-", "-"])
            continue
        rows.append(score_row(name, score(labels, found, accepted), with_kind=False))
        if pl is not None and set(accepted) != set(files):
            rows.append(score_row(f"  promptlint on {name}'s files",
                                  score(labels, pl_found, accepted), with_kind=True))

    print()
    if rows:
        print_table(SCORE_HEADERS, rows)
        print("\n  recall = matched labels / labels; precision = matched / reported "
              "(reported deduplicated per file, line and kind);")
        print("  kind ok / sev ok = share of matched findings with the labelled kind / severity;"
              " peers report no kind.")
    else:
        print("nothing was run.")

    if pl is not None:
        groups = syntax_groups(files, pl_syntaxes)
        syntax_rows: list[list[object]] = []
        for syntax, members in groups.items():
            label = group_label(syntax, members)
            syntax_rows.append(syntax_row(label, "promptlint", score(labels, pl_found, members), True))
            for name, (accepted, found) in peer_results.items():
                mine = [rel for rel in members if rel in set(accepted)]
                if mine:
                    syntax_rows.append(syntax_row("", name, score(labels, found, mine), False))
        print("\nper syntax (peers on the files of that syntax they accept):")
        print_table(SYNTAX_HEADERS, syntax_rows)
    print_languages(labels, files, pl_found if pl is not None else None, peer_results)

    if main_score is not None:
        s = main_score
        print(f"\npromptlint: recall {pct(s.recall).strip()}, precision {pct(s.precision).strip()}, "
              f"{s.quiet_fp} false positive(s) on {s.quiet_files} quiet files "
              f"({s.quiet_fp_error} error, {s.quiet_fp_warning} warning); reported {s.reported} "
              f"({s.reported_raw} before deduplication)")
        recall_by = Counter(lab.severity for lab, _ in s.pairs)
        print("recall by labelled severity: " + ", ".join(
            f"{sev} {recall_by[sev]}/{by_sev[sev]}" for sev in ("error", "warning", "info")))
        by_kind = Counter(lab.kind for v in labels.values() for lab in v)
        got_kind = Counter(lab.kind for lab, _ in s.pairs)
        print("recall by labelled kind: " + ", ".join(
            f"{k} {got_kind[k]}/{by_kind[k]}" for k in sorted(by_kind)))
        print_confusion("kind confusion", confusion(s.pairs, "kind"))
        print_confusion("severity confusion", confusion(s.pairs, "severity"))
        if args.verbose:
            print("\nmissed labels:")
            for lab in s.missed:
                print(f"  {lab.path}:{lab.line}  {lab.kind} {lab.severity}")
            print("false positives:")
            for r in s.false_positives:
                print(f"  {r.path}:{r.line}  {r.kind} {r.severity} {r.rule or ''}")
            print("matched with a different kind or severity:")
            for lab, r in s.pairs:
                if lab.kind != r.kind or lab.severity != r.severity:
                    print(f"  {lab.path}:{lab.line}  expected {lab.kind} {lab.severity}, "
                          f"got {r.kind} {r.severity} {r.rule or ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
