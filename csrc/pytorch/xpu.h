#pragma once

// Replaces torch/csrc/inductor/static_launcher/xpu.h in a PyTorch tree. The
// same declaration as upstream, with no platform guard: the launcher builds
// wherever USE_XPU does, Windows included.

#if defined(USE_XPU)
#include <torch/csrc/python_headers.h>

// Adds the _StaticXpuLauncher type to `module` (torch._C). False with a
// Python error set on failure.
bool StaticXpuLauncher_init(PyObject* module);
#endif
