#pragma once

// The modules keep launch state that relies on the GIL (docs/launcher.md,
// "Free-threaded CPython"). In a free-threaded CPython (3.13t and later),
// importing one of them turns the GIL back on, as CPython does for every
// single-phase module that does not say otherwise; this says it explicitly.

#include <Python.h>

namespace xsl {
namespace python {

// `module`, or nullptr (with the module released) if the declaration fails.
inline PyObject* declareGilUsed(PyObject* module) {
#if defined(Py_GIL_DISABLED) && !defined(Py_LIMITED_API)
  if (module != nullptr &&
      PyUnstable_Module_SetGIL(module, Py_MOD_GIL_USED) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
#endif
  return module;
}

} // namespace python
} // namespace xsl
