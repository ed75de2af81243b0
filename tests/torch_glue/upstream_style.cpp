// The launch benchmark's reference: a launch written the way PyTorch's
// upstream static_launcher/xpu.cpp and Triton-XPU's launcher submit, so the
// glue's host cost can be compared with it side by side in one process.
// Per launch: every argument converted from Python, a queue.submit command
// group with one set_arg per argument, parallel_for over an nd_range, and
// the default event. Nothing is cached between launches except the kernel.

#include "upstream_style.h"

#include <c10/xpu/XPUFunctions.h>
#include <dlfcn.h>
#include <sycl/sycl.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "c10_xpu_shim.h"
#include "file_io/file_io.h"
#include "launcher/kernel_module.h"
#include "level_zero/level_zero.h"
#include "level_zero/loader.h"
#include "python/abi/cpython.h"

namespace xsl {
namespace torch_glue_test {
namespace {

constexpr const char* kCapsuleName = "xsl.upstream_style_kernel";

struct UpstreamKernel {
  std::shared_ptr<const launcher::KernelModule> module;
  std::unique_ptr<level_zero::Kernel> ze_kernel;
  std::unique_ptr<sycl::kernel> kernel;
  uint32_t threads_per_warp = 32;
};

using xsl::python::raise;

} // namespace

PyObject* upstreamStyleLoad(PyObject* /*self*/, PyObject* args) {
  const char* path = nullptr;
  const char* name = nullptr;
  int device = 0;
  if (!PyArg_ParseTuple(args, "ssi", &path, &name, &device)) {
    return nullptr;
  }
  auto api = level_zero::api();
  if (!api) {
    return raise(PyExc_RuntimeError, api.error().message());
  }
  const sycl::device& sycl_device =
      c10::xpu::get_raw_device(static_cast<c10::DeviceIndex>(device));
  const sycl::context& context = c10::xpu::get_device_context();
  level_zero::Device ze_device(
      **api,
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
          sycl_device.get_platform()),
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(sycl_device),
      static_cast<uint32_t>(device));
  auto ze_context = level_zero::Context::wrap(
      ze_device,
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(context),
      false);
  Expected<std::string> bytes = file_io::readFileBytes(path);
  if (!bytes) {
    return raise(PyExc_RuntimeError, bytes.error().message());
  }
  auto module = launcher::KernelModule::create(ze_context, *bytes, path);
  if (!module) {
    return raise(PyExc_RuntimeError, module.error().message());
  }
  const zebin::KernelInfo* info = nullptr;
  auto ze_kernel = (*module)->createKernel(name, &info);
  if (!ze_kernel) {
    return raise(PyExc_RuntimeError, ze_kernel.error().message());
  }
  auto held = std::make_unique<UpstreamKernel>();
  held->module = *module;
  held->ze_kernel = std::make_unique<level_zero::Kernel>(std::move(*ze_kernel));
  held->threads_per_warp = info->threads_per_warp;
  namespace ze_interop = sycl::ext::oneapi::level_zero;
  auto bundle = sycl::make_kernel_bundle<
      sycl::backend::ext_oneapi_level_zero,
      sycl::bundle_state::executable>(
      {held->module->module().handle(), ze_interop::ownership::keep}, context);
  held->kernel = std::make_unique<sycl::kernel>(
      sycl::make_kernel<sycl::backend::ext_oneapi_level_zero>(
          {bundle, held->ze_kernel->handle(), ze_interop::ownership::keep},
          context));
  PyObject* capsule = PyCapsule_New(
      held.get(),
      kCapsuleName,
      xsl::python::deleteCapsuleContents<UpstreamKernel>);
  if (capsule != nullptr) {
    held.release();
  }
  return capsule;
}

namespace {

// One launch's arguments, converted from Python per call as upstream's
// THPUtils_unpack* calls do.
struct Converted {
  UpstreamKernel* held = nullptr;
  long long grid[3] = {0, 0, 0};
  size_t local = 0;
  std::string codes;
  std::vector<uint64_t> slots;
  std::vector<size_t> sizes;
  sycl::queue* queue = nullptr;
};

// (kernel, grid_x, grid_y, grid_z, num_warps, shared, arg_types, args,
// stream); false with a Python error set.
bool convert(PyObject* const* argv, Py_ssize_t argc, Converted& out) {
  if (argc != 9) {
    raise(PyExc_TypeError, "a launch takes 9 arguments");
    return false;
  }
  out.held =
      static_cast<UpstreamKernel*>(PyCapsule_GetPointer(argv[0], kCapsuleName));
  if (out.held == nullptr) {
    return false;
  }
  for (int d = 0; d < 3; ++d) {
    out.grid[d] = PyLong_AsLongLong(argv[1 + d]);
  }
  const long long num_warps = PyLong_AsLongLong(argv[4]);
  const char* codes = PyUnicode_AsUTF8(argv[6]);
  PyObject* values = argv[7];
  const unsigned long long stream = PyLong_AsUnsignedLongLong(argv[8]);
  if (PyErr_Occurred() || codes == nullptr || !PyTuple_Check(values)) {
    if (!PyErr_Occurred()) {
      raise(PyExc_TypeError, "bad launch arguments");
    }
    return false;
  }
  out.codes = codes;
  const size_t count = out.codes.size();
  if (static_cast<size_t>(PyTuple_GET_SIZE(values)) != count) {
    raise(PyExc_ValueError, "arg_types and args differ in length");
    return false;
  }
  out.slots.assign(count, 0);
  out.sizes.assign(count, 0);
  for (size_t i = 0; i < count; ++i) {
    PyObject* value = PyTuple_GET_ITEM(values, static_cast<Py_ssize_t>(i));
    uint64_t& slot = out.slots[i];
    switch (codes[i]) {
      case 'O':
        slot = value == Py_None ? 0 : PyLong_AsUnsignedLongLong(value);
        out.sizes[i] = 8;
        break;
      case 'i':
      case 'I':
        slot = static_cast<uint32_t>(PyLong_AsLongLong(value));
        out.sizes[i] = 4;
        break;
      case 'f': {
        const float f = static_cast<float>(PyFloat_AsDouble(value));
        std::memcpy(&slot, &f, sizeof(f));
        out.sizes[i] = 4;
        break;
      }
      default:
        slot = static_cast<uint64_t>(PyLong_AsLongLong(value));
        out.sizes[i] = 8;
        break;
    }
  }
  if (PyErr_Occurred()) {
    return false;
  }
  out.queue =
      reinterpret_cast<sycl::queue*>(stream != 0 ? stream : currentQueue(0));
  out.local = static_cast<size_t>(num_warps) * out.held->threads_per_warp;
  return true;
}

// One queue.submit per call, as upstream launches.
bool submitLikeUpstream(const Converted& c) {
  const sycl::nd_range<3> range(
      sycl::range<3>(
          static_cast<size_t>(c.grid[2]),
          static_cast<size_t>(c.grid[1]),
          static_cast<size_t>(c.grid[0]) * c.local),
      sycl::range<3>(1, 1, c.local));
  sycl::kernel& kernel = *c.held->kernel;
  sycl::event done = c.queue->submit([&c, &range, &kernel](sycl::handler& cgh) {
    for (size_t i = 0; i < c.codes.size(); ++i) {
      const int index = static_cast<int>(i);
      if (c.sizes[i] == 4) {
        cgh.set_arg(index, static_cast<uint32_t>(c.slots[i]));
      } else if (c.codes[i] == 'O') {
        cgh.set_arg(index, reinterpret_cast<void*>(c.slots[i]));
      } else {
        cgh.set_arg(index, c.slots[i]);
      }
    }
    cgh.parallel_for(range, kernel);
  });
  static_cast<void>(done); // the default event, made and dropped as upstream
  return true;
}

// The converted launch appended to the queue's native immediate command list
// with the given events; false with a Python error set.
bool appendNative(
    const Converted& c,
    ze_event_handle_t signal,
    ze_event_handle_t wait) {
  auto native =
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(*c.queue);
  if (native.index() != 1) {
    raise(PyExc_RuntimeError, "the queue has no immediate command list");
    return false;
  }
  const level_zero::Api& api = c.held->module->module().context().api();
  ze_kernel_handle_t kernel = c.held->ze_kernel->handle();
  api.zeKernelSetGroupSize(kernel, static_cast<uint32_t>(c.local), 1, 1);
  for (size_t i = 0; i < c.codes.size(); ++i) {
    api.zeKernelSetArgumentValue(
        kernel, static_cast<uint32_t>(i), c.sizes[i], &c.slots[i]);
  }
  const ze_group_count_t groups = {
      static_cast<uint32_t>(c.grid[0]),
      static_cast<uint32_t>(c.grid[1]),
      static_cast<uint32_t>(c.grid[2])};
  const ze_result_t result = api.zeCommandListAppendLaunchKernel(
      std::get<1>(native),
      kernel,
      &groups,
      signal,
      wait == nullptr ? 0 : 1,
      wait == nullptr ? nullptr : &wait);
  if (result != ZE_RESULT_SUCCESS) {
    raise(PyExc_RuntimeError, "zeCommandListAppendLaunchKernel failed");
    return false;
  }
  return true;
}

// The same launch appended straight to the queue's native immediate command
// list, skipping SYCL: measured only (docs/launcher.md says when it would
// be correct).
bool appendNativeAlone(const Converted& c) {
  return appendNative(c, nullptr, nullptr);
}

// Events for nativeAppendExternalEventLaunch: one pool in the context of
// the first launch, used round robin (the test driver completes commands at
// once, so an event is free again when its turn comes; a real GPU would need
// completion tracking).
struct ExternalEvents {
  static constexpr uint32_t kCount = 64;
  decltype(&zeEventHostReset) host_reset = nullptr;
  ze_event_handle_t events[kCount] = {};
  uint32_t next = 0;
};

// The event entry points, which the project's level_zero::Api does not
// carry, from the loader SYCL already loaded (Linux: this module is built
// there only).
ExternalEvents* makeExternalEvents(ze_context_handle_t context) {
  void* loader = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (loader == nullptr) {
    return nullptr;
  }
  auto pool_create = reinterpret_cast<decltype(&zeEventPoolCreate)>(
      dlsym(loader, "zeEventPoolCreate"));
  auto event_create = reinterpret_cast<decltype(&zeEventCreate)>(
      dlsym(loader, "zeEventCreate"));
  auto e = std::make_unique<ExternalEvents>();
  e->host_reset = reinterpret_cast<decltype(&zeEventHostReset)>(
      dlsym(loader, "zeEventHostReset"));
  if (pool_create == nullptr || event_create == nullptr ||
      e->host_reset == nullptr) {
    return nullptr;
  }
  ze_event_pool_desc_t pool_desc = {};
  pool_desc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
  pool_desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
  pool_desc.count = ExternalEvents::kCount;
  ze_event_pool_handle_t pool = nullptr;
  if (pool_create(context, &pool_desc, 0, nullptr, &pool) !=
      ZE_RESULT_SUCCESS) {
    return nullptr;
  }
  for (uint32_t i = 0; i < ExternalEvents::kCount; ++i) {
    ze_event_desc_t desc = {};
    desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
    desc.index = i;
    desc.signal = ZE_EVENT_SCOPE_FLAG_HOST;
    desc.wait = ZE_EVENT_SCOPE_FLAG_HOST;
    if (event_create(pool, &desc, &e->events[i]) != ZE_RESULT_SUCCESS) {
      return nullptr;
    }
  }
  return e.release(); // kept for the process, like the kernels it serves
}

// The native append ordered with SYCL through the queue's external event
// (sycl_ext_oneapi_in_order_queue_events): the launch waits for the queue's
// last event and signals one of its own, which SYCL then waits for in
// queue.wait() and before its next command. Measured only, as the candidate
// for adapter v1, whose queue.wait() waits for the last event rather than
// the list: its host cost is low only while the last command is one of these
// launches. After a SYCL command, get_native on that command's event makes
// adapter v1 wait for it on the host (zeEventHostSynchronize, then a
// host-visible copy of the event), which a launcher cannot afford.
bool appendNativeWithExternalEvent(const Converted& c) {
  namespace ze_interop = sycl::ext::oneapi::level_zero;
  const sycl::context context = c.queue->get_context();
  static ExternalEvents* events = makeExternalEvents(
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(context));
  if (events == nullptr) {
    raise(PyExc_RuntimeError, "event pool creation failed");
    return false;
  }
  ze_event_handle_t wait = nullptr;
  const std::optional<sycl::event> last = c.queue->ext_oneapi_get_last_event();
  if (last) {
    wait = sycl::get_native<sycl::backend::ext_oneapi_level_zero>(*last);
  }
  ze_event_handle_t signal = events->events[events->next];
  events->next = (events->next + 1) % ExternalEvents::kCount;
  events->host_reset(signal);
  if (!appendNative(c, signal, wait)) {
    return false;
  }
  c.queue->ext_oneapi_set_external_event(
      sycl::make_event<sycl::backend::ext_oneapi_level_zero>(
          {signal, ze_interop::ownership::keep}, context));
  return true;
}

} // namespace

bool convertAndLaunch(
    LaunchVariant variant,
    PyObject* const* argv,
    Py_ssize_t argc) {
  Converted c;
  if (!convert(argv, argc, c)) {
    return false;
  }
  switch (variant) {
    case LaunchVariant::kUpstreamStyle:
      return submitLikeUpstream(c);
    case LaunchVariant::kNativeAppend:
      return appendNativeAlone(c);
    case LaunchVariant::kNativeAppendExternalEvent:
      return appendNativeWithExternalEvent(c);
  }
  raise(PyExc_SystemError, "unknown launch variant");
  return false;
}

PyObject* fastcallFloor(
    PyObject* /*self*/,
    PyObject* const* /*argv*/,
    Py_ssize_t /*argc*/) {
  Py_RETURN_NONE;
}

} // namespace torch_glue_test
} // namespace xsl
