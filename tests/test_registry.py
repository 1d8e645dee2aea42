"""Rules from plugins: a distribution that registers a module in the ``promptlint.rules``
entry point group adds its rule; without one, ``importlib.metadata`` is never imported."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptlint import registry


@pytest.fixture
def fresh_registry() -> Iterator[None]:
    registry.rules.cache_clear()
    yield
    registry.rules.cache_clear()
    sys.modules.pop("acme_rules", None)
    sys.modules.pop("acme_rules.rule", None)


def _install_plugin(folder: Path, entry_points: str) -> None:
    (folder / "acme_rules").mkdir()
    (folder / "acme_rules" / "__init__.py").write_text("")
    (folder / "acme_rules" / "rule.py").write_text(
        'CODE = "PC990"\nNAME = "acme-rule"\nSUMMARY = "A plugin rule"\n\n\ndef check(ctx):\n    return iter(())\n')
    meta = folder / "acme_rules-1.0.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-rules\nVersion: 1.0\n")
    (meta / "entry_points.txt").write_text(entry_points)


def test_a_plugin_in_the_entry_point_group_adds_its_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         fresh_registry: None) -> None:
    _install_plugin(tmp_path, "[console_scripts]\nacme = acme_rules.rule:check\n\n[promptlint.rules]\n"
                              "acme = acme_rules.rule\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "PC990" in [rule.CODE for rule in registry.rules()]


def test_a_plugin_of_other_groups_adds_no_rule(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               fresh_registry: None) -> None:
    _install_plugin(tmp_path, "[console_scripts]\nacme = acme_rules.rule:check\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert "PC990" not in [rule.CODE for rule in registry.rules()]


def test_a_zip_on_the_path_is_read_by_importlib_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A folder scan cannot see into a zip (or an egg): importlib.metadata is asked then.
    archive = tmp_path / "plugins.zip"
    archive.write_bytes(b"PK\x05\x06" + bytes(18))  # an empty zip
    monkeypatch.syspath_prepend(str(archive))
    assert registry._plugins_may_be_installed()


def test_without_a_plugin_the_registry_does_not_import_importlib_metadata() -> None:
    code = ("import sys\nfrom promptlint.registry import rules, _plugins_may_be_installed\n"
            "assert not _plugins_may_be_installed(), 'a plugin is installed here'\n"
            "rules()\nprint('importlib.metadata' in sys.modules)")
    out = subprocess.run([sys.executable, "-P", "-c", code], capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parent.parent)
    assert out.stdout.strip() == "False"
