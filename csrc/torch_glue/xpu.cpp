// Replaces torch/csrc/inductor/static_launcher/xpu.cpp in a PyTorch tree.
//
// torch._C._StaticXpuLauncher:
//   _load_kernel(path, name, shared_mem_bytes, device)
//       -> (function, n_regs, n_spills)
//   _launch_kernel(function, grid_x, grid_y, grid_z, num_warps, shared,
//                  arg_types, args, stream)   stream: a sycl::queue*
//
// Everything but the SYCL/c10 interop below is the tested launcher core of
// xpu-static-launcher (loading, argument plan, packing, geometry, pointer
// checks, the CPython conversions); see docs/launcher.md there. The interop:
//   - the Level Zero device/context/driver of c10::xpu's SYCL device/context,
//   - a sycl::kernel made from our Level Zero kernel (ownership kept here),
//   - the submit on the sycl::queue* with the packed arguments and a
//     local_accessor for dynamic shared memory.
// Tensor arguments are read in C++ (torch_interop/tensor_address.h), tested
// there against the real libtorch of the torch wheel.
// No platform guard: this builds with MSVC (Windows) and GCC/Clang alike.

#if defined(USE_XPU)

#include <torch/csrc/inductor/static_launcher/xpu.h>

#include <torch/csrc/Exceptions.h>
#include <torch/csrc/python_headers.h>

#include <c10/xpu/XPUFunctions.h>
#include <c10/xpu/XPUStream.h>
#include <sycl/sycl.hpp>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

#include "launcher/arg_plan.h"
#include "launcher/geometry.h"
#include "launcher/loaded_kernel.h"
#include "launcher/python_bridge.h"
#include "launcher/ze_launch.h"
#include "level_zero/level_zero.h"
#include "level_zero/loader.h"
#include "torch_interop/tensor_address.h"

namespace {

namespace bridge = xsl::launcher::python;
using xsl::launcher::ArgPlan;
using xsl::launcher::ArgStorage;
using xsl::launcher::LoadedKernel;

constexpr const char* kCapsuleName = "torch._C._StaticXpuLauncher.kernel";

// Members are destroyed in reverse order: the sycl::kernel (which only
// borrows the Level Zero handles) goes before the handles themselves.
struct XpuKernel {
  std::unique_ptr<LoadedKernel> loaded;
  std::unique_ptr<sycl::kernel> kernel;
  bridge::PlanCache plan_cache;
  c10::DeviceIndex device = 0;
  // The device's queues take launches on their command lists directly
  // (directCommandList says when that is ordered like a submit).
  bool appends_directly = false;
};

void destroyXpuKernel(PyObject* capsule) {
  auto* held =
      static_cast<XpuKernel*>(PyCapsule_GetPointer(capsule, kCapsuleName));
  if (held == nullptr) {
    PyErr_Clear();
    return;
  }
  held->plan_cache.clear();
  delete held;
}

XpuKernel* kernelFromCapsule(PyObject* obj) {
  if (PyCapsule_CheckExact(obj) && PyCapsule_GetName(obj) == kCapsuleName) {
    return static_cast<XpuKernel*>(PyCapsule_GetContext(obj));
  }
  return bridge::raise(
      PyExc_TypeError,
      std::string("function must be a kernel from "
                  "_StaticXpuLauncher._load_kernel, got ") +
          bridge::typeName(obj));
}

// --- SYCL interop (1/3): our Level Zero context is SYCL's, not owned.
xsl::Expected<std::shared_ptr<xsl::level_zero::Context>> contextOf(
    c10::DeviceIndex device_index) {
  auto api = xsl::level_zero::api();
  if (!api) {
    return std::move(api).error();
  }
  const sycl::device& device = c10::xpu::get_raw_device(device_index);
  const sycl::context& context = c10::xpu::get_device_context();
  auto ze_driver = sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
      device.get_platform());
  auto ze_device =
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(device);
  auto ze_context =
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(context);
  xsl::level_zero::Device ze(
      **api, ze_driver, ze_device, static_cast<uint32_t>(device_index));
  return xsl::level_zero::Context::wrap(ze, ze_context, /*owned=*/false);
}

