#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <variant>

#include "common/expected.h"

namespace {

xsl::Expected<int> parsePositive(int value) {
  if (value <= 0) {
    return xsl::Error("value " + std::to_string(value) + " is not positive");
  }
  return value;
}

TEST(Expected, HoldsValue) {
  auto result = parsePositive(3);
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, 3);
}

TEST(Expected, HoldsErrorWithContext) {
  auto result = parsePositive(-1);
  ASSERT_FALSE(result.ok());
  xsl::Error wrapped = result.error().withContext("kernel.zebin");
  EXPECT_EQ(wrapped.message(), "kernel.zebin: value -1 is not positive");
}

TEST(Expected, MovesOutMoveOnlyValues) {
  xsl::Expected<std::unique_ptr<int>> result(std::make_unique<int>(7));
  std::unique_ptr<int> owned = std::move(result).value();
  ASSERT_NE(owned, nullptr);
  EXPECT_EQ(*owned, 7);
}

TEST(Expected, ValueOnErrorThrowsInsteadOfReadingGarbage) {
  auto result = parsePositive(0);
  EXPECT_THROW(result.value(), std::bad_variant_access);
}

TEST(Status, SuccessAndError) {
  xsl::Status ok = xsl::Status::success();
  EXPECT_TRUE(ok.ok());
  xsl::Status failed = xsl::Error("no device");
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().message(), "no device");
}

} // namespace
