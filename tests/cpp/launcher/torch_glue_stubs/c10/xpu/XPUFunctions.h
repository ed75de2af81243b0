#pragma once
// Compile-check stand-in for <c10/xpu/XPUFunctions.h>.
#include <cstdint>
#include <sycl/sycl.hpp>

namespace c10 {
using DeviceIndex = int8_t;
namespace xpu {
sycl::device& get_raw_device(DeviceIndex device);
sycl::context& get_device_context();
DeviceIndex device_count();
} // namespace xpu
} // namespace c10
