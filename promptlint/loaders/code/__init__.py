"""Prompts built in code: Python (``ast``) and TypeScript/JavaScript (tree-sitter).

Most cache breakers live in the code that assembles a system prompt, not in template
files: f-strings and template literals, ``.format``, sections appended to a list and
joined, a clock helper called from the middle of an "Environment" section. The readers
in this package evaluate such code *symbolically*: string literals become
:class:`~promptlint.core.ir.Text`, every interpolated expression a
:class:`~promptlint.core.ir.Slot` whose :class:`~promptlint.core.ir.Expr` says what it
reads and calls (``datetime.now().strftime("%H:%M")``, ``user.display_name``), and a
loop that appends to the prompt a ``for`` :class:`~promptlint.core.ir.Block` over its
iterable, so that ``core.volatility.classify`` judges code as it judges templates.

Which strings are prompts (:func:`is_prompt_name`, and the readers' sinks):

* assigned to, or returned from a function named with, a word that says prompt:
  ``prompt``, ``system``, ``instructions``, ``preamble``, ``persona`` (``SYSTEM_PROMPT``,
  ``build_system_prompt``, ``getInstructions``) or a name of ``[code] prompt-names``;
* passed as ``system=``/``instructions=``/``system_prompt=`` (``system:`` and
  ``systemPrompt:`` in an object), or as the content of a ``{"role": "system"}`` (or
  ``"developer"``) message, a ``SystemMessage(...)``, a ``("system", ...)`` pair;
* long multi-line text with instruction-like content (``You are``, ``Always``, ``Never``,
  Markdown headings), wherever it stands, except in logging calls and user turns.

A value used only in a logging call or in a user message is not read at all: it is not in
the system prompt. Names are followed through local assignments and through helper
functions of the same module, two calls deep; a builder decorated with
``functools.cache``/``lru_cache``, and a module-level constant computed at import, are
pinned per process (their per-request values become per-session).

One file may build several prompts. The file's template holds each as a template of its
own in ``Template.prompts`` (source order; a prompt whose pieces all belong to a larger one
is merged into it), and their segments one after the other as its own segments. The check
analyses each prompt on its own (a clock at the end of one prompt is at the end of *that*
prompt) and reports one result for the file: its findings, and its tokens and stable
prefix as the sums over its prompts.
"""

from __future__ import annotations

from collections.abc import Callable

from promptlint.core.ir import Tag, Template
from promptlint.loaders.code.collect import (
    Prompt,
    build_template,
    dedupe,
    literal_size,
)
from promptlint.loaders.code.prompts import (
    DEDENT_CALLEES,
    LOGGING_CALLEES,
    MAX_HELPER_DEPTH,
    MIN_PROMPT_TEXT,
    OTHER_TURN_CALLEES,
    PROMPT_WORDS,
    SINK_KEYS,
    SYSTEM_CALLEES,
    SYSTEM_ROLES,
    is_prompt_name,
    is_sink_key,
    looks_like_instructions,
    may_hold_prompt,
)
from promptlint.loaders.code.values import (
    Each,
    Item,
    Lst,
    Opaque,
    Str,
    Value,
    as_list,
    cleandoc,
    concat,
    contents,
    dedent,
    extend,
    grown_since,
    item_segments,
    join,
    literal_text,
    segments_of,
    start_budget,
    strip,
    text_value,
    transform_text,
    wrap_tail,
)
from promptlint.loaders.code.volatility import (
    FILE_READ_CALLEES,
    ISO_METHODS,
    SHELL_BASES,
    SHELL_CALLEES,
    Facts,
    date_fns_format,
    file_name_path,
    intl_format,
    iso_prefix_format,
    shell_command_name,
)


def load_code(loader: Callable[..., Template], path: str, text: str, prompt_names: tuple[str, ...]) -> Template:
    """Run a code reader (``python.load`` or a TypeScript/JavaScript one) with config's names.

    Source code is open-ended: a construct a reader gets wrong must cost that one file (a
    load error, a warning in a folder walk), never the run."""
    from promptlint.loaders.base import LoadError

    start_budget()
    try:
        return loader(path, text, prompt_names)
    except (LoadError, RecursionError):
        raise
    except MemoryError:
        raise LoadError("too large to evaluate its prompts") from None
    except Exception as exc:  # noqa: BLE001 - see the docstring
        raise LoadError(f"could not read the prompts it builds ({type(exc).__name__}: {exc}); "
                        "please report this file's construct") from None


__all__ = [
    "DEDENT_CALLEES",
    "Each",
    "FILE_READ_CALLEES",
    "Facts",
    "ISO_METHODS",
    "Item",
    "LOGGING_CALLEES",
    "Lst",
    "MAX_HELPER_DEPTH",
    "MIN_PROMPT_TEXT",
    "OTHER_TURN_CALLEES",
    "Opaque",
    "PROMPT_WORDS",
    "Prompt",
    "SHELL_BASES",
    "SHELL_CALLEES",
    "SINK_KEYS",
    "SYSTEM_CALLEES",
    "SYSTEM_ROLES",
    "Str",
    "Tag",
    "Value",
    "as_list",
    "build_template",
    "cleandoc",
    "concat",
    "contents",
    "date_fns_format",
    "dedent",
    "dedupe",
    "extend",
    "file_name_path",
    "grown_since",
    "intl_format",
    "is_prompt_name",
    "is_sink_key",
    "iso_prefix_format",
    "item_segments",
    "join",
    "literal_size",
    "literal_text",
    "load_code",
    "looks_like_instructions",
    "may_hold_prompt",
    "segments_of",
    "shell_command_name",
    "strip",
    "text_value",
    "transform_text",
    "wrap_tail",
]
