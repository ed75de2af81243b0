#include "launcher/ze_launch.h"

#include <cstring>
#include <string>

#include "level_zero/result.h"

namespace xsl {
namespace launcher {
namespace {

// Sets argument `index` to the full 8-byte slot `value` (arg_plan.h: zeros
// above `size`) and records it in the cache.
Status setArg(
    const level_zero::Kernel& kernel,
    LoadedKernel::SetArgCache& cache,
    uint32_t index,
    uint32_t size,
    const void* value) {
  // Forget the cached value first: if the call fails, the handle's state is
  // unknown and the next launch must set it again.
  cache.sizes[index] = 0;
  Status status = kernel.setArgumentValue(index, size, value);
  if (!status) {
    return Error(
        "kernel '" + kernel.name() + "': argument " + std::to_string(index) +
        ": " + status.error().message());
  }
  std::memcpy(&cache.values[index], value, sizeof(uint64_t));
  cache.sizes[index] = size;
  return Status::success();
}

// True when the kernel handle already holds these bytes (inline: the common
// case of a launch loop, where most arguments repeat).
inline bool isSet(
    const LoadedKernel::SetArgCache& cache,
    uint32_t index,
    uint32_t size,
    const void* value) {
  uint64_t bits = 0;
  std::memcpy(&bits, value, sizeof(bits));
  return cache.sizes[index] == size && cache.values[index] == bits;
}

} // namespace

Status launchOnCommandList(
    LoadedKernel& kernel,
    const ArgPlan& plan,
    const ArgStorage& storage,
    const LaunchGeometry& geometry,
    uint32_t shared_bytes,
    ze_command_list_handle_t command_list) {
  const level_zero::Kernel& ze_kernel = kernel.kernel();
  LoadedKernel::SetArgCache& cache = kernel.setArgCache();
  const uint32_t arg_count = plan.kernelArgCount();
  if (cache.sizes.size() != arg_count) {
    cache.sizes.assign(arg_count, 0);
    cache.values.assign(arg_count, 0);
  }

  const uint32_t passed = static_cast<uint32_t>(plan.args.size());
  for (uint32_t i = 0; i < passed; ++i) {
    const uint32_t size = plan.args[i].size;
    const void* slot = storage.slot(i);
    if (!isSet(cache, i, size, slot)) {
      Status status = setArg(ze_kernel, cache, i, size, slot);
      if (!status) {
        return status;
      }
    }
  }
  const uint64_t null_pointer = 0;
  for (uint32_t i = passed; i < passed + plan.null_pointer_args; ++i) {
    if (!isSet(cache, i, 8, &null_pointer)) {
      Status status = setArg(ze_kernel, cache, i, 8, &null_pointer);
      if (!status) {
        return status;
      }
    }
  }
  if (plan.binds_shared_memory) {
    if (shared_bytes == 0) {
      return Error(
          "kernel '" + kernel.name() +
          "' takes a dynamic shared memory argument but shared is 0; pass "
          "the kernel's metadata.shared");
    }
    // Local memory arguments: the size is the value, the pointer is null.
    const uint32_t index = plan.sharedMemoryArgIndex();
    if (cache.sizes[index] != shared_bytes) {
      cache.sizes[index] = 0;
      Status status = ze_kernel.setArgumentValue(index, shared_bytes, nullptr);
      if (!status) {
        return status;
      }
      cache.sizes[index] = shared_bytes;
    }
  }
  if (cache.group_size_x != geometry.group_size_x) {
    cache.group_size_x = 0;
    Status status = ze_kernel.setGroupSize(geometry.group_size_x, 1, 1);
    if (!status) {
      return status;
    }
    cache.group_size_x = geometry.group_size_x;
  }

  ze_group_count_t group_count = {
      geometry.group_count_x, geometry.group_count_y, geometry.group_count_z};
  const ze_result_t result =
      kernel.context().api().zeCommandListAppendLaunchKernel(
          command_list, ze_kernel.handle(), &group_count, nullptr, 0, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return level_zero::zeError(
        "zeCommandListAppendLaunchKernel",
        result,
        "kernel '" + kernel.name() + "'");
  }
  return Status::success();
}

} // namespace launcher
} // namespace xsl
