"""Leaks and threads: memory stays flat over 100k launches and 10k
load/unload cycles; 8 Python threads launching one kernel concurrently get
exactly their own arguments in every recorded launch."""

from __future__ import annotations

import gc
import sys
import threading
import tracemalloc
from collections.abc import Callable

import pytest

import launcher_support as support

pytestmark = support.launcher_tests()

if support.missing_prerequisites() is None:
    from xpu_static_launcher._launcher import StaticXpuLauncher as L

KERNEL = "triton_poi_fused_add_0"


@pytest.fixture(scope="module")
def buffers():
    yield from support.device_buffers(16)


def _memory_growth(run: Callable[[int], None], warm_up: int, count: int) -> tuple[int, int]:
    """(RSS growth, Python allocation growth) in bytes over run(count), after
    run(warm_up) has filled every cache."""
    run(warm_up)
    gc.collect()
    rss_before = support.rss_bytes()
    tracemalloc.start()
    snapshot_before = tracemalloc.take_snapshot()
    run(count)
    snapshot_after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    gc.collect()
    rss_growth = support.rss_bytes() - rss_before
    python_growth = sum(stat.size_diff for stat in snapshot_after.compare_to(snapshot_before, "filename"))
    return rss_growth, python_growth


def _launch_many(function, codes, args, count, records) -> None:
    launch = L._launch_kernel
    for i in range(count):
        launch(function, 4, 1, 1, 4, 0, codes, args, 0)
        if i % 10000 == 9999:
            records.clear()  # the driver keeps records; drop them


def test_memory_flat_over_100k_launches(add_zebin, buffers):
    records = support.DriverRecords()
    function, _, _ = L._load_kernel(add_zebin, KERNEL, 0, 0)
    tensor = support.FakeTensor(buffers[0])
    codes = "OOiOO"
    args = (tensor, buffers[1], 1000, None, None)

    def launches(count: int) -> None:
        _launch_many(function, codes, args, count, records)

    launches(20000)  # warm up: the plan cache now holds `codes`
    refs_before = (sys.getrefcount(function), sys.getrefcount(tensor), sys.getrefcount(codes), sys.getrefcount(args))
    rss_growth, python_growth = _memory_growth(launches, warm_up=0, count=100000)
    refs_after = (sys.getrefcount(function), sys.getrefcount(tensor), sys.getrefcount(codes), sys.getrefcount(args))
    assert refs_after == refs_before
    # A leak of one pointer-sized object per launch would be 800 KB.
    assert python_growth < 64 * 1024, python_growth
    assert rss_growth < 512 * 1024, rss_growth
    records.clear()


def test_memory_flat_over_10k_load_unload_cycles(add_zebin):
    def cycle(count: int) -> None:
        for _ in range(count):
            function, _, _ = L._load_kernel(add_zebin, KERNEL, 0, 0)
            del function

    rss_growth, python_growth = _memory_growth(cycle, warm_up=1000, count=10000)
    # A leaked module (zebin bytes + parsed metadata) is kilobytes each:
    # 10k of them would be tens of MB.
    assert python_growth < 64 * 1024, python_growth
    assert rss_growth < 1024 * 1024, rss_growth


def test_eight_threads_launch_one_kernel_concurrently(add_zebin, buffers):
    records = support.DriverRecords()
    function, _, _ = L._load_kernel(add_zebin, KERNEL, 0, 0)
    threads_count, per_thread = 8, 1500
    errors = []
    start = threading.Barrier(threads_count)
    switch_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible

    def worker(thread_index: int) -> None:
        try:
            source = buffers[thread_index]
            destination = buffers[8 + thread_index]
            start.wait()
            for i in range(per_thread):
                L._launch_kernel(
                    function,
                    1 + thread_index,
                    1,
                    1,
                    1 + (i % 4),
                    0,
                    "OOiOO",
                    (source, destination, thread_index * 100000 + i, None, None),
                    0,
                )
        except BaseException as error:  # reported below
            errors.append(error)

    records.clear()
    try:
        workers = [threading.Thread(target=worker, args=(t,)) for t in range(threads_count)]
        for thread in workers:
            thread.start()
        for thread in workers:
            thread.join()
    finally:
        sys.setswitchinterval(switch_interval)
    assert not errors, errors
    assert records.count() == threads_count * per_thread
    seen = set()
    for index in range(records.count()):
        launch = records.launch(index)
        value = int.from_bytes(launch["args"][2]["bytes"], "little")
        thread_index, i = divmod(value, 100000)
        # Every argument and the geometry belong to the same call.
        assert launch["args"][0]["bytes"] == support.le_bytes(buffers[thread_index], 8)
        assert launch["args"][1]["bytes"] == support.le_bytes(buffers[8 + thread_index], 8)
        assert launch["group_count"] == (1 + thread_index, 1, 1)
        assert launch["group_size"] == (16 * (1 + (i % 4)), 1, 1)
        seen.add(value)
    assert len(seen) == threads_count * per_thread
    records.clear()


def test_memory_flat_over_20k_rejected_launches(add_zebin, buffers):
    function, _, _ = L._load_kernel(add_zebin, KERNEL, 0, 0)
    src, dst = buffers[0], buffers[1]
    host = bytearray(64)
    bad_calls = [
        lambda: L._launch_kernel(function, 1, 1, 1, 4, 0, "OOiOO", (src, dst, 2**64, None, None), 0),
        lambda: L._launch_kernel(function, 1, 1, 1, 4, 0, "OOiOO", (src, dst, None, None, None), 0),
        lambda: L._launch_kernel(function, 1, 1, 1, 4, 0, "OOxOO", (src, dst, 1, None, None), 0),
        lambda: L._launch_kernel(function, -1, 1, 1, 4, 0, "OOiOO", (src, dst, 1, None, None), 0),
        lambda: L._launch_kernel(function, 1, 1, 1, 4, 0, "OOiOO", (src, id(host), 1, None, None), 0),
        lambda: L._launch_kernel(function, 1, 1, 1, 4, 0, "OOiOO", (src, dst), 0),
        lambda: L._load_kernel(add_zebin, "no_such_kernel", 0, 0),
    ]

    def run(count: int) -> None:
        for i in range(count):
            try:
                bad_calls[i % len(bad_calls)]()
            except (TypeError, ValueError, OverflowError, RuntimeError):
                pass
            else:
                raise AssertionError(f"bad call {i % len(bad_calls)} did not raise")

    rss_growth, python_growth = _memory_growth(run, warm_up=2000, count=20000)
    assert python_growth < 64 * 1024, python_growth
    assert rss_growth < 1024 * 1024, rss_growth
