"""The command line: thin wiring from click options to the engine and reporters."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import click

from promptlint.core.findings import SEVERITIES, Lines, Report, one_line
from promptlint.core.ir import SYNTAXES

if TYPE_CHECKING:
    from promptlint.fix import FixReport
    from promptlint.fix.linediff import Edit

EXIT_OK, EXIT_FINDINGS, EXIT_FAILED = 0, 1, 2


def _codes(value: str | None, option: str) -> tuple[str, ...] | None:
    """Rule codes or prefixes from ``--select``/``--ignore``; one that names no rule is an
    error (exit 2), never a silently empty run."""
    if value is None:
        return None
    from promptlint.config import unknown_rule_codes

    codes = tuple(c.strip().upper() for c in value.split(",") if c.strip())
    problem = unknown_rule_codes(codes)
    if problem:
        click.echo(f"error: {option}: {problem}", err=True)
        sys.exit(EXIT_FAILED)
    return codes


# What click raises to print the help, not an error (a bare `promptlint`; click 8.2 and later).
_HELP_INSTEAD: tuple[type[click.UsageError], ...] = tuple(
    getattr(click.exceptions, name) for name in ("NoArgsIsHelpError",) if hasattr(click.exceptions, name)
)


class _Group(click.Group):
    """Every failure of the run itself exits 2 with one line (DESIGN.md's exit codes)."""

    def main(self, args: Sequence[str] | None = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True, **extra: Any) -> Any:
        """click's own, but a mistyped command line is one line, as every other error is:
        click prints four (Usage, Try, a blank line, Error), which a hook's log or a CI
        annotation shows as four problems, the first of them a usage summary."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as exc:
            if isinstance(exc, click.UsageError) and not isinstance(exc, _HELP_INSTEAD):
                where = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
                click.echo(f"error: {' '.join(exc.format_message().split())}{where}", err=True)
            else:
                exc.show()  # its own message; for a bare `promptlint`, the help
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        # --help and --version end in click's Exit, whose code comes back here; a command
        # that returns (none of ours exits that way) succeeded.
        sys.exit(code if isinstance(code, int) else EXIT_OK)

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        # Text a stream cannot encode (a lone surrogate that a `\ud800` escape in a request body
        # put in a model name or an excerpt; any non-ASCII on an ASCII terminal) is written as
        # its escape, as stderr already does: in a JSON report that escape reads back as the
        # same string. Strict, it was a UnicodeEncodeError in whichever report quoted it.
        for stream in (sys.stdout, sys.stderr):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
        # A bug must still end in one line and exit 2, never a traceback; set
        # PROMPTLINT_DEBUG=1 to see it.
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except BrokenPipeError:
            # The reader stopped reading (`promptlint check . | head`): not a bug of ours.
            # What is still buffered for it goes nowhere, quietly.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            click.echo("promptlint: the output was closed before the report ended (broken pipe)", err=True)
            sys.exit(EXIT_FAILED)
        except Exception as exc:
            if os.environ.get("PROMPTLINT_DEBUG"):
                raise
            click.echo(f"promptlint: internal error: {type(exc).__name__}: {exc} (PROMPTLINT_DEBUG=1 shows where)", err=True)
            sys.exit(EXIT_FAILED)


def run() -> None:
    """The console script: the command line, then an exit that does not tear the
    interpreter down object by object (as mypy exits): after a large run that costs more
    than a tenth of it (0.45 s of 5 s on 2,000 files). Nothing is left to do by then:
    output is flushed here, and no exit handler of promptlint's own is registered."""
    try:
        main()
    except SystemExit as exc:
        code = exc.code
    else:
        code = EXIT_OK
    if isinstance(code, str):
        print(code, file=sys.stderr)
        code = EXIT_FINDINGS
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed pipe (`| head`): what could be written was
    os._exit(code or EXIT_OK)


@click.group("promptlint", cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="promptlint-cache", prog_name="promptlint")
def main() -> None:
    """promptlint: find what breaks the prompt cache in agent system prompts."""


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text",
              show_default=True, help="text for people; json (the contract), sarif (code scanning), github (annotations).")
