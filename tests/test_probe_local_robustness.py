"""The local KV backend under bad input: every option, model folder and size that is no good
ends in one line and exit 2 (a LocalBackendError from the API), never a traceback, a prompt,
a hang or memory past what was asked for."""

from __future__ import annotations

import json
import logging
import warnings
from pathlib import Path

import pytest

pytest.importorskip("torch", reason="the local extra (torch) is not installed")
pytest.importorskip("transformers", reason="the local extra (transformers) is not installed")

import torch  # noqa: E402

from promptlint.probe.local import LocalBackendError, UnsupportedModel  # noqa: E402
from promptlint.probe.local import compat, model, store  # noqa: E402
from promptlint.probe.local.store import PrefixStore  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "fixtures/agents/templates/system.j2"


def _probe(run_cli, *args: str):
    return run_cli("probe", str(DEMO), "--provider", "local", "--model", "tiny", "--variants", "1", *args)


def _one_line_usage_error(result, option: str) -> None:
    assert result.exit_code == 2, result.output
    assert option in result.stderr
    assert "internal error" not in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("budget", ["abc", "-5", "1e30", "inf", "", "9" * 400])
def test_a_kv_budget_that_is_no_size_is_a_usage_error_naming_the_option(run_cli, budget):
    _one_line_usage_error(_probe(run_cli, "--kv-budget", budget), "--kv-budget")


@pytest.mark.parametrize("price_as", ["x", "openai:", ":gpt-4.1", " : ", "nosuchprovider:gpt-4.1"])
def test_a_price_as_that_names_no_provider_model_is_a_usage_error(run_cli, price_as):
    _one_line_usage_error(_probe(run_cli, "--price-as", price_as), "--price-as")


@pytest.mark.parametrize(("block_size", "kv_budget"), [
    (1.5, None), ("16", None), (True, None), (None, None),
    (16, 1.5), (16, True), (16, "abc"), (16, -1), (16, "9" * 400),
])
def test_the_store_refuses_odd_arguments_with_a_local_backend_error(block_size, kv_budget):
    with pytest.raises(LocalBackendError, match="block_size|kv_budget"):
        PrefixStore(block_size, kv_budget)


def _layers(tokens: int, num_layers: int = 2) -> list[tuple[torch.Tensor, torch.Tensor]]:
    return [(torch.randn(1, 2, tokens, 4), torch.randn(1, 2, tokens, 4)) for _ in range(num_layers)]


def test_the_kv_budget_bounds_the_store_while_it_copies_not_only_after(monkeypatch):
    block_nbytes = 2 * 2 * 2 * 1 * 4 * 4  # layers × (keys, values) × heads × tokens × head dim × float32
    prefix_store = PrefixStore(block_size=1, kv_budget=3 * block_nbytes)
    held_at_copy = []
    stack_block = compat.stack_block

    def watched(layers, start, stop):  # what the store holds as it copies one more block
        held_at_copy.append(prefix_store.nbytes + block_nbytes)
        return stack_block(layers, start, stop)

    monkeypatch.setattr(compat, "stack_block", watched)
    first, second = list(range(100)), list(range(1000, 1100))
    prefix_store.insert(first, _layers(100))
    assert max(held_at_copy) <= prefix_store.kv_budget and len(held_at_copy) == 3
    assert prefix_store.lookup(first).length == 3  # the request's first blocks are what is held
    prefix_store.insert(second, _layers(100))
    assert max(held_at_copy) <= prefix_store.kv_budget and prefix_store.nbytes <= prefix_store.kv_budget
    assert prefix_store.lookup(second).length == 3 and prefix_store.lookup(first).length == 0
    # Under the budget, a request shares its held parents with the next one and keeps them.
    third = second[:2] + [7, 8, 9]
    prefix_store.insert(third, _layers(5))
    assert prefix_store.lookup(third).length == 3 and prefix_store.nbytes <= prefix_store.kv_budget
    assert prefix_store.lookup(second).length == 2


def test_a_budget_under_one_block_holds_and_copies_nothing(monkeypatch):
    prefix_store = PrefixStore(block_size=4, kv_budget=1)
    monkeypatch.setattr(compat, "stack_block", lambda *args: pytest.fail("copied a block it cannot hold"))
    prefix_store.insert(list(range(64)), _layers(64))
    assert len(prefix_store) == 0 and prefix_store.nbytes == 0


def test_a_random_model_larger_than_memory_is_refused_before_it_is_built(monkeypatch):
    monkeypatch.setattr(model, "_memory_bytes", lambda device: 16 * 10**9, raising=False)
    monkeypatch.setattr(model, "_build_random", lambda *args: pytest.fail("built a 31 GB model"))
    with pytest.raises(LocalBackendError, match="llama-8b-random.*GB"):
        model.load_model("llama-8b-random", device="cpu")


