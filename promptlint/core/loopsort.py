"""The sort edit for an unsorted Jinja loop over a tool list: ``| sort(attribute="name")``
(``| dictsort`` for ``k, v in x.items()``), or why the loop cannot be sorted in the template.

Computed only: the unsafe fix applies it, and a rule asks it whether the loop is fixable.
jinja2 is imported when an edit is computed, never with this module.
"""

from __future__ import annotations

import re

from promptlint.core.ir import Block, Template


def sort_edit(template: Template, block: Block) -> tuple[tuple[int, int, str] | None, str]:
    """The edit ``(start, end, new iterable)`` that sorts a loop, or None and why it cannot be sorted."""
    if template.syntax != "jinja" or block.kind != "for":
        return None, "only Jinja `{% for %}` loops can be sorted in the template; sort the list where it is filled"
    source = template.source
    tag = source[block.open.start : block.open.end]
    match = re.match(r"(\{%[-+]?\s*for\s+)(.+?)(\s+in\s+)(.+?)(\s*[-+]?%\})$", tag, re.DOTALL)
    if match is None:
        return None, "the loop tag could not be read"
    from jinja2 import TemplateSyntaxError
    from jinja2 import nodes as n

    from promptlint.loaders.jinja import environment

    target_src, iter_src = match.group(2), match.group(4)
    try:
        loop = environment().parse("{% for " + target_src + " in " + iter_src + " %}{% endfor %}").body[0]
    except TemplateSyntaxError:
        return None, "the loop tag could not be read"
    assert isinstance(loop, n.For)
    if loop.test is not None or loop.recursive:
        return None, "the loop has a condition or is recursive"
    names = [loop.target] if isinstance(loop.target, n.Name) else list(getattr(loop.target, "items", []))
    items = re.fullmatch(r"(.+?)\s*\.\s*items\s*\(\s*\)", iter_src.strip(), re.DOTALL)
    if len(names) == 2 and items is not None:
        new_iter = f"{items.group(1)} | dictsort"
    elif len(names) == 1 and isinstance(loop.target, n.Name):
        var = loop.target.name
        body = source[block.open.end : block.close.start if block.close else block.span.end]
        by_name = re.search(rf"(?<![\w.]){re.escape(var)}\s*(?:\.\s*name\b|\[\s*['\"]name['\"]\s*\])", body)
        key = '(attribute="name")' if by_name or not re.search(rf"(?<![\w.]){re.escape(var)}\s*(?:\}}|\|)", body) else ""
        plain = isinstance(loop.iter, n.Name | n.Getattr | n.Getitem | n.Filter | n.Call)
        new_iter = f"{iter_src} | sort{key}" if plain else f"({iter_src}) | sort{key}"
    else:
        return None, "the loop unpacks names from something other than `.items()`"
    start = block.open.start + match.start(4)
    return (start, start + len(iter_src), new_iter), ""
