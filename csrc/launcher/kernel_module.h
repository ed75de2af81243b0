#pragma once

// A kernel binary made into a Level Zero module, with the metadata the
// launcher reads of it: where the zebin reader (what a binary holds) meets
// the driver (level_zero/, which knows no binary format).
//  - A zebin is read and checked first (legacy and corrupt binaries are
//    rejected with the reader's message, which says far more than the
//    driver's ZE_RESULT_ERROR_INVALID_NATIVE_BINARY), then created as a
//    native module; a zebin the driver refuses as built for another GPU
//    says which one it is for.
//  - SPIR-V is checked, then compiled by the driver
//    (ZE_MODULE_FORMAT_IL_SPIRV), and the metadata is read from the native
//    binary the driver made (zeModuleGetNativeBinary).

#include <memory>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "level_zero/level_zero.h"
#include "zebin/zebin.h"

namespace xsl {
namespace launcher {

class KernelModule {
 public:
  // A module of `bytes`, a zebin or SPIR-V (zebin::binaryFormat: the magic
  // number, never a suffix), in `context`. `build_flags` go to
  // zeModuleCreate as they are, for both formats, as Triton-XPU's loader
  // passes them. `source_name` (usually the file path) names the binary in
  // every message. For SPIR-V, the native binary the driver compiled goes to
  // `native_binary` when that is not null. The bytes are not kept: only the
  // metadata is.
  static Expected<std::shared_ptr<const KernelModule>> create(
      std::shared_ptr<level_zero::Context> context,
      std::string_view bytes,
      std::string source_name,
      std::string_view build_flags = {},
      std::string* native_binary = nullptr);

  // The driver's kernel `name`, which the .ze_info must name (an unknown name
  // lists the kernels the binary has); its metadata goes to `info` when that
  // is not null (owned by this module).
  Expected<level_zero::Kernel> createKernel(
      std::string_view name,
      const zebin::KernelInfo** info = nullptr) const;

  // The .ze_info metadata (every kernel), read with
  // zebin::ZeInfoDetail::kLaunch: without each kernel's payload_arguments,
  // arg_infos and execution_env.flags; user_arguments hold what a launch
  // needs of the lists (read the zebin with zebin::readZebin for them).
  const zebin::ZeInfo& zeInfo() const noexcept {
    return ze_info_;
  }
  // A zebin's .misc.buildOptions section (the options ocloc built it with;
  // empty when it has none); for SPIR-V, the build flags it was compiled
  // with.
  const std::string& buildOptions() const noexcept {
    return build_options_;
  }
  zebin::BinaryFormat format() const noexcept {
    return format_;
  }
  const std::string& sourceName() const noexcept {
    return module_->sourceName();
  }
  const level_zero::Module& module() const noexcept {
    return *module_;
  }

 private:
  KernelModule() = default;
  std::shared_ptr<level_zero::Module> module_;
  zebin::ZeInfo ze_info_;
  std::string build_options_;
  zebin::BinaryFormat format_ = zebin::BinaryFormat::kZebin;
};

} // namespace launcher
} // namespace xsl
