#include "level_zero/result.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace xsl {
namespace level_zero {
namespace {

struct Text {
  const char* name;
  const char* description;
};

// Every code of ze_result_t in the Level Zero 1.x headers, with the header's
// own description (tests check this against the installed ze_api.h).
Text resultText(ze_result_t result) noexcept {
  switch (result) {
    case ZE_RESULT_SUCCESS:
      return Text{"ZE_RESULT_SUCCESS", "success"};
    case ZE_RESULT_NOT_READY:
      return Text{
          "ZE_RESULT_NOT_READY", "synchronization primitive not signaled"};
    case ZE_RESULT_ERROR_DEVICE_LOST:
      return Text{
          "ZE_RESULT_ERROR_DEVICE_LOST",
          "device hung, reset, was removed, or driver update occurred"};
    case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY:
      return Text{
          "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY",
          "insufficient host memory to satisfy call"};
    case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY:
      return Text{
          "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY",
          "insufficient device memory to satisfy call"};
    case ZE_RESULT_ERROR_MODULE_BUILD_FAILURE:
      return Text{
          "ZE_RESULT_ERROR_MODULE_BUILD_FAILURE",
          "error occurred when building module, see build log for details"};
    case ZE_RESULT_ERROR_MODULE_LINK_FAILURE:
      return Text{
          "ZE_RESULT_ERROR_MODULE_LINK_FAILURE",
          "error occurred when linking modules, see build log for details"};
    case ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET:
      return Text{
          "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET", "device requires a reset"};
    case ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE:
      return Text{
          "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE",
          "device currently in low power state"};
    case ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX:
      return Text{
          "ZE_RESULT_EXP_ERROR_DEVICE_IS_NOT_VERTEX",
          "device is not represented by a fabric vertex"};
    case ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE:
      return Text{
          "ZE_RESULT_EXP_ERROR_VERTEX_IS_NOT_DEVICE",
          "fabric vertex does not represent a device"};
    case ZE_RESULT_EXP_ERROR_REMOTE_DEVICE:
      return Text{
          "ZE_RESULT_EXP_ERROR_REMOTE_DEVICE",
          "fabric vertex represents a remote device or subdevice"};
    case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS:
      return Text{
          "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS",
          "access denied due to permission level"};
    case ZE_RESULT_ERROR_NOT_AVAILABLE:
      return Text{
          "ZE_RESULT_ERROR_NOT_AVAILABLE",
          "resource already in use and simultaneous access not allowed or resource was removed"};
    case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE:
      return Text{
          "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE",
          "external required dependency is unavailable or missing"};
    case ZE_RESULT_WARNING_DROPPED_DATA:
      return Text{
          "ZE_RESULT_WARNING_DROPPED_DATA", "data may have been dropped"};
    case ZE_RESULT_ERROR_UNINITIALIZED:
      return Text{"ZE_RESULT_ERROR_UNINITIALIZED", "driver is not initialized"};
    case ZE_RESULT_ERROR_UNSUPPORTED_VERSION:
      return Text{
          "ZE_RESULT_ERROR_UNSUPPORTED_VERSION",
          "generic error code for unsupported versions"};
    case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE:
      return Text{
          "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE",
          "generic error code for unsupported features"};
    case ZE_RESULT_ERROR_INVALID_ARGUMENT:
      return Text{
          "ZE_RESULT_ERROR_INVALID_ARGUMENT",
          "generic error code for invalid arguments"};
    case ZE_RESULT_ERROR_INVALID_NULL_HANDLE:
      return Text{
          "ZE_RESULT_ERROR_INVALID_NULL_HANDLE",
          "handle argument is not valid"};
    case ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE:
      return Text{
          "ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE",
          "object pointed to by handle still in-use by device"};
    case ZE_RESULT_ERROR_INVALID_NULL_POINTER:
      return Text{
          "ZE_RESULT_ERROR_INVALID_NULL_POINTER",
          "pointer argument may not be nullptr"};
    case ZE_RESULT_ERROR_INVALID_SIZE:
      return Text{
          "ZE_RESULT_ERROR_INVALID_SIZE",
          "size argument is invalid (e.g., must not be zero)"};
    case ZE_RESULT_ERROR_UNSUPPORTED_SIZE:
      return Text{
          "ZE_RESULT_ERROR_UNSUPPORTED_SIZE",
          "size argument is not supported by the device (e.g., too large)"};
    case ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT:
      return Text{
          "ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT",
          "alignment argument is not supported by the device (e.g., too small)"};
    case ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT:
      return Text{
          "ZE_RESULT_ERROR_INVALID_SYNCHRONIZATION_OBJECT",
          "synchronization object in invalid state"};
    case ZE_RESULT_ERROR_INVALID_ENUMERATION:
      return Text{
          "ZE_RESULT_ERROR_INVALID_ENUMERATION",
          "enumerator argument is not valid"};
    case ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION:
      return Text{
          "ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION",
          "enumerator argument is not supported by the device"};
    case ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT:
      return Text{
          "ZE_RESULT_ERROR_UNSUPPORTED_IMAGE_FORMAT",
          "image format is not supported by the device"};
    case ZE_RESULT_ERROR_INVALID_NATIVE_BINARY:
      return Text{
          "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY",
          "native binary is not supported by the device"};
    case ZE_RESULT_ERROR_INVALID_GLOBAL_NAME:
      return Text{
          "ZE_RESULT_ERROR_INVALID_GLOBAL_NAME",
          "global variable is not found in the module"};
    case ZE_RESULT_ERROR_INVALID_KERNEL_NAME:
      return Text{
          "ZE_RESULT_ERROR_INVALID_KERNEL_NAME",
          "kernel name is not found in the module"};
    case ZE_RESULT_ERROR_INVALID_FUNCTION_NAME:
      return Text{
          "ZE_RESULT_ERROR_INVALID_FUNCTION_NAME",
          "function name is not found in the module"};
    case ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION:
      return Text{
          "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION",
          "group size dimension is not valid for the kernel or device"};
    case ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION:
      return Text{
          "ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION",
          "global width dimension is not valid for the kernel or device"};
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX:
      return Text{
          "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX",
          "kernel argument index is not valid for kernel"};
    case ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE:
      return Text{
          "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE",
          "kernel argument size does not match kernel"};
    case ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE:
      return Text{
          "ZE_RESULT_ERROR_INVALID_KERNEL_ATTRIBUTE_VALUE",
          "value of kernel attribute is not valid for the kernel or device"};
    case ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED:
      return Text{
          "ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED",
          "module with imports needs to be linked before kernels can be created from it."};
    case ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE:
      return Text{
          "ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE",
          "command list type does not match command queue type"};
    case ZE_RESULT_ERROR_OVERLAPPING_REGIONS:
      return Text{
          "ZE_RESULT_ERROR_OVERLAPPING_REGIONS",
          "copy operations do not support overlapping regions of memory"};
    case ZE_RESULT_WARNING_ACTION_REQUIRED:
      return Text{
          "ZE_RESULT_WARNING_ACTION_REQUIRED",
          "an action is required to complete the desired operation"};
    case ZE_RESULT_ERROR_UNKNOWN:
      return Text{"ZE_RESULT_ERROR_UNKNOWN", "unknown or internal error"};
    default:
      break;
  }
  return Text{nullptr, nullptr};
}

} // namespace

const char* resultName(ze_result_t result) noexcept {
  const Text text = resultText(result);
  return text.name != nullptr ? text.name : "unknown ze_result_t";
}

const char* resultDescription(ze_result_t result) noexcept {
  const Text text = resultText(result);
  return text.description != nullptr ? text.description
                                     : "code not in the Level Zero headers "
                                       "this was built with";
}

Error zeError(
    std::string_view call,
    ze_result_t result,
    std::string_view context) {
  std::string message;
  if (!context.empty()) {
    message.append(context.data(), context.size());
    message += ": ";
  }
  message.append(call.data(), call.size());
  message += " failed: ";
  const Text text = resultText(result);
  if (text.name != nullptr) {
    message += text.name;
    message += " (";
    message += text.description;
    message += ")";
  } else {
    char hex[32];
    std::snprintf(
        hex,
        sizeof(hex),
        "0x%08x",
        static_cast<unsigned int>(static_cast<uint32_t>(result)));
    message += "unknown ze_result_t ";
    message += hex;
  }
  return Error(std::move(message));
}

} // namespace level_zero
} // namespace xsl
