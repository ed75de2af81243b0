"""The PyTorch glue (csrc/pytorch/xpu.cpp, the test module
_xsl_glue_launcher on the c10::xpu shim) and the package's torch-free SYCL
backend (xpu_static_launcher._sycl_launcher) run for real: launching
through libsycl, the Unified Runtime's Level Zero adapter and the test
driver's stand-in loader, in one process with the installed torch wheel.

Run by test_glue_sycl_runtime.py in a subprocess whose environment selects
the adapter (the devices' IP version), the device count and the validation
layer; the library search path must be set before the process starts, which
is why this file is not named test_*.py (pytest does not collect it). The
adapter under test is named by XSL_GLUE_EXPECT_ADAPTER (v1 or v2), the
launcher by XSL_GLUE_UNDER_TEST: glue (default), backend (the package's
_sycl_launcher, which finds torch's devices and context on the SYCL runtime
itself) or upstream.

test_upstream_glue_runtime.py runs the same cases on PyTorch's own
static_launcher/xpu.cpp (XSL_GLUE_UNDER_TEST=upstream, the module
_xsl_upstream_launcher); where upstream behaves otherwise, the case says so.
XSL_UPSTREAM_CAPSULE_FIX says whether that tree has the capsule and grid
fix PR (the first of each stack).
"""

from __future__ import annotations

import importlib.util
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

import glue_support
import launcher_support as support

STANDIN_LOADER = glue_support.LOADER_DIR / "libze_loader.so.1"

if os.environ.get("XSL_GLUE_RUNTIME") != "1":
    pytest.skip("run through test_glue_sycl_runtime.py", allow_module_level=True)

UNDER_TEST = os.environ.get("XSL_GLUE_UNDER_TEST", "glue")
UPSTREAM = UNDER_TEST == "upstream"
BACKEND = UNDER_TEST == "backend"
# The capsule and grid fix PR (reference, grid product): the project's glue
# has it.
CAPSULE_FIX = not UPSTREAM or os.environ.get("XSL_UPSTREAM_CAPSULE_FIX") == "1"
# Whether a launch asks the driver about its tensor pointers: the project's
# launchers always; upstream's xpu.cpp with the launch-cost PR only with
# TORCHINDUCTOR_STATIC_LAUNCHER_CHECK_POINTERS=1 (test_upstream_glue_runtime.py
# says which).
CHECKS_POINTERS = not UPSTREAM or os.environ.get("XSL_UPSTREAM_CHECKS_POINTERS", "1") == "1"
# Whether the launcher loads SPIR-V: the project's launchers; upstream's
# xpu.cpp with the SPIR-V PR (test_upstream_glue_runtime.py says which).
LOADS_SPIRV = not UPSTREAM or os.environ.get("XSL_UPSTREAM_LOADS_SPIRV") == "1"

sys.path.insert(0, str(glue_support.RUNTIME_MODULE_DIR))
if UPSTREAM:
    # Before torch: the module registers the XPU hooks that serve upstream's
    # Level Zero stub, before torch first asks for the hooks.
    import _xsl_upstream_launcher as upstream  # noqa: E402
torch = pytest.importorskip("torch")
import _xsl_glue_launcher as project_glue  # noqa: E402
import _xsl_torch_glue as glue  # noqa: E402
from torch._inductor.runtime import static_triton_launcher as stl  # noqa: E402

from xpu_static_launcher import _sycl_launcher  # noqa: E402

L = (
    upstream._StaticXpuLauncher
    if UPSTREAM
    else _sycl_launcher._StaticXpuLauncher
    if BACKEND
    else project_glue._StaticXpuLauncher
)
PROJECT_ONLY = pytest.mark.skipif(UPSTREAM, reason="the project's launchers only")
BACKEND_ONLY = pytest.mark.skipif(not BACKEND, reason="the package's SYCL backend only")
# UR_L0_V2_FORCE_BATCHED=1: adapter v2 batches every queue's commands in
# regular lists and runs them when the queue is flushed.
FORCED_BATCHES = os.environ.get("UR_L0_V2_FORCE_BATCHED") == "1"
ADD = support.TRITON_ADD_KERNEL
LARGE_GRF = "-cl-intel-256-GRF-per-thread"
# Real Triton kernels: triton-xpu 3.3.0b1's SPIR-V and launch metadata.
TRITON_DIR = Path(__file__).resolve().parents[1] / "kernels" / "triton"
DEVICES = int(os.environ.get("XSL_TEST_DRIVER_DEVICES", "1"))

