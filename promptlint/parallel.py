"""Files worked on in parallel processes, their results in order: what ``check -j`` and
``fix -j`` share.

Workers are forked where the platform can (else spawned). Before a fork, what every
worker needs is made once, here, and inherited: the engine, the rule modules, the Jinja
lexer's rules and the default encoding (each worker would build its own otherwise, and
building the encoding costs a fifth of a second).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

# Chunks per worker: each worker takes several, so that one slow file (a 5 MB template)
# does not hold back a whole share of the run, and results are taken in while the
# workers go on with the next chunk.
_CHUNKS_PER_JOB = 8


def worth_processes(jobs: int, items: int) -> bool:
    """Whether ``items`` are worth ``jobs`` worker processes: each worker gets two at
    least (fewer are done here sooner than a pool starts)."""
    return jobs > 1 and items >= 2 * jobs


def start_method() -> str:
    import multiprocessing

    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def prepare_fork() -> None:
    """Build what every worker needs once, in this process, before the workers are forked."""
    from promptlint.core import analysis  # noqa: F401
    from promptlint.core import tokens
    from promptlint.loaders import jinja
    from promptlint.registry import rules

    rules()
    jinja.lexer()  # its rules compiled once
    tokens.get_encoding(tokens.encoding_name_for_model(tokens.DEFAULT_MODEL))


def map_in_order(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: Iterable[Any] = (),
    before_fork: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """``map(function, items)`` in ``jobs`` processes, each result yielded as soon as it and
    those before it are in. ``before_fork`` runs after :func:`prepare_fork`, only when the
    workers are forked (a settled heap, say)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = start_method()
    if method == "fork":
        prepare_fork()
        if before_fork is not None:
            before_fork()
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=initializer,
                             initargs=tuple(initargs)) as pool:
        yield from pool.map(function, items, chunksize=max(1, len(items) // (jobs * _CHUNKS_PER_JOB)))
