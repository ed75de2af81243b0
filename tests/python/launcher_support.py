"""Shared helpers for the launcher tests (test_launcher_*.py) and bench.

Everything runs against the Level Zero test driver (tests/ze_test_driver),
which the real loader loads through ZE_ENABLE_ALT_DRIVERS; the environment is
set here before the extension first touches Level Zero. Kernels are OpenCL C
compiled to zebin by ``ocloc`` for ``pvc`` (the test driver's default
product) and cached per process.
"""

from __future__ import annotations

import atexit
import ctypes
import hashlib
import os
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
BUILD_DIR = Path(os.environ.get("XSL_BUILD_DIR", str(REPO / "build" / "linux-gcc")))
DRIVER_PATH = BUILD_DIR / "tests" / "ze_test_driver" / "libxsl_ze_test_driver.so"
PACKAGE_DIR = BUILD_DIR / "python"
DEVICE = "pvc"

# Triton-XPU's ABI for a pointwise kernel: the caller's arguments, then the
# global and profile scratch pointers; sub-group size 16 like Triton-XPU's
# default threads_per_warp. Compiled with kernels_misc_info, as Triton's
# zebins have it.
TRITON_ADD_SOURCE = r"""
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void triton_poi_fused_add_0(__global const float* in_ptr0,
                                     __global float* out_ptr0, int xnumel,
                                     __global void* global_scratch,
                                     __global void* profile_scratch) {
  int i = get_global_id(0);
  if (i < xnumel) out_ptr0[i] = in_ptr0[i] + 1.0f;
}
"""

# Every scalar type code once, a trailing dynamic shared memory buffer, and a
# kernel without arguments.
LAUNCHER_KERNELS_SOURCE = r"""
__kernel void scalars(__global long* out, char a, short b, int c, long d,
                      uchar e, ushort f, uint g, ulong h, float x, double y,
                      half z) {
  out[0] = a + b + c + d + e + f + g + h + (long)x + (long)y + (long)z;
}
__kernel void with_slm(__global float* out, int n, __global void* gs,
                       __global void* ps, __local float* smem) {
  int i = get_local_id(0);
  smem[i] = i;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (i < n) out[i] = smem[n - 1 - i];
}
__kernel void no_args(void) {}
"""


def _many_args_source(count: int) -> str:
    params = ", ".join(f"__global float* p{i}" for i in range(count - 1))
    body = " + ".join(f"p{i}[0]" for i in range(count - 1))
    return f"__kernel void many_{count}({params}, int n) {{\n  if (get_global_id(0) < n) p0[0] = {body};\n}}\n"


def many_args_source(count: int) -> str:
    """A kernel ``many_<count>`` with count-1 pointers and one int."""
    return _many_args_source(count)


def setup_environment() -> None:
    """Makes the build tree's package importable and, once per process,
    initializes the extension's Level Zero loader against the test driver.

    ZE_ENABLE_ALT_DRIVERS is read by the loader at zeInit, so it is set just
    for that first call and then restored: other tests in this pytest process
    (which start subprocesses) see the environment they had."""
    if str(PACKAGE_DIR) not in sys.path:
        sys.path.insert(0, str(PACKAGE_DIR))
    global _initialized
    if _initialized or missing_prerequisites() is not None:
        return
    _initialized = True
    saved = os.environ.get("ZE_ENABLE_ALT_DRIVERS")
    os.environ["ZE_ENABLE_ALT_DRIVERS"] = str(DRIVER_PATH)
    try:
        from xpu_static_launcher import _launcher

        _launcher._default_command_list(0)  # zeInit happens here
    finally:
        if saved is None:
            del os.environ["ZE_ENABLE_ALT_DRIVERS"]
        else:
            os.environ["ZE_ENABLE_ALT_DRIVERS"] = saved


_initialized = False


def launcher_tests() -> pytest.MarkDecorator:
    """The mark of tests that launch through the extension: the environment
    set up (setup_environment), or the tests skipped with the reason."""
    setup_environment()
    missing = missing_prerequisites()
    return pytest.mark.skipif(missing is not None, reason=missing or "")