def test_the_memory_a_random_model_needs_is_counted_in_the_dtype_it_is_built_in(monkeypatch):
    # llama-8b-random is 31.2 GB in float32 and 15.6 GB in bfloat16, built directly in it:
    # on 20 GB, bfloat16 fits and is built, float32 is refused.
    monkeypatch.setattr(model, "_memory_bytes", lambda device: 20 * 10**9, raising=False)
    monkeypatch.setattr(model, "_build_random", lambda name, shape, device, dtype, seed: dtype)
    assert model.load_model("llama-8b-random", device="cpu", dtype="bfloat16") == "bfloat16"
    with pytest.raises(LocalBackendError, match=r"llama-8b-random: its weights take 3\d\.\d GB in float32"):
        model.load_model("llama-8b-random", device="cpu", dtype="float32")


# A local Hugging Face model folder: a 2-layer Llama over a word-level tokenizer.


@pytest.fixture(scope="module")
def model_folder(tmp_path_factory) -> Path:
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers

    folder = tmp_path_factory.mktemp("model")
    vocab = {"[UNK]": 0, "<s>": 1, "</s>": 2, **{f"w{i}": i + 3 for i in range(100)}}
    tokenizer = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = transformers.PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="[UNK]",
                                                bos_token="<s>", eos_token="</s>")
    fast.chat_template = "{% for m in messages %}<s> {{ m['content'] }} </s> {% endfor %}"
    fast.save_pretrained(folder)
    config = transformers.LlamaConfig(vocab_size=128, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=4096,
                                      bos_token_id=1, eos_token_id=2)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        transformers.LlamaForCausalLM(config).save_pretrained(folder)
    return folder


def _with_config(model_folder: Path, tmp_path: Path, **changes) -> Path:
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(model_folder, folder)
    config = json.loads((folder / "config.json").read_text())
    (folder / "config.json").write_text(json.dumps({**config, **changes}))
    return folder


def test_a_model_folder_loads_and_reuses(model_folder):
    from promptlint.probe.local import LocalBackend

    backend = LocalBackend(str(model_folder), device="cpu", block_size=1)
    first, second = backend.run(["w1 w2 w3 w4", "w1 w2 w3 w5"])
    assert first.cached_tokens == 0 and second.cached_tokens > 0 and second.max_logit_diff <= 1e-5


@pytest.mark.parametrize(("changes", "said"), [
    ({"hidden_size": "big"}, "hidden_size"),
    ({"num_hidden_layers": [2]}, "num_hidden_layers"),
    ({"num_attention_heads": 0}, "config.json"),
    ({"vocab_size": 0}, "vocab_size"),
    ({"max_position_embeddings": -1}, "max_position_embeddings"),
    ({"model_type": "no-such-architecture"}, "no-such-architecture"),
])
def test_a_broken_config_json_is_one_line_naming_the_folder(model_folder, tmp_path, changes, said):
    folder = _with_config(model_folder, tmp_path, **changes)
    with pytest.raises(UnsupportedModel) as caught:
        model.load_model(str(folder), device="cpu")
    message = str(caught.value)
    assert str(folder) in message and said in message and "\n" not in message


@pytest.mark.parametrize("changes", [
    {"num_hidden_layers": 10**6}, {"hidden_size": 10**9},
    # 10**8 × hidden 32 × 3 projections × 2 layers: 77 GB of random MLP weights next to a
    # 100 KB checkpoint, built before transformers found their shape wrong.
    {"intermediate_size": 10**8},
])
def test_a_config_json_larger_than_its_weights_is_refused_before_anything_is_built(
        model_folder, tmp_path, monkeypatch, changes):
    import transformers

    def built(*args, **kwargs):
        pytest.fail("built the model (10**6 layers took minutes and memory without bound)")

    monkeypatch.setattr(transformers.AutoModelForCausalLM, "from_pretrained", built)
    folder = _with_config(model_folder, tmp_path, **changes)
    with pytest.raises(UnsupportedModel, match="parameters, more than its .* bytes of weight files"):
        model.load_model(str(folder), device="cpu")


def test_a_folder_asking_to_run_its_own_code_is_never_asked_about(model_folder, tmp_path, monkeypatch):
    # Left to itself, transformers asks on the terminal "Do you wish to run the custom code?"
    # and waits; a "y" would run the folder's Python.
    folder = _with_config(model_folder, tmp_path, model_type="custom-thing",
                          auto_map={"AutoConfig": "custom.Config", "AutoModelForCausalLM": "custom.Model"})
    (folder / "custom.py").write_text("raise SystemExit('the folder code ran')\n")
    monkeypatch.setattr("builtins.input", lambda *args: pytest.fail("asked whether to run the folder's code"))
    with pytest.raises(UnsupportedModel, match="custom code"):
        model.load_model(str(folder), device="cpu")


def test_a_folder_without_config_json_says_so(tmp_path):
    (tmp_path / "notes.txt").write_text("not a model")
    with pytest.raises(UnsupportedModel, match="has no config.json"):
        model.load_model(str(tmp_path), device="cpu")


