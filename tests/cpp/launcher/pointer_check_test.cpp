#include "launcher/pointer_check.h"

#include <gtest/gtest.h>

#include <string>

namespace xsl {
namespace launcher {
namespace {

ze_device_handle_t fakeDevice(uintptr_t value) {
  return reinterpret_cast<ze_device_handle_t>(value);
}

TEST(PointerCheck, AcceptsUsmOfTheKernelDevice) {
  EXPECT_TRUE(checkPointerArgument(
                  0,
                  0x1000,
                  ZE_RESULT_SUCCESS,
                  ZE_MEMORY_TYPE_DEVICE,
                  fakeDevice(8),
                  fakeDevice(8))
                  .ok());
  EXPECT_TRUE(checkPointerArgument(
                  0,
                  0x1000,
                  ZE_RESULT_SUCCESS,
                  ZE_MEMORY_TYPE_SHARED,
                  fakeDevice(8),
                  fakeDevice(8))
                  .ok());
  EXPECT_TRUE(checkPointerArgument(
                  0,
                  0x1000,
                  ZE_RESULT_SUCCESS,
                  ZE_MEMORY_TYPE_HOST,
                  nullptr,
                  fakeDevice(8))
                  .ok());
}

TEST(PointerCheck, RejectsHostMemoryNamingTheIndex) {
  auto status = checkPointerArgument(
      3,
      0xdead0,
      ZE_RESULT_SUCCESS,
      ZE_MEMORY_TYPE_UNKNOWN,
      nullptr,
      fakeDevice(8));
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("argument 3"), std::string::npos);
  EXPECT_NE(status.error().message().find("0xdead0"), std::string::npos);
}

TEST(PointerCheck, RejectsOtherDeviceAndFailedQuery) {
  EXPECT_FALSE(checkPointerArgument(
                   1,
                   0x1000,
                   ZE_RESULT_SUCCESS,
                   ZE_MEMORY_TYPE_DEVICE,
                   fakeDevice(16),
                   fakeDevice(8))
                   .ok());
  EXPECT_FALSE(checkPointerArgument(
                   1,
                   0x1000,
                   ZE_RESULT_ERROR_INVALID_ARGUMENT,
                   ZE_MEMORY_TYPE_DEVICE,
                   fakeDevice(8),
                   fakeDevice(8))
                   .ok());
}

} // namespace
} // namespace launcher
} // namespace xsl
