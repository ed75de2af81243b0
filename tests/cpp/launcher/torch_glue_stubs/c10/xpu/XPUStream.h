#pragma once
// Compile-check stand-in for <c10/xpu/XPUStream.h>.
#include <c10/xpu/XPUFunctions.h>

namespace c10 {
namespace xpu {
class XPUStream {
 public:
  sycl::queue& queue() const;
};
XPUStream getCurrentXPUStream(DeviceIndex device = -1);
} // namespace xpu
} // namespace c10
