#include "launcher/triton_metadata.h"

#include <atomic>
#include <cctype>
#include <string>

namespace xsl {
namespace launcher {
namespace {

std::atomic<int> process_rule{static_cast<int>(TritonMetadataRule::kBytes)};

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

Expected<TritonMetadataRule> tritonMetadataRuleFor(std::string_view version) {
  size_t pos = 0;
  int major = 0;
  int minor = 0;
  if (!readNumber(version, pos, major) || pos >= version.size() ||
      version[pos] != '.' || !readNumber(version, ++pos, minor)) {
    return Error(
        "Triton version '" + std::string(version) +
        "' does not start with MAJOR.MINOR: pass triton.__version__");
  }
  if (major > 3 || (major == 3 && minor >= 9)) {
    return TritonMetadataRule::kPerLane;
  }
  return TritonMetadataRule::kBytes;
}

const char* tritonMetadataRuleName(TritonMetadataRule rule) noexcept {
  return rule == TritonMetadataRule::kPerLane ? "per-lane" : "bytes";
}

TritonMetadataRule tritonMetadataRule() noexcept {
  return static_cast<TritonMetadataRule>(
      process_rule.load(std::memory_order_relaxed));
}

void setTritonMetadataRule(TritonMetadataRule rule) noexcept {
  process_rule.store(static_cast<int>(rule), std::memory_order_relaxed);
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
