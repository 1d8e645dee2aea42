"""Run the fake provider from the command line, for trying ``promptlint probe`` by hand.

    python tests/support/serve_fake_provider.py --min-tokens 256 &
    # prints: fake provider on http://127.0.0.1:PORT (OpenAI: …/v1, Anthropic: …)
    OPENAI_API_KEY=sk-anything promptlint probe fixtures/agents/templates/system.j2 \\
        --provider openai --base-url http://127.0.0.1:PORT/v1 --compare-fix

``--min-tokens N`` lowers the minimum cacheable prefix of the OpenAI and Anthropic cache models
the server bills with (the demo template is 470 tokens, under every real minimum), and
``--write-config FILE`` writes a promptlint.toml with the same override, for ``probe --config``
so that the probe's prediction uses the same rule. It stops on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from support.fake_provider import CHAT_DIALECTS, FakeProvider  # noqa: E402

ANTHROPIC_MODELS = ("claude-sonnet-5", "claude-haiku-4-5", "claude-opus-5")


def overrides(min_tokens: int) -> dict[str, dict[str, object]]:
    rule = [{"models": list(ANTHROPIC_MODELS), "min_cacheable_tokens": min_tokens}]
    return {"openai": {"min_cacheable_tokens": min_tokens}, "anthropic": {"min_cacheable_tokens": min_tokens,
                                                                         "models": rule}}


def config_text(min_tokens: int) -> str:
    models = ", ".join(f'"{m}"' for m in ANTHROPIC_MODELS)
    return (f"[providers.openai]\nmin_cacheable_tokens = {min_tokens}\n\n"
            f"[providers.anthropic]\nmin_cacheable_tokens = {min_tokens}\n\n"
            f"[[providers.anthropic.models]]\nmodels = [{models}]\nmin_cacheable_tokens = {min_tokens}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min-tokens", type=int, help="minimum cacheable prefix for OpenAI and Anthropic")
    parser.add_argument("--write-config", help="write a promptlint.toml with the same minimum here")
    parser.add_argument("--api-key", help="the only key the server accepts (default: any)")
    parser.add_argument("--dialect", choices=sorted(CHAT_DIALECTS), default="openai",
                        help="how Chat Completions reports cached tokens")
    args = parser.parse_args()
    facts = overrides(args.min_tokens) if args.min_tokens else None
    if args.write_config and args.min_tokens:
        Path(args.write_config).write_text(config_text(args.min_tokens), encoding="utf-8")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with FakeProvider(api_key=args.api_key, facts_overrides=facts, chat_dialect=args.dialect) as server:
        print(f"fake provider on {server.url} (OpenAI: {server.openai_base_url}, Anthropic: "
              f"{server.anthropic_base_url})", flush=True)
        try:
            while not stop.wait(0.2):
                pass
        except KeyboardInterrupt:
            pass
        bills = server.bills
        print(f"billed {len(bills)} requests: cached {[b.cached_tokens for b in bills]}, "
              f"written {[b.cache_write_tokens for b in bills]}, input {[b.input_tokens for b in bills]}",
              flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
