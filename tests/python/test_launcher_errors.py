"""Bad input to StaticXpuLauncher: each a clear Python exception naming the
argument, nothing crashes, and the kernel still launches afterwards."""

from __future__ import annotations

import ctypes
import datetime  # noqa: F401  (provides a foreign capsule: datetime.datetime_CAPI)

import pytest

import launcher_support as support

pytestmark = support.launcher_tests()

if support.missing_prerequisites() is None:
    from xpu_static_launcher._launcher import StaticXpuLauncher as L

    from xpu_static_launcher import launcher

CODES = "OOiOO"


@pytest.fixture(scope="module")
def kernel(add_zebin):
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 0)
    src = launcher.device_alloc(0, 256)
    dst = launcher.device_alloc(0, 256)
    records = support.DriverRecords()
    yield function, src, dst, records
    launcher.device_free(src)
    launcher.device_free(dst)


def launch(function, *, grid=(1, 1, 1), num_warps=4, shared=0, codes=CODES, args=None, stream=0):
    L._launch_kernel(function, *grid, num_warps, shared, codes, args, stream)


def assert_still_launches(kernel) -> None:
    function, src, dst, records = kernel
    records.clear()
    launch(function, args=(src, dst, 3, None, None))
    assert records.count() == 1
    assert records.launch(0)["args"][2]["bytes"] == support.le_bytes(3, 4)


def test_wrong_number_of_call_arguments(kernel):
    function = kernel[0]
    with pytest.raises(TypeError, match="takes 9 arguments"):
        L._launch_kernel(function, 1, 1, 1, 4, 0, CODES, ())
    with pytest.raises(TypeError):
        L._load_kernel("x", "y", 0)


def test_argument_count_mismatch(kernel):
    function, src, dst, _ = kernel
    with pytest.raises(ValueError, match="args has 2 values but arg_types 'OOiOO' has 5"):
        launch(function, args=(src, dst))
    with pytest.raises(ValueError, match="arg_types 'OOiO' has 4 arguments, the kernel declares 5"):
        launch(function, codes="OOiO", args=(src, dst, 1, None))
    assert_still_launches(kernel)


def test_wrong_kinds(kernel):
    function, src, dst, _ = kernel
    with pytest.raises(TypeError, match=r"argument 2 \('i', int32\): expected an int, got str"):
        launch(function, args=(src, dst, "7", None, None))
    with pytest.raises(TypeError, match=r"argument 2 .*got float"):
        launch(function, args=(src, dst, 7.0, None, None))
    with pytest.raises(TypeError, match="argument 0 .*expected a tensor"):
        launch(function, args=(object(), dst, 7, None, None))
    with pytest.raises(TypeError, match="args must be a tuple"):
        launch(function, args=[src, dst, 7, None, None])
    with pytest.raises(TypeError, match="arg_types must be a str"):
        launch(function, codes=b"OOiOO", args=(src, dst, 7, None, None))
    with pytest.raises(ValueError, match=r"kernel 'triton_poi_fused_add_0': argument 2 \('O'"):
        launch(function, codes="OOOOO", args=(src, dst, dst, None, None))
    with pytest.raises(TypeError, match="grid_x must be an int"):
        launch(function, grid=(1.0, 1, 1), args=(src, dst, 7, None, None))
    with pytest.raises(TypeError, match="stream must be an int"):
        launch(function, args=(src, dst, 7, None, None), stream=None)
    assert_still_launches(kernel)


def test_none_for_a_scalar(kernel):
    function, src, dst, _ = kernel
    with pytest.raises(TypeError, match=r"argument 2 \('i', int32\): expected an int, got NoneType"):
        launch(function, args=(src, dst, None, None, None))
    assert_still_launches(kernel)


# Out of the C long range Triton-XPU reads 'i' with: OverflowError, as there
# (inside it the value wraps; tests/python/test_launcher_scalars.py).
@pytest.mark.parametrize("value", [2**64, -(2**70), 2**63, -(2**63) - 1])
def test_out_of_range_int32(kernel, value):
    function, src, dst, _ = kernel
    with pytest.raises(OverflowError, match=rf"argument 2 \('i', int32\): {value} is outside"):
        launch(function, args=(src, dst, value, None, None))
    assert_still_launches(kernel)


def test_out_of_range_by_type(kernels_zebin):
    function, _, _ = L._load_kernel(kernels_zebin, "scalars", 0, 0)
    out = launcher.device_alloc(0, 64)
    codes, values = support.scalar_codes_and_values()
    # Values every platform's Triton-XPU launcher raises OverflowError for.
    bad = [
        (0, 2**64),
        (1, -(2**64)),
        (2, 2**100),
        (3, 2**63),
        (3, -(2**63) - 1),
        (4, -1),
        (5, -1),
        (6, -1),
        (6, 2**64),
        (7, 2**64),
        (7, -1),
    ]
    try:
        for index, value in bad:
            args = list(values)
            args[index] = value
            with pytest.raises(OverflowError, match=f"argument {index + 1} "):
                L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (out, *args), 0)
        records = support.DriverRecords()
        records.clear()
        L._launch_kernel(function, 1, 1, 1, 1, 0, "O" + codes, (out, *values), 0)
        assert records.count() == 1
    finally:
        launcher.device_free(out)


