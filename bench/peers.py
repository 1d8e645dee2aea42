"""Run other prompt-cache linters ("peers") on one prompt file, for the accuracy benchmark.

Each peer lives in its own virtual environment (``PROMPTLINT_PEERS_VENV``, default
``.venv-peers`` in the repository root) and is called through a subprocess, so none of them is
a dependency of promptlint. ``ensure_peers_venv()`` creates that venv and pip-installs the
pinned peers from PyPI when it is missing.

What each peer accepts, read from its source (the pinned versions below):

``pcdlint`` 0.3.0 (``pcdlint check --format json PATH``)
    A taint analysis of *Python source* (``ast``): f-strings and ``messages=[...]`` built from
    ``datetime.now()``, sets, unsorted ``json.dumps``. Any path that is not ``.py`` is an error
    ("not Python", exit 2). It accepts none of the prompt syntaxes in the corpus: always None
    there. JSON output: a list of ``{"lineno", "severity": "ERROR"|"WARNING", ...}``.

``promptcachelint`` 0.1.0 (``promptcachelint lint - --provider openai --json``)
    Static checks on one *rendered request body* (Anthropic Messages or OpenAI Chat/Responses
    JSON), plus trace analysis of recorded traffic. It has no notion of template syntax. We
    wrap a plain-text prompt file (.md, .txt, .prompt: text as it is sent) as the system
    message of an OpenAI chat request and keep its ``CL012`` (volatile-looking content)
    findings, whose ``offset`` is a character offset into that message; the offset becomes a
    line. It reports at most one ``CL012`` per message (the first pattern that matches, not
    the earliest position). ``CL010``/``CL011`` (no marker, prefix too short) carry no
    position and are not line findings; they are dropped. Severity is always "warning".
    Template files are not accepted (None): their slots are not rendered text.

``cachedrift`` 0.1.0 (``cachedrift --format json PATH``)
    Line regexes over *source code* (``datetime.now`` near a prompt keyword, ``uuid4()``,
    loops over sets, ``strftime(...)`` next to a string literal...). A directory scan reads only
    .py/.js/.ts/.tsx/.jsx/.go/.rb, but a file named on the command line is scanned whatever
    its extension, so it accepts every corpus file. JSON output: ``{"findings": [{"line",
    "severity": "fail"|"warn"|"info", ...}]}``; "fail" is mapped to error.

``prefixguard`` 0.2.1 (Python API only: ``prefixguard.lint(system=TEXT)``)
    A pre-flight check on a *rendered* prompt (system text, tool list, messages) plus a
    runtime session guard; no command line. We run ``lint(system=text)`` in the peers venv
    through a small driver on plain-text prompt files (.md, .txt, .prompt) and keep its
    ``VOLATILE_CONTENT`` findings, converting "at char N of system" into a line. It reports at
    most one finding per block (the first matching pattern in its list). It has no severity:
    reported as "warning". Template files are not accepted (None).

``cachelint`` (Tryaii; ``tryaii[cachelint]`` 0.8.3, Python API ``tryaii.cachelint.analyze``)
    A pre-flight analyzer of one prompt *as text*: 18 regex detectors (datetimes, epochs,
    UUIDs, ``key=id`` pairs, unrendered ``{{...}}``/``{...}``/``${...}`` slots, ``<ALL_CAPS>``
    placeholders, ISO/US/spelled-out dates, "today's date" phrases, clock times, hex ids).
    It reads any text, templates included (an unrendered slot is one of its detectors), so it
    accepts every prompt file except request JSON (whose bodies it would want as its own
    ``{"prompt", "llm"}`` input). We pass the file as the ``system`` of one prompt through a
    small driver in the peers venv and keep findings in the ``system`` section, turning
    ``section_offset`` into a line. Severity: ``high`` -> error, ``medium`` -> warning,
    ``low`` -> info (its own docs: low is advisory and does not cap the stable prefix).
    It reports no kind.

``run_peer(name, path)`` returns the sorted 1-based lines a peer flags in one file, or None when
it does not accept that kind of file (or is not installed). ``peer_findings`` returns
``(line, severity)`` pairs with severities normalised to error/warning/info.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# Pinned: the adapters below parse each peer's own output format, read from these versions.
PEER_REQUIREMENTS: dict[str, str] = {
    "pcdlint": "pcdlint==0.3.0",
    "promptcachelint": "promptcachelint==0.1.0",
    "cachedrift": "cachedrift==0.1.0",
    "prefixguard": "prefixguard==0.2.1",
    # Tryaii's cachelint ships inside the `tryaii` distribution, as the `cachelint` extra.
    "cachelint": "tryaii[cachelint]==0.8.3",
}
# The distribution whose presence says a peer is installed (when it is not the peer's name).
PEER_DISTRIBUTIONS: dict[str, str] = {"cachelint": "tryaii"}
PEERS: tuple[str, ...] = tuple(PEER_REQUIREMENTS)

# Rendered or static prompt text: what the request-body linters can be fed.
PLAIN_TEXT_SUFFIXES = {".md", ".txt", ".prompt"}
PYTHON_SUFFIXES = {".py"}

TIMEOUT_S = 60

_PREFIXGUARD_DRIVER = r"""
import json, sys
from prefixguard import lint
text = open(sys.argv[1], encoding="utf-8").read()
out = []
for f in lint(system=text):
    out.append({"cause": str(f.cause), "block": f.block_id, "detail": f.detail})
