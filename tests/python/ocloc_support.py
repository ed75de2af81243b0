"""Shared helpers for the ocloc tests and tests/bench/bench_compile_backends.py.

`OclocCapi` drives the C ABI library xsl_compile_capi (csrc/compile/capi.h)
through ctypes: in-process compilation from Python on Linux and Windows.
"""

from __future__ import annotations

import ctypes
import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
# The package's ocloc discovery (scripts load it by this path too).
DISCOVERY = REPO / "python" / "xpu_static_launcher" / "ocloc_discovery.py"

BACKEND_AUTO = 0
BACKEND_LIBRARY = 1
BACKEND_EXECUTABLE = 2
BACKEND_DRIVER = 3  # the installed GPU driver through Level Zero


def build_dir() -> Path:
    return Path(os.environ.get("XSL_BUILD_DIR", REPO / "build" / "linux-gcc"))


def capi_library_path(build: Path | None = None) -> Path | None:
    folder = (build or build_dir()) / "csrc" / "compile"
    names = ["xsl_compile_capi.dll", "libxsl_compile_capi.dll"] if os.name == "nt" else ["libxsl_compile_capi.so"]
    for name in names:
        if (folder / name).is_file():
            return folder / name
    return None


def corpus_spirv(name: str, build: Path | None = None) -> bytes | None:
    path = (build or build_dir()) / "corpus" / f"{name}.spv"
    return path.read_bytes() if path.is_file() else None


class OclocError(RuntimeError):
    pass


class CompileResult:
    def __init__(self, zebin: bytes, build_flags: str, spill_bytes: int, log: str) -> None:
        self.zebin = zebin
        self.build_flags = build_flags
        self.spill_bytes = spill_bytes
        self.log = log


class OclocCapi:
    """One xsl_compiler: ocloc found and opened once, then compile()."""

    def __init__(self, library: Path, backend: int = BACKEND_AUTO, ocloc_path: str | None = None) -> None:
        lib = ctypes.CDLL(str(library))
        vp, cp, sz = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t
        err = ctypes.POINTER(ctypes.c_void_p)
        lib.xsl_compile_open.argtypes = [ctypes.c_int, cp, cp, err]
        lib.xsl_compile_open.restype = vp
        lib.xsl_compile_close.argtypes = [vp]
        lib.xsl_compile_describe.argtypes = [vp]
        lib.xsl_compile_describe.restype = cp
        lib.xsl_compile_spirv.argtypes = [vp, vp, sz, cp, cp, ctypes.c_int, err]
        lib.xsl_compile_spirv.restype = vp
        lib.xsl_compile_result_zebin.argtypes = [vp, ctypes.POINTER(sz)]
        lib.xsl_compile_result_zebin.restype = vp
        lib.xsl_compile_result_build_flags.argtypes = [vp]
        lib.xsl_compile_result_build_flags.restype = cp
        lib.xsl_compile_result_spill_bytes.argtypes = [vp]
        lib.xsl_compile_result_spill_bytes.restype = ctypes.c_uint64
        lib.xsl_compile_result_log.argtypes = [vp]
        lib.xsl_compile_result_log.restype = cp
        lib.xsl_compile_result_free.argtypes = [vp]
        lib.xsl_compile_string_free.argtypes = [vp]
        self._lib = lib
        error = ctypes.c_void_p()
        path = ocloc_path.encode() if ocloc_path is not None else None
        # sys.path: the wheel installed in this interpreter is found first.
        python_paths = os.pathsep.join(p for p in sys.path if p).encode()
        self._handle = lib.xsl_compile_open(backend, path, python_paths, ctypes.byref(error))
        if not self._handle:
            raise OclocError(self._take_error(error))

    def _take_error(self, error: ctypes.c_void_p) -> str:
        if not error.value:
            return "unknown error"
        text = ctypes.string_at(error.value).decode("utf-8", "replace")
        self._lib.xsl_compile_string_free(error)
        return text

    def describe(self) -> dict:
        text = self._lib.xsl_compile_describe(self._handle).decode("utf-8", "replace")
        head, _, tried = text.partition("\ntried:")
        info = dict(line.split(": ", 1) for line in head.splitlines() if ": " in line)
        info["tried"] = [line.strip() for line in tried.splitlines() if line.strip()]
        return info

    def compile(self, spirv: bytes, device: str, flags: str = "", retry_large_grf: bool = True) -> CompileResult:
        error = ctypes.c_void_p()
        buffer = ctypes.create_string_buffer(spirv, len(spirv))
        result = self._lib.xsl_compile_spirv(
            self._handle,
            ctypes.cast(buffer, ctypes.c_void_p),
            len(spirv),
            device.encode(),
            flags.encode(),
            int(retry_large_grf),
            ctypes.byref(error),
        )
        if not result:
            raise OclocError(self._take_error(error))
        try:
            size = ctypes.c_size_t()
            data = self._lib.xsl_compile_result_zebin(result, ctypes.byref(size))
            return CompileResult(
                ctypes.string_at(data, size.value),
                self._lib.xsl_compile_result_build_flags(result).decode(),
                int(self._lib.xsl_compile_result_spill_bytes(result)),
                self._lib.xsl_compile_result_log(result).decode("utf-8", "replace"),
            )
        finally:
            self._lib.xsl_compile_result_free(result)

    def close(self) -> None:
        if self._handle:
            self._lib.xsl_compile_close(self._handle)
            self._handle = None

    def __enter__(self) -> OclocCapi:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def elf_sections(data: bytes) -> list[tuple[str, int, bytes]]:
    """(name, type, bytes) of every section of an ELF64 LE file."""
    (shoff,) = struct.unpack_from("<Q", data, 40)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 58)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names_offset, names_size = headers[shstrndx][4], headers[shstrndx][5]
    names = data[names_offset : names_offset + names_size]
    result = []
    for h in headers:
        name = names[h[0] : names.index(b"\0", h[0])].decode()
        result.append((name, h[1], data[h[4] : h[4] + h[5]]))
    return result


