"""The launch fast path remembers the int objects of the last successful call
(grid, num_warps, shared, stream) and the arguments the kernel already holds.
These tests pin down that the shortcuts never change what is launched."""

from __future__ import annotations

import pytest

import launcher_support as support

pytestmark = support.launcher_tests()

if support.missing_prerequisites() is None:
    from xpu_static_launcher._launcher import StaticXpuLauncher as L

CODES = "OOOOOOOi"


@pytest.fixture(scope="module")
def function():
    path = support.compile_opencl(support.many_args_source(8), arg_info=False)
    loaded, _, _ = L._load_kernel(str(path), "many_8", 0, 0)
    return loaded


@pytest.fixture()
def buffers():
    yield from support.device_buffers(5)


def _group_counts(records: support.DriverRecords) -> list:
    return [records.launch(i)["group_count"] for i in range(records.count())]


def test_failed_call_with_new_grid_does_not_poison_remembered_objects(function, buffers, records):
    args = (*buffers, None, None, 1000)
    # Objects made at run time, so they are not CPython's shared small ints.
    grid_x = int("700")
    num_warps = int("4")
    records.clear()
    L._launch_kernel(function, grid_x, 1, 1, num_warps, 0, CODES, args, 0)
    with pytest.raises(ValueError):
        L._launch_kernel(function, 9, 2, 1, num_warps, -1, CODES, args, 0)
    L._launch_kernel(function, grid_x, 1, 1, num_warps, 0, CODES, args, 0)
    L._launch_kernel(function, 9, 2, 1, num_warps, 0, CODES, args, 0)
    L._launch_kernel(function, grid_x, 1, 1, num_warps, 0, CODES, args, 0)
    assert _group_counts(records) == [(700, 1, 1), (700, 1, 1), (9, 2, 1), (700, 1, 1)]


def test_equal_values_in_new_objects_launch_the_same(function, buffers, records):
    args = (*buffers, None, None, 1000)
    records.clear()
    for value in ("33", "33", "34"):
        L._launch_kernel(function, int(value), 1, 1, int("4"), 0, CODES, args, 0)
    assert _group_counts(records) == [(33, 1, 1), (33, 1, 1), (34, 1, 1)]


def test_changed_argument_after_identical_launch_reaches_the_driver(function, buffers, records):
    records.clear()
    first = (*buffers, None, None, 1000)
    L._launch_kernel(function, 4, 1, 1, 4, 0, CODES, first, 0)
    L._launch_kernel(function, 4, 1, 1, 4, 0, CODES, first, 0)
    swapped = (buffers[1], buffers[0], *buffers[2:], None, None, 1001)
    L._launch_kernel(function, 4, 1, 1, 4, 0, CODES, swapped, 0)
    launches = [records.launch(i) for i in range(records.count())]
    assert len(launches) == 3
    assert launches[0]["args"] == launches[1]["args"]
    assert launches[2]["args"] != launches[1]["args"]
    assert launches[2]["args"][0]["bytes"] == support.le_bytes(buffers[1], 8)
    assert launches[2]["args"][1]["bytes"] == support.le_bytes(buffers[0], 8)
    assert launches[2]["args"][7]["bytes"] == support.le_bytes(1001, 4, signed=True)
