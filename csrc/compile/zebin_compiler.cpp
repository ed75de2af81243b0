#include "compile/zebin_compiler.h"

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace xsl {
namespace compile {

Expected<CompilerKind> parseCompilerKind(const std::string& text) {
  if (text.empty() || text == "auto") {
    return CompilerKind::kAuto;
  }
  if (text == "ocloc") {
    return CompilerKind::kOcloc;
  }
  if (text == "driver") {
    return CompilerKind::kDriver;
  }
  return Error(
      "zebin compiler '" + text + "' is not one of auto, ocloc, driver; set " +
      kZebinCompilerEnvVar + " to one of those or unset it.");
}

Expected<CompilerChoice> parseCompilerChoice(const std::string& text) {
  const std::string name = text.empty() ? "auto" : text;
  std::string names;
  for (const NamedCompilerChoice& named : kCompilerChoices) {
    if (name == named.name) {
      return named.choice;
    }
    names += (names.empty() ? "" : ", ") + std::string(named.name);
  }
  return Error("zebin compiler '" + text + "' is not one of " + names);
}

Expected<std::unique_ptr<ZebinCompiler>> ZebinCompiler::open(
    CompilerKind kind,
    ocloc::BackendChoice ocloc_backend,
    const ocloc::DiscoveryEnvironment& env) {
  std::string kind_origin = "argument";
  if (kind == CompilerKind::kAuto) {
    if (auto forced = env.get_env(kZebinCompilerEnvVar)) {
      auto parsed = parseCompilerKind(*forced);
      if (!parsed) {
        return parsed.error();
      }
      kind = *parsed;
      kind_origin = std::string(kZebinCompilerEnvVar) + "=" + *forced;
    }
  }
  std::unique_ptr<ZebinCompiler> compiler(new ZebinCompiler());
  std::string ocloc_error;
  if (kind != CompilerKind::kDriver) {
    auto install = ocloc::findOcloc(env);
    if (install) {
      compiler->tried_ = install->tried;
      std::string fallback_reason;
      auto opened =
          ocloc::openBackend(*install, ocloc_backend, &fallback_reason);
      if (!opened) {
        return opened.error();
      }
      auto version = ocloc::queryOclocVersion(**opened);
      compiler->description_ = std::string("source: ") +
          ocloc::oclocSourceName(install->source) +
          "\norigin: " + install->origin +
          "\nexecutable: " + install->executable +
          "\nlibrary: " + install->library +
          "\nbackend: " + (*opened)->description() + "\nversion: " +
          (version ? *version : "unknown (" + version.error().message() + ")");
      if (!fallback_reason.empty()) {
        compiler->description_ += "\nlibrary_fallback: " + fallback_reason;
      }
      compiler->ocloc_ =
          std::make_unique<ocloc::OclocCompiler>(std::move(*opened));
      if (version) {
        compiler->ocloc_->setAllowZebinOption(
            ocloc::versionNeedsAllowZebin(*version));
      }
      return compiler;
    }
    // A broken explicit setting is reported, not skipped.
    auto explicit_path = env.get_env(ocloc::kOclocEnvVar);
    if (kind == CompilerKind::kOcloc ||
        (explicit_path && !explicit_path->empty())) {
      return install.error();
    }
    ocloc_error = install.error().message();
    for (const auto& candidate : ocloc::oclocCandidates(env)) {
      compiler->tried_.push_back(candidate.origin + ": " + candidate.path);
    }
  }
  auto driver = DriverCompiler::open();
  if (!driver) {
    compiler->tried_.push_back("driver: " + driver.error().message());
    if (kind == CompilerKind::kDriver) {
      return Error(
          "the driver backend was asked for (" + kind_origin +
          ") but cannot be used: " + driver.error().message());
    }
    return Error(
        ocloc_error + "\n  driver: " + driver.error().message() +
        "\nNo zebin compiler: install ocloc, or the Intel GPU driver on a "
        "machine with an Intel GPU.");
  }
  compiler->tried_.push_back("driver: " + (*driver)->description());
  compiler->description_ = "source: driver\norigin: " +
      (kind == CompilerKind::kDriver ? kind_origin
                                     : std::string("no ocloc found")) +
      "\nexecutable: \nlibrary: \nbackend: " + (*driver)->description() +
      "\nversion: the driver's own IGC";
  compiler->driver_ = std::move(*driver);
  return compiler;
}

Expected<ocloc::CompileResult> ZebinCompiler::compile(
    std::string_view spirv,
    const ocloc::CompileOptions& options) {
  if (driver_) {
    return driver_->compile(spirv, options);
  }
  return ocloc_->compile(spirv, options);
}

} // namespace compile
} // namespace xsl
