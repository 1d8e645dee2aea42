"""Peak memory of building a seeded random model for the local KV backend, per dtype.

Each dtype is built in a fresh process (peak RSS is a high-water mark: one process per
figure), as ``probe --provider local --model NAME --dtype D`` builds it: a random-weight
Llama on the o200k vocabulary, here of a shape whose float32 weights take about 460 MB
(hidden 512, 4 layers), large enough that the weights dwarf the interpreter. Printed per
dtype: the weights' bytes in that dtype, the peak RSS while building over the RSS after
importing torch and transformers, and their ratio. A model built in float32 and then cast
peaks near float32 size plus the cast copy (1.5× float32 for bfloat16); built directly in
the dtype, near the dtype's own size.

    python bench/kv_build_memory.py                      # float32, bfloat16, float16
    python bench/kv_build_memory.py --layers 8 --hidden 1024

Figures, not assertions. CPU only (RSS); the same code builds on CUDA.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, resource, sys
import torch, transformers  # noqa: F401  (their import is the baseline, not the build)
from promptlint.core.tokens import get_encoding
from promptlint.probe.local import model

get_encoding("o200k_base")
hidden, layers, dtype = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
model.RANDOM_MODELS["bench"] = model.RandomShape(hidden_size=hidden, intermediate_size=3 * hidden,
                                                 num_layers=layers, num_heads=8, num_kv_heads=4)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
loaded = model.load_model("bench", device="cpu", dtype=dtype)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
weights = sum(p.numel() * p.element_size() for p in loaded.model.parameters())
dtypes = sorted({str(p.dtype) for p in loaded.model.parameters()})
print(json.dumps({"before": before, "peak": peak, "weights": weights, "dtypes": dtypes}))
"""


def measure(hidden: int, layers: int, dtype: str) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", CHILD, str(hidden), str(layers), dtype],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"kv_build_memory: building in {dtype} failed: {out.stderr.strip().splitlines()[-1:]}")
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--dtypes", default="float32,bfloat16,float16")
    args = parser.parse_args()
    print(f"random Llama, hidden {args.hidden}, {args.layers} layers, o200k vocabulary; "
          "peak RSS while building, over the RSS after imports, one fresh process per dtype")
    for dtype in args.dtypes.split(","):
        figures = measure(args.hidden, args.layers, dtype)
        weights, grown = int(figures["weights"]), int(figures["peak"]) - int(figures["before"])  # type: ignore[call-overload]
        print(f"{dtype:>9}: weights {weights / 1e6:7.1f} MB ({', '.join(figures['dtypes'])}), "  # type: ignore[arg-type]
              f"peak RSS +{grown / 1e6:7.1f} MB while building = {grown / weights:.2f}× the weights")


if __name__ == "__main__":
    main()
