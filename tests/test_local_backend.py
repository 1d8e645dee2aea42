"""The local KV backend: reuse counts follow the block-floored longest common prefix, reuse
is proved exact against a full recompute (and a wrong cache is caught), eviction keeps the
byte budget, and a missing extra says how to install it. CPU, the seeded tiny model, no
timing asserted."""

from __future__ import annotations

import importlib.util
import random
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from promptlint.core.tokens import common_prefix_length, encode
from promptlint.probe.local import (
    INSTALL_HINT,
    LocalBackend,
    LocalBackendError,
    LocalBackendUnavailable,
    ReuseMismatch,
    UnsupportedModel,
    parse_size,
)
from promptlint.probe.local.store import PrefixStore

HAVE_LOCAL = all(importlib.util.find_spec(name) for name in ("torch", "transformers"))
needs_local = pytest.mark.skipif(
    not HAVE_LOCAL, reason=f"torch/transformers are not installed ({INSTALL_HINT})"
)
KV_BYTES_PER_TOKEN = 2 * 2 * 2 * 16 * 4  # keys+values × layers × KV heads × head dim × float32


# --- without torch ---------------------------------------------------------------------

def test_importing_the_package_loads_neither_torch_nor_transformers() -> None:
    code = ("import sys, promptlint.probe.local; "
            "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("missing", ["torch", "transformers"])
def test_a_missing_extra_is_one_line_that_names_the_install(
    monkeypatch: pytest.MonkeyPatch, missing: str
) -> None:
    monkeypatch.setitem(sys.modules, missing, None)  # makes `import missing` fail
    with pytest.raises(LocalBackendUnavailable) as caught:
        LocalBackend("tiny", device="cpu")
    message = str(caught.value)
    assert "pip install 'promptlint-cache[local]'" in message
    if HAVE_LOCAL:
        assert f"({missing} is not installed)" in message
    assert "\n" not in message


@pytest.mark.parametrize(("text", "expected"), [
    (4096, 4096), ("4096", 4096), ("2GB", 2 * 10**9), ("512MiB", 512 * 2**20),
    ("1.5 GiB", 3 * 2**29), ("64kib", 65536), ("10 B", 10),
])
def test_sizes_parse_in_decimal_and_binary_units(text: int | str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "GB", "2 parsecs", "-1", "1e9"])
def test_a_size_that_is_not_one_is_refused(text: str) -> None:
    with pytest.raises(ValueError, match="number of bytes"):
        parse_size(text)


# --- with the tiny model ---------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny() -> Iterator[LocalBackend]:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the tiny model's tensors are too small to share out
    try:
        yield LocalBackend("tiny", device="cpu", dtype="float32")
    finally:
        torch.set_num_threads(threads)


def fresh(backend: LocalBackend, block_size: int = 16,
          kv_budget: int | str | None = None) -> LocalBackend:
    """The module's backend with an empty store of the given shape."""
    backend.store = PrefixStore(block_size, kv_budget)
    backend.verify = True
    return backend