# The same kernel for sub-group 16 and 32: num_warps * threads_per_warp is
# the work-group size either way.
SIMD_SOURCE = r"""
__attribute__((intel_reqd_sub_group_size({simd})))
__kernel void simd{simd}(__global float* out, int n, __global void* gs,
                         __global void* ps) {{
  int i = get_global_id(0);
  if (i < n) out[i] = get_sub_group_size();
}}
"""

SPILL_SOURCE = r"""
__kernel void spiller(__global float* out, int n) {
  float v[512];
  for (int i = 0; i < 512; ++i) v[i] = out[(i * 7 + n) & 511] * i;
  float s = 0;
  for (int i = 0; i < 512; ++i) s += v[(i * 13 + n) & 511];
  out[get_global_id(0)] = s;
}
"""


@pytest.fixture(scope="module", autouse=True)
def torch_entry_points():
    """torch._C as a torch XPU build has it: the glue as _StaticXpuLauncher,
    and the raw-stream query Inductor calls."""
    saved = {name: getattr(torch._C, name, None) for name in ("_StaticXpuLauncher", "_xpu_getCurrentRawStream")}
    torch._C._StaticXpuLauncher = L
    torch._C._xpu_getCurrentRawStream = glue.current_raw_stream
    yield
    for name, value in saved.items():
        if value is None:
            delattr(torch._C, name)
        else:
            setattr(torch._C, name, value)


class DrainedRecords(support.DriverRecords):
    """Records read after every queue is waited for: a batched queue's
    commands run (and launches are recorded) only when it is flushed."""

    def count(self) -> int:
        glue.wait_all()
        return super().count()

    def launch(self, index: int) -> dict[str, Any]:
        glue.wait_all()
        return super().launch(index)


@pytest.fixture(scope="module")
def records() -> support.DriverRecords:
    # The stand-in loader build is the driver: its records, not those of a
    # driver behind the system loader (conftest's fixture of this name).
    return DrainedRecords(STANDIN_LOADER)


@pytest.fixture(scope="module")
def buffers() -> list[int]:
    # sycl::malloc_device in the context torch (the shim) owns; freed with
    # the process.
    return [glue.malloc_device(4096, 0) for _ in range(2)]


def launch(
    function: Any,
    grid: tuple[int, int, int],
    num_warps: int,
    shared: int,
    codes: str,
    args: tuple[Any, ...],
    stream: int | None = None,
) -> None:
    """stream None: 0 for the project's glue (torch's current stream);
    upstream has no 0 case (Inductor always passes the current stream)."""
    if stream is None:
        stream = glue.current_raw_stream(0) if UPSTREAM else 0
    L._launch_kernel(function, *grid, num_warps, shared, codes, args, stream)


def test_the_expected_adapter_drives_the_driver():
    # The adapter is chosen by the devices' IP version (0x05004000 and newer:
    # v2); UR_ADAPTERS_FORCE_LOAD is not used, so this is the normal choice.
    assert glue.platform_name().endswith(
        "Level-Zero V2" if os.environ["XSL_GLUE_EXPECT_ADAPTER"] == "v2" else "Level-Zero"
    )
    assert glue.device_count() == DEVICES


def test_built_against_the_libsycl_this_process_loaded():
    maps = Path("/proc/self/maps").read_text()
    loaded = {line.rsplit("/", 1)[-1].strip() for line in maps.splitlines() if "libsycl.so." in line}
    assert loaded == {f"libsycl.so.{_sycl_launcher.SYCL_MAJOR}"}, loaded


def test_the_package_comes_from_where_this_run_asks():
    # XSL_PACKAGE_FROM_ENVIRONMENT=1: the wheel installed in this venv
    # (test_wheel_runtime.py), else the build tree's package.
    import xpu_static_launcher

    from_build = Path(xpu_static_launcher.__file__).is_relative_to(glue_support.PACKAGE_DIR)
    assert from_build == (os.environ.get("XSL_PACKAGE_FROM_ENVIRONMENT") != "1")


