"""Static launcher for Intel XPU Triton kernels.

Submodules:
  zebin     read kernel metadata from Intel GPU native binaries (zebin)
  launcher  the ``StaticXpuLauncher`` type with torch's ``_StaticXpuLauncher`` ABI
"""
