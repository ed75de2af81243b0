"""StaticXpuLauncher against the Level Zero test driver: the torch ABI,
metadata, and what reaches the driver (group size/count, argument bytes)."""

from __future__ import annotations

import sys

import pytest

import launcher_support as support

pytestmark = support.launcher_tests()

if support.missing_prerequisites() is None:
    from xpu_static_launcher._launcher import StaticXpuLauncher as L

    from xpu_static_launcher import launcher


@pytest.fixture()
def buffers():
    yield from support.device_buffers(2)


def test_load_returns_capsule_regs_spills_without_extra_reference(add_zebin, records):
    result = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    assert isinstance(result, tuple) and len(result) == 3
    function, n_regs, n_spills = result
    del result
    # Upstream's Py_BuildValue("(Oii)") left the capsule at refcount 2 here.
    assert sys.getrefcount(function) == 2
    assert type(function).__name__ == "PyCapsule"
    assert n_regs == 0  # no GRF build option: what Triton-XPU reports
    info = launcher.kernel_info(function)
    assert n_spills == info["driver_spill_mem_size"] == info["spill_bytes"]
    assert info["threads_per_warp"] == 16
    assert info["arg_kinds"] == ["global_pointer"] * 2 + ["by_value"] + ["global_pointer"] * 2


# n_regs is Triton-XPU's BuildFlags::n_regs() of the options the zebin was
# built with (ocloc records them in .misc.buildOptions), not IGC's GRF count.
@pytest.mark.parametrize(
    "options, n_regs, grf_count",
    [
        ("-cl-intel-256-GRF-per-thread", 256, 256),
        ("-cl-fp32-correctly-rounded-divide-sqrt", 0, 128),
        # IGC's other large-GRF option: 256 GRF, but not the flag Triton checks.
        ("-ze-opt-large-register-file", 0, 256),
        ("-cl-intel-enable-auto-large-GRF-mode", 0, None),
    ],
)
def test_n_regs_follows_the_grf_build_option(records, options, n_regs, grf_count):
    path = support.compile_opencl(support.TRITON_ADD_SOURCE, options=options)
    function, got, _ = L._load_kernel(str(path), "triton_poi_fused_add_0", 0, 0)
    assert got == n_regs
    if grf_count is not None:
        assert launcher.kernel_info(function)["grf_count"] == grf_count


def test_spills_are_reported_in_bytes(records):
    # Enough live private data to force spills at 128 GRF.
    source = r"""
    __kernel void spiller(__global float* out, int n) {
      float v[512];
      for (int i = 0; i < 512; ++i) v[i] = out[(i * n) & 1023];
      float s = 0;
      for (int k = 0; k < 4; ++k)
        for (int i = 0; i < 512; ++i) s += v[(i * 7 + k * n) & 511] * v[i];
      out[get_global_id(0)] = s;
    }
    """
    path = support.compile_opencl(source)
    function, _, n_spills = L._load_kernel(str(path), "spiller", 0, 0)
    info = launcher.kernel_info(function)
    assert n_spills > 0
    assert n_spills == info["spill_bytes"]
    assert n_spills == info["driver_spill_mem_size"]


