"""The static XPU launcher: ``StaticXpuLauncher`` with torch's ABI.

``StaticXpuLauncher`` has exactly the static methods Inductor's
``StaticallyLaunchedXpuKernel`` calls on ``torch._C._StaticXpuLauncher``::

    _load_kernel(path, name, shared_mem_bytes, device) -> (function, n_regs, n_spills)
    _launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared,
                   arg_types, args, stream)

This standalone build launches through Level Zero: ``stream`` is a
``ze_command_list_handle_t`` of an immediate command list in the launcher's
context (see ``default_command_list``), and 0 selects the module's default
synchronous immediate list of the kernel's device. ``n_regs`` and
``n_spills`` are what Triton-XPU's own launcher reports for the same zebin:
256 or 128 when it was built with that GRF option (else 0), and the spill
memory in bytes per thread.

It is never put into torch (torch's ``stream`` is a ``sycl::queue*``):
``xpu_static_launcher.install()`` installs only the SYCL backend.
"""

from __future__ import annotations

from typing import Any

from . import _launcher
from ._launcher import StaticXpuLauncher  # noqa: F401  (re-exported)

__all__ = [
    "StaticXpuLauncher",
    "device_alloc",
    "device_free",
    "default_command_list",
    "kernel_info",
]


def device_alloc(device: int, size: int, kind: str = "device") -> int:
    """Allocate Level Zero USM (``device``/``host``/``shared``) in the
    launcher's context of ``device``; returns the address."""
    address: int = _launcher._device_alloc(device, size, kind)
    return address


def device_free(address: int) -> None:
    """Free an allocation made by :func:`device_alloc`."""
    _launcher._device_free(address)


def default_command_list(device: int) -> int:
    """The immediate command list ``stream=0`` launches on, as an int."""
    command_list: int = _launcher._default_command_list(device)
    return command_list


def kernel_info(function: Any) -> dict[str, Any]:
    """Metadata of a loaded kernel (name, threads_per_warp, grf_count,
    spill_bytes, driver_spill_mem_size, device, arg_kinds)."""
    info: dict[str, Any] = _launcher._kernel_info(function)
    return info
