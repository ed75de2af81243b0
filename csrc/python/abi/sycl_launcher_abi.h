#pragma once

// _load_kernel and _launch_kernel of torch._C._StaticXpuLauncher on SYCL,
// shared by the PyTorch glue (csrc/pytorch/xpu.cpp) and the package's
// torch-free backend (csrc/python/sycl_launcher_module.cpp). They differ
// only in where the device, context and current queue come from: c10::xpu
// for the glue, torch's own rules re-applied on the SYCL runtime for the
// backend (torch_devices.h). Header-only; include <Python.h> (or
// torch/csrc/python_headers.h) first.

#include <sycl/sycl.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "python/abi/cpython.h"
#include "python/abi/launcher_abi.h"
#include "sycl_launch/sycl_kernel.h"

namespace xsl {
namespace sycl_launch {

// Where a launcher finds torch's XPU devices. Each function that can fail
// returns empty/null with a Python error set.
struct SyclRuntime {
  // The number of XPU devices torch numbers (device indices are below it).
  long long (*device_count)();
  // Device `index` (already checked against device_count).
  std::optional<sycl::device> (*device)(int index);
  // The context torch's queues and allocations on `index` use.
  std::optional<sycl::context> (*context)(int index);
  // Torch's current queue on `index`: what stream=0 means.
  sycl::queue* (*current_queue)(int index);
};

struct PythonSyclKernel {
  std::unique_ptr<SyclKernel> kernel;
  launcher::python::PlanCache plan_cache;
  int device = 0;
};

constexpr const char* kKernelCapsuleName = "torch._C._StaticXpuLauncher.kernel";

inline PythonSyclKernel* kernelFromCapsule(PyObject* obj) {
  namespace bridge = launcher::python;
  if (PyCapsule_CheckExact(obj) &&
      PyCapsule_GetName(obj) == kKernelCapsuleName) {
    return static_cast<PythonSyclKernel*>(PyCapsule_GetContext(obj));
  }
  return bridge::raise(
      PyExc_TypeError,
      std::string("function must be a kernel from "
                  "_StaticXpuLauncher._load_kernel, got ") +
          bridge::typeName(obj));
}

// _load_kernel(path, name, shared_mem_bytes, device[, build_flags])
//     -> (function, n_regs, n_spills)
inline PyObject* loadKernel(const SyclRuntime& runtime, PyObject* args) {
  namespace bridge = launcher::python;
  bridge::LoadArgs load;
  if (!bridge::parseLoadArgs(args, &load)) {
    return nullptr;
  }
  const long long device = load.device;
  const long long count = runtime.device_count();
  if (count < 0) {
    return nullptr;
  }
  if (device < 0 || device >= count) {
    return bridge::raise(
        PyExc_ValueError,
        "device = " + std::to_string(device) +
            " is not an XPU device index (torch has " + std::to_string(count) +
            ")");
  }
  const int index = static_cast<int>(device);
  std::optional<sycl::device> sycl_device = runtime.device(index);
  if (!sycl_device) {
    return nullptr;
  }
  std::optional<sycl::context> context = runtime.context(index);
  if (!context) {
    return nullptr;
  }
  // The file read and the module build (a SPIR-V compile can take a
  // while) touch no Python: other threads run meanwhile, as with the Level
  // Zero launcher.
  PyThreadState* released = PyEval_SaveThread();
  auto loaded = SyclKernel::load(
      *sycl_device,
      *context,
      static_cast<uint32_t>(index),
      load.path,
      load.name,
      load.options);
  PyEval_RestoreThread(released);
  if (!loaded) {
    return bridge::raiseError(PyExc_RuntimeError, loaded.error());
  }
  if (!bridge::warnLoad((*loaded)->loaded())) {
    return nullptr;
  }
  auto held = std::make_unique<PythonSyclKernel>();
  held->kernel = std::move(*loaded);
  held->device = index;
  const long long n_regs = held->kernel->loaded().registerCount();
  const long long n_spills = held->kernel->loaded().spillCount();
  return bridge::loadResult(
      std::move(held), kKernelCapsuleName, n_regs, n_spills);
}

// _launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared,
//                arg_types, args, stream); stream: a sycl::queue*, 0 for
// torch's current queue on the kernel's device.
inline PyObject* launchKernel(
    const SyclRuntime& runtime,
    PyObject* const* args,
    Py_ssize_t nargs) {
  namespace bridge = launcher::python;
  if (!bridge::checkLaunchArgCount(nargs)) {
    return nullptr;
  }
  PythonSyclKernel* held = kernelFromCapsule(args[0]);
  if (held == nullptr) {
    return nullptr;
  }
  launcher::LoadedKernel& loaded = held->kernel->loaded();
  bridge::LaunchCall call;
  const launcher::ArgPlan* plan = nullptr;
  switch (bridge::prepareLaunch(
      args, nargs, loaded, held->plan_cache, &call, &plan)) {
    case bridge::Prepared::kError:
      return nullptr;
    case bridge::Prepared::kEmptyGrid:
      Py_RETURN_NONE;
    case bridge::Prepared::kReady:
      break;
  }
  launcher::ArgStorage storage(plan->args.size());
  if (!bridge::packLaunchArgs(call, *plan, loaded, storage)) {
    return nullptr;
  }
  // Inductor's raw stream: the queue's address as an integer.
  sycl::queue* queue =
      reinterpret_cast<sycl::queue*>( // NOLINT(performance-no-int-to-ptr)
          static_cast<uintptr_t>(call.stream));
  if (queue == nullptr) {
    queue = runtime.current_queue(held->device);
    if (queue == nullptr) {
      return nullptr;
    }
  }
  Status launched = held->kernel->launch(
      *queue, {*plan, storage, call.geometry, call.shared_bytes});
  if (!launched.ok()) {
    return bridge::raiseError(PyExc_RuntimeError, launched.error());
  }
  Py_RETURN_NONE;
}

using LoadFunction = PyObject* (*)(PyObject* type, PyObject* args);
using LaunchFunction =
    PyObject* (*)(PyObject* type, PyObject* const* args, Py_ssize_t nargs);

// A new _StaticXpuLauncher type named `qualified_name` with the two static
// methods; one per instantiation (the type keeps pointers to its tables).
template <LoadFunction Load, LaunchFunction Launch>
PyObject* newLauncherType(const char* qualified_name) {
  static PyMethodDef methods[] = {
      {"_load_kernel",
       python::methodFunction(Load),
       METH_VARARGS | METH_STATIC,
       "_load_kernel(path, name, shared_mem_bytes, device, build_flags=None)"
       " -> (function, n_regs, n_spills): load an XPU kernel from a zebin or "
       "SPIR-V file (SPIR-V is compiled with Triton's build_flags and the "
       "native binary kept)"},
      {"_launch_kernel",
       python::methodFunction(Launch),
       METH_FASTCALL | METH_STATIC,
       "Statically launch a Triton-compiled XPU kernel"},
      {nullptr, nullptr, 0, nullptr}};
  static PyType_Slot slots[] = {
      {Py_tp_methods, methods},
      {Py_tp_doc,
       const_cast<char*>(
           "Statically defined launchers for triton compiled XPU kernels")},
      {0, nullptr}};
  static PyType_Spec spec = {qualified_name, 0, 0, Py_TPFLAGS_DEFAULT, slots};
  return PyType_FromSpec(&spec);
}

} // namespace sycl_launch
} // namespace xsl
