"""Pages of public repositories that were read as templates they are not, and so could not
be checked: Jekyll pages in Liquid, a design page quoting a Helm chart or JSX in fenced
examples, a page that names a Jinja extension's tag in a code span, a directive's name in
front matter read as an unclosed Mustache section. Each is a valid file of
its own kind; promptlint reads it as static text and checks it."""

from __future__ import annotations

import pytest

from promptlint.api import check_text
from promptlint.loaders import infer_syntax

# Shapes of the pages (written for these tests): each was "could not be checked".
PAGES = {
    # A Jekyll post: Liquid filters take their arguments after a colon.
    "post.md": (
        "---\ntitle: Release notes\n---\n"
        "{% if page.date %}\n<p class=\"date\">{{ page.date | date: \"%B %d, %Y\" }}</p>\n{% endif %}\n\n"
        "The new release reads more files.\n"
    ),
    # A Jekyll include: Liquid tags that Jinja does not have.
    "chart.md": (
        "{% assign top = 0 %}\n{% for row in site.data.rows %}{% if row.cost > top %}"
        "{% assign top = row.cost %}{% endif %}{% endfor %}\n"
        "{% unless top == 0 %}Top cost: {{ top }}{% endunless %}\n"
    ),
    # A design page quoting a Helm chart in a fenced example (Go templates with pipes).
    "design.md": (
        "# Telemetry\n\nThe job runs daily.\n\n```yaml\nmetadata:\n"
        "  name: {{ include \"app.fullname\" . }}-job\n"
        "  labels:\n    {{- include \"app.labels\" . | nindent 4 }}\n"
        "  value: {{ .Values.slug | default \"app\" | quote }}\n```\n\nIt uploads once.\n"
    ),
    # A page about a Jinja extension: its tags named in code spans, used in fences.
    "extension.md": (
        "# Chat messages\n\nThe extension adds a `{% message %}` tag that builds one message, and an\n"
        "`{% insert %}` tag for a list of them:\n\n```\n{% message role=\"user\" %}{{ query }}{% endmessage %}\n```\n"
    ),
    # A component page: JSX in a fenced example opens an object literal with a comment.
    "component.md": (
        "# Table\n\n```tsx\n<markdown\n  tableOptions={{            // table rendering\n"
        "    widthMode: \"full\",\n  }}\n/>\n```\n\nThe table wraps words.\n"
    ),
    # A gh-aw shared prompt: its front matter names the directive that imports it.
    "rigor.md": (
        "---\n# Imported by the workflows; the text below is appended to the task prompt\n"
        "# at runtime via {{#runtime-import}}.\n---\n\n## Rigor\n\n- Ground every claim in a file and a line.\n"
    ),
}


@pytest.mark.parametrize("path", sorted(PAGES))
def test_pages_that_are_no_template_are_read_as_static_text(path: str) -> None:
    assert infer_syntax(path, PAGES[path]).syntax == "markdown"
    result = check_text(PAGES[path], path=path)
    assert result.error is None
    assert result.syntax == "markdown"


def test_the_evidence_says_why_a_liquid_page_is_static() -> None:
    post = infer_syntax("post.md", PAGES["post.md"])
    assert post.from_content
    assert "a Liquid filter argument (`| date:`), which Jinja cannot read" in post.evidence
    chart = infer_syntax("chart.md", PAGES["chart.md"])
    assert "a Liquid tag (`{% assign %}`)" in chart.evidence


@pytest.mark.parametrize(
    ("path", "text", "syntax"),
    [
        # Jinja filters take their arguments in parentheses; statements outside code spans count
        ("prompt.md", "Today is {{ now() | date_format('%Y') }}.\n{% if user %}Hi {{ user }}.{% endif %}\n", "jinja"),
        ("prompt.md", "Use `{{ name }}`.\n{% for tool in tools %}- {{ tool }}\n{% endfor %}\n", "jinja"),
        ("prompt.md", "Hello {{ user.name | upper }}, the time is {{ time }}.\n", "jinja"),
        # Handlebars sections outside fences, and a `{{/* */}}` Go comment, still decide
        ("prompt.md", "{{#each tools}}- {{name}}\n{{/each}}\n", "mustache"),
        ("prompt.md", "{{/* tools */}}\nTime: {{.Time}}\n", "go"),
        ("prompt.md", "{{#> layout}}\nBe brief.\n{{/layout}}\n", "mustache"),
        ("prompt.md", "{{> header}}\nBe brief.\n", "mustache"),
    ],
)
def test_templates_are_still_read_as_templates(path: str, text: str, syntax: str) -> None:
    assert infer_syntax(path, text).syntax == syntax