def expected_reuse(requests: Sequence[Sequence[int]], block_size: int) -> list[int]:
    """Per request: the longest common prefix with any earlier request, capped one short of
    the request, floored to whole blocks."""
    reuse = []
    for index, request in enumerate(requests):
        common = max((common_prefix_length(request, earlier) for earlier in requests[:index]),
                     default=0)
        reuse.append(min(common, len(request) - 1) // block_size * block_size)
    return reuse


def branching_requests(seed: int, count: int = 8) -> list[list[int]]:
    """Requests that share prefixes of every kind with earlier ones: branches at random
    points, exact repeats, strict prefixes and extensions."""
    rng = random.Random(seed)

    def ids(n: int) -> list[int]:
        return [rng.randrange(200_000) for _ in range(n)]

    requests = [ids(rng.randrange(40, 160))]
    while len(requests) < count:
        earlier = rng.choice(requests)
        kind = rng.choice(["branch", "repeat", "prefix", "extend", "fresh"])
        cut = rng.randrange(1, len(earlier))
        requests.append({
            "branch": earlier[:cut] + ids(rng.randrange(1, 60)),
            "repeat": list(earlier),
            "prefix": earlier[:cut],
            "extend": earlier + ids(rng.randrange(1, 40)),
            "fresh": ids(rng.randrange(2, 120)),
        }[kind])
    return requests


@needs_local
@pytest.mark.parametrize("block_size", [1, 16])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_reuse_is_the_block_floored_longest_common_prefix_never_the_whole_request(
    tiny: LocalBackend, block_size: int, seed: int
) -> None:
    requests = branching_requests(seed)
    results = fresh(tiny, block_size).run(requests)
    assert [r.cached_tokens for r in results] == expected_reuse(requests, block_size)
    for request, result in zip(requests, results, strict=True):
        assert result.input_tokens == len(request)
        assert result.cached_tokens < result.input_tokens
        assert result.recomputed_tokens == result.input_tokens - result.cached_tokens
        assert result.verified and result.max_logit_diff is not None
        assert result.max_logit_diff <= 1e-5
        assert result.prefix_bytes == result.cached_tokens * KV_BYTES_PER_TOKEN


@needs_local
def test_prompt_strings_are_o200k_ids_plus_a_constant_suffix(tiny: LocalBackend) -> None:
    rules = "\n".join(f"Rule {i}: cite the handbook and never invent order facts." for i in range(30))
    variants = [f"{rules}\nThe user is {name}." for name in ("Ada", "Grace", "Linus")]
    encoded = [tiny.encode(v) for v in variants]
    suffixes = [ids[len(encode(v)):] for v, ids in zip(variants, encoded, strict=True)]
    assert all(ids[:len(encode(v))] == encode(v) for v, ids in zip(variants, encoded, strict=True))
    assert suffixes[0] == suffixes[1] == suffixes[2] and 0 < len(suffixes[0]) <= 8

    results = fresh(tiny, 16).run(variants, names=["ada", "grace", "linus"])
    assert [r.cached_tokens for r in results] == expected_reuse(encoded, 16)
    assert results[1].cached_tokens > 0 and results[1].name == "grace"


@needs_local
def test_verification_catches_reuse_of_one_token_too_many(
    tiny: LocalBackend, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(7)
    first = [rng.randrange(200_000) for _ in range(120)]
    second = first[:80] + [rng.randrange(200_000) for _ in range(40)]
    backend = fresh(tiny, block_size=1)
    backend.run([first])
    real_lookup = backend.store.lookup
    # A store that lets the 81st token through although it differs: its KV is first's.
    monkeypatch.setattr(backend.store, "lookup", lambda tokens: real_lookup(first[:82]))
    with pytest.raises(ReuseMismatch, match=r"request 0 \('second'\).*81 reused of 120"):
        backend.run([second], names=["second"])


@needs_local
def test_verification_catches_a_cache_from_a_different_prefix(tiny: LocalBackend) -> None:
    rng = random.Random(8)
    first = [rng.randrange(200_000) for _ in range(96)]
    other = [rng.randrange(200_000) for _ in range(96)]
    backend = fresh(tiny, block_size=16)
    backend.run([first, other])
    # Swap the KV held for the two requests' first blocks: keyed by first's tokens, the
    # store now holds other's keys and values.
    store_root = backend.store._root
    block_first, block_other = store_root[tuple(first[:16])], store_root[tuple(other[:16])]
    block_first.kv, block_other.kv = block_other.kv, block_first.kv
    again = first[:64] + [rng.randrange(200_000) for _ in range(10)]
    with pytest.raises(ReuseMismatch, match=r"request 0: .*64 reused"):
        backend.run([again])


@needs_local
def test_no_mismatch_is_reported_where_the_reuse_is_real(tiny: LocalBackend) -> None:
    rng = random.Random(9)
    first = [rng.randrange(200_000) for _ in range(200)]
    second = first[:150] + [rng.randrange(200_000) for _ in range(50)]
    [_, result] = fresh(tiny, block_size=1).run([first, second])
    assert result.cached_tokens == 150 and result.verified
    assert result.max_logit_diff is not None and result.max_logit_diff <= 1e-5
    assert result.prefill_full_s is not None and result.prefill_s > 0


@needs_local
def test_eviction_keeps_the_store_under_its_budget_least_recently_used_first(
    tiny: LocalBackend,
) -> None:
    block_bytes = 16 * KV_BYTES_PER_TOKEN
    backend = fresh(tiny, block_size=16, kv_budget=f"{12 * block_bytes}B")  # 12 blocks
    rng = random.Random(10)
    shared = [rng.randrange(200_000) for _ in range(64)]  # 4 blocks, used by every request
    requests = [shared + [rng.randrange(200_000) for _ in range(64)] for _ in range(6)]
    for request in requests:
        backend.run([request])
        assert backend.store.nbytes <= 12 * block_bytes
        assert backend.store.nbytes == len(backend.store) * block_bytes
    assert backend.store.evicted_blocks > 0
    # The prefix every request used survived; the oldest request's own tail did not, the
    # latest one's did.
    [oldest, latest] = backend.run([requests[0] + [1], requests[-1] + [1]])
    assert oldest.cached_tokens == 64
    assert latest.cached_tokens == 128


@needs_local
def test_a_budget_below_one_block_holds_nothing(tiny: LocalBackend) -> None:
    backend = fresh(tiny, block_size=16, kv_budget=16 * KV_BYTES_PER_TOKEN - 1)
    request = list(range(100, 164))
    results = backend.run([request, request])
    assert [r.cached_tokens for r in results] == [0, 0] and len(backend.store) == 0


@needs_local
def test_verification_off_reports_no_recompute(tiny: LocalBackend) -> None:
    backend = fresh(tiny, block_size=16)
    backend.verify = False
    [_, result] = backend.run([list(range(1, 100)), list(range(1, 90))])
    assert result.cached_tokens == 80 and not result.verified
    assert result.prefill_full_s is None and result.max_logit_diff is None


@needs_local
def test_kv_bytes_per_token_follow_the_model_shape(tiny: LocalBackend) -> None:
    assert tiny.kv_bytes_per_token == KV_BYTES_PER_TOKEN
    summary = tiny.summary()
    assert "random-weight" in summary and "not answers" in summary and "512 KV bytes/token" in summary


@needs_local
@pytest.mark.parametrize(("request_ids", "problem"), [
    ([], "no tokens"), ([5, 200_019], "outside the model's vocabulary"), ([-1], "outside"),
])
def test_a_request_the_model_cannot_take_is_refused_by_name(
    tiny: LocalBackend, request_ids: list[int], problem: str
) -> None:
    with pytest.raises(LocalBackendError, match=rf"request 0 \('bad'\): .*{problem}"):
        fresh(tiny).run([request_ids], names=["bad"])


@needs_local
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_a_random_model_is_built_in_its_dtype_never_as_a_float32_copy(dtype: str) -> None:
    # Built in float32 and cast after, a bfloat16 model peaked at float32's size plus the
    # cast copy: --dtype saved no memory while building (bench/kv_build_memory.py).
    import torch
    from torch.utils._python_dispatch import TorchDispatchMode

    from promptlint.probe.local import model

    class Created(TorchDispatchMode):
        """Records the dtype and size of every floating tensor an operation makes."""

        def __init__(self) -> None:
            super().__init__()
            self.tensors: list[tuple[torch.dtype, int]] = []

        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            out = func(*args, **(kwargs or {}))
            for tensor in out if isinstance(out, tuple | list) else [out]:
                if isinstance(tensor, torch.Tensor) and tensor.is_floating_point():
                    self.tensors.append((tensor.dtype, tensor.numel()))
            return out

    with Created() as created:
        loaded = model.load_model("tiny", device="cpu", dtype=dtype)
    parameters = list(loaded.model.parameters())
    assert {p.dtype for p in parameters} == {getattr(torch, dtype)}
    assert torch.get_default_dtype() == torch.float32  # the build's own default, restored
    # The only float32 tensors a build needs are the RoPE frequencies (head dim / 2 = 8
    # values each); a float32 copy of the weights holds the 12.8M-value embedding.
    float32_sizes = [size for made, size in created.tensors if made == torch.float32]
    assert max(float32_sizes, default=0) <= 8, f"a float32 tensor of {max(float32_sizes):,} values was made"
    assert sum(p.numel() for p in parameters) > 10**7


@needs_local
def test_a_random_model_is_the_same_for_a_seed_and_dtype_and_differs_by_seed() -> None:
    import torch

    from promptlint.probe.local import model

    def weights(seed: int) -> list[torch.Tensor]:
        built = model.load_model("tiny", device="cpu", dtype="bfloat16", seed=seed).model
        return [p.detach() for p in built.parameters()]

    first, again, other = weights(0), weights(0), weights(1)
    assert all(torch.equal(a, b) for a, b in zip(first, again, strict=True))
    assert not all(torch.equal(a, b) for a, b in zip(first, other, strict=True))


@needs_local
def test_a_model_that_is_neither_named_nor_a_folder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UnsupportedModel, match="neither a random model"):
        LocalBackend(f"{tmp_path}/no-such-model", device="cpu")


@needs_local
def test_a_local_model_folder_loads_offline_with_its_own_chat_template(tmp_path: Path) -> None:
    import torch
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    words = ["[UNK]", "<s>", "<sys>", "</sys>", "<user>", "<bot>"] + [
        f"rule{i}" for i in range(60)] + ["Hello.", "Ada", "Grace", "user", "is"]
    tokenizer_core = Tokenizer(models.WordLevel({w: i for i, w in enumerate(words)}, unk_token="[UNK]"))
    tokenizer_core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tokenizer_core, unk_token="[UNK]"
    )
    tokenizer.chat_template = (
        "{% for m in messages %}{% if m.role == 'system' %}<sys> {{ m.content }} </sys> "
        "{% else %}<user> {{ m.content }} {% endif %}{% endfor %}"
        "{% if add_generation_prompt %}<bot>{% endif %}"
    )
    config = LlamaConfig(vocab_size=len(words), hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=512)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        LlamaForCausalLM(config).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)

    backend = LocalBackend(str(tmp_path), device="cpu", block_size=4)
    assert not backend.random_weights and "random" not in backend.summary()
    rules = " ".join(f"rule{i}" for i in range(60))
    prompts = [f"{rules} user is {name}" for name in ("Ada", "Grace")]
    ids = backend.encode(prompts[0])
    assert ids[0] == words.index("<sys>") and ids[-3:] == [
        words.index("<user>"), words.index("Hello."), words.index("<bot>")]
    results = backend.run(prompts)
    assert results[1].cached_tokens == 60  # <sys> + 60 rules + "user is" = 63, floored to 4s
    assert results[1].verified and results[1].max_logit_diff is not None
    assert backend.kv_bytes_per_token == 2 * 2 * 2 * 8 * 4
