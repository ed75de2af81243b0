"""Kernel metadata from Intel GPU native binaries (zebin).

A thin wrapper over the C++ reader (``xpu_static_launcher._zebin``): the
values come from the binary's ``.ze_info`` section, never from compiler
console output. Bad input raises ``ValueError`` with the reader's message.

    >>> from xpu_static_launcher import zebin
    >>> zebin.kernel_summary(open("add.zebin", "rb").read())
    [('add', 32, 128, 0)]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

try:
    from . import _zebin
except ImportError as error:  # pragma: no cover - message for broken installs
    raise ImportError(
        "xpu_static_launcher._zebin is not built; build the project with CMake "
        "(XSL_BUILD_PYTHON=ON) and put <build>/python on PYTHONPATH, or "
        "`pip install .`") from error

BytesLike = Union[bytes, bytearray, memoryview]
PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["read_zebin", "kernel_summary", "read_file", "main"]


def read_zebin(data: BytesLike) -> Dict[str, Any]:
    """Everything the reader knows about a zebin held in memory.

    Returns a dict with ``version`` (zeinfo version text), ``kernels`` (one
    dict per kernel: name, simd_size, grf_count, spill_size (derived spill
    bytes), execution_env_spill_size, private_size, slm_size, barrier_count,
    required_sub_group_size, threads_per_warp, flags, args,
    payload_arguments, per_thread_memory_buffers), ``sections`` (name, type,
    flags, offset, size), ``notes`` ((owner, type, desc) from
    ``.note.intelgt.compat``) and ``warnings``.
    """
    return _zebin.read_zebin(data)


def kernel_summary(data: BytesLike) -> List[Tuple[str, int, int, int]]:
    """``[(name, simd_size, grf_count, spill_bytes), ...]``: the fast path."""
    return _zebin.kernel_summary(data)


def read_file(path: PathLike) -> Dict[str, Any]:
    """``read_zebin`` of a file; the error message names the file.

    ``path`` is a ``str`` or ``os.PathLike``. The file is read by the
    launcher's own reader, so a missing, empty, oversized or non-regular file
    raises ``OSError`` with the same message as ``zebin-info`` and
    ``_load_kernel``.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a str or os.PathLike, got {type(path).__name__}")
    text = os.fspath(path)
    if not isinstance(text, str):
        raise TypeError(f"path must be a str or os.PathLike of str, got {type(text).__name__}")
    data = _zebin.read_file_bytes(text)
    try:
        return read_zebin(data)
    except ValueError as error:
        raise ValueError(f"{os.fspath(path)}: {error}") from None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """``zebin-info-py [--json] [--kernel NAME] FILE...`` (like zebin-info)."""
    parser = argparse.ArgumentParser(
        prog="zebin-info-py", description="Print kernel metadata of zebin files.")
    parser.add_argument("--json", action="store_true",
                        help="one JSON object per file (zebin-info's schema)")
    parser.add_argument("--kernel", help="only this kernel")
    parser.add_argument("files", nargs="+", help="zebin files")
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        try:
            info = read_file(path)
        except (OSError, ValueError) as error:
            print(error, file=sys.stderr)  # every message names the file
            status = 1
            continue
        kernels = [k for k in info["kernels"]
                   if args.kernel is None or k["name"] == args.kernel]
        if args.kernel is not None and not kernels:
            names = ", ".join(k["name"] for k in info["kernels"])
            print(f"{path}: kernel '{args.kernel}' not found; the zebin has: {names}",
                  file=sys.stderr)
            status = 1
            continue
        if args.json:
            keys = ("name", "simd_size", "grf_count", "spill_size", "private_size",
                    "slm_size", "barrier_count", "required_sub_group_size",
                    "threads_per_warp", "args")
            print(json.dumps({"file": path, "version": info["version"],
                              "kernels": [{k: kernel[k] for k in keys} for kernel in kernels],
                              "warnings": info["warnings"]}, separators=(",", ":")))
            continue
        print(f"{path}: zeinfo {info['version']}, {len(info['kernels'])} kernel(s)")
        for k in kernels:
            print(f"  kernel {k['name']}: simd {k['simd_size']}, grf {k['grf_count']}, "
                  f"spill {k['spill_size']}, private {k['private_size']}, "
                  f"slm {k['slm_size']}, barriers {k['barrier_count']}, "
                  f"threads_per_warp {k['threads_per_warp']}, args {len(k['args'])}")
    return status


if __name__ == "__main__":
    sys.exit(main())
