"""promptlint: a prompt-cache linter for agent system prompts."""

from __future__ import annotations

import sys
from importlib.machinery import ModuleSpec
from importlib.util import spec_from_file_location
from pathlib import Path

__version__ = "0.1.0"


class _SourceRules:
    """Finds ``promptlint.rules`` in a source checkout, where it is the top-level ``rules/``.

    An install maps ``rules/`` to ``promptlint/rules/`` (pyproject's ``package-dir``; an
    editable install through setuptools' own finder). A source checkout on ``sys.path``
    without either (``python -m promptlint`` run in the checkout while a non-editable install
    is what is installed: the checkout shadows it) has only ``rules/`` beside the package.
    This finder sits last on ``sys.meta_path``, so an install's own mapping always wins.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, name: str, path: object = None, target: object = None) -> ModuleSpec | None:
        if name != f"{__name__}.rules":
            return None
        return spec_from_file_location(
            name, self.folder / "__init__.py", submodule_search_locations=[str(self.folder)]
        )


def _map_source_rules() -> None:
    here = Path(__file__).resolve().parent
    beside = here.parent / "rules"
    if (here / "rules").is_dir() or not (beside / "__init__.py").is_file():
        return  # installed (rules/ is inside the package), or not a source checkout
    if not any(isinstance(finder, _SourceRules) for finder in sys.meta_path):
        sys.meta_path.append(_SourceRules(beside))


_map_source_rules()
