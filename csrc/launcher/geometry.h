#pragma once

// Launch geometry, computed in 64-bit with every product checked. Triton's
// grid counts work-groups: global X = grid_x * threads_per_warp * num_warps,
// local X = num_warps * threads_per_warp, Y and Z are grid_y/grid_z groups of
// one work-item each.

#include <cstdint>

#include "common/expected.h"

namespace xsl {
namespace launcher {

struct LaunchGeometry {
  // Level Zero ze_group_count_t and zeKernelSetGroupSize.
  uint32_t group_count_x = 0;
  uint32_t group_count_y = 0;
  uint32_t group_count_z = 0;
  uint32_t group_size_x = 0;
  // SYCL nd_range global sizes (group count * group size per dimension).
  uint64_t global_size_x = 0;
  uint64_t global_size_y = 0;
  uint64_t global_size_z = 0;

  // A grid with a zero dimension launches nothing (upstream behaviour).
  bool empty() const noexcept {
    return group_count_x == 0 || group_count_y == 0 || group_count_z == 0;
  }
};

// Negative dimensions, num_warps < 1, and anything that does not fit the
// 32-bit Level Zero fields are errors naming the offending value.
Expected<LaunchGeometry> computeLaunchGeometry(
    int64_t grid_x,
    int64_t grid_y,
    int64_t grid_z,
    int64_t num_warps,
    uint32_t threads_per_warp);

// a * b, or false when it overflows 64 bits.
inline bool checkedMultiply(uint64_t a, uint64_t b, uint64_t* product) {
  if (a != 0 && b > UINT64_MAX / a) {
    return false;
  }
  *product = a * b;
  return true;
}

} // namespace launcher
} // namespace xsl
