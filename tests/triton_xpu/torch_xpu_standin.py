"""The torch.xpu that Triton-XPU 3.3 asks for, served on torch's CPU wheel.

Triton-XPU's driver (triton/backends/intel/driver.py) takes the XPU path only
when torch.xpu.is_available() is true, and then asks torch for nothing but
these three things:

- is_available(): picks the Intel driver, and makes runtime/build.py compile
  Triton's native modules as C++ against SYCL;
- current_stream().sycl_queue: the address of a sycl::queue, for
  init_context/init_devices (which devices, which context) and as the stream
  of every launch;
- get_device_capability(device): the target properties the compiler reads.

The queue is the test helpers' (_xsl_torch_glue, c10_xpu_shim.cpp): made on
the platform's *default* context, as torch's own XPU build makes it. That
matters: Triton's load_binary makes its kernel bundles in the default
context, and a launch on a queue of another context would be refused.
Everything else Triton does (building its launcher, loading, launching) is
its own code.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

# What get_device_capability returns: the target make_triton_spirv.py
# compiled the committed SPIR-V for (a generic Intel GPU without DPAS or 2D
# block IO), so a compile here gives the same SPIR-V. It has no
# "architecture": Triton then names no device and runs no `ocloc query`.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "kernels" / "triton"))
from make_triton_spirv import TARGET_PROPERTIES as DEVICE_CAPABILITY  # noqa: E402


def install(torch: Any, glue: Any) -> None:
    """Serve torch.xpu's three entry points from the test helpers module
    `glue` (_xsl_torch_glue, imported after torch)."""
    xpu = torch.xpu

    def current_stream(device: int | None = None) -> SimpleNamespace:
        return SimpleNamespace(sycl_queue=glue.current_raw_stream(device or 0))

    xpu.is_available = lambda: True
    xpu.current_stream = current_stream
    xpu.get_device_capability = lambda device=None: dict(DEVICE_CAPABILITY)
