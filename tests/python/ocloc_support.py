"""Shared helpers for the ocloc tests and tests/bench/bench_compile_backends.py."""

from __future__ import annotations

import os
import struct
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts"
# The package's ocloc discovery (scripts load it by this path too).
DISCOVERY = REPO / "python" / "xpu_static_launcher" / "ocloc_discovery.py"


def build_dir() -> Path:
    return Path(os.environ.get("XSL_BUILD_DIR", REPO / "build" / "linux-gcc"))


def corpus_spirv(name: str, build: Path | None = None) -> bytes | None:
    path = (build or build_dir()) / "corpus" / f"{name}.spv"
    return path.read_bytes() if path.is_file() else None


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