@BACKEND_ONLY
def test_the_backend_finds_the_very_devices_and_context_torch_uses():
    # torch's side is the c10::xpu shim, which follows c10/xpu/XPUFunctions.cpp;
    # the backend applies the same rules on the same libsycl without torch.
    # Same Level Zero handles: the same objects, not equal copies.
    context, devices = _sycl_launcher._native_handles()
    torch_context, torch_devices = glue.native_handles()
    assert context != 0 and len(devices) == DEVICES
    assert (context, devices) == (torch_context, torch_devices)


@BACKEND_ONLY
def test_torch_memory_in_a_backend_loaded_kernel(add_zebin, records):
    # Device memory torch allocated (in its context) is accepted by the
    # backend's pointer check (zeMemGetAllocProperties in the backend's
    # context) and reaches the kernel, given as tensors whose data_ptr() is
    # that memory (the backend reads them through data_ptr()).
    import ctypes

    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    addresses = [glue.malloc_device(1024, 0) for _ in range(2)]
    tensors = [torch.frombuffer((ctypes.c_char * 1024).from_address(a), dtype=torch.float32) for a in addresses]
    assert [t.data_ptr() for t in tensors] == addresses
    records.clear()
    launch(function, (2, 1, 1), 1, 0, "OOiOO", (tensors[0], tensors[1], 256, None, None))
    got = records.launch(0)
    assert [a["bytes"] for a in got["args"][:2]] == [support.le_bytes(a, 8) for a in addresses]


@BACKEND_ONLY
def test_stream_zero_without_torchs_raw_stream_query_is_one_clear_error(add_zebin, records, buffers, monkeypatch):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    monkeypatch.delattr(torch._C, "_xpu_getCurrentRawStream")
    records.clear()
    with pytest.raises(RuntimeError, match="stream=0 .*_xpu_getCurrentRawStream"):
        launch(function, (1, 1, 1), 1, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None), 0)
    assert records.count() == 0


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
    assert got["device_index"] == 0
    assert [a["bytes"] for a in got["args"]] == [
        support.le_bytes(src, 8),
        support.le_bytes(dst, 8),
        support.le_bytes(1000, 4),
        bytes(8),
        bytes(8),
    ]


def test_a_grid_whose_int_product_overflows_is_launched(add_zebin, records, buffers):
    # 65536 * 65536 * 1 is 0 in 32-bit arithmetic: without the fix PR
    # upstream dropped the launch as an empty grid.
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    launch(function, (65536, 65536, 1), 1, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None))
    if CAPSULE_FIX:
        assert records.launch(0)["group_count"] == (65536, 65536, 1)
    else:
        assert records.count() == 0


def test_the_kernel_capsule_has_no_extra_reference(add_zebin):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    # As many references as a fresh object held the same way; without the fix
    # PR upstream built the result tuple with "O" and the capsule kept one
    # more (the leak). A baseline, not a fixed 2: how getrefcount counts a
    # local differs between Python versions.
    baseline = object()
    expected = sys.getrefcount(baseline) + (0 if CAPSULE_FIX else 1)
    assert sys.getrefcount(function) == expected


@pytest.mark.parametrize("grid", [(5, 1, 1), (5, 3, 1), (5, 3, 2)])
def test_one_two_and_three_dimensional_grids(add_zebin, records, buffers, grid):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    launch(function, grid, 2, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None))
    assert records.launch(0)["group_count"] == grid


