"""The plain function behind ``promptlint probe``: run, print, write the report, exit code."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console

from promptlint.probe import report
from promptlint.probe.adapters import ProbeError
from promptlint.probe.prompt import PromptError, refuse_blank
from promptlint.probe.runner import Run, Settings, execute, plan

EXIT_OK, EXIT_FAILED = 0, 2


@contextmanager
def _progress(console: Console) -> Iterator[Callable[[int, int], None] | None]:
    """A progress bar on stderr while requests run (only on a terminal)."""
    if not console.is_terminal:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("probing"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=True) as bar:
        task = bar.add_task("probe", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def main(settings: Settings, *, output_format: str = "text", report_path: str | None = None,
         dry_run: bool = False, out: Console | None = None, err: Console | None = None) -> int:
    """Probe, print the report (text or JSON) and write ``report_path``; the exit code."""
    if out is None:
        out = Console(highlight=False, soft_wrap=True)
        if not out.is_terminal:  # a pipe or a file: room for the ten columns of the table
            out = Console(highlight=False, soft_wrap=True, width=132)
    err = err or Console(highlight=False, soft_wrap=True, stderr=True)
    try:
        refuse_blank("--report", report_path)
    except PromptError as exc:
        err.print(f"error: {exc}", markup=False)
        return EXIT_FAILED
    if report_path is not None and report.REPORT_FORMATS.get(_suffix(report_path)) is None:
        err.print(f"error: --report {report_path}: the extension picks the format: .md, .json or .html",
                  markup=False)
        return EXIT_FAILED
    try:
        run = plan(settings)
    except (PromptError, ProbeError) as exc:
        err.print(f"error: {_naming_a_file(settings, str(getattr(exc, 'message', exc)))}", markup=False)
        return EXIT_FAILED
    problem = _report_problem(report_path, [settings.path, settings.vars_file, settings.config_file,
                                            *run.prompt.sources]) if report_path is not None else None
    if problem is not None:
        err.print(f"error: --report {report_path}: {problem}", markup=False)
        return EXIT_FAILED
    if not dry_run:
        try:
            with _progress(err) as progress:
                execute(run, progress)
        except ProbeError as exc:  # refused before the first request: budget, key
            err.print(f"error: {exc.message}", markup=False)
            return EXIT_FAILED
    _emit(run, output_format, report_path, out, err)
    if run.error:
        err.print(f"error: {run.error}", markup=False)
        return EXIT_FAILED
    return EXIT_OK


def _naming_a_file(settings: Settings, message: str) -> str:
    """A refusal before any request, naming the file it is about: the prompt's, unless it
    names one already (``--vars FILE: …``, the config's, ``PATH '': …``)."""
    named = (settings.path, settings.vars_file, settings.config_file)
    if message.startswith(("--", "PATH ")) or any(path and message.startswith(f"{path}:") for path in named):
        return message
    return f"{settings.path}: {message}"


def _report_problem(report_path: str, inputs: list[str | None]) -> str | None:
    """Why ``--report`` cannot be written, found before a request is sent (after the run,
    the money is spent): a folder that is not there, or a file the probe reads, which the
    report would overwrite (``probe body.json --report body.json``)."""
    import os

    folder = os.path.dirname(report_path) or "."
    if not os.path.isdir(folder):
        return f"{folder} is not a folder" if os.path.exists(folder) else f"the folder {folder} does not exist"
    if not os.path.exists(report_path):
        return None
    for source in inputs:
        try:
            same = source is not None and os.path.samefile(report_path, source)
        except OSError:
            continue
        if same:
            return f"is {source}, which the probe reads; the report would overwrite it: name another file"
    return None


def _suffix(path: str) -> str:
    from pathlib import Path

    return Path(path).suffix.lower()


def _emit(run: Run, output_format: str, report_path: str | None, out: Console, err: Console) -> None:
    data = report.result(run)
    if output_format == "json":
        out.file.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        out.file.flush()
    else:
        from promptlint.reporters import probe_text

        probe_text.render(data, out)
    if report_path is not None:
        try:
            report.write(report_path, data)
        except OSError as exc:
            # One line: main prints run.error; a failed request already there keeps its own.
            failure = f"--report {report_path}: {exc.strerror or exc}"
            if run.error is None:
                run.error = failure
            else:
                err.print(f"error: {failure}", markup=False)