print(json.dumps(out))
"""

_CACHELINT_DRIVER = r"""
import json, sys
from tryaii.cachelint import analyze
text = open(sys.argv[1], encoding="utf-8").read()
# Detectors do not depend on the provider; anthropic counts tokens offline (no tiktoken download).
result = analyze({"prompt": {"system": text}, "llm": {"provider": "anthropic", "name": "claude-sonnet-4-5"}})
out = []
for item in result.get("items", []):
    for f in item.get("findings", []):
        if f.get("section") == "system":
            out.append({"offset": f.get("section_offset"), "severity": f.get("severity"), "kind": f.get("kind")})
print(json.dumps(out))
"""


def peers_venv() -> Path:
    """The peers' virtual environment: ``$PROMPTLINT_PEERS_VENV`` or ``.venv-peers``."""
    configured = os.environ.get("PROMPTLINT_PEERS_VENV")
    path = Path(configured) if configured else REPO_ROOT / ".venv-peers"
    return path if path.is_absolute() else (REPO_ROOT / path)


def _bin(venv_dir: Path, name: str) -> Path:
    sub = "Scripts" if os.name == "nt" else "bin"
    exe = name + (".exe" if os.name == "nt" else "")
    return venv_dir / sub / exe


def _python(venv_dir: Path) -> Path:
    return _bin(venv_dir, "python")


def installed_peers(venv_dir: Path | None = None) -> list[str]:
    """Peers whose distribution is installed in the peers venv (in PEERS order)."""
    venv_dir = venv_dir or peers_venv()
    python = _python(venv_dir)
    if not python.exists():
        return []
    code = (
        "import importlib.metadata as m, json, sys\n"
        "found = []\n"
        "for arg in sys.argv[1:]:\n"
        "    name, _, dist = arg.partition('=')\n"
        "    try:\n"
        "        m.version(dist or name); found.append(name)\n"
        "    except m.PackageNotFoundError:\n"
        "        pass\n"
        "print(json.dumps(found))\n"
    )
    try:
        proc = subprocess.run(
            [str(python), "-c", code, *(f"{p}={PEER_DISTRIBUTIONS.get(p, p)}" for p in PEERS)],
            capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
        )
        found = set(json.loads(proc.stdout or "[]"))
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return []
    return [p for p in PEERS if p in found]


def ensure_peers_venv(verbose: bool = True) -> Path | None:
    """Create the peers venv and install the missing peers; the venv path, or None on failure.

    Needs only the standard library and a reachable PyPI (or whatever index pip is configured
    with). A peer that fails to install is reported and left out; the others still run.
    """
    venv_dir = peers_venv()
    log = (lambda msg: print(msg, file=sys.stderr)) if verbose else (lambda msg: None)
    if not _python(venv_dir).exists():
        log(f"creating peers venv at {venv_dir}")
        try:
            venv.EnvBuilder(with_pip=True, clear=False).create(venv_dir)
        except Exception as exc:  # noqa: BLE001 - any failure means "no peers"
            log(f"could not create {venv_dir}: {exc}")
            return None
    missing = [p for p in PEERS if p not in installed_peers(venv_dir)]
    for peer in missing:
        log(f"installing {PEER_REQUIREMENTS[peer]} into {venv_dir}")
        try:
            proc = subprocess.run(
                [str(_python(venv_dir)), "-m", "pip", "install", "--quiet",
                 "--disable-pip-version-check", PEER_REQUIREMENTS[peer]],
                capture_output=True, text=True, timeout=600, check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            log(f"  failed: {exc}")
            continue
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
            log("  failed: " + " | ".join(tail))
    if not installed_peers(venv_dir):
        return None
    return venv_dir


def peer_accepts(name: str, path: str | Path) -> bool:
    """Whether ``name`` accepts this kind of file at all (see the module docstring)."""
    suffix = Path(path).suffix.lower()
    if name == "pcdlint":
        return suffix in PYTHON_SUFFIXES
    if name in ("promptcachelint", "prefixguard"):
        return suffix in PLAIN_TEXT_SUFFIXES
    if name == "cachedrift":
        return True
    if name == "cachelint":
        return suffix != ".json"
    raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, max(0, min(offset, len(text)))) + 1


