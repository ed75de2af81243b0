#include "launcher/triton_metadata.h"

#include <atomic>
#include <cctype>
#include <string>

namespace xsl {
namespace launcher {
namespace {

// The process-wide release, packed: bit 0 kPerLane, bit 1 retries a failed
// build, bit 2 uses the retried module.
std::atomic<int> process_release{6};

bool contains(std::string_view text, std::string_view word) {
  return text.find(word) != std::string_view::npos;
}

// The digits at `pos`, advancing it; false when there are none.
bool readNumber(std::string_view text, size_t& pos, int& value) {
  const size_t start = pos;
  value = 0;
  while (pos < text.size() && pos - start < 6 &&
         std::isdigit(static_cast<unsigned char>(text[pos])) != 0) {
    value = value * 10 + (text[pos] - '0');
    ++pos;
  }
  return pos > start;
}

} // namespace

Expected<TritonRelease> tritonReleaseFor(std::string_view version) {
  size_t pos = 0;
  int major = 0;
  int minor = 0;
  int patch = 0;
  if (!readNumber(version, pos, major) || pos >= version.size() ||
      version[pos] != '.' || !readNumber(version, ++pos, minor)) {
    return Error(
        "Triton version '" + std::string(version) +
        "' does not start with MAJOR.MINOR: pass triton.__version__");
  }
  if (pos < version.size() && version[pos] == '.') {
    ++pos;
    readNumber(version, pos, patch);
  }
  const auto at_least = [major, minor, patch](int a, int b, int c) {
    return major != a ? major > a : minor != b ? minor > b : patch >= c;
  };
  TritonRelease release;
  release.rule = at_least(3, 9, 0) ? TritonMetadataRule::kPerLane
                                   : TritonMetadataRule::kBytes;
  release.retries_failed_build = at_least(3, 7, 1);
  release.uses_retried_module = at_least(3, 4, 0);
  return release;
}

Expected<TritonMetadataRule> tritonMetadataRuleFor(std::string_view version) {
  Expected<TritonRelease> release = tritonReleaseFor(version);
  if (!release) {
    return std::move(release).error();
  }
  return release->rule;
}

const char* tritonMetadataRuleName(TritonMetadataRule rule) noexcept {
  return rule == TritonMetadataRule::kPerLane ? "per-lane" : "bytes";
}

TritonRelease tritonRelease() noexcept {
  const int packed = process_release.load(std::memory_order_relaxed);
  TritonRelease release;
  release.rule = (packed & 1) != 0 ? TritonMetadataRule::kPerLane
                                   : TritonMetadataRule::kBytes;
  release.retries_failed_build = (packed & 2) != 0;
  release.uses_retried_module = (packed & 4) != 0;
  return release;
}

void setTritonRelease(const TritonRelease& release) noexcept {
  process_release.store(
      (release.rule == TritonMetadataRule::kPerLane ? 1 : 0) |
          (release.retries_failed_build ? 2 : 0) |
          (release.uses_retried_module ? 4 : 0),
      std::memory_order_relaxed);
}

TritonMetadataRule tritonMetadataRule() noexcept {
  return tritonRelease().rule;
}

bool namesGrfMode(std::string_view build_flags) noexcept {
  return contains(build_flags, "-cl-intel-256-GRF-per-thread") ||
      contains(build_flags, "-cl-intel-128-GRF-per-thread") ||
      contains(build_flags, "-cl-intel-512-GRF-per-thread") ||
      contains(build_flags, "-cl-intel-enable-auto-large-GRF-mode");
}

bool spillsForLargeGrfRetry(
    TritonMetadataRule rule,
    uint32_t spill_mem_size,
    uint32_t required_sub_group_size,
    uint32_t max_sub_group_size) noexcept {
  if (rule == TritonMetadataRule::kBytes) {
    return spill_mem_size > 1000;
  }
  return tritonSpillCount(
             rule,
             spill_mem_size,
             required_sub_group_size,
             max_sub_group_size) > 16;
}

int64_t tritonRegisterCount(
    TritonMetadataRule rule,
    std::string_view build_flags) noexcept {
  const bool per_lane = rule == TritonMetadataRule::kPerLane;
  if (per_lane && contains(build_flags, "-cl-intel-512-GRF-per-thread")) {
    return 512;
  }
  if (contains(build_flags, "-cl-intel-256-GRF-per-thread")) {
    return 256;
  }
  if (contains(build_flags, "-cl-intel-128-GRF-per-thread")) {
    return 128;
  }
  return per_lane ? 128 : 0;
}

int64_t tritonSpillCount(
    TritonMetadataRule rule,
    uint32_t spill_mem_size,
    uint32_t required_sub_group_size,
    uint32_t max_sub_group_size) noexcept {
  if (rule == TritonMetadataRule::kBytes) {
    return spill_mem_size;
  }
  const uint32_t sub_group = required_sub_group_size != 0
      ? required_sub_group_size
      : max_sub_group_size;
  if (spill_mem_size == 0 || sub_group == 0) {
    return spill_mem_size;
  }
  return static_cast<int64_t>(spill_mem_size) /
      (int64_t{4} * static_cast<int64_t>(sub_group));
}

} // namespace launcher
} // namespace xsl
