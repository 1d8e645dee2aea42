"""``promptlint probe``: measure real cached-token hits on a provider's own API, before and
after the fix, and say what it cost.

This package owns probe mode, one job a module:

- ``variants``: value sets per volatile kind and the renderings of a template with them;
- ``prompt``: PATH (template, request body, assembled workspace) into the variants to send,
  as it is and as ``promptlint fix`` would rewrite it (in memory);
- ``adapters``: the provider adapter contract and registry; ``openai_api`` (Chat, Responses,
  OpenAI-compatible servers) and ``anthropic_api`` (Messages) implement it, and the local
  KV-cache backend (``local/``: torch and transformers, imported only there) plugs in as one
  more entry;
- ``runner``: plan, estimate, budget, send, measure, predict;
- ``report``: the JSON contract, the summary per version and the explanation of a
  disagreement with the cache model; the reporters (``promptlint.reporters.probe_*``) print it;
- ``command``: the plain function ``promptlint probe`` calls;
- ``models``: the only module that imports the provider modules (cache simulator, provider
  table, request renderer, prices, replay), so they can move in one place.

It may import the core, the loaders, config, ``promptlint.api`` (file reading and per-file
config), ``promptlint.fix`` (the rewrite, in memory), the assembly rule, jinja2, rich, and
the ``openai`` and ``anthropic`` SDKs, these only inside an adapter's ``connect``. Nothing in
the check pipeline imports this package: ``promptlint check`` never loads an SDK.
"""

from __future__ import annotations
