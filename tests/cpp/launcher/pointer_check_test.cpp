#include "launcher/pointer_check.h"

#include <gtest/gtest.h>

#include <string>

namespace xsl {
namespace launcher {
namespace {

ze_device_handle_t fakeDevice(uintptr_t value) {
  return reinterpret_cast<ze_device_handle_t>(value);
}

// The kernel's device is fakeDevice(8).
Status check(
    size_t index,
    uint64_t address,
    ze_result_t result,
    ze_memory_type_t type,
    ze_device_handle_t allocation_device) {
  return checkPointerArgument(
      index, address, {result, type, allocation_device}, fakeDevice(8));
}

TEST(PointerCheck, AcceptsUsmOfTheKernelDevice) {
  for (ze_memory_type_t type : {ZE_MEMORY_TYPE_DEVICE, ZE_MEMORY_TYPE_SHARED}) {
    EXPECT_TRUE(check(0, 0x1000, ZE_RESULT_SUCCESS, type, fakeDevice(8)).ok());
  }
  EXPECT_TRUE(
      check(0, 0x1000, ZE_RESULT_SUCCESS, ZE_MEMORY_TYPE_HOST, nullptr).ok());
}

TEST(PointerCheck, RejectsHostMemoryNamingTheIndex) {
  auto status =
      check(3, 0xdead0, ZE_RESULT_SUCCESS, ZE_MEMORY_TYPE_UNKNOWN, nullptr);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("argument 3"), std::string::npos);
  EXPECT_NE(status.error().message().find("0xdead0"), std::string::npos);
}

TEST(PointerCheck, RejectsOtherDeviceAndFailedQuery) {
  EXPECT_FALSE(
      check(1, 0x1000, ZE_RESULT_SUCCESS, ZE_MEMORY_TYPE_DEVICE, fakeDevice(16))
          .ok());
  EXPECT_FALSE(check(
                   1,
                   0x1000,
                   ZE_RESULT_ERROR_INVALID_ARGUMENT,
                   ZE_MEMORY_TYPE_DEVICE,
                   fakeDevice(8))
                   .ok());
}

} // namespace
} // namespace launcher
} // namespace xsl
