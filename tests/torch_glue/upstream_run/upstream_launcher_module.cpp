// PyTorch's own torch/csrc/inductor/static_launcher/xpu.cpp, taken from an
// upstream source tree with the PR stack applied
// (XSL_PYTORCH_UPSTREAM_SOURCES), built into the module _xsl_upstream_launcher
// so that it runs on the real SYCL runtime and the Level Zero test driver like
// the project's glue.
//
// A torch CPU wheel has no ATen_xpu library, so at::globalContext()
// .getLevelZero() would refuse ("Level zero requires XPU"). The XPU hooks
// registered here serve upstream's own Level Zero stub (LazyLevelZero.cpp,
// compiled from the same tree) instead; everything else in the hooks keeps
// the CPU wheel's defaults.

#include <ATen/detail/XPUHooksInterface.h>
#include <ATen/xpu/detail/LazyLevelZero.h>
#include <c10/util/Registry.h>
#include <torch/csrc/inductor/static_launcher/xpu.h>

#include <Python.h>

namespace {

struct LevelZeroStubXPUHooks final : at::XPUHooksInterface {
  const at::xpu::LevelZero& level_zero() const override {
    return at::xpu::detail::lazyLevelZero;
  }
};

PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "_xsl_upstream_launcher",
    "PyTorch's static_launcher/xpu.cpp, built for the runtime tests.",
    -1,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr};

} // namespace

// at::detail::getXPUHooks() creates the hooks registered under "XPUHooks" on
// first use; loading this module before that use is the test's job.
namespace at {
C10_REGISTER_CLASS(XPUHooksRegistry, XPUHooks, LevelZeroStubXPUHooks)
} // namespace at

#ifdef XSL_UPSTREAM_BASELINE
// The baseline tree's xpu.cpp, built with its init function renamed.
bool XslBaselineStaticXpuLauncher_init(PyObject* module);

namespace {
bool addBaseline(PyObject* module) {
  PyObject* baseline = PyModule_New("_xsl_upstream_launcher.baseline");
  if (baseline == nullptr) {
    return false;
  }
  if (!XslBaselineStaticXpuLauncher_init(baseline) ||
      PyModule_AddObject(module, "baseline", baseline) < 0) {
    Py_DECREF(baseline);
    return false;
  }
  return true;
}
} // namespace
#endif

PyMODINIT_FUNC PyInit__xsl_upstream_launcher() {
  PyObject* module = PyModule_Create(&module_def);
  if (module != nullptr && !StaticXpuLauncher_init(module)) {
    Py_DECREF(module);
    return nullptr;
  }
#ifdef XSL_UPSTREAM_BASELINE
  if (module != nullptr && !addBaseline(module)) {
    Py_DECREF(module);
    return nullptr;
  }
#endif
  return module;
}
