"""Static launcher for Intel XPU Triton kernels.

Submodules:
  zebin     read kernel metadata from Intel GPU native binaries (zebin)
  launcher  the ``StaticXpuLauncher`` type with torch's ``_StaticXpuLauncher`` ABI

``install()`` makes the launcher ``torch._C._StaticXpuLauncher`` when torch is
importable and has none.
"""

from __future__ import annotations


def install(force: bool = False) -> str:
    """Set ``torch._C._StaticXpuLauncher`` to this package's launcher.

    Returns ``"installed"``, ``"replaced"`` (only with ``force``),
    ``"present"`` (torch already has one) or ``"no-torch"``.
    """
    from .launcher import install as _install

    return _install(force)


__all__ = ["install"]
