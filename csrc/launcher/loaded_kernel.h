#pragma once

// A kernel loaded for static launching: the Level Zero module and kernel made
// from a zebin file, the metadata Inductor asks for (n_regs, n_spills), the
// argument plan cache, and the pointer check. Used by the Python extension
// (launch through Level Zero, ze_launch.h) and by the PyTorch glue (launch
// through SYCL), so both load and validate identically.
//
// Threading: a LoadedKernel is not internally locked. Level Zero argument
// state lives on the kernel handle, so launches of one kernel must be
// serialized; the Python binding holds the GIL for the whole launch.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "launcher/arg_plan.h"
#include "level_zero/level_zero.h"

namespace xsl {
namespace launcher {

// What Triton-XPU's launcher (driver.c BuildFlags::n_regs, every release up
// to 3.8.0, the line torch 2.13 pins) reports as n_regs for a module built
// with `build_options`: 256 when they hold -cl-intel-256-GRF-per-thread, else
// 128 for -cl-intel-128-GRF-per-thread, else 0 (default and auto GRF modes,
// and -cl-intel-512-GRF-per-thread, which that check does not know).
// ocloc records the options a zebin was built with in .misc.buildOptions
// (absent when there were none), and Triton loads a zebin with the options
// it built it with, so both paths see the same string.
int64_t tritonRegisterCount(std::string_view build_options) noexcept;

class LoadedKernel {
 public:
  // Reads `utf8_path`, checks it is a zebin holding `kernel_name`, and
  // creates the module and kernel in `context`. Errors name the file and
  // kernel (an unknown name lists the kernels the zebin has).
  static Expected<std::unique_ptr<LoadedKernel>> load(
      std::shared_ptr<level_zero::Context> context,
      const std::string& utf8_path,
      std::string_view kernel_name);

  const std::string& name() const noexcept {
    return kernel_.name();
  }
  const level_zero::Kernel& kernel() const noexcept {
    return kernel_;
  }
  const level_zero::Context& context() const noexcept {
    return kernel_.module().context();
  }

  // n_regs as Triton-XPU reports it for this zebin:
  // tritonRegisterCount(the zebin's .misc.buildOptions section).
  int64_t registerCount() const noexcept;
  // Spill memory in bytes per thread, zeKernelGetProperties().spillMemSize:
  // the same call and units Triton-XPU's own loader reports as n_spills.
  int64_t spillCount() const noexcept;
  // Refuses `dynamic_bytes` of shared local memory when, with the kernel's
  // static SLM, it exceeds what the device has: Triton raises
  // OutOfResources for the same kernel, so the static path must not launch
  // it. The error names the kernel, both sizes and the device.
  Status checkSharedMemory(uint64_t dynamic_bytes) const;

  // Sub-group size the kernel runs with (Triton's threads per warp).
  uint32_t threadsPerWarp() const noexcept {
    return kernel_.info().threads_per_warp;
  }

  // The plan for `type_codes`, compiled on first use and kept: Inductor
  // sends the same arg_types string on every launch of a kernel, so a launch
  // only compares it. A different string replaces the cached plan.
  Expected<const ArgPlan*> planFor(std::string_view type_codes);

  // Pointer argument check (pointer_check.h) through zeMemGetAllocProperties
  // in this kernel's context. Null is always allowed (scratch arguments).
  // An address equal to the one the kernel handle holds for this argument
  // from the previous launch was checked then and is not queried again.
  Status checkPointer(size_t index, uint64_t address) const {
    // Inline fast path: null, or the address the kernel handle already holds
    // for this argument (checked when it was set). Passing the same address
    // after freeing it is a use-after-free this cannot see.
    if (address == 0 ||
        (index < set_arg_cache_.sizes.size() &&
         set_arg_cache_.sizes[index] == sizeof(uint64_t) &&
         set_arg_cache_.values[index] == address)) {
      return Status::success();
    }
    return queryPointer(index, address);
  }

  // True when the kernel handle holds exactly these argument values of
  // `plan` (set by the last launch), so nothing needs setting or checking.
  bool holdsArgs(const ArgPlan& plan, const ArgStorage& storage) const {
    return set_arg_cache_.all_set_for == &plan &&
        (plan.args.empty() ||
         std::memcmp(
             storage.values(),
             set_arg_cache_.values.data(),
             plan.args.size() * sizeof(uint64_t)) == 0);
  }

  // Last values set on the Level Zero kernel, so launches that repeat an
  // argument skip the driver call (argument state persists on the kernel
  // handle). Owned here because it describes this handle.
  struct SetArgCache {
    // By kernel argument index: the 8-byte slot last set (arg_plan.h: zeros
    // above the size) and its size, 0 when not set or unknown.
    std::vector<uint64_t> values;
    std::vector<uint32_t> sizes;
    // Non-null: every argument this plan binds (its values and the null
    // scratch pointers) holds values[] with the plan's sizes, so a launch
    // whose slots equal values[] sets nothing (one memcmp). Reset by a
    // failed set and by a new plan (planFor), which may reuse the address.
    const ArgPlan* all_set_for = nullptr;
    uint32_t group_size_x = 0;
  };
  SetArgCache& setArgCache() noexcept {
    return set_arg_cache_;
  }

 private:
  // zeMemGetAllocProperties + checkPointerArgument.
  Status queryPointer(size_t index, uint64_t address) const;

  explicit LoadedKernel(level_zero::Kernel kernel)
      : kernel_(std::move(kernel)) {}

  level_zero::Kernel kernel_;
  std::unique_ptr<ArgPlan> plan_;
  SetArgCache set_arg_cache_;
};

} // namespace launcher
} // namespace xsl
