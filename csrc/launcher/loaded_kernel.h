#pragma once

// A kernel loaded for static launching: the Level Zero module and kernel made
// from a zebin or SPIR-V file, the metadata Inductor asks for (n_regs,
// n_spills), the argument plan cache, and the pointer check. Used by the Python
// extension (launch through Level Zero, ze_launch.h) and by the PyTorch glue
// (launch through SYCL), so both load and validate identically.
//
// Threading: a LoadedKernel is not internally locked. Level Zero argument
// state lives on the kernel handle, so launches of one kernel must be
// serialized; the Python binding holds the GIL for the whole launch.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "launcher/arg_plan.h"
#include "launcher/kernel_module.h"
#include "launcher/native_binary_cache.h"
#include "level_zero/level_zero.h"

namespace xsl {
namespace launcher {

// How to load: Triton's build flags (Triton's metadata.build_flags, the
// fifth _load_kernel argument), and where compiled SPIR-V is kept.
struct LoadOptions {
  // Unset: the four-argument ABI. n_regs then follows a zebin's
  // .misc.buildOptions, and SPIR-V is compiled with no flags.
  std::optional<std::string> build_flags;
  // Null: NativeBinaryCache::process().
  const NativeBinaryCache* cache = nullptr;
  // The dynamic shared local memory the launches ask for. With the kernel's
  // static SLM it must fit the device: Triton raises OutOfResources for
  // such a kernel, so the load fails naming the kernel, both sizes and the
  // device.
  uint64_t shared_bytes = 0;
};

class LoadedKernel {
 public:
  // Reads `utf8_path`, a zebin or SPIR-V (told by its magic number),
  // creates the module and kernel `kernel_name` in `context`. SPIR-V is
  // compiled by the driver with the build flags, as Triton-XPU's loader
  // does (with its large-GRF retry, triton_metadata.h), unless the cache
  // keeps the native binary of an earlier compile (same SPIR-V, flags,
  // device IP version and driver version); a new compile is kept. Errors name
  // the file and kernel (an unknown name lists the kernels the binary has).
  static Expected<std::unique_ptr<LoadedKernel>> load(
      std::shared_ptr<level_zero::Context> context,
      const std::string& utf8_path,
      std::string_view kernel_name,
      const LoadOptions& options = LoadOptions());

  // What the load had to say without failing (a bad cache entry ignored, a
  // binary that could not be kept), for the bindings to warn with once.
  const std::vector<std::string>& loadWarnings() const noexcept {
    return load_warnings_;
  }
  // True when the module came from a kept native binary, not a compile.
  bool fromKeptBinary() const noexcept {
    return from_kept_binary_;
  }
  // The build flags n_regs follows: those the load was given, or for
  // SPIR-V those it was built with (the large GRF flag appended when
  // Triton-XPU's retry applied); unset for a zebin loaded without flags.
  const std::optional<std::string>& buildFlags() const noexcept {
    return build_flags_;
  }

  const std::string& name() const noexcept {
    return kernel_.name();
  }
  const level_zero::Kernel& kernel() const noexcept {
    return kernel_;
  }
  // The kernel's .ze_info metadata (threads_per_warp, spill_bytes,
  // user_arguments).
  const zebin::KernelInfo& info() const noexcept {
    return *info_;
  }
  // The module it came from (format, build options, every kernel's metadata).
  const KernelModule& module() const noexcept {
    return *module_;
  }
  const level_zero::Context& context() const noexcept {
    return kernel_.module().context();
  }

  // n_regs as Triton-XPU reports it (tritonRegisterCount with the
  // process-wide rule): from the build flags when the load was given them,
  // as Triton's loader computes it from the flags it loads with; else from
  // a zebin's .misc.buildOptions (what ocloc built it with).
  int64_t registerCount() const noexcept;
  // n_spills as Triton-XPU reports it (tritonSpillCount with the
  // process-wide rule), from zeKernelGetProperties.
  int64_t spillCount() const noexcept;
  // Sub-group size the kernel runs with (Triton's threads per warp).
  uint32_t threadsPerWarp() const noexcept {
    return info_->threads_per_warp;
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
  // Saves 6 of 62 ns per 8-argument launch, 62 of 292 ns at 64, by skipping
  // the pointer checks and the per-argument compare (bench_launch.py).
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
  // Saves 96 of 158 ns per 8-argument launch, 880 of 1,170 ns at 64
  // (bench_launch.py, CPython 3.11, test driver: the set-argument calls).
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

    // Forgets every value, so the next launch sets all of them: for when
    // something else (SYCL's submit, through the Unified Runtime) has set
    // arguments or the group size on the same kernel handle.
    void forget() noexcept {
      std::fill(sizes.begin(), sizes.end(), 0u);
      all_set_for = nullptr;
      group_size_x = 0;
    }
  };
  SetArgCache& setArgCache() noexcept {
    return set_arg_cache_;
  }

 private:
  Status checkSharedMemory(uint64_t dynamic_bytes) const;
  // zeMemGetAllocProperties + checkPointerArgument.
  Status queryPointer(size_t index, uint64_t address) const;

  LoadedKernel(
      std::shared_ptr<const KernelModule> module,
      level_zero::Kernel kernel,
      const zebin::KernelInfo* info)
      : module_(std::move(module)), kernel_(std::move(kernel)), info_(info) {}

  std::shared_ptr<const KernelModule> module_;
  level_zero::Kernel kernel_;
  const zebin::KernelInfo* info_; // owned by module_
  std::optional<std::string> build_flags_;
  std::vector<std::string> load_warnings_;
  bool from_kept_binary_ = false;
  std::unique_ptr<ArgPlan> plan_;
  SetArgCache set_arg_cache_;
};

} // namespace launcher
} // namespace xsl