def test_a_hostile_model_folder_through_the_cli_is_one_line_and_exit_2(run_cli, model_folder, tmp_path):
    folder = _with_config(model_folder, tmp_path, num_attention_heads=0)
    result = run_cli("probe", str(DEMO), "--provider", "local", "--model", str(folder), "--variants", "1")
    assert result.exit_code == 2
    assert f"{folder}" in result.stderr and "internal error" not in result.output and "Traceback" not in result.output


def test_parse_size_keeps_its_contract():
    assert store.parse_size("2GB") == 2 * 10**9 and store.parse_size("1.5 KiB") == 1536 and store.parse_size(0) == 0


# What transformers prints: nothing. A broken folder printed its warnings, a load report
# and a "Loading weights" bar on stderr before promptlint's one line.


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.NOTSET)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def transformers_output(capfd):
    """What transformers logs (at any level its verbosity lets through), warns or writes
    while the test runs; its verbosity and progress bars as they were, checked after."""
    from transformers.utils import logging as hf_logging

    records = _Records()
    root = logging.getLogger("transformers")
    root.addHandler(records)
    verbosity, bars = hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        yield lambda: ([r.getMessage() for r in records.records], [str(w.message) for w in warned],
                       capfd.readouterr().err)
    root.removeHandler(records)
    assert (hf_logging.get_verbosity(), hf_logging.is_progress_bar_enabled()) == (verbosity, bars)


@pytest.mark.parametrize(("changes", "said"), [
    # The checkpoint's MLP is 64 wide: transformers refused with "look at the above report".
    ({"intermediate_size": 48}, r"weights do not fit its config.json: model\.layers\.\d\.mlp\.\w+\.weight is "
                                r"\[\d+, \d+\] in the weight files, \[\d+, \d+\] in the model"),
    # A third layer the checkpoint lacks: transformers filled it with random weights, said
    # so in a report on stderr, and the run went on as if it were the folder's model.
    ({"num_hidden_layers": 3}, r"its weight files lack 9 tensors its config.json describes "
                               r"\(model\.layers\.2\..*\): they would be random"),
])
def test_weights_that_do_not_fit_the_config_are_one_line_and_transformers_says_nothing(
        model_folder, tmp_path, transformers_output, changes, said):
    folder = _with_config(model_folder, tmp_path, **changes)
    with pytest.raises(UnsupportedModel, match=said) as caught:
        model.load_model(str(folder), device="cpu")
    assert str(caught.value).startswith(f"{folder}: ") and "\n" not in str(caught.value)
    assert transformers_output() == ([], [], "")


def test_a_model_folder_that_loads_prints_nothing_either(model_folder, transformers_output):
    loaded = model.load_model(str(model_folder), device="cpu", dtype="bfloat16")
    assert loaded.model.dtype == torch.bfloat16
    assert transformers_output() == ([], [], "")  # no "Loading weights" bar


def test_a_broken_model_folder_through_the_cli_is_one_line_on_stderr(run_process, model_folder, tmp_path):
    folder = _with_config(model_folder, tmp_path, intermediate_size=48)
    result = run_process("probe", str(DEMO), "--provider", "local", "--model", str(folder), "--variants", "1")
    assert result.exit_code == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"error: local: {folder}: "), result.stderr
    assert "weights do not fit its config.json" in result.stderr


@pytest.mark.parametrize(("config_json", "said"), [
    ("[1, 2, 3]", "config.json is a JSON list, not an object of settings"),  # was "Should have a `model_type` key"
    ("null", "config.json is JSON null, not an object of settings"),  # was "argument of type 'NoneType' is not iterable"
    ('"llama"', "config.json is a JSON string, not an object of settings"),
    ('{"model_type": ["llama"]}', "config.json model_type is ['llama'], not the name of an architecture"),  # was "unhashable type: 'list'"
    ("{not json", "config.json is not JSON: Expecting property name enclosed in double quotes: line 1 column 2"),
    (b"\xff\xfe{}", "config.json is not UTF-8 text"),
])
def test_a_config_json_that_is_no_object_of_settings_is_named_as_such(model_folder, tmp_path, config_json, said):
    folder = _with_config(model_folder, tmp_path)
    path = folder / "config.json"
    path.write_bytes(config_json) if isinstance(config_json, bytes) else path.write_text(config_json)
    with pytest.raises(UnsupportedModel) as caught:
        model.load_model(str(folder), device="cpu")
    assert str(caught.value).startswith(f"{folder}: {said}") and "\n" not in str(caught.value)


def test_a_folder_without_a_tokenizer_says_so_in_a_whole_sentence(model_folder, tmp_path):
    folder = _with_config(model_folder, tmp_path)
    for path in folder.iterdir():
        if path.name.startswith(("tokenizer", "special_tokens", "chat_template")):
            path.unlink()
    with pytest.raises(UnsupportedModel) as caught:
        model.load_model(str(folder), device="cpu")
    message = str(caught.value)
    # Was cut after its first line: "... from one of: (1) a `tokenizers` library serialization file,"
    assert message.startswith(f"{folder}: cannot load its tokenizer offline: ") and "\n" not in message
    assert message.endswith(".") and "(3)" in message