def missing_prerequisites() -> str | None:
    """Why the launcher tests cannot run here, or None."""
    if not DRIVER_PATH.is_file():
        return f"test driver not built: {DRIVER_PATH}"
    if not list((PACKAGE_DIR / "xpu_static_launcher").glob("_launcher*")):
        return f"extension not built under {PACKAGE_DIR}"
    if shutil.which("ocloc") is None:
        return "ocloc not on PATH"
    return None


_CACHE_DIR = Path(tempfile.mkdtemp(prefix="xsl_launcher_kernels_"))
atexit.register(shutil.rmtree, _CACHE_DIR, True)


def compile_opencl(source: str, options: str = "", device: str = DEVICE, arg_info: bool = True) -> Path:
    """Compiles OpenCL C to a zebin file (cached by content). ``arg_info``
    adds kernels_misc_info (argument names and type names such as 'half;2'),
    which Triton-XPU's zebins carry too; False leaves only the payload
    arguments, as some other producers do."""
    if arg_info:
        options = ("-cl-kernel-arg-info " + options).strip()
    key = hashlib.sha256((source + "\0" + options + "\0" + device).encode()).hexdigest()[:16]
    out = _CACHE_DIR / f"k_{key}.zebin"
    if out.is_file():
        return out
    src = _CACHE_DIR / f"k_{key}.cl"
    src.write_text(source)
    cmd = [
        "ocloc",
        "compile",
        "-file",
        str(src),
        "-device",
        device,
        "-output",
        f"k_{key}",
        "-output_no_suffix",
        "-out_dir",
        str(_CACHE_DIR),
        "-internal_options",
        "-ze-allow-zebin",
    ]
    if options:
        cmd += ["-options", options]
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=_CACHE_DIR)
    built = _CACHE_DIR / f"k_{key}"
    if result.returncode != 0 or not built.is_file():
        raise RuntimeError(f"ocloc failed: {' '.join(cmd)}\n{result.stdout}\n{result.stderr}")
    built.rename(out)
    return out


class ArgRecord(ctypes.Structure):
    _fields_ = [
        ("is_set", ctypes.c_uint32),
        ("is_null", ctypes.c_uint32),
        ("size", ctypes.c_uint64),
        ("bytes", ctypes.c_uint8 * 64),
    ]


class LaunchRecord(ctypes.Structure):
    _fields_ = [
        ("kernel_name", ctypes.c_char * 128),
        ("group_size", ctypes.c_uint32 * 3),
        ("group_count", ctypes.c_uint32 * 3),
        ("num_args", ctypes.c_uint32),
        ("device_index", ctypes.c_uint32),
        ("command_list", ctypes.c_uint64),
    ]


class DriverRecords:
    """The test driver's launch records (test_driver.h) through ctypes."""

    def __init__(self, library: Path = DRIVER_PATH) -> None:
        # The driver library the loader already loaded (or the stand-in
        # loader build, which is the driver itself).
        lib = ctypes.CDLL(str(library))
        self._count = lib.xslTestDriverGetLaunchCount
        self._count.restype = ctypes.c_size_t
        self._record = lib.xslTestDriverGetLaunchRecord
        self._record.argtypes = [ctypes.c_size_t, ctypes.POINTER(LaunchRecord)]
        self._arg = lib.xslTestDriverGetLaunchArg
        self._arg.argtypes = [ctypes.c_size_t, ctypes.c_uint32, ctypes.POINTER(ArgRecord)]
        self._clear = lib.xslTestDriverClearLaunchRecords

    def clear(self) -> None:
        self._clear()

    def count(self) -> int:
        return int(self._count())

    def launch(self, index: int) -> dict[str, Any]:
        record = LaunchRecord()
        if self._record(index, ctypes.byref(record)) != 0:
            raise IndexError(index)
        args: list[dict[str, Any]] = []
        for i in range(record.num_args):
            arg = ArgRecord()
            if self._arg(index, i, ctypes.byref(arg)) != 0:
                raise IndexError((index, i))
            size = int(arg.size)
            args.append(
                {
                    "is_set": bool(arg.is_set),
                    "is_null": bool(arg.is_null),
                    "size": size,
                    "bytes": bytes(arg.bytes[: min(size, 64)]),
                }
            )
        return {
            "kernel_name": record.kernel_name.decode(),
            "group_size": tuple(record.group_size),
            "group_count": tuple(record.group_count),
            "device_index": int(record.device_index),
            "command_list": int(record.command_list),
            "args": args,
        }


