"""Static launcher for Intel XPU Triton kernels.

Submodules:
  zebin     read kernel metadata from Intel GPU native binaries (zebin)
  launcher  the ``StaticXpuLauncher`` type with torch's ``_StaticXpuLauncher`` ABI

``install()`` makes the launcher ``torch._C._StaticXpuLauncher`` when torch is
importable and has none.
"""

from __future__ import annotations

try:  # written by the build from pyproject.toml's version
    from ._version import __version__
except ImportError:  # pragma: no cover - a source tree that was never built
    __version__ = "unknown"


def install(force: bool = False) -> str:
    """Set ``torch._C._StaticXpuLauncher`` to this package's launcher.

    Returns ``"installed"``, ``"replaced"`` (only with ``force``),
    ``"present"`` (torch already has one) or ``"no-torch"``.
    """
    from .launcher import install as _install

    return _install(force)


__all__ = ["install", "__version__"]
