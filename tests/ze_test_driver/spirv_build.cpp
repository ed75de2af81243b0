#include "spirv_build.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "common/content_hash.h"
#include "file_io/file_io.h"
#include "ocloc/backend.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"

namespace xsl {
namespace test_driver {
namespace {

constexpr const char* kOclocOverrideEnv = "XSL_TEST_DRIVER_OCLOC";
constexpr const char* kRejectFlagEnv = "XSL_TEST_DRIVER_REJECT_FLAG";
constexpr const char* kPrebuiltEnv = "XSL_TEST_DRIVER_SPIRV_BUILDS";
constexpr const char* kCompileCacheEnv = "XSL_TEST_DRIVER_COMPILE_CACHE";

struct Compiler {
  std::unique_ptr<ocloc::OclocCompiler> compiler;
  std::string error; // why there is no compiler
};

Compiler openCompiler() {
  Compiler out;
  ocloc::DiscoveryEnvironment env = ocloc::DiscoveryEnvironment::host();
  const char* override_path = std::getenv(kOclocOverrideEnv);
  if (override_path != nullptr && override_path[0] != '\0') {
    env = ocloc::withExplicitOcloc(std::move(env), override_path);
  }
  auto install = ocloc::findOcloc(env);
  if (!install) {
    out.error = install.error().message();
    return out;
  }
  // In-process only: a driver has no compiler executable to run.
  auto compiler =
      ocloc::OclocCompiler::open(*install, ocloc::BackendChoice::kLibrary);
  if (!compiler) {
    out.error = compiler.error().message();
    return out;
  }
  auto version = ocloc::queryOclocVersion((*compiler)->backend());
  if (version) {
    (*compiler)->setAllowZebinOption(ocloc::versionNeedsAllowZebin(*version));
  }
  out.compiler = std::move(*compiler);
  return out;
}

std::string ipText(uint32_t ip_version) {
  return std::to_string(ip_version >> 22) + "." +
      std::to_string((ip_version >> 14) & 0xffu) + "." +
      std::to_string(ip_version & 0x3fffu);
}

// Where the test driver has no ocloc library (its stand-in ze_loader.dll
// under wine): the zebin ocloc made for the same SPIR-V, flags and IP
// version, listed in <XSL_TEST_DRIVER_SPIRV_BUILDS>/spirv_builds.tsv
// (tests/kernels/make_corpus.py). False when none is listed.
bool prebuiltBuild(
    const DeviceObject& device,
    std::string_view spirv,
    const std::string& build_flags,
    SpirvBuild& out) {
  const char* folder = std::getenv(kPrebuiltEnv);
  if (folder == nullptr || folder[0] == '\0') {
    return false;
  }
  std::string root(folder);
#ifdef _WIN32
  if (root[0] == '/') {
    root = "Z:" + root; // a Linux path handed over by ctest
  }
#endif
  auto index = file_io::readFileBytes(root + "/spirv_builds.tsv");
  if (!index) {
    return false;
  }
  const std::string ip = std::to_string(device.ip_version >> 22) + "." +
      std::to_string((device.ip_version >> 14) & 0xffu);
  // The corpus has builds with no flags and with the 256-GRF flag: spaces
  // around the flags (Triton appends " <flag>") and the 128-GRF flag (the
  // default GRF mode of the devices it lists) do not change the binary.
  const auto canonical = [](std::string flags) {
    const std::string small = "-cl-intel-128-GRF-per-thread";
    for (size_t at; (at = flags.find(small)) != std::string::npos;) {
      flags.erase(at, small.size());
    }
    const size_t first = flags.find_first_not_of(' ');
    const size_t last = flags.find_last_not_of(' ');
    return first == std::string::npos ? std::string()
                                      : flags.substr(first, last - first + 1);
  };
  const std::string wanted = canonical(build_flags);
  size_t start = 0;
  while (start < index->size()) {
    size_t end = index->find('\n', start);
    if (end == std::string::npos) {
      end = index->size();
    }
    const std::string line = index->substr(start, end - start);
    start = end + 1;
    const size_t a = line.find('\t');
    const size_t b = a == std::string::npos ? a : line.find('\t', a + 1);
    const size_t c = b == std::string::npos ? b : line.find('\t', b + 1);
    if (c == std::string::npos || line.substr(a + 1, b - a - 1) != ip ||
        canonical(line.substr(b + 1, c - b - 1)) != wanted) {
      continue;
    }
    auto source = file_io::readFileBytes(root + "/" + line.substr(0, a));
    if (!source || *source != spirv) {
      continue;
    }
    auto zebin = file_io::readFileBytes(root + "/" + line.substr(c + 1));
    if (!zebin) {
      continue;
    }
    out.zebin = std::move(*zebin);
    out.log =
        "xsl test driver: the build ocloc made for this SPIR-V and "
        "build flags (" +
        std::string(kPrebuiltEnv) + ")";
    return true;
  }
  return false;
}

// A real driver keeps what IGC built for later processes
// (neo_compiler_cache); this one does when XSL_TEST_DRIVER_COMPILE_CACHE
// names a folder: <key>.log and <key>.zebin, the key a hash of the IP
// version, the build flags and the SPIR-V. Empty when it names none.
std::string cacheEntry(
    const DeviceObject& device,
    std::string_view spirv,
    const std::string& build_flags) {
  const char* folder = std::getenv(kCompileCacheEnv);
  if (folder == nullptr || folder[0] == '\0') {
    return std::string();
  }
  std::string key = ipText(device.ip_version) + '\n' + build_flags + '\n';
  key.append(spirv.data(), spirv.size());
  const Hash128 hash = contentHash128(key);
  char name[33];
  std::snprintf(
      name,
      sizeof(name),
      "%016llx%016llx",
      static_cast<unsigned long long>(hash.high),
      static_cast<unsigned long long>(hash.low));
  return std::string(folder) + "/" + name;
}

// The zebin is written last and read first: an entry without it is none.
bool readCached(const std::string& entry, SpirvBuild& out) {
  auto zebin = file_io::readFileBytes(entry + ".zebin");
  if (!zebin) {
    return false;
  }
  auto log = file_io::readFileBytes(entry + ".log");
  if (!log) {
    return false;
  }
  out.zebin = std::move(*zebin);
  out.log = std::move(*log);
  return true;
}

void writeCached(const std::string& entry, const SpirvBuild& built) {
  const std::string folder = std::getenv(kCompileCacheEnv);
  if (file_io::makeDirectories(folder) &&
      file_io::replaceFile(entry + ".log", built.log)) {
    static_cast<void>(file_io::replaceFile(entry + ".zebin", built.zebin));
  }
}

} // namespace

SpirvBuild buildSpirv(
    const DeviceObject& device,
    std::string_view spirv,
    const std::string& build_flags) {
  static std::mutex mutex;
  static Compiler* compiler = nullptr; // opened once, kept (IGC stays loaded)
  std::lock_guard<std::mutex> lock(mutex);
  SpirvBuild out;
  // IGC through ocloc accepts any option, so a test names one the stand-in
  // refuses as a driver refuses flags it does not support.
  const char* refused = std::getenv(kRejectFlagEnv);
  if (refused != nullptr && refused[0] != '\0' &&
      build_flags.find(refused) != std::string::npos) {
    out.result = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    out.log = "xsl test driver: unsupported build option " +
        std::string(refused) + " (" + kRejectFlagEnv + ")";
    return out;
  }
  const std::string cached = cacheEntry(device, spirv, build_flags);
  if (!cached.empty() && readCached(cached, out)) {
    return out;
  }
  if (compiler == nullptr) {
    compiler = new Compiler(openCompiler());
  }
  if (!compiler->compiler) {
    if (prebuiltBuild(device, spirv, build_flags, out)) {
      return out;
    }
    out.result = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    out.log = "xsl test driver: no ocloc library to compile SPIR-V with (set " +
        std::string(kOclocOverrideEnv) +
        " to libocloc.so / ocloc64.dll): " + compiler->error;
    return out;
  }
  if (device.ip_version == 0) {
    out.result = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
    out.log = "xsl test driver: device " + std::to_string(device.index) +
        " has no IP version to compile for";
    return out;
  }
  ocloc::CompileOptions options;
  options.device = ipText(device.ip_version);
  options.build_flags = build_flags;
  options.retry_large_grf = false; // the caller's policy, not the driver's
  auto compiled = compiler->compiler->compile(spirv, options);
  if (!compiled) {
    // A real driver reports invalid SPIR-V and IGC errors the same way.
    out.result = ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
    out.log = "xsl test driver: " + compiled.error().message();
    return out;
  }
  out.zebin = std::move(compiled->zebin);
  out.log = std::move(compiled->log);
  if (!cached.empty()) {
    writeCached(cached, out);
  }
  return out;
}

} // namespace test_driver
} // namespace xsl
