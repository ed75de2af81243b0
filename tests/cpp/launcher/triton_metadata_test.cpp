#include "launcher/triton_metadata.h"

#include <gtest/gtest.h>

namespace xsl {
namespace launcher {
namespace {

constexpr TritonMetadataRule kBytes = TritonMetadataRule::kBytes;
constexpr TritonMetadataRule kPerLane = TritonMetadataRule::kPerLane;

TEST(TritonMetadataRule, FollowsTheTritonRelease) {
  const char* bytes_versions[] = {
      "3.3.0b1", "3.3.0", "3.4.0b1", "3.7.2+git5fcc14d9", "3.8.0", "2.1.0"};
  for (const char* version : bytes_versions) {
    auto rule = tritonMetadataRuleFor(version);
    ASSERT_TRUE(rule.ok()) << version;
    EXPECT_EQ(*rule, kBytes) << version;
  }
  const char* per_lane_versions[] = {
      "3.9.0", "3.9.0+git00b9d1ae", "3.10.1", "4.0"};
  for (const char* version : per_lane_versions) {
    auto rule = tritonMetadataRuleFor(version);
    ASSERT_TRUE(rule.ok()) << version;
    EXPECT_EQ(*rule, kPerLane) << version;
  }
  for (const char* bad : {"", "three", "3", "3.", ".9", "v3.9.0"}) {
    auto rule = tritonMetadataRuleFor(bad);
    ASSERT_FALSE(rule.ok()) << bad;
    EXPECT_NE(rule.error().message().find("MAJOR.MINOR"), std::string::npos);
  }
  EXPECT_STREQ(tritonMetadataRuleName(kBytes), "bytes");
  EXPECT_STREQ(tritonMetadataRuleName(kPerLane), "per-lane");
}

// BuildFlags::n_regs of Triton-XPU 3.3-3.8 (driver.c): 0 without a flag.
TEST(TritonRegisterCount, BytesRuleFollowsTheGrfFlag) {
  EXPECT_EQ(tritonRegisterCount(kBytes, ""), 0);
  EXPECT_EQ(
      tritonRegisterCount(kBytes, "-cl-fp32-correctly-rounded-divide-sqrt"), 0);
  EXPECT_EQ(tritonRegisterCount(kBytes, " -cl-intel-256-GRF-per-thread"), 256);
  EXPECT_EQ(
      tritonRegisterCount(
          kBytes,
          "-cl-fp32-correctly-rounded-divide-sqrt -cl-intel-128-GRF-per-thread"),
      128);
  // Triton's spill retry appends the large flag to a small one: large wins.
  EXPECT_EQ(
      tritonRegisterCount(
          kBytes, "-cl-intel-128-GRF-per-thread -cl-intel-256-GRF-per-thread"),
      256);
  EXPECT_EQ(
      tritonRegisterCount(kBytes, "-cl-intel-enable-auto-large-GRF-mode"), 0);
  EXPECT_EQ(tritonRegisterCount(kBytes, "-cl-intel-512-GRF-per-thread"), 0);
}

// From 3.9 (#7416: 128 by default; #7551: 512).
TEST(TritonRegisterCount, PerLaneRuleDefaultsTo128AndKnows512) {
  EXPECT_EQ(tritonRegisterCount(kPerLane, ""), 128);
  EXPECT_EQ(
      tritonRegisterCount(kPerLane, "-cl-intel-enable-auto-large-GRF-mode"),
      128);
  EXPECT_EQ(tritonRegisterCount(kPerLane, "-cl-intel-128-GRF-per-thread"), 128);
  EXPECT_EQ(tritonRegisterCount(kPerLane, "-cl-intel-256-GRF-per-thread"), 256);
  EXPECT_EQ(tritonRegisterCount(kPerLane, "-cl-intel-512-GRF-per-thread"), 512);
}

TEST(TritonSpillCount, BytesRuleIsTheDriversBytes) {
  EXPECT_EQ(tritonSpillCount(kBytes, 0, 16, 16), 0);
  EXPECT_EQ(tritonSpillCount(kBytes, 4160, 16, 32), 4160);
}

// #7950: spillMemSize / (4 * sub-group size), truncated; the required
// sub-group size first, else the compiled SIMD width; no size: bytes.
TEST(TritonSpillCount, PerLaneRuleDividesByFourTimesTheSubGroup) {
  EXPECT_EQ(tritonSpillCount(kPerLane, 4160, 16, 32), 65);
  EXPECT_EQ(tritonSpillCount(kPerLane, 4160, 0, 32), 32); // 32.5 truncated
  EXPECT_EQ(tritonSpillCount(kPerLane, 63, 16, 16), 0);
  EXPECT_EQ(tritonSpillCount(kPerLane, 64, 16, 16), 1);
  EXPECT_EQ(tritonSpillCount(kPerLane, 0, 16, 16), 0);
  EXPECT_EQ(tritonSpillCount(kPerLane, 100, 0, 0), 100);
}

TEST(TritonMetadataRule, ProcessRuleIsSettable) {
  const TritonMetadataRule before = tritonMetadataRule();
  setTritonMetadataRule(kPerLane);
  EXPECT_EQ(tritonMetadataRule(), kPerLane);
  setTritonMetadataRule(kBytes);
  EXPECT_EQ(tritonMetadataRule(), kBytes);
  setTritonMetadataRule(before);
}

} // namespace
} // namespace launcher
} // namespace xsl
