"""Which transformer the local backend runs, on which device, in which dtype.

Two kinds of model:

- a named random-weight Llama (``tiny``, ``llama-8b-random``), built from a ``LlamaConfig``
  under ``torch.manual_seed``, with nothing downloaded. Its vocabulary is o200k_base's, so
  the token ids promptlint counts feed it directly. Random weights make its answers noise:
  it checks the KV cache (what is reused, and that reuse gives the same logits as a full
  recompute), not answers;
- ``PATH``, a local Hugging Face model folder, loaded with ``local_files_only=True`` (its
  weights are never downloaded), with its own tokenizer and chat template: a prompt string
  becomes the system turn, followed by a fixed short user turn.

Only full-attention models are accepted: a sliding-window layer keeps part of the history,
so a prefix of its cache is not the cache of the prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from promptlint.probe.local import compat
from promptlint.probe.local.errors import LocalBackendError, UnsupportedModel

DEVICES = ("auto", "cpu", "cuda")
DTYPES = ("float32", "bfloat16", "float16")
TINY = "tiny"
#: The user turn after the system prompt: constant, so every variant ends the same way.
USER_TURN = "Hello."
#: What the random models append to a prompt's o200k ids (encoded on its own, so no BPE
#: merge crosses into the prompt): a few constant tokens, the same for every variant.
RANDOM_MODEL_SUFFIX = "\n\nUser: Hello.\nAssistant:"


@dataclass(frozen=True)
class RandomShape:
    """The shape of a random-weight Llama; the vocabulary is always o200k_base's."""

    hidden_size: int
    intermediate_size: int
    num_layers: int
    num_heads: int
    num_kv_heads: int
    max_positions: int = 16_384


RANDOM_MODELS: dict[str, RandomShape] = {
    # Small enough for a CPU test in milliseconds, real enough to have GQA and RoPE.
    TINY: RandomShape(hidden_size=64, intermediate_size=128, num_layers=2, num_heads=4,
                      num_kv_heads=2),
    # Llama-3-8B's layers (32 × 4096, 32 query and 8 KV heads, MLP 14,336): for timing on CUDA.
    "llama-8b-random": RandomShape(hidden_size=4096, intermediate_size=14_336, num_layers=32,
                                   num_heads=32, num_kv_heads=8),
}


@dataclass(frozen=True)
class LoadedModel:
    """A model ready to run, with the facts the backend reports about its KV cache."""

    name: str
    model: Any
    device: str
    dtype: str
    random_weights: bool
    vocab_size: int
    max_positions: int | None
    num_layers: int
    num_kv_heads: int
    head_dim: int
    dtype_bytes: int
    encode_prompt: Callable[[str], list[int]]

    @property
    def kv_bytes_per_token(self) -> int:
        """2 (keys and values) × layers × KV heads × head dim × bytes per element."""
        return 2 * self.num_layers * self.num_kv_heads * self.head_dim * self.dtype_bytes

    def summary(self) -> str:
        shape = (f"{self.num_layers} layers, {self.num_kv_heads} KV heads × {self.head_dim}, "
                 f"{self.kv_bytes_per_token:,} KV bytes/token")
        what = (f"{self.name}: random-weight Llama (seeded, nothing downloaded; it checks the "
                f"KV cache, not answers)" if self.random_weights else f"{self.name}")
        return f"{what}; {shape}; {self.device}, {self.dtype}"


def load_model(name: str, *, device: str = "auto", dtype: str = "float32",
               seed: int = 0) -> LoadedModel:
    """Build a named random model or load a local model folder, in eval mode on ``device``."""
    if dtype not in DTYPES:
        raise LocalBackendError(f"dtype {dtype!r}: choose one of {', '.join(DTYPES)}")
    torch, _ = compat.require()
    resolved = resolve_device(device)
    torch_dtype = getattr(torch, dtype)
    if name in RANDOM_MODELS:
        return _build_random(name, RANDOM_MODELS[name], resolved, dtype, seed)
    folder = Path(name).expanduser()
    if not folder.is_dir():
        raise UnsupportedModel(
            f"model {name!r} is neither a random model ({', '.join(RANDOM_MODELS)}) nor a local "
            "Hugging Face model folder"
        )
    return _load_folder(folder, resolved, dtype, torch_dtype)


def resolve_device(device: str) -> str:
    """``auto`` is CUDA when torch sees a GPU, else the CPU; asking for CUDA without one fails."""
    if device not in DEVICES:
        raise LocalBackendError(f"device {device!r}: choose one of {', '.join(DEVICES)}")
    torch, _ = compat.require()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise LocalBackendError("device cuda: torch sees no CUDA GPU (is this a CPU build of torch?)")
    return device