def _run(argv: list[str], stdin: str | None = None) -> subprocess.CompletedProcess[str] | None:
    try:
        return subprocess.run(
            argv, input=stdin, capture_output=True, text=True, encoding="utf-8",
            timeout=TIMEOUT_S, check=False, cwd=REPO_ROOT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None


def _json(proc: subprocess.CompletedProcess[str] | None) -> object:
    if proc is None or not proc.stdout.strip():
        return None
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return None


def _pcdlint(venv_dir: Path, path: Path) -> list[tuple[int, str]] | None:
    data = _json(_run([str(_bin(venv_dir, "pcdlint")), "check", "--format", "json", str(path)]))
    if not isinstance(data, list):
        return None
    sev = {"ERROR": "error", "WARNING": "warning"}
    return [(int(d["lineno"]), sev.get(str(d.get("severity")), "warning")) for d in data]


def _cachedrift(venv_dir: Path, path: Path) -> list[tuple[int, str]] | None:
    data = _json(_run([str(_bin(venv_dir, "cachedrift")), "--format", "json", str(path)]))
    if not isinstance(data, dict):
        return None
    sev = {"fail": "error", "warn": "warning", "info": "info"}
    return [(int(f["line"]), sev.get(str(f.get("severity")), "warning"))
            for f in data.get("findings", [])]


def _promptcachelint(venv_dir: Path, path: Path) -> list[tuple[int, str]] | None:
    text = path.read_text(encoding="utf-8")
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": text},
            {"role": "user", "content": "Hello."},
        ],
    }
    proc = _run(
        [str(_bin(venv_dir, "promptcachelint")), "lint", "-", "--provider", "openai", "--json"],
        stdin=json.dumps(body),
    )
    data = _json(proc)
    if not isinstance(data, list):
        return None
    out = []
    for f in data:
        if f.get("path") == "messages[0]" and isinstance(f.get("offset"), int):
            out.append((_line_of(text, f["offset"]), str(f.get("severity") or "warning")))
    return out


_CHAR_AT = re.compile(r"at char (\d+) of system")


def _prefixguard(venv_dir: Path, path: Path) -> list[tuple[int, str]] | None:
    text = path.read_text(encoding="utf-8")
    data = _json(_run([str(_python(venv_dir)), "-c", _PREFIXGUARD_DRIVER, str(path)]))
    if not isinstance(data, list):
        return None
    out = []
    for f in data:
        m = _CHAR_AT.search(str(f.get("detail", "")))
        if f.get("block") == "system" and m:
            out.append((_line_of(text, int(m.group(1))), "warning"))
    return out


_CACHELINT_SEVERITY = {"high": "error", "medium": "warning", "low": "info"}


def _cachelint(venv_dir: Path, path: Path) -> list[tuple[int, str]] | None:
    text = path.read_text(encoding="utf-8")
    data = _json(_run([str(_python(venv_dir)), "-c", _CACHELINT_DRIVER, str(path)]))
    if not isinstance(data, list):
        return None
    return [(_line_of(text, int(f["offset"])), _CACHELINT_SEVERITY.get(str(f.get("severity")), "warning"))
            for f in data if isinstance(f.get("offset"), int)]


_ADAPTERS = {
    "pcdlint": _pcdlint,
    "promptcachelint": _promptcachelint,
    "cachedrift": _cachedrift,
    "prefixguard": _prefixguard,
    "cachelint": _cachelint,
}


def peer_findings(name: str, path: str | Path) -> list[tuple[int, str]] | None:
    """``(line, severity)`` for each finding of peer ``name`` on one file, or None when the
    peer does not accept that file, is not installed, or its output could not be read."""
    if not peer_accepts(name, path):
        return None
    venv_dir = peers_venv()
    if not _python(venv_dir).exists():
        return None
    p = Path(path)
    if not p.is_absolute():
        p = (Path.cwd() / p).resolve()
    return _ADAPTERS[name](venv_dir, p)


def run_peer(name: str, path: str | Path) -> list[int] | None:
    """The sorted, distinct 1-based lines peer ``name`` flags in one file, or None when it
    does not accept that kind of input."""
    found = peer_findings(name, path)
    if found is None:
        return None
    return sorted({line for line, _ in found})


if __name__ == "__main__":  # a quick manual check: python bench/peers.py FILE...
    if ensure_peers_venv() is None:
        sys.exit("no peers available")
    for arg in sys.argv[1:]:
        for peer in installed_peers():
            print(f"{peer:16} {arg}: {run_peer(peer, arg)}")
