"""The one boundary to torch and transformers: the lazy import, the missing-extra error, and
the few API differences between transformers 4.5x and 5.x that the backend touches.

The differences, each handled here and nowhere else (the tests pass on 5.24.0, the pinned
line, and on 4.57.6):

- the cache argument of ``forward``: ``past_key_values`` (4.x) or ``cache`` (5.24, where
  ``past_key_values`` is a deprecated alias); read from the signature;
- ``cache_position``: taken by 4.x, gone in 5.24 (positions come from ``position_ids``,
  which every version takes and this module always passes); passed where it is taken;
- the keep-only-the-last-logits argument: ``num_logits_to_keep`` (4.45–4.49) or
  ``logits_to_keep`` (later). Always 1: a full-vocabulary logit tensor for 2,000 tokens
  of the o200k vocabulary is 1.6 GB in float32;
- ``from_pretrained``'s dtype argument: ``dtype`` (5.x) or ``torch_dtype`` (4.x);
- the tensors inside a ``DynamicCache``: ``cache.layers[i].keys/values`` (4.57, 5.x) or
  ``cache.key_cache[i]``/``cache.value_cache[i]`` (older 4.x).

A cache is built with ``DynamicCache()`` and ``update(keys, values, layer)``, which every
supported version has. KV tensors are ``[batch=1, kv_heads, tokens, head_dim]``.
"""

from __future__ import annotations

import contextlib
import inspect
import logging
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any

from promptlint.probe.local.errors import INSTALL_HINT, LocalBackendUnavailable, UnsupportedModel

if TYPE_CHECKING:
    from torch import Tensor

#: One layer's keys and values, ``[1, kv_heads, tokens, head_dim]`` each.
LayerKV = tuple["Tensor", "Tensor"]

MIN_TRANSFORMERS = (4, 45)


def require() -> tuple[ModuleType, ModuleType]:
    """torch and transformers, imported on first use; one-line :class:`LocalBackendUnavailable`
    naming the install when either is missing or too old."""
    try:
        import torch
        import transformers
    except ImportError as exc:
        missing = getattr(exc, "name", None) or "torch/transformers"
        raise LocalBackendUnavailable(
            f"the local KV backend needs torch and transformers ({missing} is not installed): "
            f"{INSTALL_HINT}"
        ) from None
    version = _major_minor(transformers.__version__)
    if version < MIN_TRANSFORMERS:
        raise LocalBackendUnavailable(
            f"the local KV backend needs transformers>={'.'.join(map(str, MIN_TRANSFORMERS))} "
            f"(found {transformers.__version__}): {INSTALL_HINT}"
        )
    return torch, transformers


def _major_minor(version: str) -> tuple[int, int]:
    parts = [int("".join(ch for ch in p if ch.isdigit()) or 0) for p in version.split(".")[:2]]
    return parts[0], parts[1] if len(parts) > 1 else 0


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Silence transformers' log lines, its progress bars and Python warnings for the
    duration, then restore all three as they were.

    Wrapped around the calls into torch and transformers only, never around promptlint's
    own checks: a broken model folder printed transformers' warnings, a load report and a
    "Loading weights" bar on stderr before promptlint's one-line error, and the contract is
    that one line. Nothing is lost by it: what transformers raises becomes that line, and
    what it only reports (weights missing from a checkpoint) the backend checks itself.
    """
    _, transformers = require()
    hf_logging = transformers.utils.logging
    verbosity = hf_logging.get_verbosity()
    bars = hf_logging.is_progress_bar_enabled()
    hub_bars_off = _hub_progress_bars_disabled()
    # Switching the bars back on warns where an environment variable pins them off: the
    # switching happens inside the warnings filter too.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hf_logging.set_verbosity(logging.CRITICAL)
        hf_logging.disable_progress_bar()
        try:
            yield
        finally:
            hf_logging.set_verbosity(verbosity)
            if bars:
                hf_logging.enable_progress_bar()  # which turns huggingface_hub's on as well
                if hub_bars_off:
                    _disable_hub_progress_bars()


def _hub_progress_bars_disabled() -> bool:
    try:
        from huggingface_hub.utils.tqdm import are_progress_bars_disabled
    except ImportError:
        return False
    return bool(are_progress_bars_disabled())


def _disable_hub_progress_bars() -> None:
    from huggingface_hub.utils.tqdm import disable_progress_bars

    disable_progress_bars()


def dtype_kwargs(torch_dtype: Any) -> dict[str, Any]:
    """``from_pretrained``'s dtype argument: ``dtype`` in 5.x, ``torch_dtype`` before."""
    _, transformers = require()
    name = "dtype" if _major_minor(transformers.__version__) >= (5, 0) else "torch_dtype"
    return {name: torch_dtype}


