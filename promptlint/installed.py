"""The distributions installed on ``sys.path``, read with a folder scan: ``importlib.metadata``,
with the ``email`` package it imports, costs a tenth of a one-file check (the result cache's
fingerprint and the rule registry ask on every run)."""

from __future__ import annotations

import os
import sys


def metadata_folders() -> tuple[list[str], bool]:
    """The ``.dist-info`` and ``.egg-info`` folders on ``sys.path`` (in path order, each
    entry's sorted), and whether every entry was read: one that is not a folder (a zip, an
    egg) holds distributions only ``importlib.metadata`` reads."""
    found: list[str] = []
    complete = True
    for entry in sys.path:
        try:
            with os.scandir(entry or ".") as entries:
                names = [e.name for e in entries if e.name.endswith((".dist-info", ".egg-info"))]
        except NotADirectoryError:
            complete = False
            continue
        except OSError:  # a folder that is not there (yet), or cannot be read
            continue
        found += [f"{entry}/{name}" for name in sorted(names)]
    return found, complete