def test_launch_records_geometry_and_argument_bytes(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    src, dst = buffers
    records.clear()
    L._launch_kernel(function, 7, 2, 3, 4, 0, "OOiOO", (support.FakeTensor(src), dst, 1000, None, None), 0)
    assert records.count() == 1
    launch = records.launch(0)
    assert launch["kernel_name"] == "triton_poi_fused_add_0"
    assert launch["group_count"] == (7, 2, 3)
    assert launch["group_size"] == (4 * 16, 1, 1)
    args = launch["args"]
    assert [a["size"] for a in args] == [8, 8, 4, 8, 8]
    assert args[0]["bytes"] == support.le_bytes(src, 8)
    assert args[1]["bytes"] == support.le_bytes(dst, 8)
    assert args[2]["bytes"] == support.le_bytes(1000, 4)
    assert args[3]["bytes"] == bytes(8) and args[4]["bytes"] == bytes(8)


def test_missing_scratch_pointers_are_bound_null(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    src, dst = buffers
    records.clear()
    L._launch_kernel(function, 1, 1, 1, 1, 0, "OOi", (src, dst, 5), 0)
    launch = records.launch(0)
    assert [a["is_set"] for a in launch["args"]] == [True] * 5
    assert launch["args"][3]["bytes"] == bytes(8)
    assert launch["args"][4]["bytes"] == bytes(8)


def test_repeated_launches_record_changed_values(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    src, dst = buffers
    records.clear()
    for n in (10, 10, 11):
        L._launch_kernel(function, n, 1, 1, 2, 0, "OOiOO", (src, dst, n, None, None), 0)
    L._launch_kernel(function, 1, 1, 1, 4, 0, "OOiOO", (dst, src, 12, None, None), 0)
    assert records.count() == 4
    assert [records.launch(i)["args"][2]["bytes"] for i in range(4)] == [
        support.le_bytes(v, 4) for v in (10, 10, 11, 12)
    ]
    last = records.launch(3)
    assert last["args"][0]["bytes"] == support.le_bytes(dst, 8)
    assert last["args"][1]["bytes"] == support.le_bytes(src, 8)
    assert last["group_size"] == (64, 1, 1)
    assert records.launch(2)["group_size"] == (32, 1, 1)


def test_every_scalar_type(kernels_zebin, records, buffers):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    codes, values = support.scalar_codes_and_values()
    records.clear()
    L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (buffers[0],) + values, 0)
    args = records.launch(0)["args"]
    expected = support.scalar_payload_bytes()
    assert [a["bytes"] for a in args[1:]] == expected


# Ints are read from CPython's digit layout up to two 30-bit digits and
# through the API beyond: every digit-count and sign boundary, both ways.
INT64_BOUNDARIES = (
    0,
    1,
    -1,
    2**30 - 1,
    2**30,
    -(2**30),
    2**30 + 1,
    2**60 - 1,
    2**60,
    -(2**60 - 1),
    -(2**60),
    2**63 - 1,
    -(2**63),
)
UINT64_BOUNDARIES = (0, 2**30, 2**60 - 1, 2**60, 2**63, 2**64 - 1)


# (position in scalar_codes_and_values, signed): 'l' and 'K'.
INT64_SCALAR, UINT64_SCALAR = (3, True), (7, False)


@pytest.mark.parametrize(
    "scalar, value", [(INT64_SCALAR, v) for v in INT64_BOUNDARIES] + [(UINT64_SCALAR, v) for v in UINT64_BOUNDARIES]
)
def test_64_bit_scalars_across_digit_boundaries(kernels_zebin, records, buffers, scalar, value):
    position, signed = scalar
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    codes, values = support.scalar_codes_and_values()
    values = values[:position] + (value,) + values[position + 1 :]
    records.clear()
    L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (buffers[0],) + values, 0)
    # Kernel argument 0 is the pointer, so scalar i is argument i + 1.
    assert records.launch(0)["args"][position + 1]["bytes"] == support.le_bytes(value, 8, signed)


@pytest.mark.parametrize("value", (-1, -(2**30), -(2**60), -(2**63)))
def test_negative_ints_are_rejected_for_unsigned_and_pointer_arguments(kernels_zebin, buffers, value):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    codes, values = support.scalar_codes_and_values()
    with pytest.raises(OverflowError, match="argument 8"):
        L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (buffers[0],) + values[:7] + (value,) + values[8:], 0)
    with pytest.raises(ValueError, match="argument 0"):
        L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (value,) + values, 0)