// --- SYCL interop (2/3): a sycl::kernel over our Level Zero kernel.
std::unique_ptr<sycl::kernel> makeSyclKernel(const LoadedKernel& loaded) {
  namespace ze_interop = sycl::ext::oneapi::level_zero;
  const sycl::context& context = c10::xpu::get_device_context();
  auto bundle = sycl::make_kernel_bundle<
      sycl::backend::ext_oneapi_level_zero,
      sycl::bundle_state::executable>(
      {loaded.kernel().module().handle(), ze_interop::ownership::keep},
      context);
  return std::make_unique<sycl::kernel>(
      sycl::make_kernel<sycl::backend::ext_oneapi_level_zero>(
          {bundle, loaded.kernel().handle(), ze_interop::ownership::keep},
          context));
}

// --- SYCL interop (3/3): the launch itself, on the queue's own immediate
// command list where that is ordered exactly like a SYCL submit, else one
// submit with the packed arguments.
//
// Adapter v2 batches a queue's commands in regular lists that it submits
// later when the queue has no_immediate_command_list or the process sets
// UR_L0_V2_FORCE_BATCHED (read as the adapter reads it); get_native still
// gives the immediate list, where a direct append would run before them.
// The variable is process-wide, so it is read once (at kernel load); the
// property is the queue's, checked at each launch.
bool forcedBatchedSubmission() {
  static const bool forced = [] {
    const char* value = std::getenv("UR_L0_V2_FORCE_BATCHED");
    if (value == nullptr) {
      return false;
    }
    std::string lowered(value);
    for (char& c : lowered) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return lowered == "1" || lowered == "y" || lowered == "yes" ||
        lowered == "t" || lowered == "true";
  }();
  return forced;
}

// Appending to the list directly is ordered like a submit when the queue is
// in order, not batched (above), and the Unified Runtime's Level Zero adapter
// is v2: v2 puts every command of such a queue on that one immediate list
// when it is submitted, queue.wait() synchronizes the whole list
// (zeCommandListHostSynchronize), and the events torch records are barriers
// appended to it. Adapter v1 is excluded: its queue.wait() waits for the
// last event SYCL made, which a direct append comes after.
bool adapterAppendsInOrder(const sycl::device& device) {
  const std::string platform =
      device.get_platform().get_info<sycl::info::platform::name>();
  const std::string_view v2_suffix = "Level-Zero V2";
  return !forcedBatchedSubmission() && platform.size() >= v2_suffix.size() &&
      platform.compare(
          platform.size() - v2_suffix.size(), v2_suffix.size(), v2_suffix) == 0;
}

ze_command_list_handle_t directCommandList(sycl::queue& queue) {
  if (!queue.is_in_order() ||
      queue.has_property<
          sycl::ext::intel::property::queue::no_immediate_command_list>()) {
    return nullptr;
  }
  auto native = sycl::get_native<sycl::backend::ext_oneapi_level_zero>(queue);
  ze_command_list_handle_t* list =
      std::get_if<ze_command_list_handle_t>(&native);
  return list != nullptr ? *list : nullptr;
}

template <typename T>
void setSlotArg(sycl::handler& cgh, uint32_t index, const void* slot) {
  T value{};
  std::memcpy(&value, slot, sizeof(value));
  cgh.set_arg(static_cast<int>(index), value);
}