def test_unknown_type_code(kernel):
    function, src, dst, _ = kernel
    with pytest.raises(
        ValueError, match=r"arg_types\[2\] = 'x' is not a type code; use one of b h i l B H I K f d e y O"
    ):
        launch(function, codes="OOxOO", args=(src, dst, 1, None, None))
    assert_still_launches(kernel)


def test_host_pointer_is_rejected_naming_the_argument(kernel):
    function, src, dst, _ = kernel
    host = ctypes.create_string_buffer(64)
    address = ctypes.addressof(host)
    with pytest.raises(ValueError, match="argument 1 .*not device memory"):
        launch(function, args=(src, address, 1, None, None))
    with pytest.raises(ValueError, match="argument 0 .*not device memory"):
        launch(function, args=(support.FakeTensor(address), dst, 1, None, None))
    with pytest.raises(ValueError, match="argument 1 .*in \\[0, 2\\*\\*64\\)"):
        launch(function, args=(src, -5, 1, None, None))
    assert_still_launches(kernel)


@pytest.mark.parametrize(
    "grid,message",
    [
        ((-1, 1, 1), "negative"),
        ((-1, -1, 1), "negative"),  # positive product: upstream launched it
        ((1, 1, -5), "negative"),
        ((2**32, 1, 1), "exceeds 4294967295"),
        ((1, 2**40, 1), "exceeds 4294967295"),
        ((2**70, 1, 1), "does not fit"),
    ],
)
def test_bad_grids(kernel, grid, message):
    function, src, dst, records = kernel
    records.clear()
    with pytest.raises(ValueError, match=message):
        launch(function, grid=grid, args=(src, dst, 1, None, None))
    assert records.count() == 0


def test_bad_warps_and_shared(kernel):
    function, src, dst, _ = kernel
    with pytest.raises(ValueError, match="num_warps = 0"):
        launch(function, num_warps=0, args=(src, dst, 1, None, None))
    with pytest.raises(ValueError, match="work-group size"):
        launch(function, num_warps=2**30, args=(src, dst, 1, None, None))
    with pytest.raises(ValueError, match="shared = -1"):
        launch(function, shared=-1, args=(src, dst, 1, None, None))
    assert_still_launches(kernel)


def test_wrong_kind_of_capsule(kernel):
    foreign = datetime.datetime_CAPI
    assert type(foreign).__name__ == "PyCapsule"
    with pytest.raises(TypeError, match="capsule named 'datetime.datetime_CAPI'"):
        launch(foreign, args=(kernel[1], kernel[2], 1, None, None))
    with pytest.raises(TypeError, match="got int"):
        launch(12345, args=(kernel[1], kernel[2], 1, None, None))
    with pytest.raises(TypeError):
        launcher.kernel_info(foreign)


def test_missing_file():
    with pytest.raises(RuntimeError, match="does-not-exist.zebin"):
        L._load_kernel("/nonexistent/does-not-exist.zebin", "k", 0, 0)


def test_not_a_zebin(tmp_path):
    path = tmp_path / "garbage.zebin"
    path.write_bytes(b"\x7fELF" + bytes(100))
    with pytest.raises(RuntimeError, match="garbage.zebin"):
        L._load_kernel(str(path), "k", 0, 0)


def test_wrong_kernel_name_lists_the_kernels(add_zebin):
    with pytest.raises(RuntimeError, match="triton_poi_fused_add_0"):
        L._load_kernel(add_zebin, "no_such_kernel", 0, 0)


def test_bad_load_parameters(add_zebin):
    with pytest.raises(TypeError, match="path must be a str"):
        L._load_kernel(123, "k", 0, 0)
    with pytest.raises(ValueError, match="shared_mem_bytes"):
        L._load_kernel(add_zebin, "triton_poi_fused_add_0", -1, 0)
    with pytest.raises(ValueError, match="device = -1"):
        L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, -1)
    with pytest.raises(RuntimeError):
        L._load_kernel(add_zebin, "triton_poi_fused_add_0", 0, 7)


def test_path_like_and_unicode_paths(add_zebin, tmp_path):
    target = tmp_path / "caché-ドライバ" / "kernel.zebin"
    target.parent.mkdir()
    target.write_bytes(open(add_zebin, "rb").read())
    function, n_regs, _ = L._load_kernel(target, "triton_poi_fused_add_0", 0, 0)
    assert n_regs == 0  # default GRF mode, as Triton-XPU reports it
    assert launcher.kernel_info(function)["name"] == "triton_poi_fused_add_0"


