// _xsl_glue_launcher: the PyTorch glue (csrc/pytorch/xpu.cpp) as a test
// module, on the c10::xpu shim, so the runtime cases run it as PyTorch
// would (torch._C._StaticXpuLauncher). `stream` is a sycl::queue*, 0 is
// torch's current stream, and device and context are c10::xpu's.

#include <torch/csrc/inductor/static_launcher/xpu.h>
#include <torch/csrc/python_headers.h>

#include <sycl/version.hpp>

#include "python/module_init.h"

namespace {

PyMethodDef kNoMethods[] = {{nullptr, nullptr, 0, nullptr}};

} // namespace

PyMODINIT_FUNC PyInit__xsl_glue_launcher() {
  PyObject* module = xsl::python::createModule<kNoMethods>(
      "_xsl_glue_launcher",
      "The static XPU launcher on torch's SYCL runtime (torch._C ABI).");
  if (module == nullptr) {
    return nullptr;
  }
  if (!StaticXpuLauncher_init(module) ||
      PyModule_AddIntConstant(module, "SYCL_MAJOR", __LIBSYCL_MAJOR_VERSION) <
          0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
