"""Static launcher for Intel XPU Triton kernels.

Submodules:
  zebin            read kernel metadata from Intel GPU native binaries (zebin)
  launcher         the Level Zero ``StaticXpuLauncher`` (torch's ABI, but
                   Level Zero command lists as streams; for tools and tests)
  torch_install    ``install()``/``uninstall()``: the SYCL backend as
                   ``torch._C._StaticXpuLauncher`` in a published XPU wheel
  inductor_format  ``enable_zebin()``/``disable_zebin()``: Inductor's XPU
                   kernel format at run time
  inductor_spirv   ``enable_spirv_launch()``/``disable_spirv_launch()``:
                   Inductor launches SPIR-V kernels statically (with a
                   backend that loads SPIR-V; ``install()`` does it)
  verify           ``python -m xpu_static_launcher verify``: one tiny kernel
                   through torch.compile, launched statically or not

``install()`` never puts the Level Zero launcher into torch, whose ABI passes
SYCL queues; it installs only the SYCL backend, and only when that is safe.
``python -m xpu_static_launcher enable-at-startup`` makes it happen in every
interpreter that imports torch's Inductor.
"""

from __future__ import annotations

try:  # written by the build from pyproject.toml's version
    from ._version import __version__
except ImportError:  # pragma: no cover - a source tree that was never built
    __version__ = "unknown"

from .inductor_format import FormatChange, disable_zebin, enable_zebin
from .inductor_spirv import SpirvLaunchChange, disable_spirv_launch, enable_spirv_launch
from .torch_install import InstallResult, LibraryProbe
from .torch_install import install as _install
from .torch_install import uninstall as _uninstall


def install(zebin: bool | None = None, *, verbose: bool = True, libraries: LibraryProbe | None = None) -> InstallResult:
    """Install the SYCL backend as ``torch._C._StaticXpuLauncher`` when torch
    is XPU-capable, has none, and loaded the libsycl major the backend was
    built against; see ``xpu_static_launcher.torch_install``. A backend that
    loads SPIR-V also makes Inductor launch SPIR-V kernels statically, with
    the kernel format left as it is. ``zebin`` switches Inductor to zebin
    (default: with such a backend only when TORCHINDUCTOR_XPU_KERNEL_FORMAT=zebin
    asks for it on Windows, else on Windows when an ocloc is found). Returns
    an ``InstallResult`` (``status``, one-line ``message``)."""
    return _install(zebin, verbose=verbose, libraries=libraries)


def uninstall(*, verbose: bool = True) -> InstallResult:
    """Undo ``install()``: the launcher attribute, the zebin switch and the
    SPIR-V launch."""
    return _uninstall(verbose=verbose)


__all__ = [
    "FormatChange",
    "InstallResult",
    "SpirvLaunchChange",
    "disable_spirv_launch",
    "disable_zebin",
    "enable_spirv_launch",
    "enable_zebin",
    "install",
    "uninstall",
    "__version__",
]
