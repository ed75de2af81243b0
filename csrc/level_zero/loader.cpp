#include "level_zero/loader.h"

#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "level_zero/result.h"

namespace xsl {
namespace level_zero {
namespace {

#ifdef _WIN32

constexpr const char* kDefaultLoader = "ze_loader.dll";
constexpr const char* kInstallHint = "install the Intel GPU driver";

// The Intel GPU driver installs ze_loader.dll itself, so a loader whose
// zeInit fails means the driver found no GPU it can use.
std::string zeInitFailureReason() {
  return "the Intel GPU driver found no Intel GPU: check that Device "
         "Manager lists one under Display adapters, and install or update "
         "the Intel GPU driver";
}

#else

constexpr const char* kDefaultLoader = "libze_loader.so.1";
constexpr const char* kInstallHint =
    "install the Level Zero loader (Debian/Ubuntu: apt install libze1)";
constexpr const char* kGpuDriverLibrary = "libze_intel_gpu.so.1";

// zeInit fails the same way without a GPU driver and with a driver that
// found no GPU; whether the driver library is installed tells them apart.
std::string zeInitFailureReason() {
  const char* alt = std::getenv("ZE_ENABLE_ALT_DRIVERS");
  if (alt != nullptr && alt[0] != '\0') {
    return std::string("no driver named in ZE_ENABLE_ALT_DRIVERS=") + alt +
        " initialized: check that each path is a Level Zero driver library "
        "and that its devices are present";
  }
  if (!platform::DynamicLibrary::open(kGpuDriverLibrary)) {
    return std::string("no Intel GPU driver: ") + kGpuDriverLibrary +
        " is not installed; install the Intel GPU driver's Level Zero part "
        "(Debian/Ubuntu: intel-level-zero-gpu or libze-intel-gpu1)";
  }
  return std::string("the Intel GPU driver (") + kGpuDriverLibrary +
      ") is installed but found no Intel GPU: check that this machine has "
      "one and that this user may open /dev/dri/renderD* (group render)";
}

#endif

// Casting a symbol address to a function pointer is conditionally supported
// in C++ and fine on every platform we build for.
template <typename Function>
void resolveInto(Function& slot, void* symbol) {
  slot = reinterpret_cast<Function>(symbol);
}

} // namespace

LoadedApi::~LoadedApi() = default;

const char* defaultLoaderName() noexcept {
  return kDefaultLoader;
}

std::string loaderName() {
  // UTF-8 on Windows too (the wide environment): DynamicLibrary takes UTF-8.
  std::optional<std::string> value = platform::getEnvUtf8(kLoaderOverrideEnv);
  if (value && !value->empty()) {
    return std::move(*value);
  }
  return kDefaultLoader;
}

Expected<std::unique_ptr<LoadedApi>> loadApi(
    const std::string& library_name,
    bool initialize) {
  // Windows: a bare name from System32 only, never where a stray
  // ze_loader.dll could be; a path (the override) from exactly there.
  Expected<std::unique_ptr<platform::DynamicLibrary>> library =
      platform::DynamicLibrary::open(
          library_name, platform::LibrarySearch::kSystemForBareNames);
  if (!library) {
    return Error(
        "Level Zero loader not found (" + library_name + "): " + kInstallHint +
        " [" + library.error().message() + "]");
  }
  std::unique_ptr<LoadedApi> loaded(new LoadedApi());
  loaded->library_ = std::move(*library);
  const platform::DynamicLibrary& symbols = *loaded->library_;
  Api& table = loaded->api_;
  const char* missing = nullptr;
#define XSL_ZE_RESOLVE_ENTRY(name)                  \
  if (missing == nullptr) {                         \
    resolveInto(table.name, symbols.symbol(#name)); \
    if (table.name == nullptr) {                    \
      missing = #name;                              \
    }                                               \
  }
  XSL_ZE_ENTRY_POINTS(XSL_ZE_RESOLVE_ENTRY)
#undef XSL_ZE_RESOLVE_ENTRY
  if (missing != nullptr) {
    return Error(
        std::string("entry point ") + missing + " missing from " +
        library_name +
        ": loader too old or not a Level Zero loader, need a Level Zero "
        "loader >= 1.0 (" +
        kInstallHint + ")");
  }
  if (initialize) {
    const ze_result_t result = table.zeInit(0);
    if (result != ZE_RESULT_SUCCESS) {
      return Error(
          zeError("zeInit", result, "Level Zero loader " + library_name)
              .message() +
          ": " + zeInitFailureReason());
    }
  }
  return loaded;
}

Expected<const Api*> api() {
  // Built once; the LoadedApi is never unloaded, so the table stays valid
  // until the process exits (unloading the loader at exit would race with
  // handles still held by static objects).
  static const Expected<const Api*> loaded = []() -> Expected<const Api*> {
    Expected<std::unique_ptr<LoadedApi>> result = loadApi(loaderName());
    if (!result) {
      return result.error();
    }
    return &result.value().release()->api();
  }();
  return loaded;
}

} // namespace level_zero
} // namespace xsl
