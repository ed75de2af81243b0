#pragma once

// n_regs and n_spills as Triton-XPU's own loader reports them
// (third_party/intel/backend/driver.c), by release. A static launch and a
// Triton launch of the same binary must report the same numbers: Inductor
// compares n_spills with config.triton.spill_threshold (16) and gates fusion
// on it, so warm and cold starts would otherwise choose differently.
// Sources per rule: docs/launcher.md ("Metadata: n_regs and n_spills").

#include <cstdint>
#include <string>
#include <string_view>

#include "common/expected.h"

namespace xsl {
namespace launcher {

enum class TritonMetadataRule {
  // Triton-XPU 3.3 through 3.8 (torch 2.13 pins 3.7.2): n_regs is 256 for
  // -cl-intel-256-GRF-per-thread, else 128 for -cl-intel-128-GRF-per-thread,
  // else 0; n_spills is zeKernelGetProperties().spillMemSize in bytes.
  kBytes,
  // Triton-XPU 3.9 on (#7416, #7551, #7950): n_regs is 512 for
  // -cl-intel-512-GRF-per-thread, 256, 128 as above, else 128; n_spills is
  // spillMemSize / (4 * sub-group size), truncated (dword-equivalents per
  // lane), the sub-group size being requiredSubgroupSize, else
  // maxSubgroupSize; 0 bytes or an unknown size give the bytes.
  kPerLane,
};

// Triton-XPU's load_binary builds SPIR-V that names no GRF mode (no
// -cl-intel-{128,256}-GRF-per-thread, no -cl-intel-enable-auto-large-GRF-
// mode) a second time with kTritonLargeGrfFlag appended (" " + flag), when
// the first build failed (3.7.1 on) or spills over the threshold (more
// than 1000 bytes before 3.9; more than 16 per lane from 3.9, #7959).
// From 3.4 the second module replaces the first; 3.3 keeps the first
// module and its spills but reports n_regs of the flags with the large
// flag added (the retry's result lands in shadowing variables).
constexpr const char* kTritonLargeGrfFlag = "-cl-intel-256-GRF-per-thread";

struct TritonRelease {
  TritonMetadataRule rule = TritonMetadataRule::kBytes;
  bool retries_failed_build = true;
  bool uses_retried_module = true;
};

// The release `version` ("3.3.0b1", "3.7.2+git5fcc14d9", "3.9.0") behaves
// as. One error for text that is not a version.
Expected<TritonRelease> tritonReleaseFor(std::string_view version);
// Its n_regs/n_spills rule: kBytes below 3.9, kPerLane from 3.9.
Expected<TritonMetadataRule> tritonMetadataRuleFor(std::string_view version);

// "bytes" / "per-lane".
const char* tritonMetadataRuleName(TritonMetadataRule rule) noexcept;

// The process-wide release the bindings load and report as (default: 3.8,
// the last release of the bytes rule, whose retry torch 2.13's 3.7.2
// shares); set by the Python package from the installed Triton, or the
// installed torch's pinned one.
TritonRelease tritonRelease() noexcept;
void setTritonRelease(const TritonRelease& release) noexcept;
TritonMetadataRule tritonMetadataRule() noexcept;

// Whether `build_flags` name a GRF mode (then Triton never retries).
bool namesGrfMode(std::string_view build_flags) noexcept;

// Whether a build with these kernel properties spills enough for the
// large-GRF retry.
bool spillsForLargeGrfRetry(
    TritonMetadataRule rule,
    uint32_t spill_mem_size,
    uint32_t required_sub_group_size,
    uint32_t max_sub_group_size) noexcept;

// n_regs for a module built (or loaded) with `build_flags`.
int64_t tritonRegisterCount(
    TritonMetadataRule rule,
    std::string_view build_flags) noexcept;

// n_spills from zeKernelGetProperties.
int64_t tritonSpillCount(
    TritonMetadataRule rule,
    uint32_t spill_mem_size,
    uint32_t required_sub_group_size,
    uint32_t max_sub_group_size) noexcept;

} // namespace launcher
} // namespace xsl
