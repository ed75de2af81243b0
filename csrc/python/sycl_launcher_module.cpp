// xpu_static_launcher._sycl_launcher_sycl<N>: torch._C._StaticXpuLauncher
// for torch XPU wheels that have none, needing nothing of torch's C++. It
// links only Python and libsycl.so.<N> / sycl<N>.dll (the launcher core is
// built in), so one build serves every torch release on that libsycl major;
// built for Python's limited API (abi3) it also serves every Python from
// 3.10. xpu_static_launcher._sycl_launcher (Python) imports the one for the
// libsycl torch loaded. XSL_SYCL_BACKEND_MODULE names the module.
//
// torch's devices and context are found as torch finds them, on the libsycl
// torch loaded (sycl_launch/torch_devices.h); the launch is the glue's
// (python/abi/sycl_launcher_abi.h). What needs torch is asked of it at the
// Python level, only when needed:
//   - stream=0 (torch's current stream on the kernel's device; Inductor
//     always passes the stream itself): torch._C._xpu_getCurrentRawStream;
//   - tensor addresses: data_ptr(), called through the method torch.Tensor
//     has (cached) instead of a lookup on each object;
//   - the context on Windows before SYCL 2025.0, which torch makes itself:
//     that of torch's current queue on the device.

#include <Python.h>

#include <sycl/sycl.hpp>
#include <sycl/version.hpp>

#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "python/abi/launcher_abi.h"
#include "python/abi/sycl_launcher_abi.h"
#include "python/module_init.h"
#include "python/native_handles.h"
#include "sycl_launch/torch_devices.h"

#if !defined(XSL_SYCL_BACKEND_MODULE)
#error \
    "define XSL_SYCL_BACKEND_MODULE (the module name, e.g. _sycl_launcher_sycl9)"
#endif
#define XSL_STRINGIFY_NAME(name) #name
#define XSL_STRING(name) XSL_STRINGIFY_NAME(name)
#define XSL_JOIN_NAME(a, b) a##b
#define XSL_MODULE_INIT(name) XSL_JOIN_NAME(PyInit_, name)

namespace {

namespace bridge = xsl::launcher::python;
namespace interop = xsl::sycl_launch;

long long backendDeviceCount() {
  const interop::TorchXpuDevices& found = interop::torchXpuDevices();
  if (found.devices.empty() && !found.error.empty()) {
    bridge::raise(
        PyExc_RuntimeError,
        "the SYCL runtime failed to list torch's XPU devices: " + found.error);
    return -1;
  }
  return static_cast<long long>(found.devices.size());
}

std::optional<sycl::device> backendDevice(int index) {
  return interop::torchXpuDevices().devices.at(static_cast<size_t>(index));
}

// torch._C._xpu_getCurrentRawStream(index) as a queue; null with a Python
// error set. Looked up on each call (tests and tools may replace it).
sycl::queue* torchCurrentQueue(int index) {
  PyObject* torch_c = PyImport_ImportModule("torch._C");
  if (torch_c == nullptr) {
    return nullptr;
  }
  PyObject* stream =
      PyObject_CallMethod(torch_c, "_xpu_getCurrentRawStream", "i", index);
  Py_DECREF(torch_c);
  if (stream == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      bridge::raise(
          PyExc_RuntimeError,
          "stream=0 means torch's current XPU stream, but this torch has no "
          "torch._C._xpu_getCurrentRawStream (not an XPU build); pass the "
          "stream's sycl::queue* instead");
    }
    return nullptr;
  }
  const unsigned long long address = PyLong_AsUnsignedLongLong(stream);
  Py_DECREF(stream);
  if (PyErr_Occurred() != nullptr) {
    return nullptr;
  }
  if (address == 0) {
    bridge::raise(
        PyExc_RuntimeError,
        "torch._C._xpu_getCurrentRawStream(" + std::to_string(index) +
            ") returned 0, not a sycl::queue*");
    return nullptr;
  }
  // NOLINTNEXTLINE(performance-no-int-to-ptr): torch's raw stream.
  return reinterpret_cast<sycl::queue*>(static_cast<uintptr_t>(address));
}

std::optional<sycl::context> backendContext(int index) {
  if (interop::contextFromTorchQueue()) {
    sycl::queue* queue = torchCurrentQueue(index);
    if (queue == nullptr) {
      return std::nullopt;
    }
    return queue->get_context();
  }
  return *interop::torchXpuDevices().context;
}

constexpr interop::SyclRuntime kBackendRuntime = {
    backendDeviceCount,
    backendDevice,
    backendContext,
    torchCurrentQueue};

// --- Tensor addresses through data_ptr(), the fastest way Python offers:
// torch.TensorBase's data_ptr method descriptor, looked up once, called
// with the tensor as its only argument (vectorcall where the API has it).
// Only for exact torch.Tensor and nn.Parameter, which do not override
// data_ptr; everything else takes the bridge's attribute lookup.
struct TensorTypes {
  PyObject* tensor = nullptr;
  PyObject* parameter = nullptr;
  PyObject* data_ptr = nullptr;
};