def test_dynamic_shared_memory_is_the_trailing_local_argument(kernels_zebin, records, buffers):
    function, _, _ = L._load_kernel(kernels_zebin, "with_slm", 256, 0)
    records.clear()
    L._launch_kernel(function, 2, 1, 1, 2, 256, "OiOO", (buffers[0], 64, None, None), 0)
    args = records.launch(0)["args"]
    assert len(args) == 5
    assert args[4]["is_null"] and args[4]["size"] == 256
    with pytest.raises(ValueError, match="shared is 0; pass the kernel's metadata.shared"):
        L._launch_kernel(function, 2, 1, 1, 2, 0, "OiOO", (buffers[0], 64, None, None), 0)


def test_zero_argument_kernel(kernels_zebin, records):
    function, _, _ = L._load_kernel(kernels_zebin, "no_args", 0, 0)
    records.clear()
    L._launch_kernel(function, 3, 1, 1, 1, 0, "", (), 0)
    launch = records.launch(0)
    assert launch["args"] == [] and launch["group_count"] == (3, 1, 1)
    assert launch["group_size"] == (32, 1, 1)


def test_zero_grid_launches_nothing(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    records.clear()
    for grid in ((0, 1, 1), (1, 0, 1), (1, 1, 0)):
        L._launch_kernel(function, *grid, 4, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None), 0)
    assert records.count() == 0


def test_explicit_command_list_stream(add_zebin, records, buffers):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    stream = launcher.default_command_list(0)
    assert stream != 0
    records.clear()
    L._launch_kernel(function, 1, 1, 1, 1, 0, "OOiOO", (buffers[0], buffers[1], 1, None, None), stream)
    assert records.count() == 1


@pytest.mark.parametrize("count", [64, 130])
def test_many_arguments_stack_and_heap(count, records):
    path = support.compile_opencl(support.many_args_source(count), arg_info=False)
    function, _, _ = L._load_kernel(str(path), f"many_{count}", 0, 0)
    address = launcher.device_alloc(0, 64)
    try:
        records.clear()
        L._launch_kernel(function, 1, 1, 1, 1, 0, "O" * (count - 1) + "i", (address,) * (count - 1) + (count,), 0)
        args = records.launch(0)["args"]
        assert len(args) == count
        assert all(a["bytes"] == support.le_bytes(address, 8) for a in args[:-1])
        assert args[-1]["bytes"] == support.le_bytes(count, 4)
    finally:
        launcher.device_free(address)


def test_host_usm_and_shared_usm_are_accepted(add_zebin, records):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    host = launcher.device_alloc(0, 64, "host")
    shared = launcher.device_alloc(0, 64, "shared")
    try:
        records.clear()
        L._launch_kernel(function, 1, 1, 1, 1, 0, "OOiOO", (host, shared, 1, None, None), 0)
        assert records.count() == 1
    finally:
        launcher.device_free(host)
        launcher.device_free(shared)


def test_install_never_puts_the_level_zero_launcher_into_torch():
    """torch passes sycl::queue* streams and SYCL-context tensors, which the
    Level Zero launcher cannot use: install() must leave torch alone (the
    CPU torch here is not XPU-capable; tests/python/test_torch_install.py
    covers every other branch)."""
    torch = pytest.importorskip("torch")
    previous = getattr(torch._C, "_StaticXpuLauncher", None)
    try:
        if previous is not None:
            del torch._C._StaticXpuLauncher
        import xpu_static_launcher

        assert not hasattr(launcher, "install")
        result = xpu_static_launcher.install(verbose=False)
        if not hasattr(torch._C, "_xpu_getCurrentRawStream"):
            assert result.status == "not-xpu"
        assert getattr(torch._C, "_StaticXpuLauncher", None) is not launcher.StaticXpuLauncher
        if result.status != "installed":
            assert getattr(torch._C, "_StaticXpuLauncher", None) is None
        sentinel = object()
        torch._C._StaticXpuLauncher = sentinel
        assert xpu_static_launcher.install(verbose=False).status == "present"
        assert torch._C._StaticXpuLauncher is sentinel
    finally:
        if previous is None:
            if hasattr(torch._C, "_StaticXpuLauncher"):
                del torch._C._StaticXpuLauncher
        else:
            torch._C._StaticXpuLauncher = previous
