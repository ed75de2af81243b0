// Replaces torch/csrc/inductor/static_launcher/xpu.cpp in a PyTorch tree.
//
// torch._C._StaticXpuLauncher:
//   _load_kernel(path, name, shared_mem_bytes, device[, build_flags])
//       -> (function, n_regs, n_spills)
//   _launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared,
//                  arg_types, args, stream)   stream: a sycl::queue*
//
// Everything but the c10 interop below is the tested launcher core of
// xpu-static-launcher (loading, argument plan, packing, geometry, pointer
// checks, the CPython conversions, and the SYCL half of the launch in
// sycl_launch/: a sycl::kernel over our Level Zero kernel, the launch on
// the sycl::queue*); see docs/launcher.md there. This file gives it torch's
// devices, context and current stream from c10::xpu, and torch's errors.
// Tensor arguments are read in C++ (pytorch/tensor_address.h), tested
// there against the real libtorch of the torch wheel.
// No platform guard: this builds with MSVC (Windows) and GCC/Clang alike.

#if defined(USE_XPU)

#include <torch/csrc/inductor/static_launcher/xpu.h>

#include <torch/csrc/Exceptions.h>
#include <torch/csrc/python_headers.h>

#include <c10/xpu/XPUFunctions.h>
#include <c10/xpu/XPUStream.h>
#include <sycl/sycl.hpp>

#include <optional>

#include "python/abi/launcher_abi.h"
#include "python/abi/sycl_launcher_abi.h"
#include "pytorch/tensor_address.h"

namespace {

namespace interop = xsl::sycl_launch;

// torch's devices, context and current stream, as upstream code asks for
// them; c10 errors become Python errors in HANDLE_TH_ERRORS below.
long long torchDeviceCount() {
  return c10::xpu::device_count();
}

std::optional<sycl::device> torchDevice(int index) {
  return c10::xpu::get_raw_device(static_cast<c10::DeviceIndex>(index));
}

std::optional<sycl::context> torchContext(int /*index*/) {
  return c10::xpu::get_device_context();
}

sycl::queue* torchCurrentQueue(int index) {
  return &c10::xpu::getCurrentXPUStream(static_cast<c10::DeviceIndex>(index))
              .queue();
}

constexpr interop::SyclRuntime kTorchRuntime = {
    torchDeviceCount,
    torchDevice,
    torchContext,
    torchCurrentQueue};

PyObject* loadKernel(PyObject* /*type*/, PyObject* args) {
  HANDLE_TH_ERRORS
  return interop::loadKernel(kTorchRuntime, args);
  END_HANDLE_TH_ERRORS
}

PyObject* launchKernel(
    PyObject* /*type*/,
    PyObject* const* args,
    Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  return interop::launchKernel(kTorchRuntime, args, nargs);
  END_HANDLE_TH_ERRORS
}

} // namespace

bool StaticXpuLauncher_init(PyObject* module) {
  // Tensor arguments: their address in C++, not a data_ptr() call each.
  xsl::launcher::python::tensor_address_reader =
      xsl::pytorch::plainTensorAddress;
  PyObject* type = interop::newLauncherType<loadKernel, launchKernel>(
      "torch._C._StaticXpuLauncher");
  if (type == nullptr) {
    return false;
  }
  if (PyModule_AddObject(module, "_StaticXpuLauncher", type) < 0) {
    Py_DECREF(type);
    return false;
  }
  return true;
}

#endif // USE_XPU