def ze_info(data: bytes) -> bytes:
    for name, _, body in elf_sections(data):
        if name == ".ze_info":
            return body
    raise AssertionError("no .ze_info section")


def python_exe() -> str:
    return sys.executable


# conftest.py for running the Triton-XPU patch's own tests outside a Triton
# build: stand-ins for the compiled and heavy parts of `triton`, while
# `triton.backends.intel` is the patched third_party/intel/backend folder.
TRITON_STUB_CONFTEST = """
import os
import sys
import types
from unittest import mock

ROOT = os.path.dirname(os.path.abspath(__file__))


def module(name, package_path=None, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    if package_path is not None:
        mod.__path__ = package_path
    sys.modules[name] = mod
    return mod


TritonError = type("TritonError", (Exception, ), {})
module("triton", [], knobs=mock.MagicMock())
module("triton.errors", TritonError=TritonError)
module("triton.runtime", [])
module("triton.runtime.errors", TritonError=TritonError, IntelGPUError=type("IntelGPUError", (TritonError, ), {}),
       OutOfResources=type("OutOfResources", (TritonError, ), {}))
module("triton._C", [])
module("triton._C.libtriton", ir=mock.MagicMock(), passes=mock.MagicMock(), llvm=mock.MagicMock(),
       intel=mock.MagicMock())
module("triton.backends", [])
module("triton.backends.compiler", BaseBackend=type("BaseBackend", (), {}), GPUTarget=mock.MagicMock(),
       Language=mock.MagicMock())
module("triton.backends.intel", [os.path.join(ROOT, "third_party", "intel", "backend")])
module("triton.backends.intel.driver", compile_module_from_src=mock.MagicMock(), is_lts=mock.MagicMock())
module("triton.backends.intel.track", track=mock.MagicMock())
module("triton.backends.intel.extension_utils", query_device_extensions=mock.MagicMock())
"""
