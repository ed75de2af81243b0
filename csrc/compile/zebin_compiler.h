#pragma once

// The zebin compiler a caller gets without choosing: an explicit setting,
// then ocloc (XSL_OCLOC, the intel_ocloc wheel, PATH, oneAPI, system
// folders; discovery.h), then the installed GPU driver (driver_compiler.h)
// when Level Zero lists an Intel GPU. The driver needs nothing beyond the GPU
// driver, which is what a Windows machine without oneAPI has.
//
// Explicit setting: XSL_ZEBIN_COMPILER=ocloc|driver|auto (or the `kind`
// argument) forces one backend; XSL_OCLOC names the ocloc to use. A broken
// explicit setting is an error, never a silent fallback.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "compile/driver_compiler.h"
#include "ocloc/backend.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"

namespace xsl {
namespace compile {

constexpr const char* kZebinCompilerEnvVar = "XSL_ZEBIN_COMPILER";

enum class CompilerKind {
  kAuto,   // ocloc if found, else the driver
  kOcloc,  // ocloc only
  kDriver, // the driver only
};

// "auto", "ocloc", "driver"; the error names the accepted values.
Expected<CompilerKind> parseCompilerKind(const std::string& text);

// A compiler as the Python API names it: a CompilerKind's name, or
// "ocloc-library" / "ocloc-executable" for ocloc run only in process or only
// as a subprocess (to compare the two, or to avoid one that misbehaves).
struct CompilerChoice {
  CompilerKind kind = CompilerKind::kAuto;
  ocloc::BackendChoice ocloc_backend = ocloc::BackendChoice::kAuto;
};
struct NamedCompilerChoice {
  const char* name;
  CompilerChoice choice;
};
// Every name parseCompilerChoice takes ("" is "auto"); the Python API's
// BACKENDS are these names.
inline constexpr NamedCompilerChoice kCompilerChoices[] = {
    {"auto", {CompilerKind::kAuto, ocloc::BackendChoice::kAuto}},
    {"ocloc", {CompilerKind::kOcloc, ocloc::BackendChoice::kAuto}},
    {"ocloc-library", {CompilerKind::kOcloc, ocloc::BackendChoice::kLibrary}},
    {"ocloc-executable",
     {CompilerKind::kOcloc, ocloc::BackendChoice::kExecutable}},
    {"driver", {CompilerKind::kDriver, ocloc::BackendChoice::kAuto}},
};
Expected<CompilerChoice> parseCompilerChoice(const std::string& text);

class ZebinCompiler {
 public:
  // `kind` kAuto reads XSL_ZEBIN_COMPILER from `env` first. `ocloc_backend`
  // picks how ocloc runs. The error lists every place tried and why the
  // driver cannot be used.
  static Expected<std::unique_ptr<ZebinCompiler>> open(
      CompilerKind kind,
      ocloc::BackendChoice ocloc_backend,
      const ocloc::DiscoveryEnvironment& env);

  Expected<ocloc::CompileResult> compile(
      std::string_view spirv,
      const ocloc::CompileOptions& options);

  bool isDriver() const {
    return driver_ != nullptr;
  }
  // "key: value" lines: source, origin, executable, library, backend,
  // version, (library_fallback), driver.
  const std::string& description() const {
    return description_;
  }
  // Every place looked at, in order; the driver probe is the last line when
  // it was reached.
  const std::vector<std::string>& tried() const {
    return tried_;
  }

 private:
  ZebinCompiler() = default;
  std::unique_ptr<ocloc::OclocCompiler> ocloc_;
  std::unique_ptr<DriverCompiler> driver_;
  std::string description_;
  std::vector<std::string> tried_;
};

} // namespace compile
} // namespace xsl
