#include "launcher/geometry.h"

#include <string>

namespace xsl {
namespace launcher {
namespace {

constexpr int64_t kMaxGroupCount = UINT32_MAX;

std::string gridText(int64_t x, int64_t y, int64_t z) {
  return "(" + std::to_string(x) + ", " + std::to_string(y) + ", " +
      std::to_string(z) + ")";
}

} // namespace

Expected<LaunchGeometry> computeLaunchGeometry(
    int64_t grid_x,
    int64_t grid_y,
    int64_t grid_z,
    int64_t num_warps,
    uint32_t threads_per_warp) {
  if (grid_x < 0 || grid_y < 0 || grid_z < 0) {
    return Error(
        "grid " + gridText(grid_x, grid_y, grid_z) +
        " has a negative dimension; grid sizes count work-groups and must be "
        ">= 0");
  }
  if (grid_x > kMaxGroupCount || grid_y > kMaxGroupCount ||
      grid_z > kMaxGroupCount) {
    return Error(
        "grid " + gridText(grid_x, grid_y, grid_z) +
        " exceeds 4294967295 work-groups in one dimension, the Level Zero "
        "limit; split the launch");
  }
  if (num_warps < 1) {
    return Error(
        "num_warps = " + std::to_string(num_warps) +
        " must be >= 1; it comes from the kernel's compile metadata");
  }
  if (threads_per_warp == 0) {
    return Error("threads_per_warp is 0; the kernel metadata is invalid");
  }
  uint64_t group_size = 0;
  if (!checkedMultiply(
          static_cast<uint64_t>(num_warps), threads_per_warp, &group_size) ||
      group_size > UINT32_MAX) {
    return Error(
        "num_warps * threads_per_warp = " + std::to_string(num_warps) + " * " +
        std::to_string(threads_per_warp) +
        " does not fit a 32-bit work-group size; use fewer warps");
  }
  LaunchGeometry geometry;
  geometry.group_count_x = static_cast<uint32_t>(grid_x);
  geometry.group_count_y = static_cast<uint32_t>(grid_y);
  geometry.group_count_z = static_cast<uint32_t>(grid_z);
  geometry.group_size_x = static_cast<uint32_t>(group_size);
  if (!checkedMultiply(
          geometry.group_count_x, group_size, &geometry.global_size_x)) {
    return Error(
        "grid_x * group size overflows 64 bits; reduce grid_x or num_warps");
  }
  geometry.global_size_y = geometry.group_count_y;
  geometry.global_size_z = geometry.group_count_z;
  return geometry;
}

} // namespace launcher
} // namespace xsl