class FakeTensor:
    """Stands in for a torch tensor: only data_ptr() is used."""

    def __init__(self, address: int) -> None:
        self._address = address

    def data_ptr(self) -> int:
        return self._address


def rss_bytes() -> int:
    """Resident set size of this process (Linux /proc)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def device_buffers(count: int) -> Iterator[list[int]]:
    """For a fixture (`yield from`): `count` 4 KiB device allocations, freed
    afterwards."""
    from xpu_static_launcher import launcher

    made = [launcher.device_alloc(0, 4096) for _ in range(count)]
    yield made
    for address in made:
        launcher.device_free(address)


def le_bytes(value: int, size: int, signed: bool = False) -> bytes:
    return value.to_bytes(size, "little", signed=signed)


def scalar_codes_and_values() -> tuple[str, tuple[Any, ...]]:
    """arg_types and values for the `scalars` kernel (after its pointer)."""
    return "bhilBHIKfde", (-3, -300, -70000, -(2**40), 200, 60000, 2**31 + 5, 2**63 + 7, 2.5, 0.1, 1.5)


def scalar_payload_bytes() -> list[bytes]:
    """What the driver must receive for scalar_codes_and_values(). IGC pads
    char/short/half parameters to 4-byte payloads: the launcher passes the
    payload size with the value sign/zero-extended."""
    return [
        le_bytes(-3, 4, signed=True),
        le_bytes(-300, 4, signed=True),
        le_bytes(-70000, 4, signed=True),
        le_bytes(-(2**40), 8, signed=True),
        le_bytes(200, 4),
        le_bytes(60000, 4),
        le_bytes(2**31 + 5, 4),
        le_bytes(2**63 + 7, 8),
        struct.pack("<f", 2.5),
        struct.pack("<d", 0.1),
        struct.pack("<e", 1.5) + bytes(2),
    ]


TRITON_ADD_KERNEL = "triton_poi_fused_add_0"
NUM_WARPS = 4
THREADS_PER_WARP = 16  # intel_reqd_sub_group_size(16) in the zebin


class StandInCompiledKernel:
    """What StaticallyLaunchedTritonKernel reads from triton's CompiledKernel
    (checked against torch 2.13's static_triton_launcher.py)."""

    # triton.knobs is absent without triton: the class hooks are read.
    launch_enter_hook = None
    launch_exit_hook = None

    def __init__(
        self,
        zebin: bytes | None,
        with_scratch_fields: bool,
        name: str = TRITON_ADD_KERNEL,
        signature: dict[str, str] | None = None,
        spirv: bytes = b"",
        build_flags: str | None = None,
        num_warps: int | None = None,
        threads_per_warp: int | None = None,
    ) -> None:
        if signature is None:
            signature = {"in_ptr0": "*fp32", "out_ptr0": "*fp32", "xnumel": "i32", "XBLOCK": "constexpr"}
        arg_names = list(signature)
        params = [
            SimpleNamespace(num=i, is_constexpr=(signature[arg] == "constexpr")) for i, arg in enumerate(arg_names)
        ]
        fn = SimpleNamespace(__name__=name, arg_names=arg_names, params=params)
        constants = {arg: 128 for arg in arg_names if signature[arg] == "constexpr"}
        self.src = SimpleNamespace(fn=fn, signature=signature, constants=constants)
        # A SPIR-V kernel (Inductor's format on Windows) has no zebin.
        self.asm = {"zebin": zebin, "spv": spirv} if zebin is not None else {"spv": spirv}
        self.hash = "0123456789abcdef"
        self._cubin_path = None
        metadata = {
            "num_warps": num_warps or NUM_WARPS,
            "num_ctas": 1,
            "shared": 0,
            "threads_per_warp": threads_per_warp or THREADS_PER_WARP,
        }
        if build_flags is not None:
            metadata["build_flags"] = build_flags
        if with_scratch_fields:
            metadata.update(global_scratch_size=0, profile_scratch_size=0)
        self.metadata = SimpleNamespace(**metadata)