@click.option("--model", help="Target model; picks the tokenizer (default: config, else gpt-5.5).")
@click.option("--provider", help="Add the cache cost on this provider: openai, anthropic, gemini, deepseek, vllm, sglang.")
@click.option("--select", help="Comma-separated rule codes or prefixes to run (e.g. PC1).")
@click.option("--ignore", help="Comma-separated rule codes or prefixes to skip.")
@click.option("--syntax", type=click.Choice(SYNTAXES), help="Read every file as this syntax.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Use this promptlint.toml or pyproject.toml.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), help="Lowest severity that fails the run (default: warning).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings are reported (2 still means failure).")
@click.option("--no-frames", is_flag=True, help="Do not print code frames under findings.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Check files in this many processes (default: the cores this process may use).")
@click.option("--no-cache", is_flag=True, help="Analyse every file again (do not read or write the result cache).")
@click.option("--changed-since", "changed_since", metavar="REF",
              help="Report only findings on lines changed since this git ref (all of new files).")
@click.option("--fix", "apply_fix", is_flag=True, help="Move volatile parts to the tail first (as `promptlint fix`).")
@click.option("--diff", "show_diff", is_flag=True, help="Show the fix as a unified diff; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, help="With --fix/--diff: also coarsen clocks and sort tool loops.")
@click.option("--hook", is_flag=True,
              help="The paths are what a hook matched (pre-commit): skip quietly a pyproject.toml without "
                   "[tool.promptlint] and a .json file that is no request body, as a folder walk does.")
def check(
    paths: Sequence[str],
    output_format: str,
    model: str | None,
    provider: str | None,
    select: str | None,
    ignore: str | None,
    syntax: str | None,
    config_file: str | None,
    fail_on: str | None,
    exit_zero: bool,
    no_frames: bool,
    jobs: int | None,
    no_cache: bool,
    changed_since: str | None,
    apply_fix: bool,
    show_diff: bool,
    unsafe_fixes: bool,
    hook: bool,
) -> None:
    """Check prompt files and folders for cache-breaking content.

    A config file (promptlint.toml, pyproject.toml) stands for the workspace it describes:
    the files its [assembly] order names."""
    from promptlint.api import check_paths

    if provider is not None:
        provider = _provider_or_exit(provider)
    if unsafe_fixes and not (apply_fix or show_diff):
        click.echo("error: --unsafe-fixes applies to a fix: add --fix (write) or --diff (show)", err=True)
        sys.exit(EXIT_FAILED)

    # Read before --fix writes anything: a bad code is refused with every file as it was.
    selected, ignored = _codes(select, "--select"), _codes(ignore, "--ignore")
    if changed_since is not None:
        from promptlint import changed

        try:
            changed.verify_ref(changed_since, list(paths))
        except changed.ChangedSinceError as exc:
            click.echo(f"error: --changed-since {one_line(changed_since)}: {one_line(str(exc))}", err=True)
            sys.exit(EXIT_FAILED)
    if show_diff:
        # The diff is the output; exit 1 when a fix would change a file (as ruff check --diff).
        sys.exit(_run_fix(paths, show_diff=True, check_only=True, unsafe=unsafe_fixes, model=model,
                          config_file=config_file, syntax=syntax, provider=provider, jobs=jobs,
                          select=selected, ignore=ignored)[0])
    moved = False
    if apply_fix:
        code, fixed = _run_fix(paths, show_diff=False, check_only=False, unsafe=unsafe_fixes, model=model,
                               config_file=config_file, syntax=syntax, to_stderr=output_format != "text",
                               provider=provider, tail_note=False, jobs=jobs, select=selected, ignore=ignored)
        if code == EXIT_FAILED:
            sys.exit(code)
        from promptlint.reporters.fixreport import moved_something

        moved = moved_something(fixed)

    from promptlint.parallel import available_cores
    from promptlint.resultcache import user_cache

    report = check_paths(
        list(paths),
        config_file=config_file,
        syntax=syntax,
        cache=None if no_cache else user_cache(),
        jobs=jobs or available_cores(),
        model=model,
        provider=provider,
        select=selected,
        ignore=ignored,
        fail_on=fail_on,
        hook=hook,
        # Only JSON and SARIF say whether a finding is fixable: the other reports skip planning it.
        plan_fixes=output_format in ("json", "sarif"),
        prove_fixes=output_format == "sarif",
    )
    if changed_since is not None:
        from promptlint import changed

        try:
            dropped = changed.keep_changed(report, changed.changed_lines(changed_since, list(paths)))
        except changed.ChangedSinceError as exc:
            click.echo(f"error: --changed-since {one_line(changed_since)}: {one_line(str(exc))}", err=True)
            sys.exit(EXIT_FAILED)
        if dropped:
            report.notes.append(f"{dropped} finding(s) on lines unchanged since {changed_since} not shown")
    _print_report(report, output_format, show_frames=not no_frames)
    if moved:
        from promptlint.reporters.fixreport import remaining_note

        note = remaining_note(report)
        if note is not None:
            click.echo(note, err=output_format != "text")
    code = report.exit_code()
    if exit_zero and code == EXIT_FINDINGS:
        code = EXIT_OK
    sys.exit(code)


def _source_lines(report: Report) -> dict[str, Lines]:
    """Each finding's file as lines, for code frames and SARIF's UTF-16 columns: the lines
    the check kept where they cover the file's findings, else the file read again."""
    sources: dict[str, Lines] = {}
    for result in report.files:
        if result.findings and result.shown_lines is not None and result.shown_lines.covers(result.findings):
            sources[result.path] = result.shown_lines
    for path in sorted({f.path for f in report.findings} - sources.keys()):
        try:
            with open(path, encoding="utf-8-sig", errors="replace", newline="") as handle:
                sources[path] = handle.read().split("\n")
        except OSError:
            continue
    return sources


def _print_report(report: object, output_format: str, *, show_frames: bool) -> None:
    from promptlint.core.findings import Report

    assert isinstance(report, Report)
    if output_format == "json":
        from promptlint.reporters import json as json_reporter

        for chunk in json_reporter.chunks(report):
            click.echo(chunk, nl=False)
        click.echo()
    elif output_format == "github":
        from promptlint.reporters import github

        annotations = github.render(report)
        if sys.stdout.isatty():  # a template's escape sequences are shown, not run
            annotations = "\n".join(map(one_line, annotations.split("\n")))
        # Else (the runner reads a pipe) as they are: click would strip an escape sequence
        # from a file name, and the annotation would name another file.
        click.echo(annotations, color=True)
    elif output_format == "sarif":
        from importlib.metadata import version

        from promptlint.registry import rules
        from promptlint.reporters import sarif

        for chunk in sarif.chunks(report, rules(), _source_lines(report), version=version("promptlint-cache"),
                                  fix_edits=_fix_edits(report)):
            click.echo(chunk, nl=False)
        click.echo()
    else:
        from promptlint.reporters import text

        sources = _source_lines(report)
        text.render(report, text.console(), sources, show_frames=show_frames)


def _fix_edits(report: object) -> dict[str, list[Edit]]:
    """The line replacements ``promptlint fix`` would make in each file with a fixable finding
    (SARIF fixes); none where it would write nothing."""
    from promptlint.core.findings import Report
    from promptlint.fix.linediff import line_edits

    assert isinstance(report, Report)
    paths = sorted({f.path for f in report.findings if f.fixable})
    if not paths:
        return {}
    from promptlint.fix import fix_file

    planned = {result.path: result for result in report.files if result.fix_planned}
    edits = {}
    for path in paths:
        if path in planned:  # planned, proved and diffed by the check, on the template it parsed
            edits[path] = planned[path].fix_edits
            continue
        result = fix_file(path, write=False)  # a cached result, or fixable by a rule that reads several files
        if result.changed and result.old_source is not None and result.new_source is not None:
            edits[path] = line_edits(result.old_source, result.new_source)
    return edits


def _provider_or_exit(provider: str) -> str:
    """A known provider name, or one line and exit 2."""
    from promptlint.providers import known_providers

    name = provider.strip().lower()
    if name not in known_providers():
        click.echo(f"error: unknown provider {provider!r} (known: {', '.join(known_providers())})", err=True)
        sys.exit(EXIT_FAILED)
    return name


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--diff", "show_diff", is_flag=True, help="Show a unified diff and write nothing.")
@click.option("--check", "check_only", is_flag=True, help="Write nothing; exit 1 if a fix would change a file (CI).")
@click.option("--unsafe-fixes", is_flag=True, help="Also coarsen clock formats to a day and sort tool loops.")
@click.option("--model", help="Target model; picks the tokenizer (default: config, else gpt-5.5).")
@click.option("--provider", help="Also report the cost per 1,000 calls before → after on this provider.")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Use this promptlint.toml or pyproject.toml.")
@click.option("--syntax", type=click.Choice(SYNTAXES), help="Read every file as this syntax.")
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=None,
              help="Plan and prove the fixes in this many processes (default: the cores this process may use).")
def fix(
    paths: Sequence[str],
    show_diff: bool,
    check_only: bool,
    unsafe_fixes: bool,
    model: str | None,
    provider: str | None,
    config_file: str | None,
    syntax: str | None,
    jobs: int | None,
) -> None:
    """Move volatile parts of prompt files to the tail, proving that no word is lost."""
    if provider is not None:
        provider = _provider_or_exit(provider)
    sys.exit(_run_fix(paths, show_diff=show_diff, check_only=check_only, unsafe=unsafe_fixes, model=model,
                      config_file=config_file, syntax=syntax, provider=provider, jobs=jobs)[0])


def _run_fix(
    paths: Sequence[str],
    *,
    show_diff: bool,
    check_only: bool,
    unsafe: bool,
    model: str | None,
    config_file: str | None,
    syntax: str | None,
    to_stderr: bool = False,
    provider: str | None = None,
    tail_note: bool = True,
    jobs: int | None = None,
    select: tuple[str, ...] | None = None,
    ignore: tuple[str, ...] | None = None,
) -> tuple[int, FixReport]:
    """Fix (or, with --diff/--check, only plan) and report; returns the exit code and the report."""
    from promptlint.fix import fix_paths
    from promptlint.parallel import available_cores
    from promptlint.reporters import fixreport, text

    write = not (show_diff or check_only)
    report = fix_paths(list(paths), config_file=config_file, syntax=syntax, unsafe=unsafe, write=write, model=model,
                       provider=provider, jobs=jobs or available_cores(), select=select, ignore=ignore)
    fixreport.render(report, text.console(stderr=to_stderr), show_diff=show_diff, write=write,
                     tail_note=tail_note and write)
    # `--diff` writes nothing, like `--check`: a fix it shows is still to be made (as ruff).
    return fixreport.exit_code(report, check=check_only or show_diff), report


@main.command("replay")
@click.argument("log", type=click.Path())  # read (or refused, in one line) by replay.iter_log
@click.option("--provider", help="Provider of the logged requests (default: the log's, else from the body shape).")
@click.option("--model", help="Model to simulate and price (default: each body's `model`).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--max-line-bytes", type=click.IntRange(min=1), default=16 * 1024 * 1024, show_default=True,
              help="Refuse a log line longer than this (it is not read whole).")
def replay_command(log: str, provider: str | None, model: str | None, output_format: str, max_line_bytes: int) -> None:
    """Replay a JSONL log of requests through the cache model and find each break."""
    import json

    from promptlint import replay

    from promptlint.targets import blank_name

    if blank_name(log):
        click.echo(f"error: LOG {log!r}: a blank path: name a JSONL log of requests", err=True)
        sys.exit(EXIT_FAILED)
    if provider is not None:
        provider = _provider_or_exit(provider)
    try:
        result = replay.replay(lambda: replay.iter_log(log, max_line_bytes=max_line_bytes), provider=provider,
                               model=model)
    except replay.ReplayError as exc:
        message = str(exc)
        # Most messages name the log and line already; the few about the whole log do not.
        if not message.startswith(f"{log}:"):
            message = f"{log}: {message}"
        click.echo(f"error: {one_line(message)}", err=True)
        sys.exit(EXIT_FAILED)
    if output_format == "json":
        click.echo(json.dumps(result, indent=2, ensure_ascii=False))
        return
    from rich.console import Console

    from promptlint.reporters import replay_text

    replay_text.render(result, Console(highlight=False, soft_wrap=True))


class _Finite(click.FloatRange):
    """A FloatRange that also refuses nan, which compares false with every bound: a nan
    --budget refused nothing (any estimate was sent) and a nan --timeout broke the SDK."""

    def convert(self, value, param, ctx):  # type: ignore[no-untyped-def]
        number = super().convert(value, param, ctx)
        if math.isnan(number):
            self.fail(f"{value!r} is not a number.", param, ctx)
        return number


#: The longest --timeout: a day. Past ~1e9 s the HTTP client's deadline overflows time_t.
MAX_TIMEOUT_S = 86400.0
#: The most --max-retries: the SDKs wait up to 8 s before each retry, so 10 retries of one
#: request already take over a minute; a million never ended.
MAX_RETRIES = 10


def _kv_budget(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--kv-budget`` checked when given, so a size that is no size is a usage error (exit 2)
    before any model loads, not a ValueError inside the backend."""
    if value is None:
        return None
    from promptlint.probe.local.store import parse_size

    try:
        parse_size(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None
    return value


def _price_as(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--price-as PROVIDER:MODEL``, both parts given and the provider known: a malformed one
    only left every cost "–" and a note, with exit 0."""
    if value is None:
        return None
    from promptlint.providers.registry import KNOWN_PROVIDERS

    provider, colon, model = value.partition(":")
    if not colon or not provider.strip() or not model.strip():
        raise click.BadParameter(f"{value!r}: write PROVIDER:MODEL, e.g. openai:gpt-4.1", ctx, param)
    if provider.strip().lower() not in KNOWN_PROVIDERS:
        raise click.BadParameter(f"unknown provider {provider.strip()!r}; known providers: "
                                 f"{', '.join(KNOWN_PROVIDERS)}", ctx, param)
    return value


@main.command("probe")
@click.argument("path")
@click.option("--provider", required=True,
              help="openai (also OpenAI-compatible servers with --base-url), anthropic, or local (a real KV cache).")
@click.option("--model", help="Model to probe (default: gpt-4.1-mini / claude-sonnet-5; a body's own model).")
@click.option("--base-url", help="API base URL for the SDK (OpenAI: ending in /v1; Anthropic: the server root).")
@click.option("--api", type=click.Choice(["chat", "responses"]), default="chat", show_default=True,
              help="OpenAI API to call.")
@click.option("--compatible", type=click.Choice(["vllm", "sglang", "deepseek", "gemini", "xai", "fireworks"]),
              help="The OpenAI-compatible server behind --base-url: picks the cache model and prices.")
@click.option("--vars", "vars_file", type=click.Path(dir_okay=False),
              help="JSON or YAML list of objects, one value set per variant (the first is the warm-up).")
@click.option("--variants", type=int, default=4, show_default=True, help="Measured variants per version.")
@click.option("--no-warmup", is_flag=True, help="Send no warm-up request; the first variant is measured cold.")
@click.option("--compare-fix", is_flag=True, help="Also probe the prompt as `promptlint fix` would rewrite it.")
@click.option("--unsafe-fixes", is_flag=True, help="With --compare-fix: the fix with unsafe rewrites.")
@click.option("--breakpoint", "breakpoint_", type=click.Choice(["stable", "auto"]), default="stable",
              show_default=True, help="Anthropic: cache_control at the end of the stable prefix, or the automatic marker.")
@click.option("--ttl", type=click.Choice(["5m", "1h"]), default="5m", show_default=True, help="Anthropic cache TTL.")
@click.option("--calls-per-day", type=click.IntRange(min=0), default=1000, show_default=True,
              help="Calls a day, for the saving in $ a month.")
@click.option("--report", "report_path", type=click.Path(dir_okay=False),
              help="Also write the report: .md, .json or .html (self-contained).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--dry-run", is_flag=True, help="Print the requests, their tokens and the estimated price; send nothing.")
@click.option("--budget", type=_Finite(min=0), default=0.50, show_default=True,
              help="Refuse to send when the estimate (USD) exceeds this.")
@click.option("--timeout", type=_Finite(min=0, min_open=True, max=MAX_TIMEOUT_S), default=60.0, show_default=True,
              help="Seconds per request.")
@click.option("--max-retries", type=click.IntRange(min=0, max=MAX_RETRIES), default=2, show_default=True,
              help="The SDK's retries for 429, 5xx and connection errors.")
@click.option("--max-output-tokens", type=click.IntRange(min=1), default=1, show_default=True,
              help="Output tokens per request (Responses: at least 16).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), help="Use this promptlint.toml or pyproject.toml.")
@click.option("--syntax", type=click.Choice(SYNTAXES), help="Read the file as this syntax.")
@click.option("--device", type=click.Choice(["auto", "cpu", "cuda"]), default="auto", show_default=True,
              help="local: where the model runs.")
@click.option("--dtype", type=click.Choice(["float32", "bfloat16", "float16"]), default="float32", show_default=True,
              help="local: the model's dtype (float32 proves reuse exact).")
@click.option("--block-size", type=click.IntRange(min=1), default=16, show_default=True,
              help="local: reuse granularity in tokens (16 as vLLM; 1 reuses every token).")
@click.option("--kv-budget", callback=_kv_budget, help="local: the prefix store's size (2GB, 512MiB; default unbounded).")
@click.option("--verify/--no-verify", default=True, show_default=True,
              help="local: compare every request's logits with a full recompute.")
@click.option("--price-as", callback=_price_as, help="local: price the counts as this provider's model, e.g. openai:gpt-4.1.")
def probe_command(path: str, provider: str, model: str | None, base_url: str | None, api: str, compatible: str | None,
                  vars_file: str | None, variants: int, no_warmup: bool, compare_fix: bool, unsafe_fixes: bool,
                  breakpoint_: str, ttl: str, calls_per_day: int, report_path: str | None, output_format: str,
                  dry_run: bool, budget: float, timeout: float, max_retries: int, max_output_tokens: int,
                  config_file: str | None, syntax: str | None, device: str, dtype: str, block_size: int,
                  kv_budget: str | None, verify: bool, price_as: str | None) -> None:
    """Measure cached-token hits on the provider's own API, as is and after the fix."""
    from promptlint.probe import command
    from promptlint.probe.adapters import Options
    from promptlint.probe.runner import Settings

    options = Options(model=model, base_url=base_url, api=api, compatible=compatible, timeout=timeout,
                      max_retries=max_retries, max_output_tokens=max_output_tokens, breakpoint=breakpoint_, ttl=ttl,
                      device=device, dtype=dtype, block_size=block_size, kv_budget=kv_budget, verify=verify,
                      price_as=price_as)
    settings = Settings(path=path, provider=provider.strip().lower(), options=options, variants=variants,
                        warmup=not no_warmup, vars_file=vars_file, compare_fix=compare_fix, unsafe=unsafe_fixes,
                        config_file=config_file, syntax=syntax, budget_usd=budget, calls_per_day=calls_per_day)
    sys.exit(command.main(settings, output_format=output_format, report_path=report_path, dry_run=dry_run))


@main.command("rules")
@click.argument("code", required=False)
def rules_command(code: str | None) -> None:
    """List the rules, or explain one (promptlint rules PC101)."""
    from rich.console import Console
    from rich.markdown import Markdown
    from rich.table import Table

    from promptlint.registry import by_code, rules

    console = Console(highlight=False)
    if code is None:
        table = Table("code", "name", "fix", "summary", box=None, pad_edge=False)
        for rule in rules():
            table.add_row(rule.CODE, rule.NAME, getattr(rule, "FIX", None) or "none", getattr(rule, "SUMMARY", ""))
        console.print(table)
        return
    found = by_code(code)
    if found is None:
        click.echo(f"error: unknown rule {code!r} (see `promptlint rules`)", err=True)
        sys.exit(EXIT_FAILED)
    console.print(f"[bold]{found.CODE} {found.NAME}[/bold]  (fix: {getattr(found, 'FIX', None) or 'none'})\n")
    console.print(Markdown((found.__doc__ or "").strip()))


if __name__ == "__main__":  # pragma: no cover
    main()
