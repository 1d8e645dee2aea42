"""Suppression comments in each syntax's comment form."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from promptlint.core import suppress
from promptlint.api import check_text
from promptlint.config import Config

CORE = Config(select=("PC101", "PC102"))


def found(source: str, path: str, long_rules: str) -> list[tuple[str, int]]:
    result = check_text(source.replace("{body}", long_rules), path, config=CORE)
    assert result.error is None, result.error
    return [(f.rule, f.line) for f in result.findings]


@pytest.mark.parametrize(
    ("path", "source"),
    [
        # On the same line.
        ("a.j2", "Time: {{ now() }} {# promptlint: disable=PC101 #}\n{body}"),
        # On the line before.
        ("a.j2", "{# promptlint: disable=PC101 #}\nTime: {{ now() }}\n{body}"),
        ("a.j2", "{#- promptlint: disable=PC101 -#}\nTime: {{ now() }}\n{body}"),
        ("a.j2", "{# promptlint: disable-next-line=PC101 #}\nTime: {{ now() }}\n{body}"),
        ("a.j2", "{# promptlint: disable #}\nTime: {{ now() }}\n{body}"),
        ("a.j2", "{# promptlint: disable=PC102, PC101 #}\nTime: {{ now() }}\n{body}"),
        ("a.j2", "<!-- promptlint: disable=PC101 -->\nTime: {{ now() }}\n{body}"),
        ("a.md", "Time: {{ now() }} <!-- promptlint: disable=PC101 -->\n{body}"),
        ("a.mustache", "{{! promptlint: disable=PC101 }}\nTime: {{now}}\n{body}"),
        ("a.mustache", "Time: {{now}} {{! promptlint: disable=PC101 }}\n{body}"),
        ("a.fmt", "<!-- promptlint: disable=PC101 -->\nTime: {now:%H:%M}\n{body}"),
        # For the whole file, wherever the directive stands.
        ("a.j2", "{body}\n{# promptlint: disable-file=PC101 #}\nTime: {{ now() }}\nUser: {{ user.name }}\n{body}"),
        ("a.j2", "{# promptlint: disable-file=PC101 #}\n{body}\nTime: {{ now() }}\n{body}"),
        ("a.mustache", "{{! promptlint: disable-file=PC101 }}\n{body}\nTime: {{now}}\n{body}"),
        ("a.tmpl", "<!-- promptlint: disable-file=PC101 -->\nTime: ${new Date().toISOString()}\n{body}"),
    ],
)
def test_suppressed(path: str, source: str, long_rules: str) -> None:
    # Without the directive the same prompt has a PC101 finding.
    bare = suppress._DIRECTIVE.sub("", source)
    assert "PC101" in [rule for rule, _ in found(bare, path, long_rules)]
    assert found(source, path, long_rules) == []


@pytest.mark.parametrize(
    ("path", "source", "expected"),
    [
        # A different code is not suppressed.
        ("a.j2", "{# promptlint: disable=PC102 #}\nTime: {{ now() }}\n{body}", [("PC101", 2)]),
        ("a.j2", "{# promptlint: disable-file=PC102 #}\nTime: {{ now() }}\n{body}", [("PC101", 2)]),
        ("a.mustache", "{{! promptlint: disable=PC999 }}\nTime: {{now}}\n{body}", [("PC101", 2)]),
        # The directive reaches its own line and the next, no further.
        ("a.j2", "{# promptlint: disable=PC101 #}\n\nTime: {{ now() }}\n{body}", [("PC101", 3)]),
        ("a.j2", "Time: {{ now() }}\n{# promptlint: disable=PC101 #}\n{body}", [("PC101", 1)]),
        # Only the finding on the directive's lines goes.
        (
            "a.j2",
            "{# promptlint: disable=PC101 #}\nTime: {{ now() }}\nUser: {{ user.name }}\n{body}",
            [("PC101", 3)],
        ),
        # PC102 is suppressed by its own code, PC101 stays.
        (
            "a.j2",
            "Now: {{ now() }}\n{# promptlint: disable=PC102 #}\n{% for t in tools %}{{ t }}{% endfor %}\n{body}",
            [("PC101", 1)],
        ),
        # Text that only mentions the directive outside a comment does nothing.
        ("a.j2", "promptlint: disable=PC101\nTime: {{ now() }}\n{body}", [("PC101", 2)]),
    ],
)
def test_not_suppressed(path: str, source: str, expected: list[tuple[str, int]], long_rules: str) -> None:
    assert found(source, path, long_rules) == expected


@pytest.mark.parametrize("separator", ["\r", "\u2028", "\x0c", "\x85", "\x1e"])
@pytest.mark.parametrize(
    ("path", "source"),
    [
        ("a.j2", "Be kind.@Be brief.@Be exact.\n{# promptlint: disable=PC101 #}\nTime: {{ now() }}\n{body}"),
        ("a.mustache", "Be kind.@Be brief.@Be exact.\n{{! promptlint: disable=PC101 }}\nTime: {{now}}\n{body}"),
        ("a.md", "Be kind.@Be brief.@Be exact.\n<!-- promptlint: disable=PC101 -->\nTime: {{ now() }}\n{body}"),
    ],
)
def test_a_line_separator_other_than_a_newline_does_not_move_a_directive(
    path: str, source: str, separator: str, long_rules: str
) -> None:
    # Findings number lines at "\n" only; the directives were numbered by splitlines(), which
    # also splits at a lone CR, a form feed, U+2028 and others: two of them above a directive
    # moved it two lines down, and the finding below it stayed.
    text = source.replace("@", separator)
    assert "PC101" in [rule for rule, _ in found(suppress._DIRECTIVE.sub("", text), path, long_rules)]
    assert found(text, path, long_rules) == []
    assert suppress.parse(text.replace("{body}", "")).line_codes == {2: {"PC101"}, 3: {"PC101"}}


def test_parse_records_lines_and_codes() -> None:
    parsed = suppress.parse(
        "a\n{# promptlint: disable=PC101,PC102 #}\nb\n<!-- promptlint: disable-file=PC103 -->\n"
    )
    assert parsed.file_codes == {"PC103"}
    assert parsed.line_codes == {2: {"PC101", "PC102"}, 3: {"PC101", "PC102"}}
    assert suppress.parse("no directives here").line_codes == {}


def test_suppression_through_the_cli(run_cli, write, long_rules: str, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    write("quiet.j2", "{# promptlint: disable=PC101 #}\nTime: {{ now() }}\n" + long_rules)
    write("loud.j2", "{# promptlint: disable=PC102 #}\nTime: {{ now() }}\n" + long_rules)
    result = run_cli("check", "--format", "json", "--select", "PC101,PC102", "quiet.j2", "loud.j2", cwd=tmp_path)
    assert result.exit_code == 1
    assert [(f["path"], f["line"]) for f in json.loads(result.stdout)["findings"]] == [("loud.j2", 2)]
