#pragma once

// torch's XPU devices and context found without torch: the rules of
// c10/xpu/XPUFunctions.cpp applied to the same SYCL runtime (the libsycl
// torch loaded, so the objects are the very ones torch holds):
//   - devices: the dGPUs of the first Level Zero platform that has one;
//     if none has, the GPUs of the first Level Zero platform that has an
//     iGPU (host_unified_memory); numbered in the platform's order;
//   - context: that platform's default context (khr_get_default_context()
//     from SYCL 2025.2, ext_oneapi_get_default_context() before), one
//     object per platform in a process.
// On Windows before SYCL 2025.0 torch makes its own context from the device
// list instead, which only torch holds: contextFromTorchQueue() says so and
// the caller takes the context of a queue torch passes.

#include <sycl/sycl.hpp>

#include <optional>
#include <string>
#include <vector>

namespace xsl {
namespace sycl_launch {

struct TorchXpuDevices {
  std::vector<sycl::device> devices;
  // Unset when there are no devices, or when contextFromTorchQueue().
  std::optional<sycl::context> context;
  // Why there are no devices (a SYCL error while enumerating), else empty.
  std::string error;
};

// Found once per process, on first use (thread-safe).
const TorchXpuDevices& torchXpuDevices();

// True where torch's context is not the platform default context (Windows,
// SYCL before 2025.0): only the context of torch's own queues is torch's.
constexpr bool contextFromTorchQueue() {
#if defined(_WIN32) && __SYCL_COMPILER_VERSION < 20250000
  return true;
#else
  return false;
#endif
}

} // namespace sycl_launch
} // namespace xsl
