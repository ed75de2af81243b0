#pragma once

// Launching a LoadedKernel through Level Zero: set the arguments of the plan
// (skipping values the kernel handle already holds), the group size, bind
// null scratch pointers and dynamic shared memory, and append the launch to
// an immediate command list. No Python, no SYCL.

#include <cstdint>

#include <level_zero/ze_api.h>

#include "common/expected.h"
#include "launcher/arg_plan.h"
#include "launcher/geometry.h"
#include "launcher/loaded_kernel.h"

namespace xsl {
namespace launcher {

// What the caller knows about the kernel handle's argument values.
enum class HeldArgs {
  kUnknown,  // compare and set what differs
  kVerified, // kernel.holdsArgs(plan, storage) was true just before the call
};

// One launch of a kernel, as every launch path takes it: `storage` holds one
// packed slot per plan.args entry; `shared_bytes` is the dynamic shared
// memory size (bound only if the plan binds_shared_memory).
struct LaunchRequest {
  const ArgPlan& plan;
  const ArgStorage& storage;
  const LaunchGeometry& geometry;
  uint32_t shared_bytes = 0;
};

// `command_list` must be an immediate command list of the kernel's context.
Status launchOnCommandList(
    LoadedKernel& kernel,
    const LaunchRequest& launch,
    ze_command_list_handle_t command_list,
    HeldArgs held_args = HeldArgs::kUnknown);

} // namespace launcher
} // namespace xsl
