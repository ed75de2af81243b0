"""PyTorch's own static_launcher/xpu.cpp (an upstream tree with the PR stack
applied, built as _xsl_upstream_launcher when XSL_PYTORCH_UPSTREAM_SOURCES is
set) on the real SYCL runtime and the test driver's stand-in loader, as
glue_runtime_cases.py runs the project's glue.

Run by test_upstream_glue_runtime.py in a subprocess (the library search path
must be set before the process starts). XSL_UPSTREAM_CAPSULE_FIX says whether
the tree has PR 4 (capsule reference and grid product).

Upstream reads `stream` as a `sycl::queue*` with no 0 case (Inductor always
passes the current raw stream), so every launch here names a queue.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any, List, Tuple

import pytest

import glue_support
import launcher_support as support

if os.environ.get("XSL_GLUE_RUNTIME") != "1":
    pytest.skip("run through test_upstream_glue_runtime.py", allow_module_level=True)

# Before torch: the module registers the XPU hooks that serve upstream's Level
# Zero stub, which must happen before torch first asks for the hooks.
sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
import _xsl_upstream_launcher as upstream  # noqa: E402

torch = pytest.importorskip("torch")
import _xsl_torch_glue as glue  # noqa: E402

from torch._inductor.runtime import static_triton_launcher as stl  # noqa: E402

L = upstream._StaticXpuLauncher
ADD = support.TRITON_ADD_KERNEL
DEVICES = int(os.environ.get("XSL_TEST_DRIVER_DEVICES", "1"))
CAPSULE_FIX = os.environ.get("XSL_UPSTREAM_CAPSULE_FIX") == "1"
STANDIN_LOADER = glue_support.LOADER_DIR / "libze_loader.so.1"

SIMD_SOURCE = r"""
__attribute__((intel_reqd_sub_group_size({simd})))
__kernel void simd{simd}(__global float* out, int n, __global void* gs,
                         __global void* ps) {{
  int i = get_global_id(0);
  if (i < n) out[i] = get_sub_group_size();
}}
"""


@pytest.fixture(scope="module", autouse=True)
def torch_entry_points():
    """torch._C as a torch XPU build has it: upstream's launcher as
    _StaticXpuLauncher, and the raw-stream query Inductor calls."""
    saved = {name: getattr(torch._C, name, None)
             for name in ("_StaticXpuLauncher", "_xpu_getCurrentRawStream")}
    torch._C._StaticXpuLauncher = L
    torch._C._xpu_getCurrentRawStream = glue.current_raw_stream
    yield
    for name, value in saved.items():
        if value is None:
            delattr(torch._C, name)
        else:
            setattr(torch._C, name, value)


@pytest.fixture(scope="module")
def records() -> support.DriverRecords:
    return support.DriverRecords(STANDIN_LOADER)


@pytest.fixture(scope="module")
def buffers() -> List[int]:
    return [glue.malloc_device(4096, 0) for _ in range(2)]


def launch(function: Any, grid: Tuple[int, int, int], num_warps: int, shared: int,
           codes: str, args: Tuple[Any, ...], device: int = 0) -> None:
    L._launch_kernel(function, *grid, num_warps, shared, codes, args,
                     glue.current_raw_stream(device))


def test_the_type_is_the_one_torch_registers():
    assert L.__name__ == "_StaticXpuLauncher"
    assert {"_load_kernel", "_launch_kernel"} <= set(vars(L))


def test_launch_records_geometry_and_argument_bytes(add_zebin, records, buffers):
    function, n_regs, n_spills = L._load_kernel(add_zebin, ADD, 0, 0)
    assert (n_regs, n_spills) == (0, 0)
    src, dst = buffers
    records.clear()
    launch(function, (7, 2, 3), 4, 0, "OOiOO", (src, dst, 1000, None, None))
    assert records.count() == 1
    got = records.launch(0)
    assert got["kernel_name"] == ADD
    assert got["group_count"] == (7, 2, 3)
    assert got["group_size"] == (4 * 16, 1, 1)
    assert [a["bytes"] for a in got["args"]] == [
        support.le_bytes(src, 8), support.le_bytes(dst, 8), support.le_bytes(1000, 4),
        bytes(8), bytes(8)]


@pytest.mark.parametrize("grid", [(5, 1, 1), (5, 3, 1), (5, 3, 2)])
def test_one_two_and_three_dimensional_grids(add_zebin, records, buffers, grid):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    launch(function, grid, 2, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None))
    assert records.launch(0)["group_count"] == grid


# Upstream, like Triton-XPU's launcher, hands each scalar over at its C
# type's size (set_arg<int8_t> is 1 byte); the driver copies that into the
# start of IGC's 4-byte payload and leaves the rest (zero in a new kernel).
# The project's launcher sign- or zero-extends to the payload instead.
C_SIZES = {"b": 1, "h": 2, "i": 4, "l": 8, "B": 1, "H": 2, "I": 4, "K": 8,
           "f": 4, "d": 8, "e": 2}


def test_every_scalar_type_code(kernels_zebin, records, buffers):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    codes, values = support.scalar_codes_and_values()
    records.clear()
    launch(function, (1, 1, 1), 1, 0, "O" + codes, (buffers[0],) + values)
    got = [a["bytes"] for a in records.launch(0)["args"]]
    assert got[0] == support.le_bytes(buffers[0], 8)
    extended = support.scalar_payload_bytes()
    for code, payload, ours in zip(codes, got[1:], extended):
        size = C_SIZES[code]
        assert len(payload) == len(ours), code
        # The value bits are the project launcher's; the padding is zero.
        assert payload[:size] == ours[:size], code
        assert payload[size:] == bytes(len(payload) - size), code


def test_dynamic_shared_memory_is_the_trailing_local_argument(kernels_zebin, records, buffers):
    function, _, _ = L._load_kernel(kernels_zebin, "with_slm", 256, 0)
    records.clear()
    launch(function, (2, 1, 1), 2, 256, "OiOO", (buffers[0], 64, None, None))
    args = records.launch(0)["args"]
    assert len(args) == 5
    assert args[4]["is_null"] and args[4]["size"] == 256


@pytest.mark.parametrize("simd, num_warps", [(16, 4), (32, 4), (16, 8), (32, 2)])
def test_work_group_is_num_warps_times_threads_per_warp(records, buffers, simd, num_warps):
    path = support.compile_opencl(SIMD_SOURCE.format(simd=simd))
    function, _, _ = L._load_kernel(str(path), f"simd{simd}", 0, 0)
    records.clear()
    launch(function, (3, 1, 1), num_warps, 0, "OiOO", (buffers[0], 8, None, None))
    assert records.launch(0)["group_size"] == (num_warps * simd, 1, 1)


def test_empty_grids_launch_nothing(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    for grid in ((0, 1, 1), (1, 0, 1), (1, 1, 0)):
        launch(function, grid, 4, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None))
    assert records.count() == 0


def test_a_grid_whose_int_product_overflows(add_zebin, records, buffers):
    # 65536 * 65536 * 1 is 0 in 32-bit arithmetic: before PR 4 the launch is
    # dropped as an empty grid.
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    launch(function, (65536, 65536, 1), 1, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None))
    if CAPSULE_FIX:
        assert records.launch(0)["group_count"] == (65536, 65536, 1)
    else:
        assert records.count() == 0


def test_the_kernel_capsule_reference(add_zebin):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    # One reference here and getrefcount's own; before PR 4 the result tuple
    # was built with "O" and the capsule kept one more (the leak).
    assert sys.getrefcount(function) == (2 if CAPSULE_FIX else 3)


def test_a_non_default_queue_gets_the_launch_on_its_own_list(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    other = glue.new_queue(0)
    args = (buffers[0], buffers[1], 1, None, None)
    records.clear()
    launch(function, (2, 1, 1), 1, 0, "OOiOO", args)
    L._launch_kernel(function, 3, 1, 1, 1, 0, "OOiOO", args, other)
    lists = [records.launch(i)["command_list"] for i in range(2)]
    assert lists[0] != lists[1]
    assert [records.launch(i)["group_count"][0] for i in range(2)] == [2, 3]


@pytest.mark.skipif(DEVICES < 2, reason="needs XSL_TEST_DRIVER_DEVICES=2")
def test_second_device(add_zebin, records):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 1)
    src, dst = glue.malloc_device(256, 1), glue.malloc_device(256, 1)
    records.clear()
    launch(function, (4, 1, 1), 1, 0, "OOiOO", (src, dst, 1, None, None), device=1)
    assert records.launch(0)["device_index"] == 1


def test_launches_from_several_threads(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    errors: List[BaseException] = []

    def worker(first: int) -> None:
        try:
            for n in range(first, first + 50):
                launch(function, (1, 1, 1), 1, 0, "OOiOO", (buffers[0], buffers[1], n, None, None))
        except BaseException as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(1000 * t,)) for t in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    values = sorted(int.from_bytes(records.launch(i)["args"][2]["bytes"], "little")
                    for i in range(records.count()))
    assert values == sorted(n for t in range(4) for n in range(1000 * t, 1000 * t + 50))


def test_n_regs_is_zero_and_n_spills_is_read(records):
    # Upstream reports no register count (Level Zero has no query for it);
    # the project's launcher reads it from the zebin (an optional PR).
    wide = support.compile_opencl(support.TRITON_ADD_SOURCE, options="-cl-intel-256-GRF-per-thread")
    assert L._load_kernel(str(wide), ADD, 0, 0)[1] == 0


def test_host_memory_is_refused_through_the_level_zero_stub(add_zebin, records):
    # getPointer asks zeMemGetAllocProperties through at::globalContext()
    # .getLevelZero(): the hooks registered by the module serve the stub.
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    cpu = torch.zeros(16)
    records.clear()
    with pytest.raises(RuntimeError, match="unknown type of memory at 0-th argument"):
        launch(function, (1, 1, 1), 1, 0, "OOiOO", (cpu, cpu, 1, None, None))
    assert records.count() == 0


def test_inductor_loads_and_runs_the_kernel_through_upstreams_launcher(
        add_zebin, records, buffers, tmp_path):
    compiled = support.StandInCompiledKernel(Path(add_zebin).read_bytes(), with_scratch_fields=True)
    kernel = stl.statically_launched_kernel_by_device(compiled, "xpu")
    assert type(kernel) is stl.StaticallyLaunchedXpuKernel
    assert kernel.C_impl is L
    kernel.reload_cubin_from_raw(str(tmp_path / f"{ADD}.zebin"))
    kernel.load_kernel(0)
    records.clear()
    stream = torch._C._xpu_getCurrentRawStream(0)
    kernel.run(5, 1, 1, stream, support.FakeTensor(buffers[0]), support.FakeTensor(buffers[1]), 1000)
    got = records.launch(0)
    assert got["group_count"] == (5, 1, 1)
    assert got["group_size"] == (support.NUM_WARPS * support.THREADS_PER_WARP, 1, 1)
    assert [a["bytes"] for a in got["args"]] == [
        support.le_bytes(buffers[0], 8), support.le_bytes(buffers[1], 8),
        support.le_bytes(1000, 4), bytes(8), bytes(8)]
