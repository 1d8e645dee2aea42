"""What the request-body rules (PC2xx) share: run only on request JSON, with its parsed file."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from promptlint.core.context import RuleContext
from promptlint.core.findings import Finding
from promptlint.core.ir import Span
from promptlint.requestbody.files import RequestFile, load_cached
from promptlint.requestbody.jsonspans import JsonPath

BodyCheck = Callable[[RuleContext, RequestFile], Iterator[Finding]]


def on_request_bodies(check: BodyCheck) -> Callable[[RuleContext], Iterator[Finding]]:
    """A rule's ``check`` that runs on request-JSON files only, given the parsed bodies."""

    @functools.wraps(check)
    def run(ctx: RuleContext) -> Iterator[Finding]:
        if ctx.template.syntax != "json":
            return iter(())
        return check(ctx, load_cached(ctx.template.source))

    return run


def finding_at(
    ctx: RuleContext, code: str, name: str, request_file: RequestFile, path: JsonPath, **fields: Any
) -> Finding:
    """A finding of rule ``code``/``name`` on the JSON value at ``path`` of the file."""
    return ctx.finding(code, name, Span(*request_file.span(path)), **fields)
