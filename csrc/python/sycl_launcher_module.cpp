// xpu_static_launcher._sycl_launcher: the PyTorch glue (csrc/torch_glue)
// as a module of the package, for torch XPU wheels without their own
// _StaticXpuLauncher. Same type, same ABI: `stream` is a sycl::queue*, 0 is
// torch's current stream, and device and context are torch's.

#include <torch/csrc/inductor/static_launcher/xpu.h>
#include <torch/csrc/python_headers.h>

#include <sycl/version.hpp>

namespace {

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "_sycl_launcher",
    "The static XPU launcher on torch's SYCL runtime (torch._C ABI).",
    -1,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr};

} // namespace

PyMODINIT_FUNC PyInit__sycl_launcher() {
  PyObject* module = PyModule_Create(&kModule);
  if (module == nullptr) {
    return nullptr;
  }
  // The libsycl major this was built against: install() refuses to put it
  // into a process that loaded another one.
  if (!StaticXpuLauncher_init(module) ||
      PyModule_AddIntConstant(module, "SYCL_MAJOR", __LIBSYCL_MAJOR_VERSION) <
          0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
