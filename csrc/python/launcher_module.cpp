// xpu_static_launcher._launcher: the StaticXpuLauncher type with the exact
// ABI of torch._C._StaticXpuLauncher, launching through Level Zero.
//
//   _load_kernel(path, name, shared_mem_bytes, device[, build_flags])
//       -> (function, n_regs, n_spills)
//   _launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared,
//                  arg_types, args, stream)
//
// `function` is a capsule owning the loaded kernel; `stream` is a
// ze_command_list_handle_t of an immediate command list in the kernel's
// context, or 0 for this module's default list of the kernel's device (one
// synchronous immediate list per device, created on first use and kept for
// the life of the process).
//
// The GIL is held for the whole launch: Level Zero keeps argument values on
// the kernel handle, so set-arguments + append must not interleave between
// threads launching the same kernel, and the GIL already serializes them at
// no extra cost. Appending to an immediate list does not wait for the GPU.
// Loading releases the GIL (file read and module build touch no Python).

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "launcher/loaded_kernel.h"
#include "launcher/ze_launch.h"
#include "level_zero/level_zero.h"
#include "python/abi/cpython.h"
#include "python/abi/launcher_abi.h"
#include "python/module_init.h"

namespace {

namespace py = xsl::launcher::python;
using xsl::launcher::ArgPlan;
using xsl::launcher::ArgStorage;
using xsl::launcher::LoadedKernel;

constexpr const char* kCapsuleName = "xpu_static_launcher.ze_kernel";

struct KernelCapsule {
  std::unique_ptr<LoadedKernel> kernel;
  py::PlanCache plan_cache;
  ze_command_list_handle_t default_list = nullptr; // stream 0, once looked up
};

// kernelFromCapsule for anything but our capsule name pointer: a capsule
// with an equal name string, or the TypeError.
XSL_BRIDGE_NOINLINE KernelCapsule* kernelFromOtherCapsule(PyObject* obj) {
  if (PyCapsule_CheckExact(obj)) {
    const char* name = PyCapsule_GetName(obj);
    if (name != nullptr && std::strcmp(name, kCapsuleName) == 0) {
      return static_cast<KernelCapsule*>(PyCapsule_GetPointer(obj, name));
    }
    const std::string shown = name == nullptr ? "<unnamed>" : name;
    return py::raise(
        PyExc_TypeError,
        "function must be a kernel from StaticXpuLauncher._load_kernel, got a "
        "capsule named '" +
            shown + "'");
  }
  return py::raise(
      PyExc_TypeError,
      std::string("function must be a kernel from "
                  "StaticXpuLauncher._load_kernel, got ") +
          py::typeName(obj));
}

// Our capsules carry our name pointer and the kernel also as context, which
// is read without PyCapsule_GetPointer's strcmp (hot path).
inline KernelCapsule* kernelFromCapsule(PyObject* obj) {
  if (PyCapsule_CheckExact(obj) && PyCapsule_GetName(obj) == kCapsuleName) {
    return static_cast<KernelCapsule*>(PyCapsule_GetContext(obj));
  }
  return kernelFromOtherCapsule(obj);
}

// Default immediate command lists, one per device index; never destroyed
// (handles must not outlive the process-wide Level Zero table, which is
// never unloaded). Guarded by the GIL.
std::map<uint32_t, xsl::level_zero::CommandList>& defaultCommandLists() {
  static auto* lists = new std::map<uint32_t, xsl::level_zero::CommandList>();
  return *lists;
}

xsl::Expected<ze_command_list_handle_t> defaultCommandList(
    uint32_t device_index) {
  auto& lists = defaultCommandLists();
  auto found = lists.find(device_index);
  if (found != lists.end()) {
    return found->second.handle();
  }
  auto context = xsl::level_zero::sharedContext(device_index);
  if (!context) {
    return std::move(context).error();
  }
  auto list = xsl::level_zero::CommandList::createImmediate(*context, true);
  if (!list) {
    return std::move(list).error();
  }
  auto inserted = lists.emplace(device_index, std::move(*list));
  return inserted.first->second.handle();
}

bool parseDeviceIndex(PyObject* obj, uint32_t* device_index) {
  int64_t device = 0;
  if (!py::parseInt64(obj, "device", &device)) {
    return false;
  }
  if (device < 0 || device > INT32_MAX) {
    py::raise(
        PyExc_ValueError,
        "device = " + std::to_string(device) + " must be a device index >= 0");
    return false;
  }
  *device_index = static_cast<uint32_t>(device);
  return true;
}

PyObject* loadKernel(PyObject* /*type*/, PyObject* args) {
  py::LoadArgs load;
  if (!py::parseLoadArgs(args, &load)) {
    return nullptr;
  }
  if (load.device < 0 || load.device > INT32_MAX) {
    return py::raise(
        PyExc_ValueError,
        "device = " + std::to_string(load.device) +
            " must be a device index >= 0");
  }
  const auto device_index = static_cast<uint32_t>(load.device);

  xsl::Expected<std::unique_ptr<LoadedKernel>> loaded =
      xsl::Error("not loaded");
  Py_BEGIN_ALLOW_THREADS auto context =
      xsl::level_zero::sharedContext(device_index);
  if (context) {
    loaded = LoadedKernel::load(*context, load.path, load.name, load.options);
  } else {
    loaded = std::move(context).error();
  }
  Py_END_ALLOW_THREADS if (!loaded) {
    return py::raiseError(PyExc_RuntimeError, loaded.error());
  }
  if (!py::warnLoad(**loaded)) {
    return nullptr;
  }

  auto held = std::make_unique<KernelCapsule>();
  held->kernel = std::move(*loaded);
  const long long n_regs = held->kernel->registerCount();
  const long long n_spills = held->kernel->spillCount();
  return py::loadResult(std::move(held), kCapsuleName, n_regs, n_spills);
}

PyObject* launchKernel(
    PyObject* /*type*/,
    PyObject* const* args,
    Py_ssize_t nargs) {
  if (!py::checkLaunchArgCount(nargs)) {
    return nullptr;
  }
  KernelCapsule* held = kernelFromCapsule(args[0]);
  if (held == nullptr) {
    return nullptr;
  }
  LoadedKernel& kernel = *held->kernel;
  py::LaunchCall call;
  const ArgPlan* plan = nullptr;
  switch (
      py::prepareLaunch(args, nargs, kernel, held->plan_cache, &call, &plan)) {
    case py::Prepared::kError:
      return nullptr;
    case py::Prepared::kEmptyGrid:
      Py_RETURN_NONE; // a zero grid dimension launches nothing
    case py::Prepared::kReady:
      break;
  }
  // The held-arguments test is shared with the launch below: a launch
  // repeating every argument is checked and set once.
  ArgStorage storage(plan->args.size());
  bool held_args = false;
  if (!py::packLaunchArgs(call, *plan, kernel, storage, &held_args)) {
    return nullptr;
  }
  if (held->default_list == nullptr) {
    auto fallback = defaultCommandList(kernel.context().device().index());
    if (!fallback) {
      return py::raiseError(PyExc_RuntimeError, fallback.error());
    }
    held->default_list = *fallback;
  }
  // The only command list this module creates for the kernel's device is
  // its default list, so any other non-zero stream is not one of ours (a
  // torch sycl::queue*, a stale or made-up number) and would crash the
  // driver if used: refuse it with one compare.
  ze_command_list_handle_t list = held->default_list;
  if (call.stream != 0 &&
      call.stream != static_cast<uint64_t>(reinterpret_cast<uintptr_t>(list))) {
    return py::raise(
        PyExc_ValueError,
        "stream = " + std::to_string(call.stream) +
            " is not a command list of this launcher for device " +
            std::to_string(kernel.context().device().index()) +
            ": pass 0 or default_command_list(device). This Level Zero "
            "launcher does not take torch's sycl::queue* streams");
  }
  xsl::Status status = xsl::launcher::launchOnCommandList(
      kernel,
      {*plan, storage, call.geometry, call.shared_bytes},
      list,
      held_args ? xsl::launcher::HeldArgs::kVerified
                : xsl::launcher::HeldArgs::kUnknown);
  if (!status) {
    return py::raiseError(PyExc_RuntimeError, status.error());
  }
  Py_RETURN_NONE;
}

// The benchmark floor (tests/bench/bench_launch.py): same calling
// convention and argument count as _launch_kernel, no work. A module
// function, so it never becomes part of torch._C._StaticXpuLauncher.
PyObject* launchFloor(
    PyObject* /*module*/,
    PyObject* const* /*args*/,
    Py_ssize_t nargs) {
  if (nargs != py::kLaunchArgCount) {
    return py::raise(PyExc_TypeError, "_launch_floor takes 9 arguments");
  }
  Py_RETURN_NONE;
}

// --- Module-level helpers for tests and for users without torch.

// Live allocations made by _device_alloc, by address; guarded by the GIL.
std::map<uint64_t, xsl::level_zero::Allocation>& allocations() {
  static auto* live = new std::map<uint64_t, xsl::level_zero::Allocation>();
  return *live;
}

PyObject* deviceAlloc(PyObject* /*module*/, PyObject* args) {
  PyObject* device_obj = nullptr;
  PyObject* size_obj = nullptr;
  const char* kind_text = "device";
  if (!PyArg_ParseTuple(args, "OO|s", &device_obj, &size_obj, &kind_text)) {
    return nullptr;
  }
  uint32_t device_index = 0;
  int64_t size = 0;
  if (!parseDeviceIndex(device_obj, &device_index) ||
      !py::parseInt64(size_obj, "size", &size)) {
    return nullptr;
  }
  if (size <= 0) {
    return py::raise(PyExc_ValueError, "size must be > 0");
  }
  const std::string kind_name = kind_text;
  xsl::level_zero::MemoryKind kind = xsl::level_zero::MemoryKind::kDevice;
  if (kind_name == "host") {
    kind = xsl::level_zero::MemoryKind::kHost;
  } else if (kind_name == "shared") {
    kind = xsl::level_zero::MemoryKind::kShared;
  } else if (kind_name != "device") {
    return py::raise(
        PyExc_ValueError, "kind must be 'device', 'host' or 'shared'");
  }
  auto context = xsl::level_zero::sharedContext(device_index);
  if (!context) {
    return py::raiseError(PyExc_RuntimeError, context.error());
  }
  auto allocation = xsl::level_zero::Allocation::allocate(
      *context, kind, static_cast<size_t>(size));
  if (!allocation) {
    return py::raiseError(PyExc_RuntimeError, allocation.error());
  }
  const uint64_t address =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(allocation->data()));
  allocations().emplace(address, std::move(*allocation));
  return PyLong_FromUnsignedLongLong(address);
}