def test_device_files_and_fifos_are_refused_at_once(tmp_path):
    import os

    with pytest.raises(RuntimeError, match="'/dev/zero' is not a regular file"):
        L._load_kernel("/dev/zero", "k", 0, 0)
    fifo = tmp_path / "k.zebin"
    os.mkfifo(fifo)  # no writer: reading it would block forever
    with pytest.raises(RuntimeError, match="is not a regular file"):
        L._load_kernel(str(fifo), "k", 0, 0)


def test_nul_in_path_or_name_is_refused_with_the_whole_message(add_zebin):
    with pytest.raises(ValueError, match=r"path 'cache/a\.\.\.' contains a NUL character at index 7"):
        L._load_kernel("cache/a\0b.zebin", "k", 0, 0)
    with pytest.raises(ValueError, match=r"name 'kern\.\.\.' contains a NUL character at index 4: pass it"):
        L._load_kernel(add_zebin, "kern\0el", 0, 0)


def test_shared_memory_beyond_the_device_is_refused_at_load(add_zebin):
    # The test driver's pvc device has 128 KiB of shared local memory; Triton
    # raises OutOfResources for a kernel that needs more.
    function, _, _ = L._load_kernel(add_zebin, "triton_poi_fused_add_0", 128 * 1024, 0)
    assert function is not None
    with pytest.raises(
        RuntimeError,
        match=r"kernel 'triton_poi_fused_add_0' needs 131073 bytes "
        r"of shared local memory \(131073 dynamic \+ 0 static\), "
        r"but device '.*' has 131072 .*OutOfResources",
    ):
        L._load_kernel(add_zebin, "triton_poi_fused_add_0", 128 * 1024 + 1, 0)


@pytest.mark.parametrize("stream", [1, 12345, 2**63 + 8])
def test_stream_that_is_not_our_command_list_is_refused_not_used(kernel, stream):
    # A torch sycl::queue*, a stale or a made-up value used as a Level Zero
    # handle would crash the driver (SIGSEGV before this check).
    function, src, dst, records = kernel
    records.clear()
    with pytest.raises(
        ValueError,
        match=rf"stream = {stream} is not a command list of this launcher "
        r"for device 0: pass 0 or default_command_list\(device\)",
    ):
        launch(function, args=(src, dst, 3, None, None), stream=stream)
    assert records.count() == 0
    assert_still_launches(kernel)
    from xpu_static_launcher import launcher

    launch(function, args=(src, dst, 3, None, None), stream=launcher.default_command_list(0))
    assert records.count() == 2


TWO_DEVICES_SCRIPT = r"""
import sys
from xpu_static_launcher import launcher
from xpu_static_launcher._launcher import StaticXpuLauncher as L
zebin = sys.argv[1]
f0, _, _ = L._load_kernel(zebin, "triton_poi_fused_add_0", 0, 0)
f1, _, _ = L._load_kernel(zebin, "triton_poi_fused_add_0", 0, 1)
list0, list1 = launcher.default_command_list(0), launcher.default_command_list(1)
assert list0 != list1 and 0 not in (list0, list1)
buffers = [(launcher.device_alloc(d, 64), launcher.device_alloc(d, 64)) for d in (0, 1)]
def launch(function, device, stream):
    src, dst = buffers[device]
    L._launch_kernel(function, 1, 1, 1, 1, 0, "OOiOO", (src, dst, 1, None, None), stream)
for function, device, other in ((f0, 0, list1), (f1, 1, list0)):
    try:
        launch(function, device, other)
    except ValueError as err:
        print("refused", device, err)
    launch(function, device, (list0, list1)[device])
    launch(function, device, 0)
    print("launched", device)
"""


def test_another_devices_command_list_is_refused(add_zebin):
    # The module's only lists are one default list per device: a kernel of
    # device 0 takes device 0's list and no other.
    import os
    import subprocess
    import sys

    env = dict(
        os.environ,
        ZE_ENABLE_ALT_DRIVERS=str(support.DRIVER_PATH),
        XSL_TEST_DRIVER_DEVICES="2",
        XSL_TEST_DRIVER_NO_RECORD="1",
        PYTHONPATH=str(support.PACKAGE_DIR),
    )
    proc = subprocess.run(
        [sys.executable, "-c", TWO_DEVICES_SCRIPT, add_zebin], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert [line.split(" ")[:2] for line in lines] == [
        ["refused", "0"],
        ["launched", "0"],
        ["refused", "1"],
        ["launched", "1"],
    ]
    for device in (0, 1):
        assert lines[2 * device].endswith(
            f"is not a command list of this launcher for device {device}: "
            "pass 0 or default_command_list(device). This Level Zero launcher "
            "does not take torch's sycl::queue* streams"
        )
