#pragma once
// Compile-check stand-in for <torch/csrc/autograd/python_variable.h>.
#include <torch/csrc/python_headers.h>

namespace at {
class Tensor {
 public:
  bool defined() const;
  bool has_storage() const;
  void* data_ptr() const;
};
} // namespace at

bool THPVariable_CheckExact(PyObject* obj);
const at::Tensor& THPVariable_Unpack(PyObject* obj);
