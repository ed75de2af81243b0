"""The package's SYCL backend for the libsycl this process loaded.

The compiled backend is named for the libsycl major it links:
``_sycl_launcher_sycl8`` (intel-sycl-rt 2025.x, the line torch XPU wheels
pinned first) and ``_sycl_launcher_sycl9`` (2026.x). A wheel carries one per
major, a source build the one of its environment. This module imports the
one whose major is already loaded (torch loads libsycl when it is imported),
so a second libsycl never enters the process, and re-exports it:
``_StaticXpuLauncher``, ``SYCL_MAJOR`` (which ``install()`` checks),
``_native_handles``, ``LOADS_SPIRV`` (True when its ``_load_kernel`` takes
SPIR-V and the build flags as a fifth argument; False for a backend built
before that) and, with it, ``_set_triton_version``,
``_triton_metadata_rule``, ``_kernel_cache_info`` and
``_kernel_cache_clear``. ImportError says why when none fits.
"""

from __future__ import annotations

import importlib

from . import torch_install
from ._backend_choice import available_backends, choose_backend


def _load() -> None:
    loaded = torch_install.sycl_majors(torch_install.loaded_libraries())
    name = choose_backend(loaded, available_backends())
    backend = importlib.import_module(f"{__package__}.{name}")
    for attribute in ("_StaticXpuLauncher", "SYCL_MAJOR", "_native_handles"):
        globals()[attribute] = getattr(backend, attribute)
    for attribute in (
        "_set_triton_version",
        "_triton_metadata_rule",
        "_kernel_cache_info",
        "_kernel_cache_clear",
    ):  # absent before SPIR-V loading
        if hasattr(backend, attribute):
            globals()[attribute] = getattr(backend, attribute)
    loads_spirv = getattr(backend, "LOADS_SPIRV", False)  # the compiled module sets 1
    globals()["LOADS_SPIRV"] = isinstance(loads_spirv, int) and bool(loads_spirv)


_load()
