#pragma once

// The warm-start load benchmark's floor (load_floor.cpp).

#include <torch/csrc/python_headers.h>

namespace xsl {
namespace torch_glue_test {

// load_floor(zebin_path, kernel_name, device) -> (capsule, n_spills): the
// runtime calls of a kernel load and nothing else (no `.ze_info` reading).
PyObject* loadFloor(PyObject* self, PyObject* args);

} // namespace torch_glue_test
} // namespace xsl
