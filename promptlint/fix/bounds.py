"""Where a fix may write: never through a symlink to a file outside what is being fixed.

A file is written where it really lives (a symlink's target; the link stays a link). That
real place must lie inside one of the file's roots:

- each folder named on the command line that holds the file (as named);
- the file's project: the nearest folder above it, as named and without following
  symlinks, that holds a ``promptlint.toml``, ``.promptlint.toml``, ``pyproject.toml``
  or ``.git``;
- only for a file named by itself outside any project, its own folder (as named).

So ``prompts/shared.j2 -> /etc/motd.j2`` or a walked ``prompts/linked/ -> /srv/other/``
is refused, while a link to a file elsewhere in the same project is written through.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from promptlint.discovery import project_root


def roots_for(path: str, folders: Sequence[str] = ()) -> list[str]:
    """The real folders a fix of ``path`` may write in (see the module docstring)."""
    named = os.path.abspath(path)
    roots = [os.path.abspath(f) for f in folders if _inside(named, os.path.abspath(f))]
    project = project_root(path)
    if project is not None:
        roots.append(project)
    if not roots:
        roots.append(os.path.dirname(named))
    return [os.path.realpath(root) for root in roots]


def refusal(path: str, target: str, folders: Sequence[str] = ()) -> str | None:
    """Why the real file ``target`` of ``path`` may not be written, or None when it may."""
    roots = roots_for(path, folders)
    if any(_inside(target, root) for root in roots):
        return None
    how = "a symlink to" if os.path.islink(path) else "reached through a symlink:"
    return (f"not written: it is {how} {target}, outside {roots[0]}; "
            "fix does not write through a link out of the project (fix the file where it lives)")


def _inside(path: str, folder: str) -> bool:
    return os.path.commonpath([path, folder]) == folder
