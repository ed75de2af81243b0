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

TEST(TritonRelease, RetrySemanticsFollowTheRelease) {
  struct Row {
    const char* version;
    bool per_lane;
    bool retries_failed_build;
    bool uses_retried_module;
  };
  const Row rows[] = {
      {"3.3.0b1", false, false, false},
      {"3.4.0b1", false, false, true},
      {"3.7.0", false, false, true},
      {"3.7.1", false, true, true},
      {"3.7.2+git5fcc14d9", false, true, true},
      {"3.8.0", false, true, true},
      {"3.9.0", true, true, true},
  };
  for (const Row& row : rows) {
    auto release = tritonReleaseFor(row.version);
    ASSERT_TRUE(release.ok()) << row.version;
    EXPECT_EQ(release->rule == kPerLane, row.per_lane) << row.version;
    EXPECT_EQ(release->retries_failed_build, row.retries_failed_build)
        << row.version;
    EXPECT_EQ(release->uses_retried_module, row.uses_retried_module)
        << row.version;
  }
}

TEST(TritonRelease, GrfModesAndTheRetryThreshold) {
  EXPECT_FALSE(namesGrfMode(""));
  EXPECT_FALSE(namesGrfMode("-cl-fp32-correctly-rounded-divide-sqrt"));
  EXPECT_TRUE(namesGrfMode(" -cl-intel-256-GRF-per-thread"));
  EXPECT_TRUE(namesGrfMode("-cl-intel-128-GRF-per-thread"));
  EXPECT_TRUE(namesGrfMode("-cl-intel-enable-auto-large-GRF-mode"));
  EXPECT_FALSE(spillsForLargeGrfRetry(kBytes, 1000, 16, 16));
  EXPECT_TRUE(spillsForLargeGrfRetry(kBytes, 1001, 16, 16));
  // Per lane: 16 * 4 * 16 = 1024 bytes is 16 (no retry), 1088 is 17.
  EXPECT_FALSE(spillsForLargeGrfRetry(kPerLane, 1024, 16, 16));
  EXPECT_TRUE(spillsForLargeGrfRetry(kPerLane, 1088, 16, 16));
  EXPECT_FALSE(spillsForLargeGrfRetry(kPerLane, 2048, 0, 32));
}

TEST(TritonRelease, ProcessReleaseIsSettable) {
  const TritonRelease before = tritonRelease();
  TritonRelease release;
  release.rule = kPerLane;
  release.retries_failed_build = false;
  release.uses_retried_module = false;
  setTritonRelease(release);
  EXPECT_EQ(tritonMetadataRule(), kPerLane);
  EXPECT_FALSE(tritonRelease().retries_failed_build);
  EXPECT_FALSE(tritonRelease().uses_retried_module);
  setTritonRelease(before);
  EXPECT_EQ(tritonRelease().uses_retried_module, before.uses_retried_module);
}

} // namespace
} // namespace launcher
} // namespace xsl
