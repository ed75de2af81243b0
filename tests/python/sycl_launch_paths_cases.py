"""One kernel launched through both of the SYCL launch's paths
(csrc/sycl_launch/sycl_kernel.cpp): appended directly to an in-order
queue's immediate list (adapter v2), and submitted through SYCL on a queue
that batches. Both set arguments and the group size on the same Level Zero
kernel; each launch must reach the driver with its own.

Run by test_sycl_launch_paths.py in a child process (the stand-in loader
must be on the library path when the process starts), on adapter v2, for
the PyTorch glue and the package's backend (XSL_GLUE_UNDER_TEST).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

import glue_support
import launcher_support as support

if os.environ.get("XSL_GLUE_RUNTIME") != "1":
    pytest.skip("run through test_sycl_launch_paths.py", allow_module_level=True)

sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
torch = pytest.importorskip("torch")  # before the glue, which links it
import _xsl_glue_launcher as project_glue  # noqa: E402
import _xsl_torch_glue as glue  # noqa: E402

from xpu_static_launcher import _sycl_launcher  # noqa: E402

L = (
    _sycl_launcher._StaticXpuLauncher
    if os.environ.get("XSL_GLUE_UNDER_TEST") == "backend"
    else project_glue._StaticXpuLauncher
)
ADD = support.TRITON_ADD_KERNEL


@pytest.fixture(scope="module")
def records() -> support.DriverRecords:
    return support.DriverRecords(glue_support.LOADER_DIR / "libze_loader.so.1")


def launches(records: support.DriverRecords) -> list[dict[str, Any]]:
    # A batched queue's launches reach the driver when it is flushed.
    glue.wait_all()
    return [records.launch(i) for i in range(records.count())]


def test_adapter_v2_appends_to_in_order_queues():
    assert glue.platform_name().endswith("Level-Zero V2")
    assert "UR_L0_V2_FORCE_BATCHED" not in os.environ


def test_each_path_launches_with_its_own_arguments_and_group_size(add_zebin, records):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    a, b = glue.malloc_device(4096, 0), glue.malloc_device(4096, 0)
    direct = glue.current_raw_stream(0)  # in order, immediate: appended
    submitted = glue.new_queue(0, True)  # no_immediate_command_list: submitted
    # (stream, num_warps, args); the grid's x tells the launches apart. The
    # direct appends repeat their arguments and group size, which the kernel
    # handle held after the first one, until the submit in between set others.
    plan: list[tuple[int, int, tuple[int, int, int]]] = [
        (direct, 1, (a, b, 11)),
        (submitted, 2, (b, a, 22)),
        (direct, 1, (a, b, 11)),
        (submitted, 2, (b, a, 22)),
        (direct, 1, (a, b, 11)),
    ]
    records.clear()
    for x, (stream, num_warps, args) in enumerate(plan, 1):
        L._launch_kernel(function, x, 1, 1, num_warps, 0, "OOiOO", args + (None, None), stream)
    by_x = {launch["group_count"][0]: launch for launch in launches(records)}
    assert sorted(by_x) == list(range(1, len(plan) + 1))

    # Per launch: whether it is on the queue's immediate list (the direct
    # path), its group size and its three arguments' bytes.
    immediate = glue.native_command_list(direct)
    expected = [
        (
            stream == direct,
            (num_warps * support.THREADS_PER_WARP, 1, 1),
            [support.le_bytes(src, 8), support.le_bytes(dst, 8), support.le_bytes(n, 4)],
        )
        for stream, num_warps, (src, dst, n) in plan
    ]
    got = [
        (by_x[x]["command_list"] == immediate, by_x[x]["group_size"], [arg["bytes"] for arg in by_x[x]["args"][:3]])
        for x in range(1, len(plan) + 1)
    ]
    assert got == expected
