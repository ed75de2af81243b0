#pragma once

// How the extension modules are made: single-phase, without module state.
// They keep launch state that relies on the GIL (docs/launcher.md,
// "Free-threaded CPython"): in a free-threaded CPython (3.13t and later),
// importing one of them turns the GIL back on, as CPython does for every
// single-phase module that does not say otherwise; createModule says it
// explicitly.

#include <Python.h>

namespace xsl {
namespace python {

// The module `name` with the methods in `Methods` (one table per module),
// with the GIL declared as used, or nullptr (with the module released) if
// the declaration fails. The definition, which must outlive the module, is
// a static of the instantiation.
template <PyMethodDef* Methods>
PyObject* createModule(const char* name, const char* doc) {
  static PyModuleDef def = {
      PyModuleDef_HEAD_INIT,
      name,
      doc,
      -1,
      Methods,
      nullptr,
      nullptr,
      nullptr,
      nullptr};
  PyObject* module = PyModule_Create(&def);
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
