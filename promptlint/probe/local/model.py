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

import json
import os
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
        _require_memory_for(name, RANDOM_MODELS[name], resolved, dtype)
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


def random_weight_bytes(shape: RandomShape, vocab_size: int, dtype: str = "float32") -> int:
    """The bytes of a random model's weights in ``dtype``, the dtype they are built in: the
    tied embedding, and per layer the attention and MLP projections and two norms."""
    head_dim = shape.hidden_size // shape.num_heads
    attention = 2 * shape.hidden_size * head_dim * (shape.num_heads + shape.num_kv_heads)
    layer = attention + 3 * shape.hidden_size * shape.intermediate_size + 2 * shape.hidden_size
    parameters = vocab_size * shape.hidden_size + shape.num_layers * layer + shape.hidden_size
    return _dtype_bytes(dtype) * parameters


def _memory_bytes(device: str) -> int | None:
    """The device's total memory, or None where it cannot be read (no sysconf on Windows)."""
    torch, _ = compat.require()
    if device == "cuda":
        return int(torch.cuda.mem_get_info()[1])
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _require_memory_for(name: str, shape: RandomShape, device: str, dtype: str) -> None:
    """Refuse a random model larger than the device's memory: llama-8b-random on a CPU
    machine of 16 GB built weights until the kernel killed the process, with no message."""
    from promptlint.core.tokens import get_encoding

    needed = random_weight_bytes(shape, get_encoding("o200k_base").n_vocab, dtype)
    memory = _memory_bytes(device)
    if memory is not None and needed > memory:
        raise LocalBackendError(
            f"model {name}: its weights take {needed / 1e9:.1f} GB in {dtype}, more than "
            f"the {memory / 1e9:.1f} GB of memory on {device}"
        )


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
    # from_config with the dtype builds every weight in it (under a default dtype that
    # transformers sets and restores): built in float32 and cast after, bfloat16 peaked at
    # float32's size plus the cast copy, so --dtype saved no memory while building.
    # The RoPE frequencies stay float32, as from_pretrained leaves them.
    cuda_devices = [torch.cuda.current_device()] if device == "cuda" else []
    with torch.random.fork_rng(devices=cuda_devices), torch.device(device), compat.quiet():
        torch.manual_seed(seed)
        model = transformers.AutoModelForCausalLM.from_config(
            config, **compat.dtype_kwargs(getattr(torch, dtype)))
    model = model.eval()
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
    # trust_remote_code=False, said outright: left unset, transformers asks on a terminal
    # whether to run the folder's own Python (a folder's config.json names it in auto_map)
    # and waits for the answer; here nothing from the folder is ever executed.
    offline = {"local_files_only": True, "trust_remote_code": False}
    if not (folder / "config.json").is_file():
        raise UnsupportedModel(f"{folder}: has no config.json: not a Hugging Face model folder")
    _require_settings(folder)
    # Any exception: a hostile or broken config.json fails inside transformers in many ways
    # (a TypeError for a wrong type, a ZeroDivisionError for 0 heads, a RuntimeError for
    # weights of another shape), and each is one line about this folder, never a traceback.
    # compat.quiet: what transformers logs on the way is not printed above that line.
    try:
        with compat.quiet():
            config = transformers.AutoConfig.from_pretrained(folder, **offline)
    except Exception as exc:
        raise UnsupportedModel(f"{folder}: cannot read its config.json: {_first_line(exc)}") from exc
    _require_sane_sizes(folder, config)
    try:
        with compat.quiet():
            tokenizer = transformers.AutoTokenizer.from_pretrained(folder, **offline)
    except Exception as exc:
        raise UnsupportedModel(f"{folder}: cannot load its tokenizer offline: {_first_line(exc)}") from exc
    # ignore_mismatched_sizes and output_loading_info: weights of another shape, or missing
    # from the files, are then listed rather than only reported on stderr, and refused below
    # with the first one named (transformers' own refusal pointed at "the above report").
    try:
        with compat.quiet():
            model, loading = transformers.AutoModelForCausalLM.from_pretrained(
                folder, config=config, **offline, **compat.dtype_kwargs(torch_dtype),
                ignore_mismatched_sizes=True, output_loading_info=True,
            )
            model = model.to(device=device, dtype=torch_dtype).eval()
    except Exception as exc:
        raise UnsupportedModel(f"{folder}: cannot load it offline: {_first_line(exc)}") from exc
    _require_matching_weights(folder, loading)
    config = _text_config(model.config)
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


#: How a JSON value that is not an object is named.
_JSON_KINDS = {list: "a JSON list", str: "a JSON string", int: "a JSON number", float: "a JSON number",
               bool: "JSON true or false", type(None): "JSON null"}


