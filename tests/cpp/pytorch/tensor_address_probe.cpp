// Test module for csrc/pytorch/tensor_address.h, built against the
// real libtorch of the installed torch wheel by
// tests/python/test_torch_tensor_address.py:
//   address(obj) -> int (the reader's address) or None (the reader declined).

#include <torch/csrc/python_headers.h>

#include <cstdint>

#include "python/module_init.h"
#include "pytorch/tensor_address.h"

namespace {

PyObject* address(PyObject* /*module*/, PyObject* obj) {
  uint64_t value = 0;
  if (!xsl::pytorch::plainTensorAddress(obj, &value)) {
    Py_RETURN_NONE;
  }
  return PyLong_FromUnsignedLongLong(value);
}

PyMethodDef kMethods[] = {
    {"address", address, METH_O, "plainTensorAddress(obj), or None"},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMODINIT_FUNC PyInit_xsl_tensor_address_probe() {
  return xsl::python::createModule<kMethods>(
      "xsl_tensor_address_probe", nullptr);
}
