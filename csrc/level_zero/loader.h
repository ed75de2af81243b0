#pragma once

// The Level Zero loader, loaded at run time: no import library and no link
// dependency on ze_loader. Linux: dlopen("libze_loader.so.1"). Windows:
// LoadLibraryExW(L"ze_loader.dll", LOAD_LIBRARY_SEARCH_SYSTEM32), so a stray
// ze_loader.dll in the working or application directory is never loaded; the
// real one comes with the Intel GPU driver in System32.
//
// Every entry point the project calls is resolved once into one Api table;
// a missing one is an error naming it. zeInit(0) is called and checked as
// part of loading (the loader may let later calls "work" after a failed
// zeInit, so nothing proceeds without it).
//
// Override for tests and unusual installs: XSL_LEVEL_ZERO_LOADER=<file name
// or absolute path> replaces the default library name. On Windows a bare
// file name is still searched in System32 only.

#include <memory>
#include <string>

#include <level_zero/ze_api.h>

#include "common/expected.h"
#include "common/platform.h"

namespace xsl {
namespace level_zero {

constexpr const char* kLoaderOverrideEnv = "XSL_LEVEL_ZERO_LOADER";

// Every Level Zero function the project uses. Adding one here is the only
// step needed to resolve it.
#define XSL_ZE_ENTRY_POINTS(X)       \
  X(zeInit)                          \
  X(zeDriverGet)                     \
  X(zeDriverGetApiVersion)           \
  X(zeDriverGetProperties)           \
  X(zeDeviceGet)                     \
  X(zeDeviceGetProperties)           \
  X(zeDeviceGetComputeProperties)    \
  X(zeContextCreate)                 \
  X(zeContextDestroy)                \
  X(zeModuleCreate)                  \
  X(zeModuleDestroy)                 \
  X(zeModuleBuildLogGetString)       \
  X(zeModuleBuildLogDestroy)         \
  X(zeModuleGetKernelNames)          \
  X(zeModuleGetNativeBinary)         \
  X(zeKernelCreate)                  \
  X(zeKernelDestroy)                 \
  X(zeKernelGetProperties)           \
  X(zeKernelSetGroupSize)            \
  X(zeKernelSetArgumentValue)        \
  X(zeCommandListCreateImmediate)    \
  X(zeCommandListDestroy)            \
  X(zeCommandListAppendLaunchKernel) \
  X(zeMemAllocDevice)                \
  X(zeMemAllocHost)                  \
  X(zeMemAllocShared)                \
  X(zeMemFree)                       \
  X(zeMemGetAllocProperties)

// One function table; fields are named like the functions they point to.
struct Api {
// NOLINTNEXTLINE(bugprone-macro-parentheses): `name` is a declarator.
#define XSL_ZE_DECLARE_ENTRY(name) decltype(&::name) name = nullptr;
  XSL_ZE_ENTRY_POINTS(XSL_ZE_DECLARE_ENTRY)
#undef XSL_ZE_DECLARE_ENTRY
};

// A loaded loader library and its resolved table. Unloads on destruction:
// handles created through `api` must be gone by then.
class LoadedApi {
 public:
  LoadedApi(const LoadedApi&) = delete;
  LoadedApi& operator=(const LoadedApi&) = delete;
  ~LoadedApi();

  const Api& api() const noexcept {
    return api_;
  }

 private:
  friend Expected<std::unique_ptr<LoadedApi>> loadApi(
      const std::string& library_name,
      bool initialize);
  LoadedApi() = default;

  Api api_;
  std::unique_ptr<platform::DynamicLibrary> library_;
};

// "libze_loader.so.1" / "ze_loader.dll".
const char* defaultLoaderName() noexcept;

// XSL_LEVEL_ZERO_LOADER if set and not empty, else defaultLoaderName().
std::string loaderName();

// Loads `library_name`, resolves every entry point and, if `initialize`,
// calls zeInit(0). Not cached: each call loads again (for tests; the
// process-wide table is api()).
Expected<std::unique_ptr<LoadedApi>> loadApi(
    const std::string& library_name,
    bool initialize = true);

// The process-wide table: loadApi(loaderName()) exactly once, thread-safe;
// the result (or the error) is kept for the life of the process, so a driver
// installed later needs a new process. Cheap after the first call.
Expected<const Api*> api();

} // namespace level_zero
} // namespace xsl
