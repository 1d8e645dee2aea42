"""Handlebars as dotprompt files write it: partial blocks, inline partials, and partials
given a context or hash options. Each was valid Handlebars that could not be checked, or a
partial looked up under a name that was its arguments."""

from __future__ import annotations

from pathlib import Path

from promptlint.api import check_paths, check_text
from promptlint.core.ir import Block, Tag
from promptlint.loaders import load_text

RULES = "\n".join(f"- Rule {i}: answer in plain words and cite the order line you read." for i in range(1, 20))


def test_a_partial_block_is_closed_by_the_partials_name() -> None:
    source = f"{RULES}\n{{{{#> thankYouMessage}}}}\nThank you for your order!\n{{{{/thankYouMessage}}}}\n"
    template = load_text("order.hbs", source)
    (block,) = [s for s in template.walk() if isinstance(s, Block)]
    assert block.kind == "if" and block.expr is not None and block.expr.path == ()
    assert source[block.close.start : block.close.end].strip() == "{{/thankYouMessage}}"  # type: ignore[union-attr]
    assert check_text(source, path="order.hbs").error is None


def test_an_inline_partial_and_a_partial_block_with_options_are_read() -> None:
    source = (
        '{{#*inline "row"}}\n- {{name}}\n{{/inline}}\n'
        '{{#> layout title="Orders"}}\nNo layout.\n{{/layout}}\n'
        "{{#each items}}{{> row}}{{/each}}\n"
    )
    result = check_text(source, path="orders.hbs")
    assert result.error is None


def test_a_partial_is_named_by_its_first_word() -> None:
    source = '{{> footer year=2025 author="Ada"}}\n{{> productLine item}}\n{{> "quoted-name"}}\n{{> (lookup . "which")}}\n'
    template = load_text("page.hbs", source)
    assert [t.target for t in template.walk() if isinstance(t, Tag)] == ["footer", "productLine", "quoted-name", None]


def test_a_partial_with_options_is_found_beside_the_file(tmp_path: Path) -> None:
    (tmp_path / "page.hbs").write_text(f"{RULES}\n{{{{> footer year=2025}}}}\n")
    (missing,) = check_paths([str(tmp_path / "page.hbs")]).warnings
    assert "`footer` not found" in missing  # the partial's name, not its options
    (tmp_path / "footer.hbs").write_text("Thanks for reading.\n")
    assert check_paths([str(tmp_path / "page.hbs")]).warnings == []


def test_a_dotprompt_partial_is_found_under_its_underscored_prompt_name(tmp_path: Path) -> None:
    # dotprompt keeps `{{> footer}}` in `_footer.prompt`: it was reported as not found, and
    # the clock in it went unseen.
    (tmp_path / "main.prompt").write_text(f"You are kind.\n{{{{> footer year=2025}}}}\n{RULES}\n")
    (tmp_path / "_footer.prompt").write_text("Now: {{ now }}\n")
    report = check_paths([str(tmp_path / "main.prompt")])
    assert report.warnings == []
    assert [(f.rule, f.line) for f in report.findings if f.rule == "PC104"] == [("PC104", 2)]
