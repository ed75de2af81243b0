"""Kernel metadata from Intel GPU native binaries (zebin).

A thin wrapper over the C++ reader (``xpu_static_launcher._zebin``): the
values come from the binary's ``.ze_info`` section, never from compiler
console output. Bad input raises ``ValueError`` with the reader's message.
The command-line report is the C++ ``zebin-info``, installed with the
package.

    >>> from xpu_static_launcher import zebin
    >>> zebin.kernel_summary(open("add.zebin", "rb").read())
    [('add', 32, 128, 0)]
"""

from __future__ import annotations

import os
from typing import Any

try:
    from . import _zebin  # type: ignore[attr-defined]  # built by CMake, no stub
except ImportError as error:  # pragma: no cover - message for broken installs
    raise ImportError(
        "xpu_static_launcher._zebin is not built; build the project with CMake "
        "(XSL_BUILD_PYTHON=ON) and put <build>/python on PYTHONPATH, or "
        "`pip install .`"
    ) from error

BytesLike = bytes | bytearray | memoryview
PathLike = str | os.PathLike[str]

__all__ = ["read_zebin", "kernel_summary", "read_file"]


def read_zebin(data: BytesLike) -> dict[str, Any]:
    """Everything the reader knows about a zebin held in memory.

    Returns a dict with ``version`` (zeinfo version text), ``kernels`` (one
    dict per kernel: name, simd_size, grf_count, spill_size (derived spill
    bytes), execution_env_spill_size, private_size, slm_size, barrier_count,
    required_sub_group_size, threads_per_warp, flags, args,
    payload_arguments, per_thread_memory_buffers), ``sections`` (name, type,
    flags, offset, size), ``notes`` ((owner, type, desc) from
    ``.note.intelgt.compat``) and ``warnings``.
    """
    info: dict[str, Any] = _zebin.read_zebin(data)
    return info


def kernel_summary(data: BytesLike) -> list[tuple[str, int, int, int]]:
    """``[(name, simd_size, grf_count, spill_bytes), ...]``: the fast path."""
    summary: list[tuple[str, int, int, int]] = _zebin.kernel_summary(data)
    return summary


def read_file(path: PathLike) -> dict[str, Any]:
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
