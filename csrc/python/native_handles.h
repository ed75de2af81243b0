#pragma once

// The value of _native_handles() in every module that has one:
// (ze_context, [(ze_driver, ze_device), ...]) as ints, for tests that compare
// the Level Zero handles a backend found with torch's.

#include <Python.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace xsl {
namespace python {

using NativeDevice = std::pair<uintptr_t, uintptr_t>; // (driver, device)

inline PyObject* nativeHandlesValue(
    uintptr_t context,
    const std::vector<NativeDevice>& devices) {
  PyObject* list = PyList_New(0);
  if (list == nullptr) {
    return nullptr;
  }
  for (const auto& [driver, device] : devices) {
    PyObject* pair = Py_BuildValue(
        "(KK)",
        static_cast<unsigned long long>(driver),
        static_cast<unsigned long long>(device));
    if (pair == nullptr || PyList_Append(list, pair) < 0) {
      Py_XDECREF(pair);
      Py_DECREF(list);
      return nullptr;
    }
    Py_DECREF(pair);
  }
  return Py_BuildValue("(KN)", static_cast<unsigned long long>(context), list);
}

} // namespace python
} // namespace xsl