def _build_random(name: str, shape: RandomShape, device: str, dtype: str,
                  seed: int) -> LoadedModel:
    torch, transformers = compat.require()
    from promptlint.core.tokens import encode, get_encoding

    config = transformers.LlamaConfig(
        vocab_size=get_encoding("o200k_base").n_vocab,
        hidden_size=shape.hidden_size,
        intermediate_size=shape.intermediate_size,
        num_hidden_layers=shape.num_layers,
        num_attention_heads=shape.num_heads,
        num_key_value_heads=shape.num_kv_heads,
        max_position_embeddings=shape.max_positions,
        tie_word_embeddings=True,  # halves the memory of a 200k-row embedding
    )
    # fork_rng: the seed shapes these weights without moving the caller's random state.
    cuda_devices = [torch.cuda.current_device()] if device == "cuda" else []
    with torch.random.fork_rng(devices=cuda_devices), torch.device(device):
        torch.manual_seed(seed)
        model = transformers.LlamaForCausalLM(config)
    model = model.to(dtype=getattr(torch, dtype)).eval()
    suffix = encode(RANDOM_MODEL_SUFFIX)
    return LoadedModel(
        name=name, model=model, device=device, dtype=dtype, random_weights=True,
        vocab_size=config.vocab_size, max_positions=shape.max_positions,
        num_layers=shape.num_layers, num_kv_heads=shape.num_kv_heads,
        head_dim=shape.hidden_size // shape.num_heads,
        dtype_bytes=_dtype_bytes(dtype),
        encode_prompt=lambda prompt: encode(prompt) + suffix,
    )


def _load_folder(folder: Path, device: str, dtype: str, torch_dtype: Any) -> LoadedModel:
    _, transformers = compat.require()
    try:
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, local_files_only=True)
        model = transformers.AutoModelForCausalLM.from_pretrained(
            folder, local_files_only=True, **compat.dtype_kwargs(torch_dtype)
        )
    except (OSError, ValueError, KeyError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UnsupportedModel(f"{folder}: cannot load it offline: {first_line}") from exc
    model = model.to(device=device, dtype=torch_dtype).eval()
    config = model.config.get_text_config() if hasattr(model.config, "get_text_config") else model.config
    _require_full_attention(folder, config)
    num_heads = config.num_attention_heads
    head_dim = getattr(config, "head_dim", None) or config.hidden_size // num_heads
    return LoadedModel(
        name=str(folder), model=model, device=device, dtype=dtype, random_weights=False,
        vocab_size=model.get_input_embeddings().num_embeddings,
        max_positions=getattr(config, "max_position_embeddings", None),
        num_layers=config.num_hidden_layers,
        num_kv_heads=getattr(config, "num_key_value_heads", None) or num_heads,
        head_dim=head_dim, dtype_bytes=_dtype_bytes(dtype),
        encode_prompt=_chat_encoder(folder, tokenizer),
    )


def _require_full_attention(folder: Path, config: Any) -> None:
    layer_types = getattr(config, "layer_types", None)
    if layer_types and any(kind != "full_attention" for kind in layer_types):
        raise UnsupportedModel(f"{folder}: has non-full-attention layers ({sorted(set(layer_types))}): "
                               "a prefix of their cache is not the cache of the prefix")
    if (not layer_types and getattr(config, "sliding_window", None)
            and getattr(config, "use_sliding_window", True)):
        raise UnsupportedModel(f"{folder}: uses sliding-window attention: a prefix of its cache "
                               "is not the cache of the prefix")


def _chat_encoder(folder: Path, tokenizer: Any) -> Callable[[str], list[int]]:
    def encode_prompt(prompt: str) -> list[int]:
        if not getattr(tokenizer, "chat_template", None):
            raise UnsupportedModel(f"{folder}: the tokenizer has no chat template; pass token ids")
        messages = [{"role": "system", "content": prompt}, {"role": "user", "content": USER_TURN}]
        try:
            ids = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=True)
        except Exception as exc:  # jinja2 errors, or a template that refuses a system turn
            raise UnsupportedModel(f"{folder}: its chat template failed: {exc}") from exc
        if isinstance(ids, Mapping) or hasattr(ids, "keys"):
            ids = ids["input_ids"]
        return [int(token) for token in ids]

    return encode_prompt


def _dtype_bytes(dtype: str) -> int:
    return {"float32": 4, "bfloat16": 2, "float16": 2}[dtype]
