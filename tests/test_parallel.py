"""Files worked on in parallel processes: how they are cut into chunks, and that their
results come back in order whatever order the chunks finish in."""

from __future__ import annotations

import os

from hypothesis import given, settings
from hypothesis import strategies as st

from promptlint.parallel import _chunks, map_in_order


@settings(max_examples=300)
@given(st.lists(st.integers(min_value=0, max_value=10_000), max_size=60), st.integers(min_value=1, max_value=40))
def test_every_item_is_in_one_chunk_heavy_ones_alone_and_first(sizes: list[int], wanted: int) -> None:
    chunks = _chunks(len(sizes), wanted, sizes)
    flat = [i for chunk in chunks for i in chunk]
    assert sorted(flat) == list(range(len(sizes)))
    if not sizes:
        return
    share = max(1, sum(sizes) // max(1, min(wanted, len(sizes))))
    heavy = [i for i in range(len(sizes)) if sizes[i] >= share]
    # The heavy items lead, each alone, heaviest first; the rest follow in their order.
    assert chunks[: len(heavy)] == [[i] for i in sorted(heavy, key=lambda i: -sizes[i])]
    rest = [i for chunk in chunks[len(heavy):] for i in chunk]
    assert rest == sorted(rest) and not set(rest) & set(heavy)


def _pid_and_square(n: int) -> tuple[int, int]:
    return os.getpid(), n * n


def test_results_come_back_in_order_when_heavy_items_are_sent_first() -> None:
    items = list(range(40))
    sizes = [1] * 40
    sizes[30] = sizes[7] = 1000  # sent first, alone
    out = list(map_in_order(_pid_and_square, items, 2, sizes=sizes))
    assert [square for _, square in out] == [n * n for n in items]
    assert {pid for pid, _ in out} - {os.getpid()}  # worked on in other processes


def _cgroup(tmp_path, proc: str, files: dict[str, str]) -> tuple[str, str]:
    root = tmp_path / "cgroup"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (tmp_path / "proc").write_text(proc)
    return str(root), str(tmp_path / "proc")


def test_default_jobs_follow_a_cgroup_cpu_quota_not_the_host(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # A container run with --cpus=2.5 on a 64-core host: os.cpu_count() said 64, and -j
    # started 64 workers on two and a half CPUs' worth of time.
    from promptlint.parallel import available_cores

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(64)))
    v2 = _cgroup(tmp_path / "v2", "0::/ci/job\n", {"ci/job/cpu.max": "250000 100000\n", "cpu.max": "max 100000\n"})
    assert available_cores(*v2) == 3
    # A parent's quota binds its children.
    parent = _cgroup(tmp_path / "parent", "0::/ci/job\n", {"ci/job/cpu.max": "max 100000\n", "ci/cpu.max": "100000 100000\n"})
    assert available_cores(*parent) == 1
    v1 = _cgroup(tmp_path / "v1", "4:memory:/x\n3:cpu,cpuacct:/docker/abc\n",
                 {"cpu,cpuacct/docker/abc/cpu.cfs_quota_us": "400000\n", "cpu,cpuacct/docker/abc/cpu.cfs_period_us": "100000\n"})
    assert available_cores(*v1) == 4
    unlimited = _cgroup(tmp_path / "none", "0::/\n", {"cpu.max": "max 100000\n"})
    assert available_cores(*unlimited) == 64
    assert available_cores(str(tmp_path / "nowhere"), str(tmp_path / "no-proc")) == 64
    broken = _cgroup(tmp_path / "broken", "0::/\n", {"cpu.max": "banana\n"})
    assert available_cores(*broken) == 64


def test_default_jobs_follow_the_cpu_affinity(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from promptlint.parallel import available_cores

    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {3})
    assert available_cores(str(tmp_path / "nowhere"), str(tmp_path / "no-proc")) == 1
    quota = _cgroup(tmp_path, "0::/\n", {"cpu.max": "800000 100000\n"})
    assert available_cores(*quota) == 1  # the quota allows 8, the affinity 1


def test_check_and_fix_default_to_the_available_cores(run_cli, write, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import promptlint.api
    import promptlint.fix
    import promptlint.parallel

    asked: list[int] = []
    monkeypatch.setattr(promptlint.parallel, "available_cores", lambda: 3)
    real_check, real_fix = promptlint.api.check_paths, promptlint.fix.fix_paths

    def check(*args, jobs, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(jobs)
        return real_check(*args, jobs=jobs, **kwargs)

    def fix(*args, jobs, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(jobs)
        return real_fix(*args, jobs=jobs, **kwargs)

    monkeypatch.setattr(promptlint.api, "check_paths", check)
    monkeypatch.setattr(promptlint.fix, "fix_paths", fix)
    path = write("a.md", "You are a careful assistant.\n")
    assert run_cli("check", "--no-cache", str(path)).exit_code == 0
    assert run_cli("fix", "--diff", str(path)).exit_code == 0
    assert run_cli("check", "--no-cache", "-j", "1", str(path)).exit_code == 0
    assert asked == [3, 3, 1]
