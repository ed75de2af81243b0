#include "sycl_launch/torch_devices.h"

#include <exception>

namespace xsl {
namespace sycl_launch {
namespace {

// torch's test, deprecated in SYCL 2020 but what torch asks: iGPUs share
// the host's memory.
#if defined(_MSC_VER)
#pragma warning(push)
#pragma warning(disable : 4996)
#else
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
bool isIntegrated(const sycl::device& device) {
  return device.get_info<sycl::info::device::host_unified_memory>();
}
#if defined(_MSC_VER)
#pragma warning(pop)
#else
#pragma GCC diagnostic pop
#endif

// The GPUs of the first Level Zero platform with one of the kind asked for
// (every GPU of it for iGPUs, where torch takes them all), else none.
std::vector<sycl::device> firstPlatformGpus(
    const std::vector<sycl::platform>& platforms,
    bool integrated) {
  for (const sycl::platform& platform : platforms) {
    if (platform.get_backend() != sycl::backend::ext_oneapi_level_zero) {
      continue;
    }
    const std::vector<sycl::device> all = platform.get_devices();
    bool found = false;
    for (const sycl::device& device : all) {
      found = found || (device.is_gpu() && isIntegrated(device) == integrated);
    }
    if (!found) {
      continue;
    }
    std::vector<sycl::device> chosen;
    for (const sycl::device& device : all) {
      if (device.is_gpu() && (integrated || !isIntegrated(device))) {
        chosen.push_back(device);
      }
    }
    return chosen;
  }
  return {};
}

TorchXpuDevices find() {
  TorchXpuDevices found;
  try {
    const std::vector<sycl::platform> platforms =
        sycl::platform::get_platforms();
    found.devices = firstPlatformGpus(platforms, /*integrated=*/false);
    if (found.devices.empty()) {
      found.devices = firstPlatformGpus(platforms, /*integrated=*/true);
    }
    if (found.devices.empty() || contextFromTorchQueue()) {
      return found;
    }
    const sycl::platform platform = found.devices.front().get_platform();
#if __SYCL_COMPILER_VERSION >= 20250200
    found.context = platform.khr_get_default_context();
#else
    found.context = platform.ext_oneapi_get_default_context();
#endif
  } catch (const std::exception& e) {
    found.devices.clear();
    found.context.reset();
    found.error = e.what();
  }
  return found;
}

} // namespace

const TorchXpuDevices& torchXpuDevices() {
  // Never freed: SYCL objects must not be destroyed after the runtime's own
  // teardown at exit.
  static const TorchXpuDevices* found = new TorchXpuDevices(find());
  return *found;
}

} // namespace sycl_launch
} // namespace xsl
