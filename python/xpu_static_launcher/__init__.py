"""Static launcher for Intel XPU Triton kernels.

Submodules:
  zebin     read kernel metadata from Intel GPU native binaries (zebin)
  launcher  the ``StaticXpuLauncher`` type with torch's ``_StaticXpuLauncher`` ABI

``install()`` reports what torch launcher this package can provide (none yet:
it never puts the Level Zero launcher into torch, whose ABI passes SYCL
queues).
"""

from __future__ import annotations

try:  # written by the build from pyproject.toml's version
    from ._version import __version__
except ImportError:  # pragma: no cover - a source tree that was never built
    __version__ = "unknown"


def install(force: bool = False) -> str:
    """See ``xpu_static_launcher.launcher.install``: returns ``"present"``,
    ``"no-torch"`` or ``"no-sycl-backend"``; never sets
    ``torch._C._StaticXpuLauncher`` to the Level Zero launcher.
    """
    from .launcher import install as _install

    return _install(force)


__all__ = ["install", "__version__"]
