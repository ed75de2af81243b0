#pragma once

// SPIR-V -> zebin, with the behaviour of Triton-XPU's make_zebin:
//   - `build_flags` go to ocloc's -options unchanged;
//   - when the build uses the default GRF mode and the zebin spills more than
//     `max_spill_bytes` (Triton's MAX_REG_SPILL, 0), or the default build
//     fails, it is rebuilt with the large-GRF flag; the build with fewer
//     spill bytes is kept (ties keep the default build: its work groups may
//     be twice as large);
//   - spill bytes come from the zebin's .ze_info (the largest over all
//     kernels), never from ocloc's console text.
// Older ocloc (22.x) writes the legacy patch-token format unless given
// `-internal_options -ze-allow-zebin`: a legacy output is detected from its
// ELF type and the build is redone with that option, which is then used for
// every later build through the same compiler.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "ocloc/backend.h"

namespace xsl {
namespace ocloc {

constexpr const char* kLargeGrfFlag = "-cl-intel-256-GRF-per-thread";
constexpr const char* kAllowZebinOption = "-ze-allow-zebin";

struct CompileOptions {
  std::string device; // -device, e.g. "pvc", "bmg", "dg2"
  std::string build_flags;
  // Triton: grf_mode == "default" and num_warps <= 32. Ignored when
  // build_flags already pick a GRF mode.
  bool retry_large_grf = true;
  std::string large_grf_flag = kLargeGrfFlag; // "-cl-intel-512-..." on cri
  uint64_t max_spill_bytes = 0;
};

struct CompileAttempt {
  std::string build_flags;
  bool ok = false;
  uint64_t spill_bytes = 0;
  std::string status; // ExitMeaning text or the zebin error
};

struct CompileResult {
  std::string zebin;
  std::string build_flags; // the -options of the kept build
  uint64_t spill_bytes = 0;
  bool large_grf = false;
  std::string log;                 // ocloc's console output for the kept build
  bool allow_zebin_option = false; // -ze-allow-zebin was needed
  std::vector<CompileAttempt> attempts;
};

class OclocCompiler {
 public:
  explicit OclocCompiler(std::unique_ptr<OclocBackend> backend)
      : backend_(std::move(backend)) {}

  // Discovery + backend + version in one step.
  static Expected<std::unique_ptr<OclocCompiler>> open(
      const OclocInstall& install,
      BackendChoice choice);

  Expected<CompileResult> compile(
      std::string_view spirv,
      const CompileOptions& options);

  OclocBackend& backend() {
    return *backend_;
  }
  // Whether builds add `-internal_options -ze-allow-zebin` (nullopt: not
  // known yet, decided by the first build).
  std::optional<bool> allowZebinOption() const {
    return allow_zebin_option_;
  }
  // Preset from the version when it is known: ocloc before 23.x needs it.
  void setAllowZebinOption(bool needed) {
    allow_zebin_option_ = needed;
  }

 private:
  struct Build {
    InvokeResult invoke;
  };
  Expected<Build> buildOnce(
      std::string_view spirv,
      const std::string& device,
      const std::string& flags);
  Expected<Build> build(
      std::string_view spirv,
      const std::string& device,
      const std::string& flags);

  std::unique_ptr<OclocBackend> backend_;
  std::optional<bool> allow_zebin_option_;
};

// Whether `flags` already choose a GRF mode (then no retry happens): the
// ocloc spellings (-cl-intel-*-GRF-per-thread, ...large-GRF...) and the
// Level Zero ones (-ze-opt-large-register-file, -ze-exp-register-file-size).
bool flagsChooseGrfMode(const std::string& flags);

// One build with one set of flags, as the GRF retry policy sees it; both the
// ocloc compiler and the driver compiler (driver_compiler.h) produce these.
struct BuildOutcome {
  bool built = false;         // a binary came out
  std::string binary;         // the zebin when built
  std::string log;            // the compiler's log for this build
  std::string status;         // short status text when not built
  std::string failure;        // the full error (with the log) when not built
  bool final_failure = false; // another GRF mode cannot fix it
};
using BuildOnce =
    std::function<Expected<BuildOutcome>(const std::string& build_flags)>;

// The policy shared by every backend: checks the input is SPIR-V and a
// device is named, builds with options.build_flags, then (Triton's rule)
// with options.large_grf_flag added when the default build spills more than
// options.max_spill_bytes or fails; keeps the build with fewer spill bytes.
// `compiler_name` ("ocloc", "the driver") names the producer in messages.
Expected<CompileResult> compileWithGrfRetry(
    std::string_view spirv,
    const CompileOptions& options,
    const std::string& compiler_name,
    const BuildOnce& build_once);

// True for an ocloc version older than 23 ("22.43.24595").
bool versionNeedsAllowZebin(const std::string& version);

} // namespace ocloc
} // namespace xsl