PyObject* deviceFree(PyObject* /*module*/, PyObject* address_obj) {
  uint64_t address = 0;
  if (!py::parseHandle(address_obj, "address", &address)) {
    return nullptr;
  }
  if (allocations().erase(address) == 0) {
    return py::raise(
        PyExc_ValueError, "address was not returned by _device_alloc");
  }
  Py_RETURN_NONE;
}

PyObject* defaultCommandListHandle(PyObject* /*module*/, PyObject* device_obj) {
  uint32_t device_index = 0;
  if (!parseDeviceIndex(device_obj, &device_index)) {
    return nullptr;
  }
  auto list = defaultCommandList(device_index);
  if (!list) {
    return py::raiseError(PyExc_RuntimeError, list.error());
  }
  return PyLong_FromUnsignedLongLong(
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(*list)));
}

// Metadata of a loaded kernel, for tests and diagnostics.
PyObject* kernelInfo(PyObject* /*module*/, PyObject* function) {
  KernelCapsule* held = kernelFromCapsule(function);
  if (held == nullptr) {
    return nullptr;
  }
  const LoadedKernel& kernel = *held->kernel;
  const xsl::zebin::KernelInfo& info = kernel.info();
  PyObject* kinds = PyList_New(0);
  if (kinds == nullptr) {
    return nullptr;
  }
  for (const auto& arg : info.user_arguments) {
    PyObject* kind =
        PyUnicode_FromString(xsl::zebin::userArgumentKindName(arg.kind));
    if (kind == nullptr || PyList_Append(kinds, kind) < 0) {
      Py_XDECREF(kind);
      Py_DECREF(kinds);
      return nullptr;
    }
    Py_DECREF(kind);
  }
  const xsl::level_zero::KernelProperties& props = kernel.kernel().properties();
  PyObject* driver = Py_BuildValue(
      "{s:I,s:I,s:I,s:I,s:I,s:I}",
      "numKernelArgs",
      static_cast<unsigned>(props.num_kernel_args),
      "spillMemSize",
      static_cast<unsigned>(props.spill_mem_size),
      "privateMemSize",
      static_cast<unsigned>(props.private_mem_size),
      "localMemSize",
      static_cast<unsigned>(props.local_mem_size),
      "requiredSubgroupSize",
      static_cast<unsigned>(props.required_sub_group_size),
      "maxSubgroupSize",
      static_cast<unsigned>(props.max_sub_group_size));
  if (driver == nullptr) {
    Py_DECREF(kinds);
    return nullptr;
  }
  auto device_props = kernel.context().device().properties();
  const std::string device_name =
      device_props ? device_props->name : std::string("unknown device");
  return Py_BuildValue(
      "{s:s,s:I,s:L,s:K,s:I,s:I,s:s#,s:N,s:N}",
      "name",
      kernel.name().c_str(),
      "threads_per_warp",
      static_cast<unsigned>(kernel.threadsPerWarp()),
      "grf_count",
      static_cast<long long>(info.execution_env.grf_count),
      "spill_bytes",
      static_cast<unsigned long long>(info.spill_bytes),
      "driver_spill_mem_size",
      static_cast<unsigned>(kernel.kernel().properties().spill_mem_size),
      "device",
      static_cast<unsigned>(kernel.context().device().index()),
      "device_name",
      device_name.data(),
      static_cast<Py_ssize_t>(device_name.size()),
      "arg_kinds",
      kinds,
      "driver_properties",
      driver);
}

