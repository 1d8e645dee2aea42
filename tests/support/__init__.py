"""Test support code (not shipped in the package): the fake provider server of issue 11.

Import it as ``support.fake_provider`` / ``support.fixtures``: pytest puts ``tests/`` on
``sys.path`` (rootdir-relative "prepend" import mode), whether it is run as ``pytest`` or as
``python -m pytest``; ``tests.support`` only resolves under the latter.
"""
