"""Terminal output: ``path:line:col CODE message``, a code frame, a per-file summary."""

from __future__ import annotations

import os
import sys
import unicodedata
from collections import Counter
from collections.abc import Mapping
from functools import lru_cache
from typing import IO, TYPE_CHECKING, Any, TypeAlias

from promptlint.core.findings import FileResult, Finding, Lines, Report, one_line

if TYPE_CHECKING:
    from rich.console import Console as RichConsole
    from rich.style import Style
    from rich.text import Text as RichText


class PlainConsole:
    """What the reports ask of rich's Console where it would print plain characters (a
    pipe, a file: a hook's or a CI job's output): where to write, and how wide to clip.
    Made by :func:`console` so that such a run never imports rich (a sixth of a one-file
    check's time)."""

    __slots__ = ("file", "width")
    color_system = None
    record = False

    def __init__(self, file: IO[str], width: int) -> None:
        self.file = file
        self.width = width


Console: TypeAlias = "RichConsole | PlainConsole"


def console(stderr: bool = False, environ: Mapping[str, str] = os.environ) -> Console:
    """``rich.console.Console(highlight=False, soft_wrap=True, stderr=stderr)``, or, where
    that console would print no colour, a :class:`PlainConsole` of the same file and width.

    Plain where every rich this runs with (13 on) decides so: neither ``TTY_COMPATIBLE``
    nor ``FORCE_COLOR`` set (rich's readings of them changed between versions: it decides
    itself there), and the file not a terminal by ``isatty()``. The width, as rich finds
    it: ``COLUMNS`` when that is a number, else the first standard stream's terminal width,
    else 80. Where rich looks further (Windows, Jupyter, a stream it wraps), rich's own
    console is made too."""
    file = sys.stderr if stderr else sys.stdout
    if not _plain(file, environ):
        from rich.console import Console as Rich

        return Rich(highlight=False, soft_wrap=True, stderr=stderr)
    assert file is not None  # _plain is False without one
    columns = environ.get("COLUMNS")
    if columns is not None and columns.isdigit():
        return PlainConsole(file, int(columns))
    width = 0
    for descriptor in (0, 1, 2):
        try:
            width = os.get_terminal_size(descriptor).columns
        except (AttributeError, ValueError, OSError):  # not a terminal
            continue
        break
    return PlainConsole(file, width or 80)


def _plain(file: IO[str] | None, environ: Mapping[str, str]) -> bool:
    """Whether rich would find ``file`` no terminal (and so print no colour); False where
    this cannot be told without it."""
    import builtins

    if (file is None or sys.platform == "win32" or hasattr(builtins, "get_ipython")
            or hasattr(file, "rich_proxied_file")):
        return False
    if "TTY_COMPATIBLE" in environ or "FORCE_COLOR" in environ:
        return False
    isatty = getattr(file, "isatty", None)
    try:
        return isatty is None or not isatty()
    except ValueError:  # a closed file: rich says no terminal too
        return True


class Text:
    """Styled text, kept as (text, style) pieces, written by :func:`emit`: as they are
    without colour (a pipe, a file), each in its style's escape codes in colour, and made
    into rich's Text only for a console rich must print itself (NO_COLOR, recording,
    wrapping). Rich would print the same at a tenth of the speed, and building its Text for
    every line of a report of 8,000 findings cost as much again. The pieces lie flat, each
    text followed by its style, so that the plain characters are one slice and one join."""

    __slots__ = ("pieces",)

    def __init__(self, text: str = "", style: str = "") -> None:
        self.pieces: list[str] = [text, style] if text else []

    def append(self, text: str, style: str = "") -> None:
        if text:
            self.pieces += (text, style)

    def __add__(self, other: Text) -> Text:
        joined = Text()
        joined.pieces = self.pieces + other.pieces
        return joined

    @property
    def plain(self) -> str:
        return "".join(self.pieces[0::2])

    def rich(self) -> RichText:
        from rich.text import Text as RichText

        out = RichText()
        pieces = self.pieces
        for i in range(0, len(pieces), 2):
            if pieces[i]:
                out.append(pieces[i], style=pieces[i + 1] or None)
        return out


