#include "launcher/loaded_kernel.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/content_hash.h"
#include "file_io/file_io.h"
#include "launcher/pointer_check.h"
#include "launcher/triton_metadata.h"

namespace xsl {
namespace launcher {

namespace {

// The cache key of `spirv` built with `flags` on this context's device and
// driver.
Expected<NativeBinaryKey> keyFor(
    const level_zero::Context& context,
    std::string_view spirv,
    std::string_view flags) {
  auto device = context.device().identity();
  if (!device) {
    return std::move(device).error();
  }
  NativeBinaryKey key;
  key.spirv = spirv;
  key.build_flags = flags;
  key.ip_version = device->ip_version;
  key.driver_version = device->driver_version;
  return key;
}

// A fresh build's native binary, kept once Triton's retry of it is decided.
struct Unkept {
  NativeBinaryKey key;
  NativeBinaryCache::Lookup lookup;
  std::string native;
};

struct MadeModule {
  std::shared_ptr<const KernelModule> module;
  bool from_kept_binary = false;
  RetryOutcome retry = RetryOutcome::kUnknown; // as its kept entry says
  Unkept unkept; // a fresh build's, for keep() (none when the cache is off)
};

// SPIR-V: the kept native binary for this device and driver if the cache
// has a good one, else the driver compiles it (the caller keeps it).
Expected<MadeModule> moduleFromSpirv(
    const std::shared_ptr<level_zero::Context>& context,
    std::string_view spirv,
    const std::string& utf8_path,
    const std::string& flags,
    const NativeBinaryCache& cache,
    const Hash128& spirv_hash,
    std::vector<std::string>& warnings) {
  MadeModule made;
  NativeBinaryKey key;
  NativeBinaryCache::Lookup lookup;
  if (cache.enabled()) {
    Expected<NativeBinaryKey> found = keyFor(*context, spirv, flags);
    if (!found) {
      return std::move(found).error();
    }
    key = *found;
    lookup = cache.locate(key, spirv_hash);
    std::string warning;
    // Reused by every warm load on this thread (it keeps the largest entry
    // read): a fresh buffer's allocation, zero fill and page faults cost
    // 2-3 us a load, 1.24 -> 1.15x (v1) and 1.22 -> 1.18x (v2) the zebin
    // load (bench_spirv_load.py --paired, docs/benchmarks.md).
    thread_local std::string entry;
    if (std::optional<std::string_view> kept =
            cache.find(key, lookup, entry, &warning, &made.retry)) {
      auto module = KernelModule::create(context, *kept, utf8_path, flags);
      if (module) {
        made.module = std::move(*module);
        made.from_kept_binary = true;
        return made;
      }
      made.retry = RetryOutcome::kUnknown;
      warning = "ignored the kept native binary '" + lookup.path +
          "': the driver refused it (" + module.error().message() +
          "); the SPIR-V is compiled again";
    }
    if (!warning.empty()) {
      warnings.push_back(std::move(warning));
    }
  }
  std::string native;
  auto module = KernelModule::create(
      context, spirv, utf8_path, flags, cache.enabled() ? &native : nullptr);
  if (!module) {
    return std::move(module).error();
  }
  made.module = std::move(*module);
  made.unkept = Unkept{key, std::move(lookup), std::move(native)};
  return made;
}

// Keeps a fresh build with what its retry did; a kept build stays as it is.
void keep(
    const NativeBinaryCache& cache,
    MadeModule& made,
    RetryOutcome retry,
    std::vector<std::string>& warnings) {
  Unkept& unkept = made.unkept;
  if (unkept.native.empty()) {
    return;
  }
  std::string warning;
  cache.keep(unkept.key, unkept.lookup, unkept.native, &warning, retry);
  if (!warning.empty()) {
    warnings.push_back(std::move(warning));
  }
  unkept.native.clear();
}

struct SpirvKernel {
  MadeModule made;
  level_zero::Kernel kernel;
  const zebin::KernelInfo* info = nullptr;
  std::string flags; // what it was built with
};

// SPIR-V as Triton-XPU's load_binary builds it (triton_metadata.h): with
// `flags`, and when they name no GRF mode, again with the large GRF flag
// appended if the first build fails or spills over the release's threshold.
// The first build's entry keeps how that retry went, so a warm load reads
// one entry (bench_spirv_load.py, 100 kernels, 18 retried: see
// docs/benchmarks.md) and never compiles a failed retry again.
Expected<SpirvKernel> spirvKernel(
    const std::shared_ptr<level_zero::Context>& context,
    std::string_view spirv,
    const std::string& utf8_path,
    std::string_view kernel_name,
    const std::string& flags,
    const NativeBinaryCache& cache,
    std::vector<std::string>& warnings) {
  const TritonRelease release = tritonRelease();
  const bool may_retry = !namesGrfMode(flags);
  const std::string large = flags + " " + kTritonLargeGrfFlag;
  const Hash128 spirv_hash =
      cache.enabled() ? contentHash128(spirv) : Hash128();
  const auto build = [&](const std::string& with) -> Expected<SpirvKernel> {
    auto made = moduleFromSpirv(
        context, spirv, utf8_path, with, cache, spirv_hash, warnings);
    if (!made) {
      return std::move(made).error();
    }
    const zebin::KernelInfo* info = nullptr;
    auto kernel = made->module->createKernel(kernel_name, &info);
    if (!kernel) {
      return std::move(kernel).error();
    }
    return SpirvKernel{std::move(*made), std::move(*kernel), info, with};
  };
  Expected<SpirvKernel> first = build(flags);
  if (!first) {
    if (may_retry && release.retries_failed_build) {
      Expected<SpirvKernel> retried = build(large);
      if (retried) {
        keep(cache, retried->made, RetryOutcome::kUnknown, warnings);
        return retried;
      }
    }
    return first;
  }
  const level_zero::KernelProperties& props = first->kernel.properties();
  if (!may_retry ||
      !spillsForLargeGrfRetry(
          release.rule,
          props.spill_mem_size,
          props.required_sub_group_size,
          props.max_sub_group_size)) {
    keep(cache, first->made, RetryOutcome::kUnknown, warnings);
    return first;
  }
  // Up to 3.3 the first module stays and the retry only decides n_regs by
  // building; from 3.4 the retried module is the one loaded.
  RetryOutcome outcome = first->made.retry;
  std::optional<SpirvKernel> retried;
  if (outcome == RetryOutcome::kUnknown ||
      (outcome == RetryOutcome::kBuilt && release.uses_retried_module)) {
    if (Expected<SpirvKernel> built = build(large)) {
      keep(cache, built->made, RetryOutcome::kUnknown, warnings);
      retried = std::move(*built);
    }
    if (outcome == RetryOutcome::kUnknown) {
      outcome = retried ? RetryOutcome::kBuilt : RetryOutcome::kFailed;
    }
  }
  keep(cache, first->made, outcome, warnings);
  if (release.uses_retried_module && retried) {
    return std::move(*retried);
  }
  if (!release.uses_retried_module && outcome == RetryOutcome::kBuilt) {
    first->flags = large;
  }
  return first; // Triton ignores a failed retry and keeps the first build
}

} // namespace

Expected<std::unique_ptr<LoadedKernel>> LoadedKernel::load(
    std::shared_ptr<level_zero::Context> context,
    const std::string& utf8_path,
    std::string_view kernel_name,
    const LoadOptions& options) {
  std::string buffer;
  if (Status read = file_io::readFileInto(utf8_path, buffer); !read) {
    return read.error();
  }
  auto format = zebin::binaryFormat(buffer, utf8_path);
  if (!format) {
    return std::move(format).error();
  }
  const std::string flags = options.build_flags.value_or(std::string());
  std::vector<std::string> warnings;
  std::optional<std::string> built_with = options.build_flags;
  bool from_kept_binary = false;
  std::shared_ptr<const KernelModule> module;
  const zebin::KernelInfo* info = nullptr;
  Expected<level_zero::Kernel> kernel = Error("not loaded");
  if (*format == zebin::BinaryFormat::kSpirv) {
    Expected<SpirvKernel> spirv = spirvKernel(
        context,
        buffer,
        utf8_path,
        kernel_name,
        flags,
        options.cache != nullptr ? *options.cache
                                 : NativeBinaryCache::process(),
        warnings);
    if (spirv) {
      from_kept_binary = spirv->made.from_kept_binary;
      built_with = std::move(spirv->flags);
      module = std::move(spirv->made.module);
      info = spirv->info;
      kernel = std::move(spirv->kernel);
    } else {
      kernel = std::move(spirv).error();
    }
  } else {
    auto made =
        KernelModule::create(std::move(context), buffer, utf8_path, flags);
    if (made) {
      module = std::move(*made);
      kernel = module->createKernel(kernel_name, &info);
    } else {
      kernel = std::move(made).error();
    }
  }
  if (!kernel) {
    return std::move(kernel).error();
  }
  std::unique_ptr<LoadedKernel> loaded(
      new LoadedKernel(std::move(module), std::move(*kernel), info));
  loaded->build_flags_ = std::move(built_with);
  loaded->load_warnings_ = std::move(warnings);
  loaded->from_kept_binary_ = from_kept_binary;
  if (Status fits = loaded->checkSharedMemory(options.shared_bytes); !fits) {
    return fits.error();
  }
  return loaded;
}

int64_t LoadedKernel::registerCount() const noexcept {
  return tritonRegisterCount(
      tritonMetadataRule(),
      build_flags_ ? std::string_view(*build_flags_)
                   : std::string_view(module_->buildOptions()));
}

int64_t LoadedKernel::spillCount() const noexcept {
  const level_zero::KernelProperties& props = kernel_.properties();
  return tritonSpillCount(
      tritonMetadataRule(),
      props.spill_mem_size,
      props.required_sub_group_size,
      props.max_sub_group_size);
}

Status LoadedKernel::checkSharedMemory(uint64_t dynamic_bytes) const {
  Expected<level_zero::DeviceProperties> device =
      context().device().properties();
  if (!device) {
    return std::move(device).error();
  }
  const uint64_t static_bytes = kernel_.properties().local_mem_size;
  const uint64_t limit = device->max_shared_local_memory;
  if (dynamic_bytes + static_bytes <= limit) {
    return Status();
  }
  return Error(
      "kernel '" + name() + "' needs " +
      std::to_string(dynamic_bytes + static_bytes) +
      " bytes of shared local memory (" + std::to_string(dynamic_bytes) +
      " dynamic + " + std::to_string(static_bytes) + " static), but device '" +
      device->name + "' has " + std::to_string(limit) +
      " (Triton raises OutOfResources here): compile it with fewer stages or "
      "smaller blocks");
}

Expected<const ArgPlan*> LoadedKernel::planFor(std::string_view type_codes) {
  if (plan_ && plan_->type_codes == type_codes) {
    return plan_.get();
  }
  auto plan = compileArgPlan(type_codes, name(), info_->user_arguments);
  if (!plan) {
    return std::move(plan).error();
  }
  // A new plan may reuse the old one's address: forget that the handle's
  // arguments match it.
  set_arg_cache_.all_set_for = nullptr;
  plan_ = std::make_unique<ArgPlan>(std::move(*plan));
  return plan_.get();
}

Status LoadedKernel::queryPointer(size_t index, uint64_t address) const {
  const level_zero::Context& ctx = context();
  // The address came from Python: an integer by nature.
  const void* pointer =
      reinterpret_cast<const void*>( // NOLINT(performance-no-int-to-ptr)
          static_cast<uintptr_t>(address));
  return checkPointerArgument(
      index,
      address,
      level_zero::queryPointer(ctx, pointer),
      ctx.device().handle());
}

} // namespace launcher
} // namespace xsl