// Learned from torch once it is imported (never before: no import here).
const TensorTypes* tensorTypes() {
  static TensorTypes types;
  static bool known = false;
  if (known) {
    return &types;
  }
  PyObject* modules = PySys_GetObject("modules"); // borrowed
  if (modules == nullptr || PyMapping_HasKeyString(modules, "torch") == 0) {
    return nullptr;
  }
  PyObject* torch = PyImport_ImportModule("torch");
  if (torch == nullptr) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* tensor = PyObject_GetAttrString(torch, "Tensor");
  PyObject* nn = PyObject_GetAttrString(torch, "nn");
  PyObject* parameter =
      nn != nullptr ? PyObject_GetAttrString(nn, "Parameter") : nullptr;
  PyObject* torch_c = PyObject_GetAttrString(torch, "_C");
  PyObject* base = torch_c != nullptr
      ? PyObject_GetAttrString(torch_c, "TensorBase")
      : nullptr;
  PyObject* data_ptr =
      base != nullptr ? PyObject_GetAttrString(base, "data_ptr") : nullptr;
  Py_XDECREF(base);
  Py_XDECREF(torch_c);
  Py_XDECREF(nn);
  Py_DECREF(torch);
  if (tensor == nullptr || parameter == nullptr || data_ptr == nullptr) {
    PyErr_Clear();
    Py_XDECREF(tensor);
    Py_XDECREF(parameter);
    Py_XDECREF(data_ptr);
    return nullptr;
  }
  // Kept for the process: the types outlive every launch.
  types.tensor = tensor;
  types.parameter = parameter;
  types.data_ptr = data_ptr;
  known = true;
  return &types;
}

bool dataPtrAddress(PyObject* obj, uint64_t* address) {
  const TensorTypes* types = tensorTypes();
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(obj));
  if (types == nullptr || (type != types->tensor && type != types->parameter)) {
    return false;
  }
#if !defined(Py_LIMITED_API) || Py_LIMITED_API + 0 >= 0x030C0000
  PyObject* result = PyObject_Vectorcall(types->data_ptr, &obj, 1, nullptr);
#else
  PyObject* result =
      PyObject_CallFunctionObjArgs(types->data_ptr, obj, nullptr);
#endif
  if (result == nullptr) {
    PyErr_Clear(); // the bridge calls data_ptr() again and reports it
    return false;
  }
  const unsigned long long value = PyLong_AsUnsignedLongLong(result);
  Py_DECREF(result);
  if (PyErr_Occurred() != nullptr) {
    PyErr_Clear();
    return false;
  }
  *address = static_cast<uint64_t>(value);
  return true;
}

template <typename Call>
PyObject* sycl_errors_as_python(Call call) {
  try {
    return call();
  } catch (const std::exception& e) {
    return bridge::raise(
        PyExc_RuntimeError, std::string("SYCL runtime error: ") + e.what());
  }
}

PyObject* loadKernel(PyObject* /*type*/, PyObject* args) {
  return sycl_errors_as_python(
      [args] { return interop::loadKernel(kBackendRuntime, args); });
}

PyObject* launchKernel(
    PyObject* /*type*/,
    PyObject* const* args,
    Py_ssize_t nargs) {
  return sycl_errors_as_python([args, nargs] {
    return interop::launchKernel(kBackendRuntime, args, nargs);
  });
}

// _native_handles() -> (ze_context, [(ze_driver, ze_device), ...]): the
// Level Zero handles under the devices and context found, for tests that
// compare them with torch's. ze_context is 0 where the context comes from
// torch's queue.
PyObject* nativeHandles(PyObject* /*module*/, PyObject* /*unused*/) {
  return sycl_errors_as_python([]() -> PyObject* {
    if (backendDeviceCount() < 0) {
      return nullptr;
    }
    const interop::TorchXpuDevices& found = interop::torchXpuDevices();
    constexpr sycl::backend ze = sycl::backend::ext_oneapi_level_zero;
    uintptr_t context = 0;
    if (found.context) {
      context =
          reinterpret_cast<uintptr_t>(sycl::get_native<ze>(*found.context));
    }
    std::vector<xsl::python::NativeDevice> devices;
    for (const sycl::device& device : found.devices) {
      devices.emplace_back(
          reinterpret_cast<uintptr_t>(
              sycl::get_native<ze>(device.get_platform())),
          reinterpret_cast<uintptr_t>(sycl::get_native<ze>(device)));
    }
    return xsl::python::nativeHandlesValue(context, devices);
  });
}

PyMethodDef kModuleMethods[] = {
    {"_native_handles",
     nativeHandles,
     METH_NOARGS,
     "(ze_context, [(ze_driver, ze_device), ...]) of torch's devices as "
     "found here (tests)"},
    XSL_BRIDGE_MODULE_METHODS,
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMODINIT_FUNC XSL_MODULE_INIT(XSL_SYCL_BACKEND_MODULE)() {
  bridge::tensor_address_reader = dataPtrAddress;
  PyObject* module = xsl::python::createModule<kModuleMethods>(
      XSL_STRING(XSL_SYCL_BACKEND_MODULE),
      "The static XPU launcher on torch's SYCL runtime (torch._C ABI), "
      "without torch's C++.");
  if (module == nullptr) {
    return nullptr;
  }
  PyObject* type = interop::newLauncherType<loadKernel, launchKernel>(
      "xpu_static_launcher._sycl_launcher._StaticXpuLauncher");
  if (type == nullptr ||
      PyModule_AddObject(module, "_StaticXpuLauncher", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(module);
    return nullptr;
  }
  // The libsycl major this was built against: install() refuses to put it
  // into a process that loaded another one.
  if (PyModule_AddIntConstant(module, "SYCL_MAJOR", __LIBSYCL_MAJOR_VERSION) <
      0) {
    Py_DECREF(module);
    return nullptr;
  }
  // _load_kernel takes SPIR-V (and Triton's build flags): install() lifts
  // Inductor's SPIR-V refusal only for a backend that says so.
  if (PyModule_AddIntConstant(module, "LOADS_SPIRV", 1) < 0) {
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