// Each doc starts with a text signature ("name(args)\n--\n\n"), so
// inspect.signature() works; the class doc lists the methods because help()
// hides names that start with an underscore.
PyMethodDef kLauncherMethods[] = {
    {"_load_kernel",
     xsl::python::methodFunction(loadKernel),
     METH_VARARGS | METH_STATIC,
     "_load_kernel(path, name, shared_mem_bytes, device, build_flags=None, "
     "/)\n--\n\n"
     "Load kernel `name` from the zebin or SPIR-V at `path` (told apart by "
     "the magic number) on Level Zero device `device` and return "
     "(function, n_regs, n_spills): function is a capsule for "
     "_launch_kernel; n_regs and n_spills are what the installed "
     "Triton-XPU reports (_set_triton_version). build_flags: Triton's "
     "metadata.build_flags; SPIR-V is compiled by the driver with them, "
     "and the native binary is kept for the next process. Raises "
     "RuntimeError naming the file, kernel or device on failure."},
    {"_launch_kernel",
     xsl::python::methodFunction(launchKernel),
     METH_FASTCALL | METH_STATIC,
     "_launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared, "
     "arg_types, args, stream, /)\n--\n\n"
     "Launch a kernel from _load_kernel on a grid of grid_x * grid_y * "
     "grid_z work-groups of num_warps * threads_per_warp work-items, with "
     "`shared` bytes of dynamic local memory. arg_types holds one Inductor "
     "type code per value in `args`; stream is an immediate "
     "ze_command_list_handle_t, or 0 for the device's default list."},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot kLauncherSlots[] = {
    {Py_tp_methods, kLauncherMethods},
    {Py_tp_doc,
     const_cast<char*>(
         "Static launcher for XPU Triton kernels (torch._C._StaticXpuLauncher "
         "ABI) over Level Zero.\n\n"
         "Static methods:\n"
         "  _load_kernel(path, name, shared_mem_bytes, device[, build_flags])\n"
         "      -> (function, n_regs, n_spills)\n"
         "  _launch_kernel(function, grid_x, grid_y, grid_z, num_warps, "
         "shared,\n"
         "                 arg_types, args, stream)\n"
         "See help(StaticXpuLauncher._load_kernel) and "
         "help(StaticXpuLauncher._launch_kernel).")},
    {0, nullptr}};

PyType_Spec kLauncherSpec = {
    "xpu_static_launcher._launcher.StaticXpuLauncher",
    0,
    0,
    Py_TPFLAGS_DEFAULT,
    kLauncherSlots};

PyMethodDef kModuleMethods[] = {
    {"_launch_floor",
     xsl::python::methodFunction(launchFloor),
     METH_FASTCALL,
     "_launch_floor(*nine_args)\n\nBenchmark floor: takes the 9 "
     "_launch_kernel arguments and does nothing (tests and benchmarks "
     "only)."},
    {"_device_alloc",
     deviceAlloc,
     METH_VARARGS,
     "_device_alloc(device, size, kind='device') -> int: Level Zero USM "
     "allocation in the launcher's context (tests, no-torch use)."},
    {"_device_free", deviceFree, METH_O, "_device_free(address)"},
    {"_default_command_list",
     defaultCommandListHandle,
     METH_O,
     "_default_command_list(device) -> int: the list stream=0 launches on."},
    {"_kernel_info",
     kernelInfo,
     METH_O,
     "_kernel_info(function) -> dict of the loaded kernel's metadata."},
    XSL_BRIDGE_MODULE_METHODS,
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMODINIT_FUNC PyInit__launcher(void) {
  PyObject* module = xsl::python::createModule<kModuleMethods>(
      "_launcher",
      "StaticXpuLauncher over Level Zero (see xpu_static_launcher.launcher).");
  if (module == nullptr) {
    return nullptr;
  }
  PyObject* type = PyType_FromSpec(&kLauncherSpec);
  if (type == nullptr ||
      PyModule_AddObject(module, "StaticXpuLauncher", type) < 0) {
    Py_XDECREF(type);
    Py_DECREF(module);
    return nullptr;
  }
  return module;
}
