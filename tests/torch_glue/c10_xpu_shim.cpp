// The c10::xpu functions the PyTorch glue calls, which the torch CPU wheel
// does not ship (it has the headers, not libc10_xpu). Built on the real SYCL
// runtime, the way c10/xpu/XPUFunctions.cpp does it (Linux): the GPUs of the
// first Level Zero platform that has a GPU (the test driver's are dGPUs),
// that platform's default context, and one in-order queue per device as
// each device's current stream. Tests only; the stream pool, events and caching
// allocator of the real c10_xpu are out of scope.

#include <c10/xpu/XPUFunctions.h>
#include <c10/xpu/XPUStream.h>
#include <sycl/sycl.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "c10_xpu_shim.h"

namespace {

struct Runtime {
  std::string platform_name;
  std::vector<sycl::device> devices;
  std::unique_ptr<sycl::context> context;
  // Per device: [0] is the current stream; later entries are queues tests
  // create. A deque keeps their addresses stable.
  std::vector<std::deque<sycl::queue>> queues;
};

Runtime& runtime() {
  static Runtime* state = [] {
    auto* made = new Runtime();
    for (const sycl::platform& platform : sycl::platform::get_platforms()) {
      if (platform.get_backend() != sycl::backend::ext_oneapi_level_zero) {
        continue;
      }
      made->devices = platform.get_devices(sycl::info::device_type::gpu);
      if (!made->devices.empty()) {
        made->platform_name = platform.get_info<sycl::info::platform::name>();
        break;
      }
    }
    if (!made->devices.empty()) {
      const sycl::platform platform = made->devices.front().get_platform();
#if __SYCL_COMPILER_VERSION >= 20250200
      made->context =
          std::make_unique<sycl::context>(platform.khr_get_default_context());
#else
      made->context = std::make_unique<sycl::context>(
          platform.ext_oneapi_get_default_context());
#endif
      made->queues.resize(made->devices.size());
      for (size_t i = 0; i < made->devices.size(); ++i) {
        made->queues[i].emplace_back(
            *made->context,
            made->devices[i],
            sycl::property::queue::in_order());
      }
    }
    return made; // never freed: SYCL objects outlive Python's teardown
  }();
  return *state;
}

size_t checkedIndex(c10::DeviceIndex device) {
  Runtime& r = runtime();
  if (device < 0 || static_cast<size_t>(device) >= r.devices.size()) {
    throw std::out_of_range(
        "c10::xpu shim: device " + std::to_string(device) + " of " +
        std::to_string(r.devices.size()));
  }
  return static_cast<size_t>(device);
}

} // namespace

namespace c10 {
namespace xpu {

DeviceIndex device_count() {
  return static_cast<DeviceIndex>(runtime().devices.size());
}

sycl::device& get_raw_device(DeviceIndex device) {
  return runtime().devices[checkedIndex(device)];
}

sycl::context& get_device_context() {
  Runtime& r = runtime();
  if (!r.context) {
    throw std::runtime_error("c10::xpu shim: no Level Zero GPU");
  }
  return *r.context;
}

XPUStream getCurrentXPUStream(DeviceIndex device) {
  const size_t index = checkedIndex(device < 0 ? 0 : device);
  return XPUStream(
      XPUStream::UNCHECKED,
      Stream(
          Stream::UNSAFE,
          Device(DeviceType::XPU, static_cast<DeviceIndex>(index)),
          0));
}

sycl::queue& XPUStream::queue() const {
  Runtime& r = runtime();
  const size_t index = checkedIndex(device_index());
  const auto id = static_cast<size_t>(stream_.id());
  return r.queues[index].at(id);
}

} // namespace xpu
} // namespace c10

namespace xsl {
namespace torch_glue_test {

std::string platformName() {
  return runtime().platform_name;
}

uintptr_t currentQueue(int device) {
  return reinterpret_cast<uintptr_t>(
      &c10::xpu::getCurrentXPUStream(static_cast<c10::DeviceIndex>(device))
           .queue());
}

uintptr_t newQueue(int device, bool batched) {
  Runtime& r = runtime();
  const size_t index = checkedIndex(static_cast<c10::DeviceIndex>(device));
  sycl::property_list properties{sycl::property::queue::in_order()};
  if (batched) {
    properties = sycl::property_list{
        sycl::property::queue::in_order(),
        sycl::ext::intel::property::queue::no_immediate_command_list()};
  }
  r.queues[index].emplace_back(*r.context, r.devices[index], properties);
  return reinterpret_cast<uintptr_t>(&r.queues[index].back());
}

void waitAll() {
  for (std::deque<sycl::queue>& device_queues : runtime().queues) {
    for (sycl::queue& queue : device_queues) {
      queue.wait();
    }
  }
}

uintptr_t nativeCommandList(uintptr_t queue) {
  auto native = sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
      *reinterpret_cast<sycl::queue*>(queue));
  auto* list = std::get_if<ze_command_list_handle_t>(&native);
  return list != nullptr ? reinterpret_cast<uintptr_t>(*list) : 0;
}

uintptr_t nativeContext() {
  return reinterpret_cast<uintptr_t>(
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
          c10::xpu::get_device_context()));
}

std::vector<std::pair<uintptr_t, uintptr_t>> nativeDevices() {
  std::vector<std::pair<uintptr_t, uintptr_t>> handles;
  for (c10::DeviceIndex i = 0; i < c10::xpu::device_count(); ++i) {
    const sycl::device& device = c10::xpu::get_raw_device(i);
    handles.emplace_back(
        reinterpret_cast<uintptr_t>(
            sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
                device.get_platform())),
        reinterpret_cast<uintptr_t>(
            sycl::get_native<sycl::backend::ext_oneapi_level_zero>(device)));
  }
  return handles;
}

uintptr_t mallocDevice(size_t bytes, int device) {
  return reinterpret_cast<uintptr_t>(sycl::malloc_device(
      bytes,
      c10::xpu::get_raw_device(static_cast<c10::DeviceIndex>(device)),
      *runtime().context));
}

} // namespace torch_glue_test
} // namespace xsl
