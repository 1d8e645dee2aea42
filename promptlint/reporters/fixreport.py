"""Terminal output of ``promptlint fix``: per file, what moved, the stable prefix before
and after, what could not be fixed and why, and the diff on request."""

from __future__ import annotations

from promptlint.core.findings import Report, one_line
from promptlint.fix import FixReport, FixResult
from promptlint.reporters.text import Console, Text, emit, plain_output

# The one step that ends what a safe fix leaves: said after every fix that moved something.
LAST_STEP = (
    "send each value in the latest user message instead of the system prompt, or let only errors "
    "fail: `promptlint check --fail-on error` (pre-commit: `args: [--fail-on, error]`)"
)
TAIL_NOTE = (
    "note: what moved is at the end of the prompt now. A value that changes on every request is "
    "still a warning there, by design: the chat history sent after the system prompt is re-billed "
    "on every call. To end it, " + LAST_STEP + "."
)


def _share(stable: int, total: int) -> str:
    return f"{stable / total:.0%}" if total else "n/a"


def prefix_line(result: FixResult) -> str:
    """``stable prefix 21 → 448 of 470 tokens (4% → 95%)``."""
    before = _share(result.stable_before, result.tokens_before)
    after = _share(result.stable_after, result.tokens_after)
    return (
        f"stable prefix {result.stable_before:,} → {result.stable_after:,} of {result.tokens_after:,} tokens "
        f"({before} → {after})"
    )


def _visible(line: str) -> str:
    """A diff line for a terminal: its control characters (a template's escape sequences)
    written as escapes (``\\x1b``); its tabs and line end (``\\n``, ``\\r\\n``) kept."""
    body = line.removesuffix("\n").removesuffix("\r")
    if all(c.isprintable() or c == "\t" for c in body):
        return line
    return "".join(c if c.isprintable() or c == "\t" else one_line(c) for c in body) + line[len(body):]


def _diff(diff: str, plain: bool) -> Text:
    """The diff, coloured for a terminal. Without colour (a pipe, a file) its lines are written
    as they are, so that ``git apply`` takes it; on a terminal a template's control characters
    are shown as escapes, not run."""
    out = Text()
    lines = diff.split("\n")
    for line in [f"{line}\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else []):
        style = ""
        if line.startswith(("+++", "---")):
            style = "bold"
        elif line.startswith("+"):
            style = "green"
        elif line.startswith("-"):
            style = "red"
        elif line.startswith("@@"):
            style = "cyan"
        out.append(line if plain else _visible(line), style=style)
    return out


def _file(result: FixResult, console: Console, show_diff: bool, write: bool) -> None:
    head = Text(f"{one_line(result.path)}: ", style="bold")
    if result.error:
        head.append("error: ", style="bold red")
        head.append(one_line(result.error))
        emit(console, head)
        return
    if result.written:
        head.append("fixed", style="bold green")
    elif result.changed:
        head.append("would fix" if not write else "not written", style="bold yellow")
    elif result.problems:
        head.append("not fixed", style="bold red")
    else:
        # Values it leaves say why, below; "nothing to move" only when there are none.
        head.append("nothing moved" if result.not_fixable else "nothing to move", style="dim")
    head.append(f"; {prefix_line(result)}" if result.changed else
                f"; stable prefix {result.stable_before:,} of {result.tokens_before:,} tokens "
                f"({_share(result.stable_before, result.tokens_before)})")
    emit(console, head)
    if result.cost_before is not None and result.cost_after is not None:
        emit(console, Text(
            f"    ${result.cost_before:,.2f} → ${result.cost_after:,.2f} per 1,000 calls ({result.cost_basis})",
            style="cyan",
        ))
    for line in result.moved:
        emit(console, Text("    moved ", style="green") + Text(one_line(line)))
    for line in result.rewritten:
        emit(console, Text("    rewrote ", style="yellow") + Text(one_line(line)))
    for line in result.not_fixable:
        emit(console, Text("    ") + Text(one_line(line), style="dim"))
    for line in result.problems:
        emit(console, Text("    not written: ", style="bold red") + Text(one_line(line)))
    if result.write_error:
        emit(console, Text("    error: ", style="bold red") + Text(one_line(result.write_error)))
    diff = result.diff if show_diff else ""
    if diff:
        emit(console, _diff(diff, plain_output(console)), end="")


def moved_something(report: FixReport) -> bool:
    """Whether the fix moved a value to the end of a prompt. An ``[assembly] order``
    rewrite (its result is the .toml config) moves whole files last, where PC106 has
    nothing left to report: it leaves no warning behind."""
    return any(r.moved and (r.written or r.changed) and not r.path.endswith(".toml") for r in report.files)


def remaining_note(check: Report) -> str | None:
    """After ``check --fix``: what is left, why, and the one step that ends it; None when
    nothing below an error fails the run (nothing left, or errors the fix could not move)."""
    if check.exit_code() != 1 or check.exit_code("error") != 0:
        return None
    left = [f for f in check.findings if f.severity == "warning"]
    where = ", ".join(f"{f.path}:{f.line} {f.rule}" for f in left[:4]) + (" …" if len(left) > 4 else "")
    return (
        f"{len(left)} warning(s) remain after the fix ({where}): the values are at the end of the "
        "prompt now, where a value that changes on every request is still a warning, by design (the "
        "chat history sent after the system prompt is re-billed on every call). To end them, "
        + LAST_STEP + "."
    )


def render(
    report: FixReport, console: Console, *, show_diff: bool = False, write: bool = True, tail_note: bool = True
) -> None:
    """Print one block per file and a summary line (and, when something moved and
    ``tail_note``, what the move leaves and how to end it)."""
    for message in report.errors:
        emit(console, Text("error: ", style="bold red") + Text(message))
    for message in report.warnings:
        emit(console, Text("warning: ", style="bold yellow") + Text(one_line(message)))
    for result in report.files:
        _file(result, console, show_diff, write)
    fixed = sum(1 for r in report.files if r.written)
    would = sum(1 for r in report.files if r.changed and not r.written)
    refused = sum(1 for r in report.files if r.problems)
    failed = sum(1 for r in report.files if r.error) + len(report.errors)
    unwritten = sum(1 for r in report.files if r.write_error)
    tail = Text(f"{len(report.files)} file(s): {fixed} fixed")
    if would:
        tail.append(f", {would} would change", style="yellow")
    if refused:
        tail.append(f", {refused} not fixed (proof failed or file changed)", style="bold red")
    if unwritten:
        tail.append(f", {unwritten} could not be written", style="bold red")
    if failed:
        tail.append(f", {failed} could not be read", style="bold red")
    emit(console, tail)
    if tail_note and moved_something(report):
        emit(console, Text(TAIL_NOTE, style="yellow"))


def exit_code(report: FixReport, *, check: bool = False) -> int:
    """2: the run failed (a file could not be read, or a proved fix written); 1: a proof
    failed or a file changed while it was fixed, or (``check``, also ``--diff``) a fix would
    change a file; else 0."""
    if report.failed:
        return 2
    if any(r.problems for r in report.files):
        return 1
    if check and any(r.changed for r in report.files):
        return 1
    return 0