def _require_settings(folder: Path) -> None:
    """Refuse a config.json that is no JSON object, or names no architecture, before
    transformers reads it: it failed on them with its own internals ("argument of type
    'NoneType' is not iterable" for null, "unhashable type: 'list'" for a list model_type)
    or with advice that missed the point ("Should have a `model_type` key" for a list)."""
    path = folder / "config.json"
    try:
        settings = json.loads(path.read_bytes().decode("utf-8"))
    except UnicodeDecodeError:
        raise UnsupportedModel(f"{folder}: config.json is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise UnsupportedModel(f"{folder}: config.json is not JSON: {exc}") from None
    except OSError as exc:
        raise UnsupportedModel(f"{folder}: cannot read its config.json: {exc.strerror or exc}") from None
    if not isinstance(settings, dict):
        raise UnsupportedModel(f"{folder}: config.json is {_JSON_KINDS.get(type(settings), 'JSON')}, "
                               "not an object of settings")
    model_type = settings.get("model_type")
    if model_type is not None and not isinstance(model_type, str):
        raise UnsupportedModel(f"{folder}: config.json model_type is {model_type!r}, not the name of an architecture")


#: The sizes in a config.json that must be positive whole numbers where given.
_SIZES = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads",
          "num_key_value_heads", "head_dim", "max_position_embeddings")
#: Weight files transformers loads from a folder.
_WEIGHT_SUFFIXES = (".safetensors", ".bin")


def _require_sane_sizes(folder: Path, config: Any) -> None:
    """Refuse, before any module is built, a config.json whose sizes are no sizes or
    describe more parameters than the folder's weight files hold: transformers fills what
    the weights lack with random values, so 10**6 layers in a config.json next to a 100 KB
    checkpoint built modules for minutes and grew memory without bound."""
    text = _text_config(config)
    for name in _SIZES:
        value = getattr(text, name, None)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise UnsupportedModel(f"{folder}: config.json {name} is {value!r}, not a positive whole number")
    hidden = getattr(text, "hidden_size", None) or 0
    # A floor that holds for every causal LM: the embedding (vocabulary × hidden), at
    # least one hidden-sized vector (a norm, a bias, a projection's row) per layer, and
    # where an MLP width is given, one hidden × width projection (once: a mixture-of-
    # experts or hybrid model may give it for some layers only). Without that last term,
    # intermediate_size 10**8 next to a 100 KB checkpoint built 77 GB of random weights.
    intermediate = getattr(text, "intermediate_size", None)
    width = intermediate if isinstance(intermediate, int) and not isinstance(intermediate, bool) else 0
    floor = ((getattr(text, "vocab_size", None) or 0) + (getattr(text, "num_hidden_layers", None) or 0)
             + max(width, 0)) * hidden
    weight_bytes = sum(path.stat().st_size for path in folder.iterdir()
                       if path.name.endswith(_WEIGHT_SUFFIXES) and path.is_file())
    # Four parameters a byte is beyond even a 4-bit checkpoint (two a byte): a margin, not a fit.
    if not weight_bytes:
        raise UnsupportedModel(f"{folder}: has no weight file (*.safetensors, *.bin)")
    if floor > 4 * weight_bytes:
        raise UnsupportedModel(
            f"{folder}: config.json describes at least {floor:,} parameters, more than its "
            f"{weight_bytes:,} bytes of weight files hold (the rest would be random weights, built in memory)"
        )


def _require_matching_weights(folder: Path, loading: Mapping[str, Any]) -> None:
    """Refuse a folder whose weight files do not hold every weight its config.json
    describes, in that shape: transformers fills the rest with random values and only says
    so on stderr, and a model part random would be measured as if it were the folder's."""
    mismatched = sorted(loading.get("mismatched_keys") or (), key=lambda entry: str(entry[0]))
    if mismatched:
        key, in_files, in_model = mismatched[0]
        more = f" (and {len(mismatched) - 1} more)" if len(mismatched) > 1 else ""
        raise UnsupportedModel(
            f"{folder}: its weights do not fit its config.json: {key} is {list(in_files)} in the "
            f"weight files, {list(in_model)} in the model{more}"
        )
    missing = sorted(loading.get("missing_keys") or ())
    if missing:
        shown = ", ".join(missing[:2]) + (", …" if len(missing) > 2 else "")
        raise UnsupportedModel(
            f"{folder}: its weight files lack {len(missing)} tensors its config.json describes "
            f"({shown}): they would be random weights"
        )


def _text_config(config: Any) -> Any:
    return config.get_text_config() if hasattr(config, "get_text_config") else config


def _first_line(exc: Exception) -> str:
    """The exception's first line, joined with the next ones while a line only leads into
    the next (transformers writes "Validation error for field 'hidden_size':" and the reason
    below, and lists a tokenizer's three sources one a line, ending in "," and "or")."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    end = 0
    while end + 1 < len(lines) and _leads_on(lines[end]):
        end += 1
    return " ".join(lines[:end + 1])


def _leads_on(line: str) -> bool:
    return line.endswith((":", ",", ";")) or line.rsplit(" ", 1)[-1] in ("or", "and")


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