_STYLE = {"error": "bold red", "warning": "bold yellow", "info": "bold blue"}
# The value a code frame underlines, in its severity's colour.
_UNDERLINED = {severity: style.replace("bold ", "") + " underline" for severity, style in _STYLE.items()}
_CONTEXT_LINES = 1


@lru_cache(maxsize=4096)
def _cell(char: str) -> int:
    """The terminal columns a character takes: 2 for a wide one (CJK, most emoji), 0 for a
    combining mark, else 1 (as wcwidth counts them)."""
    if unicodedata.combining(char) or unicodedata.category(char) in ("Mn", "Me"):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def _cells(text: str) -> int:
    """The terminal columns ``text`` takes."""
    return len(text) if text.isascii() else sum(map(_cell, text))


def _clip(source: str, start: int, end: int, room: int, length: int | None = None) -> tuple[str, int, int]:
    """The part of a line that fits ``room`` columns around ``[start, end)``, with an
    ellipsis where it was cut, and the span's offsets in that part. A one-line JSON body
    would otherwise print its whole 12,000-character line. ``length``: how much of
    ``source`` is the line (its line break left out), when not all of it: only the part
    shown is copied (8,000 findings on one 100,000-character line each cut it anew)."""
    size = len(source) if length is None else length
    if size <= room and (source.isascii() or _cells(source[:size]) <= room):
        return (source if size == len(source) else source[:size]), start, end
    room = max(room, 12)
    if not source.isascii():
        return _clip_cells(source[:size], start, end, room)
    # Keep some context before the span, then as much of the span as fits.
    left = max(0, min(start - room // 4, size - room))
    right = min(size, left + room)
    head = "…" if left > 0 else ""
    tail = "…" if right < size else ""
    left += len(head)
    right -= len(tail)
    shown = head + source[left:right] + tail
    shift = left - len(head)

    def clip(offset: int) -> int:
        return max(len(head), min(offset - shift, len(shown) - len(tail)))

    return shown, clip(start), clip(end)


def _clip_cells(text: str, start: int, end: int, room: int) -> tuple[str, int, int]:
    """:func:`_clip` of a line with wide or combining characters, its window counted in
    columns (a line of Japanese cut at ``room`` characters took twice the terminal's width);
    where every character takes one column, the same window as :func:`_clip`'s."""
    widths = [_cell(c) for c in text]
    size = len(text)

    def reach_left(index: int, cells: int) -> int:
        """The first index of the longest stretch ending at ``index`` within ``cells`` columns."""
        used = 0
        while index > 0 and used + widths[index - 1] <= cells:
            index -= 1
            used += widths[index]
        return index

    # Some context before the span, unless the line's end leaves room for more.
    left = min(reach_left(start, room // 4), reach_left(size, room))
    right, used = left, 0
    while right < size and used + widths[right] <= room:
        used += widths[right]
        right += 1
    head = "…" if left > 0 else ""
    tail = "…" if right < size else ""
    left += len(head)
    right = max(left, right - len(tail))
    shown = head + text[left:right] + tail
    shift = left - len(head)

    def clip(offset: int) -> int:
        return max(len(head), min(offset - shift, len(shown) - len(tail)))

    return shown, clip(start), clip(end)


def _frame(finding: Finding, lines: Lines, width: int) -> Text:
    """The finding's line with one line of context each side and the value underlined,
    each clipped to the terminal width around the value (the pieces are laid down here
    directly: a report of 8,000 findings frames 24,000 lines)."""
    at = finding.line
    first = max(1, at - _CONTEXT_LINES)
    last = min(len(lines), at + _CONTEXT_LINES)
    number_width = len(str(last))
    room = width - (number_width + 6)
    pieces: list[str] = []
    for number in range(first, last + 1):
        # Clipped first, then shown: a tab and a control character each stay one column, so
        # only the part shown is read (the offsets are the same either way).
        line = lines[number - 1]
        size = len(line.rstrip("\r\n"))  # its length without the line break
        if number != at:
            if size <= room and line.isascii():  # most lines: shown whole
                shown = line if size == len(line) else line[:size]
            else:
                shown = _clip(line, 0, 0, room, size)[0]
            pieces += ("   " + str(number).rjust(number_width) + " │ ", "dim", _shown(shown), "", "\n", "")
        else:
            start = finding.column - 1
            end = finding.end_column - 1 if finding.end_line == at else size
            source, start, end = _clip(line, start, max(start, min(end, size)), room, size)
            source = _shown(source)
            # In columns: a wide character (CJK) takes two, so the carets stand under the value.
            underline = max(1, _cells(source[start:min(end, len(source))]))
            severity = finding.severity
            pieces += (" > " + str(number).rjust(number_width) + " │ ", "dim", source[:start], "",
                       source[start:end], _UNDERLINED[severity], source[end:], "", "\n", "",
                       "   " + " " * number_width + " │ " + " " * _cells(source[:start]), "dim",
                       "^" * underline, _STYLE[severity], "\n", "")
    out = Text()
    out.pieces = pieces
    return out


def _shown(line: str) -> str:
    """A clipped line as a frame shows it: tabs as one space, control characters as ``?``
    (:func:`_printable`). Most lines hold neither, and are shown as they are."""
    return line if line.isprintable() else _printable(line.expandtabs(1))


def _printable(line: str) -> str:
    """A source line with control characters shown as ``?``: a template's escape sequences
    must not drive the user's terminal. One character for one, so columns still match."""
    if line.isprintable():
        return line
    return "".join(c if c.isprintable() or c == " " else "?" for c in line)


def _summary(result: FileResult) -> Text:
    line = Text(f"{one_line(result.path)}: ", style="bold")
    if result.error:
        line.append("error: ", style="bold red")
        line.append(one_line(result.error))
        return line
    total = result.tokens or 0
    stable = result.stable_prefix_tokens or 0
    share = f"{stable / total:.0%}" if total else "n/a"
    line.append(f"stable prefix {stable:,} of {total:,} tokens ({share})")
    line.append(f" · {result.encoding}", style="dim")
    evidence = result.extra.get("syntax_evidence")
    if isinstance(evidence, str) and evidence.startswith("inferred from content"):
        from promptlint.loaders.base import DESCRIPTIONS

        what = DESCRIPTIONS.get(result.syntax or "", result.syntax or "")
        line.append(f"\n    read as {what}, {evidence}; override with --syntax or [syntax] in config",
                    style="dim")
    if result.extra.get("role") == "user":
        line.append(f"\n    read as the latest user turn ({one_line(str(result.extra.get('role_evidence')))}): nothing after it is "
                    "cached, so its volatile values cost nothing; set [role] in config if it is not", style="dim")
    extra = result.extra.get("cache")
    if isinstance(extra, dict) and extra.get("summary"):
        line.append(f"\n    {one_line(str(extra['summary']))}", style="dim")  # it names the body's model
    return line


def plain_output(console: Console) -> bool:
    """Whether ``console`` prints no colour (a pipe, a file): :func:`emit` writes the
    characters itself there."""
    return isinstance(console, PlainConsole) or (console.color_system is None and not console.record)


def _ansi_output(console: RichConsole) -> bool:
    """Whether ``console`` prints in colour what :func:`_in_colour` writes as rich would: its
    own colour system, no colour removed (``NO_COLOR``), nothing recorded, no wrapping, no
    legacy Windows console."""
    return (console.color_system is not None and not console.record and not console.no_color
            and console.soft_wrap and not console.legacy_windows)


def _in_colour(text: Text, color_system: Any) -> str:
    """``text`` with each piece in its style's escape codes, as rich renders it: one styled
    segment per piece and per line of it (a line break is written outside the codes)."""
    out: list[str] = []
    pieces = text.pieces
    for i in range(0, len(pieces), 2):
        piece, style = pieces[i], pieces[i + 1]
        if not style or not piece:
            out.append(piece)
            continue
        render = _style(style).render
        out.append("\n".join(render(line, color_system=color_system) for line in piece.split("\n")))
    return "".join(out)


@lru_cache(maxsize=64)
def _style(name: str) -> Style:
    from rich.style import Style

    return Style.parse(name)


def emit(console: Console, text: Text | None = None, end: str = "\n") -> None:
    """Print ``text``; without colour (a pipe, a file) its plain characters are written as
    they are, and in colour each piece in its style's escape codes: rich would print the same
    at a tenth of the speed (a report of 8,000 findings spent 5.7 s in rich, and 2 s of a
    coloured check of 2,000 files)."""
    if isinstance(console, PlainConsole) or plain_output(console):
        console.file.write((text.plain if text is not None else "") + end)
    elif text is None:
        console.print(end=end)
    elif _ansi_output(console):
        console.file.write(_in_colour(text, console._color_system) + end)
    else:
        console.print(text.rich(), end=end)


def _print_finding(console: Console, finding: Finding, sources: Mapping[str, Lines], show_frames: bool,
                   width: int) -> None:
    head = Text()
    head.pieces = [f"{one_line(finding.path)}:{finding.line}:{finding.column}", "bold", f" {finding.rule} ",
                   "bold magenta", f"[{finding.severity}] ", _STYLE[finding.severity],
                   one_line(finding.message), ""]  # it may quote a template's escape sequences
    lines = sources.get(finding.path)
    frame = _frame(finding, lines, width) if show_frames and lines and 0 < finding.line <= len(lines) else None
    if type(console) is PlainConsole:  # one write for the finding (most reports: a pipe, a file)
        pieces = head.pieces
        console.file.write("".join(pieces[0::2]) + "\n" + ("".join(frame.pieces[0::2]) if frame is not None else ""))
        return
    emit(console, head)
    if frame is not None:
        emit(console, frame, end="")


class _Batched:
    """A file's writes gathered and written some 64 KB at a time: a report of 8,000
    findings is 20,000 writes, each a system call where the stream writes through
    (``PYTHONUNBUFFERED``, set in many CI images and containers)."""

    __slots__ = ("file", "pieces", "size")

    _BATCH = 1 << 16

    def __init__(self, file: IO[str]) -> None:
        self.file = file
        self.pieces: list[str] = []
        self.size = 0

    def write(self, text: str) -> int:
        self.pieces.append(text)
        self.size += len(text)
        if self.size >= self._BATCH:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.pieces:
            self.file.write("".join(self.pieces))
            self.pieces, self.size = [], 0
        self.file.flush()


def render(report: Report, console: Console, sources: Mapping[str, Lines], show_frames: bool = True) -> None:
    if type(console) is PlainConsole:
        batched = _Batched(console.file)
        try:
            _render(report, PlainConsole(batched, console.width), sources, show_frames)  # type: ignore[arg-type]
        finally:
            batched.flush()
    else:
        _render(report, console, sources, show_frames)


def _render(report: Report, console: Console, sources: Mapping[str, Lines], show_frames: bool) -> None:
    width = console.width  # asked once: rich looks at the terminal each time
    for message in report.errors:
        emit(console, Text("error: ", style="bold red") + Text(one_line(message)))
    for message in report.warnings:
        emit(console, Text("warning: ", style="bold yellow") + Text(one_line(message)))
    for finding in report.extra_findings:
        _print_finding(console, finding, sources, show_frames, width)
    for result in report.files:
        for finding in result.findings:
            _print_finding(console, finding, sources, show_frames, width)
        emit(console, _summary(result))
        if result.findings:
            emit(console)
    for message in report.notes:
        emit(console, Text(f"note: {one_line(message)}", style="dim"))  # it names files
    severities = Counter(f.severity for r in report.files for f in r.findings)
    severities.update(f.severity for f in report.extra_findings)
    counts = {s: severities[s] for s in ("error", "warning", "info")}
    failed = sum(1 for r in report.files if r.error) + len(report.errors)
    # Findings can land in files the run was not given (a workspace's promptlint.toml for
    # its [assembly] order): the count says so instead of hiding them under "1 file".
    drawn_on = sorted({f.path for f in report.extra_findings})
    tail = Text(f"{len(report.files)} file(s) checked")
    if drawn_on:
        tail.append(f" (plus {len(drawn_on)} they draw on: {', '.join(drawn_on)})")
    tail.append(": ")
    tail.append(f"{counts['error']} error(s)", style=_STYLE["error"] if counts["error"] else "")
    tail.append(", ")
    tail.append(f"{counts['warning']} warning(s)", style=_STYLE["warning"] if counts["warning"] else "")
    tail.append(f", {counts['info']} info")
    if failed:
        tail.append(f", {failed} could not be checked", style="bold red")
    emit(console, tail)
