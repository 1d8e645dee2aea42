"""Time to first token with and without prefix reuse, through the local KV backend.

Variants of one prompt share their first K of N tokens (a stable system prompt, its volatile
tail after `promptlint fix`). The first variant fills the prefix store; each later one
reuses the K shared tokens and runs only N − K, and its last-position logits are checked
against a full recompute of all N, which is also the time without reuse.

    python bench/kv_reuse.py                 # CPU: the tiny random model, N=2,000, K=1,800
    python bench/kv_reuse.py --device cuda   # a random model shaped like Llama-3-8B, bf16,
                                             # a 10,000-token system prompt, four variants

The tiny model has random weights: it checks and times the cache, not answers. Figures, not
assertions; the last line is the speed-up next to the ideal N/(N−K).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys

from promptlint.probe.local import LocalBackend, LocalBackendError
from promptlint.probe.local.runner import logit_tolerance

# Per device: model, dtype, N, K. K is a multiple of the default block size, so the reuse
# is exactly K tokens.
DEFAULTS = {
    "cpu": ("tiny", "float32", 2_000, 1_800),
    "cuda": ("llama-8b-random", "bfloat16", 10_000, 9_000),
}


def variants(tokens: int, shared: int, count: int, seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    prefix = [rng.randrange(200_000) for _ in range(shared)]
    return [prefix + [rng.randrange(200_000) for _ in range(tokens - shared)] for _ in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--device", choices=sorted(DEFAULTS), default="cpu")
    parser.add_argument("--model", help="tiny, llama-8b-random or a local model folder")
    parser.add_argument("--dtype", choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--tokens", type=int, help="N, tokens per request")
    parser.add_argument("--shared", type=int, help="K, tokens every variant shares")
    parser.add_argument("--variants", type=int, default=4)
    parser.add_argument("--block-size", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=None,
                        help="torch CPU threads (default on cpu: 1; the tiny model's tensors "
                             "are too small to share out, and a busy machine makes it worse)")
    args = parser.parse_args()
    model, dtype, tokens, shared = DEFAULTS[args.device]
    model, dtype = args.model or model, args.dtype or dtype
    tokens, shared = args.tokens or tokens, args.shared if args.shared is not None else shared
    if not 0 <= shared < tokens or args.variants < 2:
        parser.error("need 0 <= K < N and at least 2 variants")

    import torch

    threads = args.threads or (1 if args.device == "cpu" else None)
    if threads:
        torch.set_num_threads(threads)
    try:
        backend = LocalBackend(model, device=args.device, dtype=dtype, block_size=args.block_size)
    except LocalBackendError as exc:
        sys.exit(f"kv_reuse: {exc}")
    print(f"model: {backend.summary()}")
    print(f"N={tokens:,} tokens, K={shared:,} shared, {args.variants} variants, "
          f"{args.repeats} repeats, torch threads {torch.get_num_threads()}")

    with_reuse, full, diffs, reused = [], [], [], set()
    for repeat in range(args.repeats):
        backend.reset()
        results = backend.run(variants(tokens, shared, args.variants, seed=repeat))
        for result in results[1:]:
            with_reuse.append(result.prefill_s)
            full.append(result.prefill_full_s or 0.0)
            diffs.append(result.max_logit_diff or 0.0)
            reused.add(result.cached_tokens)
    reuse_s, full_s = statistics.median(with_reuse), statistics.median(full)
    cached = min(reused)  # the same for every variant: K, block-floored
    print(f"time to first token, full prefill of {tokens:,}:  median {full_s * 1e3:8.1f} ms")
    print(f"time to first token, reusing {cached:,}, running {tokens - cached:,}:  "
          f"median {reuse_s * 1e3:8.1f} ms")
    print(f"max |logit difference| reuse vs full: {max(diffs):.3g} "
          f"(tolerance {logit_tolerance(dtype, 0.0):.3g}{'' if dtype == 'float32' else ' × max(1, |logit|)'})")
    print(f"KV: {backend.kv_bytes_per_token:,} B/token; reused prefix {cached * backend.kv_bytes_per_token:,} B")
    print(f"reuse speed-up: {full_s / reuse_s:.1f}x (N={tokens}, K={shared}, {backend.device}, "
          f"{dtype}) · ideal N/(N−K) = {tokens / (tokens - shared):.1f}x")


if __name__ == "__main__":
    main()
