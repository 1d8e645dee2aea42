"""Files worked on in parallel processes, their results in order: what ``check -j`` and
``fix -j`` share.

Workers are forked where the platform can (else spawned). Before a fork, what every
worker needs is made once, here, and inherited: the engine, the rule modules, the Jinja
lexer's rules and the default encoding (each worker would build its own otherwise, and
building the encoding costs a fifth of a second).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from promptlint.core import tokens

Item = TypeVar("Item")
Result = TypeVar("Result")

# Chunks per worker: each worker takes several, so that results are taken in while the
# workers go on with the next chunk, and the last chunks, small, leave no worker idle long.
_CHUNKS_PER_JOB = 24


# Files that together hold fewer bytes than this are checked (or fixed) in the run's own
# process: it reads them with the pure-Python encoder, without building the encoding, while
# a pool first builds it (0.2 s) and starts its workers. Measured on 2 cores, `check`: 9
# files (24 KB) took 0.25 s in one process and 0.42 s in two; 100 files (260 KB) about the
# same either way; 400 files (1 MB) 0.82 s against 0.72 s. `fix --diff`: 14 agent files
# (64 KB) 0.23-0.36 s against 0.56-0.60 s; 50 generated files with a fix each (137 KB)
# even; 100 of them (276 KB) 0.70-0.96 s against 0.61-0.80 s.
PROCESS_MIN_BYTES = tokens.SMALL_TEXT_BUDGET


def available_cores(cgroup_root: str = "/sys/fs/cgroup", proc_cgroup: str = "/proc/self/cgroup") -> int:
    """The cores this process may run on: those its CPU affinity allows, fewer where a cgroup
    CPU quota (a container's ``--cpus``, a CI runner's limit) gives it less time than that.
    ``os.cpu_count()`` counts the host's: in a container limited to 2 CPUs on a 64-core host,
    ``-j`` defaulted to 64 workers, each with its own heap, on 2 CPUs' worth of time."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on Linux
        cores = os.cpu_count() or 1
    quota = _cgroup_quota(cgroup_root, proc_cgroup)
    return max(1, min(cores, quota) if quota is not None else cores)


def _cgroup_quota(root: str, proc_cgroup: str) -> int | None:
    """The CPUs a cgroup quota allows this process (rounded up), the tightest of its own
    cgroup's and its ancestors' (v2 ``cpu.max``, v1 ``cpu.cfs_quota_us``); None without one."""
    try:
        with open(proc_cgroup, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    found: list[float] = []
    for line in lines:
        fields = line.split(":", 2)
        if len(fields) != 3:
            continue
        _, controllers, path = fields
        names: tuple[str, ...]
        if controllers == "":  # cgroup v2, the unified hierarchy
            folders, names = [root], ("cpu.max",)
        elif "cpu" in controllers.split(","):
            folders = [os.path.join(root, c) for c in (controllers, "cpu", "cpu,cpuacct")]
            names = ("cpu.cfs_quota_us", "cpu.cfs_period_us")
        else:
            continue
        parts = [p for p in path.split("/") if p and p != ".."]
        for folder in dict.fromkeys(folders):
            for depth in range(len(parts), -1, -1):  # the process's own cgroup, then each above it
                limit = _cpu_limit(os.path.join(folder, *parts[:depth]), names)
                if limit is not None:
                    found.append(limit)
    if not found:
        return None
    tightest = min(found)
    return max(1, int(tightest) + (tightest > int(tightest)))


def _cpu_limit(folder: str, names: tuple[str, ...]) -> float | None:
    """CPUs the quota in ``folder`` allows: quota over period; None where it sets none."""
    try:
        texts = []
        for name in names:
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                texts.append(f.read().split())
    except (OSError, UnicodeDecodeError):
        return None
    try:
        if len(texts) == 1:  # v2: "max 100000" or "200000 100000"
            quota, period = texts[0][0], texts[0][1]
        else:  # v1: "-1" or "200000", and the period
            quota, period = texts[0][0], texts[1][0]
        if quota in ("max", "-1"):
            return None
        value, base = int(quota), int(period)
    except (IndexError, ValueError):
        return None
    return value / base if value > 0 and base > 0 else None


def worth_processes(jobs: int, items: int, total_bytes: int | None = None) -> bool:
    """Whether ``items`` are worth ``jobs`` worker processes: each worker gets two at
    least (fewer are done here sooner than a pool starts), and, when ``total_bytes`` (what
    they weigh) is given, they weigh :data:`PROCESS_MIN_BYTES` at least."""
    return jobs > 1 and items >= 2 * jobs and (total_bytes is None or total_bytes >= PROCESS_MIN_BYTES)


def file_sizes(files: Sequence[str]) -> list[int]:
    """Each file's bytes, 0 where it cannot be stat'ed (a file that cannot is reported when
    it is checked)."""
    sizes = []
    for path in files:
        try:
            sizes.append(os.stat(path).st_size)
        except OSError:
            sizes.append(0)
    return sizes


def start_method() -> str:
    import multiprocessing

    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def prepare_fork() -> None:
    """Build what every worker needs once, in this process, before the workers are forked."""
    from promptlint.core import analysis  # noqa: F401
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
    sizes: Sequence[int],
    initializer: Callable[..., None] | None = None,
    initargs: Iterable[Any] = (),
    before_fork: Callable[[], None] | None = None,
) -> Iterator[Result]:
    """``map(function, items)`` in ``jobs`` processes, each result yielded as soon as it and
    those before it are in. ``sizes``: what each item weighs (a file's bytes); the items are
    cut into chunks of about the same weight, and those heavier than a chunk (a 5 MB
    template) are each sent alone, first, so that no worker is left with one at the end while
    the others wait. ``before_fork`` runs after :func:`prepare_fork`, only when the workers
    are forked (a settled heap, say)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    method = start_method()
    if method == "fork":
        prepare_fork()
        if before_fork is not None:
            before_fork()
    chunks = _chunks(len(items), jobs * _CHUNKS_PER_JOB, sizes)
    with ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context(method), initializer=initializer,
                             initargs=tuple(initargs)) as pool:
        futures = [pool.submit(_apply, function, [items[i] for i in chunk]) for chunk in chunks]
        where: list[tuple[int, int]] = [(0, 0)] * len(items)  # each item's chunk, and its place in it
        for number, chunk in enumerate(chunks):
            for place, index in enumerate(chunk):
                where[index] = (number, place)
        for number, place in where:
            yield futures[number].result()[place]


def _apply(function: Callable[[Item], Result], items: list[Item]) -> list[Result]:
    """One chunk's results, in a worker."""
    return [function(item) for item in items]


def _chunks(count: int, wanted: int, sizes: Sequence[int]) -> list[list[int]]:
    """The indexes of ``count`` items cut into about ``wanted`` chunks, in the order they are
    sent: each item heavier than a chunk's share alone, the heaviest first, then the rest in
    order, in runs of about that weight."""
    if count == 0:
        return []
    share = max(1, sum(sizes) // max(1, min(wanted, count)))
    heavy = sorted((i for i in range(count) if sizes[i] >= share), key=lambda i: -sizes[i])
    chunks = [[i] for i in heavy]
    alone = set(heavy)
    run: list[int] = []
    weight = 0
    for i in range(count):
        if i in alone:
            continue
        run.append(i)
        weight += max(1, sizes[i])
        if weight >= share:
            chunks.append(run)
            run, weight = [], 0
    if run:
        chunks.append(run)
    return chunks