void submitOnQueue(
    sycl::queue& queue,
    sycl::kernel& kernel,
    const ArgPlan& plan,
    const ArgStorage& storage,
    const xsl::launcher::LaunchGeometry& geometry,
    uint32_t shared_bytes) {
  const sycl::range<3> global(
      static_cast<size_t>(geometry.global_size_z),
      static_cast<size_t>(geometry.global_size_y),
      static_cast<size_t>(geometry.global_size_x));
  const sycl::range<3> local(1, 1, static_cast<size_t>(geometry.group_size_x));
  const sycl::nd_range<3> work(global, local);
  // The event is dropped: nothing reads an event of a launch (torch records
  // its own on the queue). Not the event-less experimental::submit: on
  // adapter v1, the one that takes this path, it measured 5-7% slower
  // (tests/bench/bench_glue_launch.py, intel-sycl-rt 2025.3.3 and 2026.2.0):
  // the adapter makes a new internal event for it, where a returned event
  // goes back to the adapter's cache.
  queue.submit([&plan, &storage, &kernel, &work, shared_bytes](
                   sycl::handler& cgh) {
    const uint32_t passed = static_cast<uint32_t>(plan.args.size());
    for (uint32_t i = 0; i < passed; ++i) {
      const void* slot = storage.slot(i);
      if (plan.args[i].type == xsl::launcher::ArgType::kPointer) {
        setSlotArg<void*>(cgh, i, slot);
        continue;
      }
      switch (plan.args[i].size) { // the kernel's payload size
        case 1:
          setSlotArg<uint8_t>(cgh, i, slot);
          break;
        case 2:
          setSlotArg<uint16_t>(cgh, i, slot);
          break;
        case 4:
          setSlotArg<uint32_t>(cgh, i, slot);
          break;
        default:
          setSlotArg<uint64_t>(cgh, i, slot);
          break;
      }
    }
    for (uint32_t i = 0; i < plan.null_pointer_args; ++i) {
      cgh.set_arg(static_cast<int>(passed + i), static_cast<void*>(nullptr));
    }
    if (plan.binds_shared_memory) {
      sycl::local_accessor<int8_t, 1> shared(
          sycl::range<1>(static_cast<size_t>(shared_bytes)), cgh);
      cgh.set_arg(static_cast<int>(plan.sharedMemoryArgIndex()), shared);
    }
    cgh.parallel_for(work, kernel);
  });
}

PyObject* loadKernel(PyObject* /*type*/, PyObject* args) {
  HANDLE_TH_ERRORS
  const char* path = nullptr;
  const char* name = nullptr;
  long long shared = 0;
  long long device = 0;
  if (!PyArg_ParseTuple(args, "ssLL", &path, &name, &shared, &device)) {
    return nullptr;
  }
  if (shared < 0 || shared > static_cast<long long>(UINT32_MAX)) {
    return bridge::raise(
        PyExc_ValueError, "shared_mem_bytes must be in [0, 2**32)");
  }
  if (device < 0 ||
      device >= static_cast<long long>(c10::xpu::device_count())) {
    return bridge::raise(
        PyExc_ValueError,
        "device = " + std::to_string(device) + " is not an XPU device index");
  }
  const auto device_index = static_cast<c10::DeviceIndex>(device);
  auto context = contextOf(device_index);
  if (!context) {
    return bridge::raiseError(PyExc_RuntimeError, context.error());
  }
  auto loaded = LoadedKernel::load(*context, path, name);
  if (!loaded) {
    return bridge::raiseError(PyExc_RuntimeError, loaded.error());
  }
  if (xsl::Status fits =
          (*loaded)->checkSharedMemory(static_cast<uint64_t>(shared));
      !fits.ok()) {
    return bridge::raiseError(PyExc_RuntimeError, fits.error());
  }
  auto held = std::make_unique<XpuKernel>();
  held->loaded = std::move(*loaded);
  held->kernel = makeSyclKernel(*held->loaded);
  held->device = device_index;
  held->appends_directly =
      adapterAppendsInOrder(c10::xpu::get_raw_device(device_index));
  const long long n_regs = held->loaded->registerCount();
  const long long n_spills = held->loaded->spillCount();
  PyObject* capsule = PyCapsule_New(held.get(), kCapsuleName, destroyXpuKernel);
  if (capsule == nullptr) {
    return nullptr;
  }
  XpuKernel* owned = held.release(); // the capsule owns it now
  if (PyCapsule_SetContext(capsule, owned) < 0) {
    Py_DECREF(capsule);
    return nullptr;
  }
  // "N": the tuple takes our capsule reference (upstream's "O" leaked it).
  return Py_BuildValue("(NLL)", capsule, n_regs, n_spills);
  END_HANDLE_TH_ERRORS
}

