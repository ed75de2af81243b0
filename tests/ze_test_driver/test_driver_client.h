#pragma once

// Finds the test driver's inspection functions (test_driver.h) in the
// running process: on Linux the library named by ZE_ENABLE_ALT_DRIVERS (the
// loader has loaded it already), on Windows the stand-in ze_loader.dll.
// Header-only so any test target can use it with just this include path.
// On Windows, installStandinLoader() first puts the stand-in ze_loader.dll
// where the loader code looks for it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <tuple>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "common/expected.h"
#include "common/platform.h"
#include "file_io/file_io.h"
#include "test_driver.h"

namespace xsl {
namespace test_driver {

#ifdef _WIN32
// Puts the stand-in ze_loader.dll (this driver built for Windows) into
// System32 of the running (wine) prefix, the only place the project's loader
// code looks. `standin_path` is UTF-8 (a Linux path from ctest gets "Z:"
// prepended). Skipped when an identical copy is there; otherwise copied to a
// temporary name and renamed over, so a copy another process has mapped is
// never rewritten in place. Call before the first Level Zero use.
inline bool runningUnderWine() {
  HMODULE ntdll = GetModuleHandleW(L"ntdll.dll");
  return ntdll != nullptr &&
      GetProcAddress(ntdll, "wine_get_version") != nullptr;
}

inline Status installStandinLoader(std::string standin_path) {
  // On a real Windows machine System32\ze_loader.dll belongs to the Intel
  // GPU driver: never overwrite it unless told this machine is disposable.
  const char* allow = std::getenv("XSL_TEST_ALLOW_SYSTEM32_STANDIN");
  if (!runningUnderWine() && (allow == nullptr || std::string(allow) != "1")) {
    return Error(
        "refusing to replace System32\\ze_loader.dll with the test stand-in "
        "outside wine (it would replace the Intel GPU driver's Level Zero "
        "loader); set XSL_TEST_ALLOW_SYSTEM32_STANDIN=1 only on a disposable "
        "CI machine");
  }
  if (!standin_path.empty() && standin_path[0] == '/') {
    standin_path = "Z:" + standin_path;
  }
  Expected<std::string> wanted = file_io::readFileBytes(standin_path);
  if (!wanted) {
    return Error(
        "cannot read the stand-in loader: " + wanted.error().message());
  }
  wchar_t system_dir[MAX_PATH];
  const UINT dir_length = GetSystemDirectoryW(system_dir, MAX_PATH);
  if (dir_length == 0 || dir_length >= MAX_PATH) {
    return Error("GetSystemDirectoryW failed");
  }
  const std::string target =
      platform::narrow(std::wstring_view(system_dir, dir_length)) +
      "\\ze_loader.dll";
  Expected<std::string> installed = file_io::readFileBytes(target);
  if (installed && *installed == *wanted) {
    return Status::success();
  }
  // Written to a temporary name and renamed over, never in place.
  Status replaced = file_io::replaceFile(target, *wanted);
  if (!replaced) {
    return Error(
        "cannot install the stand-in ze_loader.dll into System32: " +
        replaced.error().message());
  }
  return Status::success();
}
#endif

// A recorded launch's kernel, group count and group size, for tests to
// compare whole (gtest prints tuples and arrays).
using LaunchShape =
    std::tuple<std::string, std::array<uint32_t, 3>, std::array<uint32_t, 3>>;

inline LaunchShape shapeOf(const XslTestLaunchRecord& record) {
  const uint32_t* count = record.group_count;
  const uint32_t* size = record.group_size;
  return {
      record.kernel_name,
      {count[0], count[1], count[2]},
      {size[0], size[1], size[2]}};
}

class Client {
 public:
  // Call after the loader initialised the driver (after api() succeeded).
  static Expected<Client> open() {
    Client client;
#ifdef _WIN32
    HMODULE module = GetModuleHandleW(L"ze_loader.dll");
    if (module == nullptr) {
      return Error("test driver: ze_loader.dll is not loaded in this process");
    }
    auto find = [module](const char* name) {
      return reinterpret_cast<void*>(GetProcAddress(module, name));
    };
#else
    const char* alt = std::getenv("ZE_ENABLE_ALT_DRIVERS");
    std::string path = alt == nullptr ? std::string() : std::string(alt);
    path = path.substr(0, path.find(','));
    if (path.empty()) {
      return Error("test driver: ZE_ENABLE_ALT_DRIVERS is not set");
    }
    void* module = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (module == nullptr) {
      return Error("test driver: " + path + " is not loaded in this process");
    }
    dlclose(module); // the loader's reference keeps it loaded
    auto find = [module](const char* name) { return dlsym(module, name); };
#endif
    client.count_ = reinterpret_cast<XslTestDriverGetLaunchCountFn>(
        find("xslTestDriverGetLaunchCount"));
    client.record_ = reinterpret_cast<XslTestDriverGetLaunchRecordFn>(
        find("xslTestDriverGetLaunchRecord"));
    client.arg_ = reinterpret_cast<XslTestDriverGetLaunchArgFn>(
        find("xslTestDriverGetLaunchArg"));
    client.clear_ = reinterpret_cast<XslTestDriverClearLaunchRecordsFn>(
        find("xslTestDriverClearLaunchRecords"));
    if (client.count_ == nullptr || client.record_ == nullptr ||
        client.arg_ == nullptr || client.clear_ == nullptr) {
      return Error("test driver: inspection functions not exported");
    }
    return client;
  }

  size_t launchCount() const {
    return count_();
  }
  bool launch(size_t index, XslTestLaunchRecord* out) const {
    return record_(index, out) == 0;
  }
  bool arg(size_t launch, uint32_t index, XslTestArgRecord* out) const {
    return arg_(launch, index, out) == 0;
  }
  void clear() const {
    clear_();
  }

 private:
  Client() = default;
  XslTestDriverGetLaunchCountFn count_ = nullptr;
  XslTestDriverGetLaunchRecordFn record_ = nullptr;
  XslTestDriverGetLaunchArgFn arg_ = nullptr;
  XslTestDriverClearLaunchRecordsFn clear_ = nullptr;
};

} // namespace test_driver
} // namespace xsl
