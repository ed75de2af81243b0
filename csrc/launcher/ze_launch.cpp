#include "launcher/ze_launch.h"

#include <cstring>
#include <string>

#include "level_zero/result.h"

#if defined(_MSC_VER)
#define XSL_LAUNCH_NOINLINE __declspec(noinline)
#else
#define XSL_LAUNCH_NOINLINE __attribute__((noinline))
#endif

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

// Sets every argument `plan` binds (its values, then the null scratch
// pointers) whose bytes differ from what the kernel handle holds.
Status setChangedArgs(
    const level_zero::Kernel& kernel,
    LoadedKernel::SetArgCache& cache,
    const ArgPlan& plan,
    const uint64_t* values) {
  cache.all_set_for = nullptr;
  const uint32_t passed = static_cast<uint32_t>(plan.args.size());
  for (uint32_t i = 0; i < passed; ++i) {
    const uint32_t size = plan.args[i].size;
    if (cache.sizes[i] != size || cache.values[i] != values[i]) {
      Status status = setArg(kernel, cache, i, size, &values[i]);
      if (!status) {
        return status;
      }
    }
  }
  const uint64_t null_pointer = 0;
  for (uint32_t i = passed; i < passed + plan.null_pointer_args; ++i) {
    if (cache.sizes[i] != 8 || cache.values[i] != 0) {
      Status status = setArg(kernel, cache, i, 8, &null_pointer);
      if (!status) {
        return status;
      }
    }
  }
  cache.all_set_for = &plan;
  return Status::success();
}

// The rarely taken steps of a launch, out of line so the common path (all
// arguments, shared memory and group size unchanged) keeps a small frame.
XSL_LAUNCH_NOINLINE Status bindSharedMemory(
    const LoadedKernel& kernel,
    LoadedKernel::SetArgCache& cache,
    const ArgPlan& plan,
    uint32_t shared_bytes) {
  if (shared_bytes == 0) {
    return Error(
        "kernel '" + kernel.name() +
        "' takes a dynamic shared memory argument but shared is 0; pass "
        "the kernel's metadata.shared");
  }
  // Local memory arguments: the size is the value, the pointer is null.
  const uint32_t index = plan.sharedMemoryArgIndex();
  cache.sizes[index] = 0;
  Status status =
      kernel.kernel().setArgumentValue(index, shared_bytes, nullptr);
  if (!status) {
    return status;
  }
  cache.sizes[index] = shared_bytes;
  return Status::success();
}

XSL_LAUNCH_NOINLINE Status setGroupSize(
    const level_zero::Kernel& kernel,
    LoadedKernel::SetArgCache& cache,
    uint32_t group_size_x) {
  cache.group_size_x = 0;
  Status status = kernel.setGroupSize(group_size_x, 1, 1);
  if (!status) {
    return status;
  }
  cache.group_size_x = group_size_x;
  return Status::success();
}

XSL_LAUNCH_NOINLINE Status
appendError(const LoadedKernel& kernel, ze_result_t result) {
  return level_zero::zeError(
      "zeCommandListAppendLaunchKernel",
      result,
      "kernel '" + kernel.name() + "'");
}

} // namespace

Status launchOnCommandList(
    LoadedKernel& kernel,
    const LaunchRequest& launch,
    ze_command_list_handle_t command_list,
    HeldArgs held_args) {
  const ArgPlan& plan = launch.plan;
  const LaunchGeometry& geometry = launch.geometry;
  const level_zero::Kernel& ze_kernel = kernel.kernel();
  LoadedKernel::SetArgCache& cache = kernel.setArgCache();
  const uint32_t arg_count = plan.kernelArgCount();
  if (cache.sizes.size() != arg_count) {
    cache.sizes.assign(arg_count, 0);
    cache.values.assign(arg_count, 0);
    cache.all_set_for = nullptr;
  }

  // Only arguments whose bytes differ from what the kernel handle holds are
  // set; a launch loop usually repeats all of them (one memcmp).
  if (held_args != HeldArgs::kVerified &&
      !kernel.holdsArgs(plan, launch.storage)) {
    Status status =
        setChangedArgs(ze_kernel, cache, plan, launch.storage.values());
    if (!status) {
      return status;
    }
  }
  if (plan.binds_shared_memory &&
      (launch.shared_bytes == 0 ||
       cache.sizes[plan.sharedMemoryArgIndex()] != launch.shared_bytes)) {
    Status status = bindSharedMemory(kernel, cache, plan, launch.shared_bytes);
    if (!status) {
      return status;
    }
  }
  if (cache.group_size_x != geometry.group_size_x) {
    Status status = setGroupSize(ze_kernel, cache, geometry.group_size_x);
    if (!status) {
      return status;
    }
  }

  ze_group_count_t group_count = {
      geometry.group_count_x, geometry.group_count_y, geometry.group_count_z};
  const ze_result_t result =
      kernel.context().api().zeCommandListAppendLaunchKernel(
          command_list, ze_kernel.handle(), &group_count, nullptr, 0, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return appendError(kernel, result);
  }
  return Status::success();
}

} // namespace launcher
} // namespace xsl
