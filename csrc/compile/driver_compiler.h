#pragma once

// SPIR-V -> zebin through the installed Intel GPU driver: the Level Zero
// driver compiles SPIR-V with its own IGC at zeModuleCreate
// (ZE_MODULE_FORMAT_IL_SPIRV), and zeModuleGetNativeBinary returns the
// zebin. No ocloc and no oneAPI are needed, only the GPU driver, and the
// binary comes from exactly the compiler that will load it.
//
// The driver compiles for its own devices only, so the target (an ocloc
// device name such as "pvc", or an IP version "12.60.7") must match the
// architecture of an Intel GPU in the machine; the IP version a device
// reports (ZE_extension_device_ip_version) decides. A mismatch, or no
// device, is one clear error line.
//
// Build flags are Level Zero build flags: the large GRF mode is
// `-ze-opt-large-register-file` (kDriverLargeGrfFlag). The GRF retry policy
// is the ocloc compiler's (compileWithGrfRetry). Every error carries the
// driver's build log (zeModuleBuildLogGetString).
//
// One Level Zero context per driver and process, created on first use and
// kept (compile workers compile many kernels).

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "ocloc/compiler.h"

namespace xsl {
namespace compile {

constexpr const char* kDriverLargeGrfFlag = "-ze-opt-large-register-file";

// An architecture a target names: major.minor of the GPU IP version, and
// the revision when the target gives one ("12.60.7").
struct IpTarget {
  uint32_t architecture = 0;
  uint32_t release = 0;
  bool has_revision = false;
  uint32_t revision = 0;
};

// "pvc", "dg2", "acm-g10", "bmg", "lnl", "mtl", "ptl", "tgllp", ...; an IP
// version "12.60.7" / "12.60"; or the 32-bit value (0x030f0007). The error
// lists the names known.
Expected<std::vector<IpTarget>> parseTarget(const std::string& device);

// "12.60.7" from the 32-bit value (architecture << 22 | release << 14 |
// revision).
std::string ipVersionText(uint32_t ip_version);

struct DriverDevice {
  uint32_t driver_index = 0;
  uint32_t device_index = 0;
  std::string name;
  uint32_t ip_version = 0; // 0: the driver does not report one
};

// Whether `device` is of an architecture `targets` names.
bool deviceMatches(
    const DriverDevice& device,
    const std::vector<IpTarget>& targets);

class DriverCompiler {
 public:
  // Loads Level Zero (level_zero::api()) and lists its Intel GPUs. Errors
  // (one line each): no loader or driver, no Intel GPU.
  static Expected<std::unique_ptr<DriverCompiler>> open();

  const std::vector<DriverDevice>& devices() const {
    return devices_;
  }
  // "Level Zero driver (libze_loader.so.1): 0: Intel(R) ... (12.60.7)"
  std::string description() const;

  // The first device whose architecture `target` names; one line naming the
  // target and the devices present when none does.
  Expected<DriverDevice> deviceFor(const std::string& target) const;

  // Same contract as OclocCompiler::compile. options.large_grf_flag is
  // replaced by kDriverLargeGrfFlag when it is ocloc's default.
  Expected<ocloc::CompileResult> compile(
      std::string_view spirv,
      const ocloc::CompileOptions& options);

 private:
  explicit DriverCompiler(std::string loader, std::vector<DriverDevice> devices)
      : loader_(std::move(loader)), devices_(std::move(devices)) {}

  std::string loader_;
  std::vector<DriverDevice> devices_;
};

} // namespace compile
} // namespace xsl
