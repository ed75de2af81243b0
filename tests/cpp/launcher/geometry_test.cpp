#include "launcher/geometry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace xsl {
namespace launcher {
namespace {

TEST(LaunchGeometry, TritonFormula) {
  auto geometry = computeLaunchGeometry(10, 3, 2, 4, 16);
  ASSERT_TRUE(geometry.ok());
  EXPECT_EQ(geometry->group_count_x, 10u);
  EXPECT_EQ(geometry->group_count_y, 3u);
  EXPECT_EQ(geometry->group_count_z, 2u);
  EXPECT_EQ(geometry->group_size_x, 64u);
  EXPECT_EQ(geometry->global_size_x, 640u);
  EXPECT_EQ(geometry->global_size_y, 3u);
  EXPECT_EQ(geometry->global_size_z, 2u);
  EXPECT_FALSE(geometry->empty());
}

TEST(LaunchGeometry, ZeroDimensionIsEmptyNotError) {
  for (int dim = 0; dim < 3; ++dim) {
    auto geometry = computeLaunchGeometry(
        dim == 0 ? 0 : 5, dim == 1 ? 0 : 5, dim == 2 ? 0 : 5, 4, 32);
    ASSERT_TRUE(geometry.ok());
    EXPECT_TRUE(geometry->empty());
  }
}

TEST(LaunchGeometry, NegativeIsAnError) {
  // (-1, -1, 1) has a positive product: the upstream int check lets it
  // through.
  auto geometry = computeLaunchGeometry(-1, -1, 1, 4, 32);
  ASSERT_FALSE(geometry.ok());
  EXPECT_NE(geometry.error().message().find("(-1, -1, 1)"), std::string::npos);
  EXPECT_FALSE(computeLaunchGeometry(1, 1, -7, 4, 32).ok());
}

TEST(LaunchGeometry, LargeGridsDoNotOverflow) {
  // 65536^3 overflows a 32-bit (and the upstream signed int) product.
  auto geometry = computeLaunchGeometry(65536, 65536, 65536, 8, 32);
  ASSERT_TRUE(geometry.ok());
  EXPECT_EQ(geometry->global_size_x, uint64_t{65536} * 256);
  auto widest = computeLaunchGeometry(UINT32_MAX, 1, 1, 32, 32);
  ASSERT_TRUE(widest.ok());
  EXPECT_EQ(widest->global_size_x, uint64_t{UINT32_MAX} * 1024);
  auto too_wide = computeLaunchGeometry(int64_t{UINT32_MAX} + 1, 1, 1, 4, 32);
  ASSERT_FALSE(too_wide.ok());
  EXPECT_FALSE(computeLaunchGeometry(1, INT64_MAX, 1, 4, 32).ok());
}

TEST(LaunchGeometry, WarpChecks) {
  EXPECT_FALSE(computeLaunchGeometry(1, 1, 1, 0, 32).ok());
  EXPECT_FALSE(computeLaunchGeometry(1, 1, 1, -4, 32).ok());
  EXPECT_FALSE(computeLaunchGeometry(1, 1, 1, 4, 0).ok());
  EXPECT_FALSE(computeLaunchGeometry(1, 1, 1, INT64_MAX, 32).ok());
  EXPECT_FALSE(
      computeLaunchGeometry(1, 1, 1, int64_t{1} << 28, 32).ok()); // 2^33
}

TEST(CheckedMultiply, DetectsOverflow) {
  uint64_t product = 0;
  EXPECT_TRUE(checkedMultiply(UINT32_MAX, UINT32_MAX, &product));
  EXPECT_FALSE(checkedMultiply(uint64_t{1} << 32, uint64_t{1} << 32, &product));
  EXPECT_TRUE(checkedMultiply(0, UINT64_MAX, &product));
  EXPECT_EQ(product, 0u);
}

} // namespace
} // namespace launcher
} // namespace xsl