@PROJECT_ONLY  # upstream needs every parameter passed (Inductor passes the scratch ones)
def test_missing_scratch_pointers_are_bound_null(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    launch(function, (1, 1, 1), 1, 0, "OOi", (buffers[0], buffers[1], 5))
    args = records.launch(0)["args"]
    assert [a["size"] for a in args] == [8, 8, 4, 8, 8]
    assert args[3]["bytes"] == bytes(8) and args[4]["bytes"] == bytes(8)


# Upstream, like Triton-XPU's launcher, hands each scalar over at its C
# type's size (set_arg<int8_t> is 1 byte); the driver copies that into the
# start of IGC's 4-byte payload and leaves the rest (zero in a new kernel).
# The project's glue sign- or zero-extends to the payload instead.
C_SIZES = {"b": 1, "h": 2, "i": 4, "l": 8, "B": 1, "H": 2, "I": 4, "K": 8, "f": 4, "d": 8, "e": 2}


def test_every_scalar_type_code(kernels_zebin, records, buffers):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    codes, values = support.scalar_codes_and_values()
    records.clear()
    launch(function, (1, 1, 1), 1, 0, "O" + codes, (buffers[0],) + values)
    got = [a["bytes"] for a in records.launch(0)["args"]]
    extended = support.scalar_payload_bytes()
    if UPSTREAM:
        extended = [ours[: C_SIZES[code]] + bytes(len(ours) - C_SIZES[code]) for code, ours in zip(codes, extended)]
    assert got == [support.le_bytes(buffers[0], 8)] + extended


@pytest.mark.parametrize(
    "code, value, bits",
    [
        ("e", 3.140625, 0x4248),  # fp16
        ("y", 3.140625, 0x4049),  # bf16, exact
        ("y", 0.1, 0x3DCC),  # bf16 truncates like Triton-XPU's launcher
    ],
)
def test_half_and_bfloat16_scalars(records, buffers, code, value, bits):
    source = (
        "__kernel void triton_scale(__global float* out, half s,"
        " __global void* gs, __global void* ps) { out[0] = (float)s; }"
    )
    function, _, _ = L._load_kernel(str(support.compile_opencl(source)), "triton_scale", 0, 0)
    records.clear()
    launch(function, (1, 1, 1), 1, 0, "O" + code + "OO", (buffers[0], value, None, None))
    # half parameters have 4-byte payloads (the upper half zero)
    assert records.launch(0)["args"][1]["bytes"] == bits.to_bytes(4, "little")


def test_fp16_overflow_raises_before_the_launch(kernels_zebin, records, buffers):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    codes, values = support.scalar_codes_and_values()
    records.clear()
    with pytest.raises(OverflowError):
        launch(function, (1, 1, 1), 1, 0, "O" + codes, (buffers[0],) + values[:-1] + (70000.0,))
    assert records.count() == 0


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


def test_stream_zero_is_the_current_queue_and_a_queue_pointer_is_used_as_is(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    other = glue.new_queue(0)
    args = (buffers[0], buffers[1], 1, None, None)
    # Upstream reads every stream as a sycl::queue*: no 0 case.
    streams = ([] if UPSTREAM else [0]) + [glue.current_raw_stream(0), other]
    records.clear()
    for x, stream in enumerate(streams, 1):
        launch(function, (x, 1, 1), 1, 0, "OOiOO", args, stream)
    lists = [records.launch(i)["command_list"] for i in range(len(streams))]
    if FORCED_BATCHES:
        # Each queue's launches land in its own batch, not on the immediate
        # list under it (a direct append there would run before the batch).
        assert len(set(lists[:-1])) == 1 and lists[-1] != lists[0]
        assert not {glue.native_command_list(glue.current_raw_stream(0)), glue.native_command_list(other)} & set(lists)
    else:
        # Each launch lands on its queue's own immediate command list, where
        # SYCL puts the queue's other commands (so they stay in order):
        # stream=0 is the current stream's queue, the other queue has its
        # own list.
        current = glue.native_command_list(glue.current_raw_stream(0))
        assert current != 0
        assert lists == [current] * (len(streams) - 1) + [glue.native_command_list(other)]
        assert lists[-1] != current
    assert [records.launch(i)["group_count"][0] for i in range(len(streams))] == list(range(1, len(streams) + 1))


@pytest.mark.parametrize("queue_kind", ["current", "batched"])
def test_launches_run_in_order_with_the_queues_sycl_kernels(add_zebin, records, buffers, queue_kind):
    # SYCL's own launch, the glue's, SYCL's again: they run in that order
    # on the queue's device. A batched queue (no_immediate_command_list;
    # adapter v2 batches it, v1 gives it regular lists) runs its commands at
    # the flush, so a launch that skipped the batch would run first.
    queue = glue.current_raw_stream(0) if queue_kind == "current" else glue.new_queue(0, True)
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    reference = glue.upstream_style_load(add_zebin, ADD, 0)
    args = (buffers[0], buffers[1], 1, None, None)
    records.clear()
    glue.upstream_style_launch(reference, 1, 1, 1, 1, 0, "OOiOO", args, queue)
    launch(function, (2, 1, 1), 1, 0, "OOiOO", args, queue)
    glue.upstream_style_launch(reference, 3, 1, 1, 1, 0, "OOiOO", args, queue)
    order = [records.launch(i)["group_count"][0] for i in range(records.count())]
    assert order == [1, 2, 3]


@pytest.mark.skipif(DEVICES < 2, reason="needs XSL_TEST_DRIVER_DEVICES=2")
def test_second_device(add_zebin, records):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 1)
    src, dst = glue.malloc_device(256, 1), glue.malloc_device(256, 1)
    records.clear()
    # stream 0 is the kernel's device's current stream (not upstream's case)
    streams = ([] if UPSTREAM else [0]) + [glue.current_raw_stream(1)]
    for stream in streams:
        launch(function, (4, 1, 1), 1, 0, "OOiOO", (src, dst, 1, None, None), stream)
    assert [records.launch(i)["device_index"] for i in range(len(streams))] == [1] * len(streams)
    assert len({records.launch(i)["command_list"] for i in range(len(streams))}) == 1


def test_launches_from_several_threads(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    records.clear()
    errors: list[BaseException] = []

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
    values = sorted(int.from_bytes(records.launch(i)["args"][2]["bytes"], "little") for i in range(records.count()))
    assert values == sorted(n for t in range(4) for n in range(1000 * t, 1000 * t + 50))


def test_n_regs_and_n_spills(records):
    # Upstream reports no register count (0 always; an optional PR).
    wide = support.compile_opencl(support.TRITON_ADD_SOURCE, options="-cl-intel-256-GRF-per-thread")
    assert L._load_kernel(str(wide), ADD, 0, 0)[1] == (0 if UPSTREAM else 256)
    spill = support.compile_opencl(SPILL_SOURCE)
    _, n_regs, n_spills = L._load_kernel(str(spill), "spiller", 0, 0)
    assert n_regs == 0 and n_spills > 0


@PROJECT_ONLY
def test_the_load_benchmarks_floor_reports_the_drivers_n_spills(add_zebin):
    # bench_triton_load.py's floor: the runtime calls alone, without .ze_info.
    spill = str(support.compile_opencl(SPILL_SOURCE))
    _, floor_spills = glue.load_floor(spill, "spiller", 0)
    assert floor_spills == L._load_kernel(spill, "spiller", 0, 0)[2] > 0
    assert glue.load_floor(add_zebin, ADD, 0)[1] == 0
    missing = str(Path(add_zebin).with_name("missing.zebin"))
    with pytest.raises(RuntimeError, match="missing.zebin"):
        glue.load_floor(missing, ADD, 0)


@PROJECT_ONLY
def test_a_device_torch_does_not_have_gets_one_clear_error(add_zebin):
    with pytest.raises(ValueError, match="device"):
        L._load_kernel(add_zebin, ADD, 0, DEVICES)


# ---------------------------------------------- Inductor's own class drives it


INSTALLED_TORCH = torch.__version__.split("+", 1)[0]


def test_runs_on_the_torch_this_run_asks_for():
    # dev.sh runs these cases on torch 2.13.0 and again on the latest
    # release's wheel (XSL_GLUE_EXPECT_TORCH); this names which one ran.
    assert INSTALLED_TORCH == os.environ["XSL_GLUE_EXPECT_TORCH"]
    assert Path(stl.__file__).is_relative_to(Path(torch.__file__).parent)


def inductor_launcher_modules() -> list[Any]:
    """The installed torch's static_triton_launcher.py, and those of the
    other releases fetched by dev.sh setup into build/torch-headers, run on
    the installed torch (their imports exist there)."""
    modules = [pytest.param(stl, id=f"torch-{INSTALLED_TORCH}")]
    for tree in sorted(support.REPO.glob("build/torch-headers/*/_inductor/runtime/static_triton_launcher.py")):
        version = tree.parents[2].name
        if version == INSTALLED_TORCH:
            continue
        spec = importlib.util.spec_from_file_location(
            f"torch._inductor.runtime.static_triton_launcher_{version.replace('.', '_')}", tree
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        modules.append(pytest.param(module, id=f"torch-{version}"))
    return modules


@pytest.mark.parametrize("inductor", inductor_launcher_modules())
def test_inductor_loads_and_runs_the_kernel_through_the_glue(inductor, add_zebin, records, buffers, tmp_path):
    data = Path(add_zebin).read_bytes()
    compiled = support.StandInCompiledKernel(data, with_scratch_fields=True)
    kernel = inductor.statically_launched_kernel_by_device(compiled, "xpu")
    assert type(kernel) is inductor.StaticallyLaunchedXpuKernel
    assert kernel.C_impl is L
    kernel.reload_cubin_from_raw(str(tmp_path / f"{ADD}.zebin"))
    kernel.load_kernel(0)
    assert (kernel.n_regs, kernel.n_spills) == (0, 0)
    records.clear()
    stream = torch._C._xpu_getCurrentRawStream(0)
    kernel.run(5, 1, 1, stream, support.FakeTensor(buffers[0]), support.FakeTensor(buffers[1]), 1000)
    got = records.launch(0)
    assert got["group_count"] == (5, 1, 1)
    assert got["group_size"] == (support.NUM_WARPS * support.THREADS_PER_WARP, 1, 1)
    assert [a["bytes"] for a in got["args"]] == [
        support.le_bytes(buffers[0], 8),
        support.le_bytes(buffers[1], 8),
        support.le_bytes(1000, 4),
        bytes(8),
        bytes(8),
    ]


def test_host_memory_torch_does_not_own_is_refused(add_zebin, records):
    # Upstream asks zeMemGetAllocProperties through at::globalContext()
    # .getLevelZero(), served by the module's XPU hooks.
    function, _, _ = L._load_kernel(add_zebin, ADD, 0, 0)
    cpu = torch.zeros(16)
    records.clear()
    if not CHECKS_POINTERS:
        # The launcher passes the address on; the test driver refuses memory
        # it did not allocate at zeKernelSetArgumentValue (modules.cpp), where
        # compute-runtime takes it as a system pointer (kernel_imp.cpp,
        # setArgBuffer): a GPU would run the kernel on host memory.
        with pytest.raises(RuntimeError, match="level_zero backend failed"):
            launch(function, (1, 1, 1), 1, 0, "OOiOO", (cpu, cpu, 1, None, None))
        assert records.count() == 0
        return
    error, message = (
        (RuntimeError, "unknown type of memory at 0-th argument") if UPSTREAM else (ValueError, "argument 0")
    )
    with pytest.raises(error, match=message):
        launch(function, (1, 1, 1), 1, 0, "OOiOO", (cpu, cpu, 1, None, None))
    assert records.count() == 0


# ------------------------------------- install() on a torch without a launcher


@BACKEND_ONLY
def test_install_puts_the_sycl_backend_into_torch_and_uninstall_undoes_it(
    add_zebin, records, buffers, tmp_path, monkeypatch
):
    import xpu_static_launcher

    # torch as a published XPU wheel has it: XPU available, the raw-stream
    # query present (the fixture's), no _StaticXpuLauncher of its own.
    monkeypatch.delattr(torch._C, "_StaticXpuLauncher")
    monkeypatch.setattr(torch.xpu, "is_available", lambda: True)
    result = xpu_static_launcher.install(zebin=False, verbose=False)
    assert result.status == "installed", result.message
    assert f"libsycl {_sycl_launcher.SYCL_MAJOR}" in result.message
    try:
        # The backend's launcher, which passes Triton's build flags on.
        assert torch._C._StaticXpuLauncher.backend is L
        compiled = support.StandInCompiledKernel(Path(add_zebin).read_bytes(), with_scratch_fields=True)
        kernel = stl.statically_launched_kernel_by_device(compiled, "xpu")
        assert kernel.C_impl is torch._C._StaticXpuLauncher
        kernel.reload_cubin_from_raw(str(tmp_path / f"{ADD}.zebin"))
        kernel.load_kernel(0)
        records.clear()
        kernel.run(3, 1, 1, 0, support.FakeTensor(buffers[0]), support.FakeTensor(buffers[1]), 7)
        assert records.launch(0)["group_count"] == (3, 1, 1)
        assert records.launch(0)["args"][2]["bytes"] == support.le_bytes(7, 4)
    finally:
        undone = xpu_static_launcher.uninstall(verbose=False)
    assert undone.status == "uninstalled", undone.message
    assert not hasattr(torch._C, "_StaticXpuLauncher")


def test_a_bad_kernel_file_is_one_error_that_names_it(add_zebin, tmp_path, monkeypatch):
    """Empty files, SPIR-V's magic number before garbage and build flags the
    driver refuses each raise one RuntimeError naming the file (and the
    flags, with the driver's build log); a zebin named .spv is a zebin."""
    import json

    if not LOADS_SPIRV:
        pytest.skip("upstream's xpu.cpp without the SPIR-V PR loads zebins only")
    spirv = (TRITON_DIR / "vector_add.spv").read_bytes()
    shared = json.loads((TRITON_DIR / "vector_add.json").read_text())["shared"]
    for name, data in (("empty.spv", b""), ("garbage.spv", spirv[:4] + b"\xff" * 60)):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(RuntimeError, match=re.escape(str(path))):
            L._load_kernel(str(path), "vector_add", shared, 0, "")
    renamed = tmp_path / "add.spv"
    renamed.write_bytes(Path(add_zebin).read_bytes())
    assert L._load_kernel(str(renamed), ADD, 0, 0, "")[1:] == L._load_kernel(str(add_zebin), ADD, 0, 0)[1:]
    monkeypatch.setenv("XSL_TEST_DRIVER_REJECT_FLAG", "-no-such-option")
    with pytest.raises(RuntimeError) as caught:
        L._load_kernel(str(TRITON_DIR / "vector_add.spv"), "vector_add", shared, 0, "-no-such-option")
    for part in ("vector_add.spv", "-no-such-option", "unsupported build option"):
        assert part in str(caught.value)


@pytest.mark.parametrize("kernel", ["vector_add", "softmax", "spill", "matmul"])
@pytest.mark.parametrize("grf", [128, 256])
def test_spirv_reports_what_the_driver_compiled_zebin_reports(kernel, grf, zebin_corpus, records):
    """Through the SYCL launchers (the backend under both Triton-XPU rules,
    the glue under the rule it is built with, upstream's xpu.cpp with the
    SPIR-V PR under Triton-XPU main's): Triton's SPIR-V loaded with its
    build flags gives the n_regs and n_spills of the zebin compiled from the
    same SPIR-V and flags (ocloc for the test driver's device)."""
    import json

    if not LOADS_SPIRV:
        pytest.skip("upstream's xpu.cpp without the SPIR-V PR loads zebins only")
    meta = json.loads((TRITON_DIR / f"{kernel}.json").read_text())
    flags = LARGE_GRF if grf == 256 else ""
    zebin = zebin_corpus / f"triton_{kernel}_pvc_grf{grf}.zebin"
    if BACKEND:
        rules = (("3.7.2", "bytes"), ("3.9.0", "per-lane"))
    else:
        rules = ((None, "per-lane" if UPSTREAM else "bytes"),)
    try:
        for version, rule in rules:
            flags = LARGE_GRF if grf == 256 else ""
            zebin = zebin_corpus / f"triton_{kernel}_pvc_grf{grf}.zebin"
            if version is not None:
                assert _sycl_launcher._set_triton_version(version) == rule
            try:
                _, *from_spirv = L._load_kernel(str(TRITON_DIR / f"{kernel}.spv"), kernel, meta["shared"], 0, flags)
            except RuntimeError as err:
                cannot_build = ("could not build the SPIR-V", "Cannot build XPU kernel binary")
                if os.environ["XSL_GLUE_EXPECT_ADAPTER"] == "v2" and any(t in str(err) for t in cannot_build):
                    pytest.skip(
                        "the test driver's adapter v2 device is Xe2, which this ocloc cannot compile "
                        "SPIR-V for (ocloc 22.43 knows no Xe2)"
                    )
                raise
            if UPSTREAM:
                # Upstream reports no register count (0 always): the retry
                # shows in n_spills, which equal the default-GRF zebin's
                # only when no retry happened.
                _, *default_grf = L._load_kernel(str(zebin), kernel, meta["shared"], 0, flags)
                retried = grf == 128 and from_spirv != default_grf
            else:
                retried = grf == 128 and from_spirv[0] == 256
            if retried:
                # Triton-XPU's large-GRF retry rebuilt a kernel that spilled
                # over its threshold with the large GRF flag appended:
                # compare with that build.
                zebin, flags = zebin_corpus / f"triton_{kernel}_pvc_grf256.zebin", " " + LARGE_GRF
            _, *from_zebin = L._load_kernel(str(zebin), kernel, meta["shared"], 0, flags)
            assert from_spirv == from_zebin, (version, from_spirv, from_zebin)
            if UPSTREAM:
                assert from_spirv[0] == 0
            else:
                assert retried or from_spirv[0] == (256 if grf == 256 else 0 if rule == "bytes" else 128)
            assert kernel != "spill" or grf == 256 or retried  # it spills far over either threshold
    finally:
        if BACKEND:
            _sycl_launcher._set_triton_version("3.8.0")  # the default


@BACKEND_ONLY
def test_install_launches_triton_spirv_statically(records, buffers, tmp_path, monkeypatch):
    """Route (a) without ocloc: after install(), the release's
    StaticallyLaunchedXpuKernel takes a kernel whose binary is Triton's
    SPIR-V (vector_add, as triton-xpu compiled it), the driver compiles it
    with its build flags at the first load, the launch reaches the driver,
    and the next load uses the kept native binary."""
    import json

    import xpu_static_launcher
    from xpu_static_launcher import inductor_spirv

    meta = json.loads((TRITON_DIR / "vector_add.json").read_text())
    spirv = (TRITON_DIR / "vector_add.spv").read_bytes()
    monkeypatch.delattr(torch._C, "_StaticXpuLauncher")
    monkeypatch.setattr(torch.xpu, "is_available", lambda: True)
    result = xpu_static_launcher.install(zebin=False, verbose=False)
    try:
        assert result.status == "installed", result.message
        assert result.spirv_launch and inductor_spirv.is_enabled()
        # Triton-XPU 3.3 adds no scratch pointers to the kernel (its metadata
        # has no scratch sizes).
        compiled = support.StandInCompiledKernel(
            None,
            False,
            name=meta["name"],
            signature=meta["signature"],
            spirv=spirv,
            build_flags=meta["build_flags"],
            num_warps=meta["num_warps"],
            threads_per_warp=meta["threads_per_warp"],
        )
        kernel = stl.statically_launched_kernel_by_device(compiled, "xpu")
        assert kernel.cubin_raw == spirv and kernel.build_flags == ""
        kernel.reload_cubin_from_raw(str(tmp_path / f"{meta['name']}.spv"))
        _sycl_launcher._kernel_cache_clear()  # the first load compiles
        kept_before = _sycl_launcher._kernel_cache_info()["entries"]
        assert kept_before == 0
        try:
            kernel.load_kernel(0)
        except RuntimeError as err:
            if os.environ["XSL_GLUE_EXPECT_ADAPTER"] == "v2" and "could not build the SPIR-V" in str(err):
                pytest.skip(
                    "the test driver's adapter v2 device is Xe2, which this ocloc cannot compile "
                    "SPIR-V for (ocloc 22.43 knows no Xe2)"
                )
            raise
        # No GRF flag, no spill: n_regs as the Triton install() found reports
        # it (0 before Triton-XPU 3.9, 128 from 3.9).
        rule = _sycl_launcher._triton_metadata_rule()
        assert rule in result.message
        assert (kernel.n_regs, kernel.n_spills) == (0 if rule == "bytes" else 128, 0)
        assert _sycl_launcher._kernel_cache_info()["entries"] == kept_before + 1
        records.clear()
        kernel.run(
            2,
            1,
            1,
            0,
            support.FakeTensor(buffers[0]),
            support.FakeTensor(buffers[1]),
            support.FakeTensor(buffers[0]),
            2048,
        )
        launch = records.launch(0)
        assert launch["group_count"] == (2, 1, 1)
        assert launch["group_size"][0] == meta["num_warps"] * meta["threads_per_warp"]
        assert launch["args"][3]["bytes"] == support.le_bytes(2048, 4)
        # A second kernel object (a warm start) loads the kept native binary.
        again = stl.statically_launched_kernel_by_device(compiled, "xpu")
        again.reload_cubin_from_raw(str(tmp_path / f"{meta['name']}.spv"))
        again.load_kernel(0)
        assert (again.n_regs, again.n_spills) == (kernel.n_regs, kernel.n_spills)
        assert _sycl_launcher._kernel_cache_info()["entries"] == kept_before + 1
    finally:
        xpu_static_launcher.uninstall(verbose=False)
    assert not inductor_spirv.is_enabled()
