#include "ocloc/compiler.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zebin/zebin.h"

namespace xsl {
namespace ocloc {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203u;

bool isSpirv(std::string_view bytes) {
  if (bytes.size() < 20 || bytes.size() % 4 != 0) {
    return false;
  }
  uint32_t word = 0;
  std::memcpy(&word, bytes.data(), sizeof(word));
  // SPIR-V may be stored in either byte order.
  const uint32_t swapped = (word >> 24) | ((word >> 8) & 0xff00u) |
      ((word << 8) & 0xff0000u) | (word << 24);
  return word == kSpirvMagic || swapped == kSpirvMagic;
}

uint16_t elfType(const std::string& bytes) {
  if (bytes.size() < 18 ||
      bytes.compare(
          0,
          4,
          "\x7f"
          "ELF") != 0) {
    return 0;
  }
  return static_cast<uint16_t>(
      static_cast<uint8_t>(bytes[16]) |
      (static_cast<uint16_t>(static_cast<uint8_t>(bytes[17])) << 8));
}

std::string joinFlags(const std::string& base, const std::string& extra) {
  if (base.empty()) {
    return extra;
  }
  if (extra.empty()) {
    return base;
  }
  return base + " " + extra;
}

std::string failureMessage(
    const OclocBackend& backend,
    const std::string& device,
    const std::string& flags,
    const InvokeResult& invoke) {
  std::string what;
  switch (invoke.status.kind) {
    case ExitKind::kInvalidDevice:
      what = "ocloc does not know device '" + device +
          "'; pass a device this ocloc supports (`ocloc compile --help` "
          "lists them) or install a newer ocloc";
      break;
    case ExitKind::kCrash:
      what = "ocloc crashed";
      break;
    case ExitKind::kInvalidInput:
      what = "ocloc rejected the input or its options";
      break;
    case ExitKind::kBuildFailure:
      what = "ocloc could not build the SPIR-V";
      break;
    default:
      what = invoke.binary.empty() && invoke.status.kind == ExitKind::kSuccess
          ? "ocloc reported success but produced no output"
          : "ocloc failed";
      break;
  }
  std::string message = what + " (" + invoke.status.text + ") for device '" +
      device + "' with -options '" + flags + "' using " + backend.description();
  // Keep the log: it holds the compiler's own error text.
  if (!invoke.log.empty()) {
    message += "; ocloc log:\n" + invoke.log;
  }
  return message;
}

} // namespace

bool flagsChooseGrfMode(const std::string& flags) {
  for (const char* spelling :
       {"-GRF-per-thread",
        "large-GRF",
        "-ze-opt-large-register-file",
        "-ze-exp-register-file-size"}) {
    if (flags.find(spelling) != std::string::npos) {
      return true;
    }
  }
  return false;
}

bool versionNeedsAllowZebin(const std::string& version) {
  size_t digits = 0;
  while (digits < version.size() && version[digits] >= '0' &&
         version[digits] <= '9') {
    ++digits;
  }
  if (digits == 0 || digits > 6) {
    return false;
  }
  return std::stoi(version.substr(0, digits)) < 23;
}

Expected<std::unique_ptr<OclocCompiler>> OclocCompiler::open(
    const OclocInstall& install,
    BackendChoice choice) {
  auto backend = openBackend(install, choice);
  if (!backend) {
    return backend.error();
  }
  auto compiler = std::make_unique<OclocCompiler>(std::move(*backend));
  if (!install.version.empty()) {
    compiler->setAllowZebinOption(versionNeedsAllowZebin(install.version));
  }
  return compiler;
}

Expected<OclocCompiler::Build> OclocCompiler::buildOnce(
    std::string_view spirv,
    const std::string& device,
    const std::string& flags) {
  std::vector<std::string> args = {"-spirv_input", "-device", device};
  if (!flags.empty()) {
    args.emplace_back("-options");
    args.push_back(flags);
  }
  if (allow_zebin_option_.value_or(false)) {
    args.emplace_back("-internal_options");
    args.emplace_back(kAllowZebinOption);
  }
  auto invoke = backend_->compile(spirv, args);
  if (!invoke) {
    return invoke.error();
  }
  Build build;
  build.invoke = std::move(*invoke);
  return build;
}

Expected<OclocCompiler::Build> OclocCompiler::build(
    std::string_view spirv,
    const std::string& device,
    const std::string& flags) {
  auto result = buildOnce(spirv, device, flags);
  if (!result) {
    return result;
  }
  if (result->invoke.status.kind == ExitKind::kSuccess &&
      elfType(result->invoke.binary) == zebin::kElfTypeLegacyPatchTokens &&
      !allow_zebin_option_.value_or(false)) {
    // ocloc 22.x: legacy format unless zebin is asked for explicitly.
    allow_zebin_option_ = true;
    result = buildOnce(spirv, device, flags);
    if (!result) {
      return result;
    }
  } else if (
      !allow_zebin_option_.has_value() &&
      result->invoke.status.kind == ExitKind::kSuccess) {
    allow_zebin_option_ = false;
  }
  return result;
}

Expected<CompileResult> compileWithGrfRetry(
    std::string_view spirv,
    const CompileOptions& options,
    const std::string& compiler_name,
    const BuildOnce& build_once) {
  if (options.device.empty()) {
    return Error(
        "no target device given; pass the ocloc device name (e.g. pvc, bmg, "
        "dg2) as the device option.");
  }
  if (!isSpirv(spirv)) {
    return Error(
        "the input (" + std::to_string(spirv.size()) +
        " bytes) is not SPIR-V: it must start with the magic number "
        "0x07230203 and be a whole number of 32-bit words; pass Triton's "
        ".spv output.");
  }
  CompileResult result;
  std::vector<std::string> flag_sets = {options.build_flags};
  const bool may_retry =
      options.retry_large_grf && !flagsChooseGrfMode(options.build_flags);
  if (may_retry) {
    flag_sets.push_back(joinFlags(options.build_flags, options.large_grf_flag));
  }

  struct Kept {
    BuildOutcome outcome;
    uint64_t spill_bytes = 0;
  };
  std::optional<Kept> kept;
  std::string kept_flags;
  std::string first_failure;
  for (size_t i = 0; i < flag_sets.size(); ++i) {
    const std::string& flags = flag_sets[i];
    auto build = build_once(flags);
    if (!build) {
      return build.error();
    }
    CompileAttempt attempt;
    attempt.build_flags = flags;
    std::string zebin_error;
    if (build->built) {
      auto zebin = zebin::readZebin(build->binary);
      if (!zebin) {
        zebin_error = zebin.error().message();
      } else {
        for (const auto& kernel : zebin->ze_info.kernels) {
          attempt.spill_bytes =
              std::max(attempt.spill_bytes, kernel.spill_bytes);
        }
      }
    }
    attempt.ok = build->built && zebin_error.empty();
    attempt.status = !build->built
        ? build->status
        : (zebin_error.empty() ? std::string("ok") : zebin_error);
    result.attempts.push_back(attempt);
    if (!attempt.ok) {
      if (first_failure.empty()) {
        if (!build->built) {
          first_failure = build->failure;
        } else {
          first_failure = compiler_name;
          first_failure +=
              " produced an output that is not a readable zebin for device '";
          first_failure += options.device;
          first_failure += "' with -options '";
          first_failure += flags;
          first_failure += "': ";
          first_failure += zebin_error;
        }
      }
      if (!build->built && build->final_failure) {
        break; // another GRF mode cannot fix these
      }
      continue; // a failed default build still gets the large-GRF try
    }
    if (!kept || attempt.spill_bytes < kept->spill_bytes) {
      kept = Kept{std::move(*build), attempt.spill_bytes};
      kept_flags = flags;
      result.large_grf = i > 0;
    }
    if (kept->spill_bytes <= options.max_spill_bytes) {
      break;
    }
  }
  if (!kept) {
    return Error(first_failure);
  }
  result.zebin = std::move(kept->outcome.binary);
  result.log = std::move(kept->outcome.log);
  result.spill_bytes = kept->spill_bytes;
  result.build_flags = kept_flags;
  return result;
}

Expected<CompileResult> OclocCompiler::compile(
    std::string_view spirv,
    const CompileOptions& options) {
  auto result = compileWithGrfRetry(
      spirv,
      options,
      "ocloc",
      [&](const std::string& flags) -> Expected<BuildOutcome> {
        auto build = this->build(spirv, options.device, flags);
        if (!build) {
          return build.error();
        }
        BuildOutcome outcome;
        const ExitKind kind = build->invoke.status.kind;
        outcome.built =
            kind == ExitKind::kSuccess && !build->invoke.binary.empty();
        outcome.status = build->invoke.status.text;
        if (!outcome.built) {
          outcome.failure =
              failureMessage(*backend_, options.device, flags, build->invoke);
          outcome.final_failure = kind == ExitKind::kInvalidDevice ||
              kind == ExitKind::kInvalidInput;
        }
        outcome.binary = std::move(build->invoke.binary);
        outcome.log = std::move(build->invoke.log);
        return outcome;
      });
  if (result) {
    result->allow_zebin_option = allow_zebin_option_.value_or(false);
  }
  return result;
}

} // namespace ocloc
} // namespace xsl
