#pragma once

// A plain torch.Tensor's data address read in C++: what its data_ptr()
// method returns, without a Python method call per pointer argument (the
// launcher reads one per tensor argument on every launch). Installed by the
// PyTorch glue (csrc/pytorch/xpu.cpp) as the launcher's tensor reader
// (python/abi/launcher_abi.h). Needs libtorch_python, so the standalone
// extension does not use it.

#include <torch/csrc/autograd/python_variable.h>

#include <cstdint>
#include <exception>

namespace xsl {
namespace pytorch {

// True with `*address` set for a torch.Tensor or nn.Parameter (exact types)
// with storage. False for anything else, and when reading the address fails:
// data_ptr() then decides, and raises its own error. Subclasses may override
// data_ptr(), so they always take that path.
inline bool plainTensorAddress(PyObject* obj, uint64_t* address) noexcept {
  if (!THPVariable_CheckExact(obj)) {
    return false;
  }
  try {
    const at::Tensor& tensor = THPVariable_Unpack(obj);
    if (!tensor.defined() || !tensor.has_storage()) {
      return false;
    }
    *address =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(tensor.data_ptr()));
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

} // namespace pytorch
} // namespace xsl