def new_cache(layers: Sequence[LayerKV]) -> Any:
    """A ``DynamicCache`` holding ``layers`` (the tensors are taken as they are: pass copies)."""
    _, transformers = require()
    kv_cache = transformers.DynamicCache()
    for index, (keys, values) in enumerate(layers):
        kv_cache.update(keys, values, index)
    return kv_cache


def cache_layers(kv_cache: Any) -> list[LayerKV]:
    """The per-layer key and value tensors inside a ``DynamicCache``."""
    layers = getattr(kv_cache, "layers", None)
    if layers is not None:
        return [(layer.keys, layer.values) for layer in layers]
    return list(zip(kv_cache.key_cache, kv_cache.value_cache, strict=True))


def stack_block(layers: Sequence[LayerKV], start: int, stop: int) -> Tensor:
    """An own copy of tokens ``start:stop`` of every layer, as one tensor
    ``[layers, 2, kv_heads, tokens, head_dim]`` (a view would keep the whole request's
    tensors alive and make the store's byte count a lie)."""
    torch, _ = require()
    block: Tensor = torch.stack([torch.stack((keys[0, :, start:stop], values[0, :, start:stop]))
                                 for keys, values in layers])
    return block


def unstack_blocks(blocks: Sequence[Tensor]) -> list[LayerKV]:
    """Per-layer keys and values of consecutive blocks from :func:`stack_block`, copied out
    with one ``torch.cat`` (one call however many layers: a prefix is often 1,000+ blocks)."""
    torch, _ = require()
    joined = torch.cat(list(blocks), dim=3)
    return [(joined[layer, 0].unsqueeze(0), joined[layer, 1].unsqueeze(0))
            for layer in range(joined.shape[0])]


def layers_nbytes(layers: Sequence[LayerKV]) -> int:
    return sum(keys.nbytes + values.nbytes for keys, values in layers)


@dataclass(frozen=True)
class _ForwardArgs:
    cache_name: str
    logits_name: str
    takes_cache_position: bool


def _forward_args(model_class: type[Any]) -> _ForwardArgs:
    # Read per call: microseconds next to a forward pass, and no module state to keep.
    params = inspect.signature(model_class.forward).parameters
    cache_name = "cache" if "cache" in params else "past_key_values"
    if "logits_to_keep" in params:
        logits_name = "logits_to_keep"
    elif "num_logits_to_keep" in params:
        logits_name = "num_logits_to_keep"
    else:
        raise UnsupportedModel(
            f"{model_class.__name__}.forward takes no logits_to_keep: the backend would compute "
            "logits for every position (gigabytes on a large vocabulary)"
        )
    return _ForwardArgs(cache_name, logits_name, "cache_position" in params)


def last_logits(model: Any, token_ids: Sequence[int], *, start: int = 0,
                kv_cache: Any = None) -> Tensor:
    """Float32 logits at the last position after running ``token_ids`` through ``model``.

    ``start`` is the position of the first token: with ``kv_cache`` holding the KV of the
    ``start`` tokens before it (which the call extends in place), or 0 and no cache for a
    full recompute, which then keeps no cache at all.
    """
    torch, _ = require()
    args = _forward_args(type(model))
    device = model.device
    input_ids = torch.tensor([list(token_ids)], dtype=torch.long, device=device)
    positions = torch.arange(start, start + len(token_ids), device=device)
    kwargs: dict[str, Any] = {
        "input_ids": input_ids,
        "position_ids": positions.unsqueeze(0),
        args.logits_name: 1,
        "use_cache": kv_cache is not None,
    }
    if kv_cache is not None:
        kwargs[args.cache_name] = kv_cache
        if args.takes_cache_position:
            kwargs["cache_position"] = positions
    output = model(**kwargs)
    logits: Tensor = output.logits[0, -1].float()
    return logits


def synchronize(device: str) -> None:
    """Wait for queued GPU work, so that a wall-clock reading covers it."""
    torch, _ = require()
    if device.startswith("cuda"):
        torch.cuda.synchronize()