PyObject* launchKernel(
    PyObject* /*type*/,
    PyObject* const* args,
    Py_ssize_t nargs) {
  HANDLE_TH_ERRORS
  if (!bridge::checkLaunchArgCount(nargs)) {
    return nullptr;
  }
  XpuKernel* held = kernelFromCapsule(args[0]);
  if (held == nullptr) {
    return nullptr;
  }
  LoadedKernel& loaded = *held->loaded;
  bridge::LaunchCall call;
  const ArgPlan* plan = nullptr;
  switch (bridge::prepareLaunch(
      args, nargs, loaded, held->plan_cache, &call, &plan)) {
    case bridge::Prepared::kError:
      return nullptr;
    case bridge::Prepared::kEmptyGrid:
      Py_RETURN_NONE;
    case bridge::Prepared::kReady:
      break;
  }
  if (plan->binds_shared_memory && call.shared_bytes == 0) {
    return bridge::raise(
        PyExc_ValueError,
        "kernel '" + loaded.name() +
            "' takes a dynamic shared memory argument but shared is 0");
  }
  ArgStorage storage(plan->args.size());
  if (!bridge::packLaunchArgs(call, *plan, loaded, storage)) {
    return nullptr;
  }
  // NOLINTNEXTLINE(performance-no-int-to-ptr): Inductor's raw stream.
  sycl::queue* queue =
      reinterpret_cast<sycl::queue*>(static_cast<uintptr_t>(call.stream));
  if (queue == nullptr) {
    queue = &c10::xpu::getCurrentXPUStream(held->device).queue();
  }
  if (held->appends_directly) {
    if (ze_command_list_handle_t list = directCommandList(*queue)) {
      // The GIL serializes launches of this kernel, so its argument state
      // is ours until the append returns.
      xsl::Status launched = xsl::launcher::launchOnCommandList(
          loaded, *plan, storage, call.geometry, call.shared_bytes, list);
      if (!launched.ok()) {
        return bridge::raiseError(PyExc_RuntimeError, launched.error());
      }
      Py_RETURN_NONE;
    }
  }
  submitOnQueue(
      *queue, *held->kernel, *plan, storage, call.geometry, call.shared_bytes);
  Py_RETURN_NONE;
  END_HANDLE_TH_ERRORS
}

PyMethodDef kLauncherMethods[] = {
    {"_load_kernel",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)(void)>(loadKernel)),
     METH_VARARGS | METH_STATIC,
     "Load an XPU kernel from a zebin file: (function, n_regs, n_spills)"},
    {"_launch_kernel",
     reinterpret_cast<PyCFunction>(
         reinterpret_cast<void (*)(void)>(launchKernel)),
     METH_FASTCALL | METH_STATIC,
     "Statically launch a Triton-compiled XPU kernel"},
    {nullptr, nullptr, 0, nullptr}};

PyType_Slot kLauncherSlots[] = {
    {Py_tp_methods, kLauncherMethods},
    {Py_tp_doc,
     const_cast<char*>(
         "Statically defined launchers for triton compiled XPU kernels")},
    {0, nullptr}};

PyType_Spec kLauncherSpec =
    {"torch._C._StaticXpuLauncher", 0, 0, Py_TPFLAGS_DEFAULT, kLauncherSlots};

} // namespace

bool StaticXpuLauncher_init(PyObject* module) {
  // Tensor arguments: their address in C++, not a data_ptr() call each.
  bridge::tensor_address_reader = xsl::torch_interop::plainTensorAddress;
  PyObject* type = PyType_FromSpec(&kLauncherSpec);
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
