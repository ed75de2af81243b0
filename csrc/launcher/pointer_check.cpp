#include "launcher/pointer_check.h"

#include <cstdio>
#include <string>

namespace xsl {
namespace launcher {
namespace {

std::string hexAddress(uint64_t address) {
  char text[32];
  std::snprintf(
      text, sizeof(text), "0x%llx", static_cast<unsigned long long>(address));
  return text;
}

std::string resultText(ze_result_t result) {
  char text[32];
  std::snprintf(text, sizeof(text), "0x%x", static_cast<unsigned>(result));
  return text;
}

} // namespace

Status checkPointerArgument(
    size_t index,
    uint64_t address,
    const level_zero::PointerInfo& query,
    ze_device_handle_t kernel_device) {
  // Hot path: no string is built unless the pointer is rejected.
  const bool usm =
      query.result == ZE_RESULT_SUCCESS && query.type != ZE_MEMORY_TYPE_UNKNOWN;
  const bool other_device = query.type == ZE_MEMORY_TYPE_DEVICE &&
      query.device != nullptr && kernel_device != nullptr &&
      query.device != kernel_device;
  if (usm && !other_device) {
    return Status::success();
  }
  const std::string where = "argument " + std::to_string(index) + " (pointer " +
      hexAddress(address) + ")";
  if (query.result != ZE_RESULT_SUCCESS) {
    return Error(
        where + ": zeMemGetAllocProperties failed with " +
        resultText(query.result) +
        "; pass a tensor on the kernel's XPU device");
  }
  if (query.type == ZE_MEMORY_TYPE_UNKNOWN) {
    return Error(
        where +
        " is not device memory of the kernel's context (host memory, a freed "
        "pointer, or another context); pass a tensor on the kernel's XPU "
        "device");
  }
  return Error(
      where +
      " is device memory of another device; move the tensor to the "
      "kernel's device");
}

} // namespace launcher
} // namespace xsl
