"""The local backend's exceptions, importable without torch or transformers."""

from __future__ import annotations

INSTALL_HINT = "pip install 'promptlint-cache[local]'"


class LocalBackendError(Exception):
    """The local KV backend could not do what was asked."""


class LocalBackendUnavailable(LocalBackendError):
    """torch or transformers is missing: the message is one line that names the install."""


class UnsupportedModel(LocalBackendError):
    """The model cannot be loaded, or its cache is not a plain per-token KV cache."""


class ReuseMismatch(LocalBackendError):
    """Logits computed over a reused KV prefix differ from a full recompute beyond the
    dtype's tolerance: the reuse was not exact. The message names the request."""
