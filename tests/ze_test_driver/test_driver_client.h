#pragma once

// Finds the test driver's inspection functions (test_driver.h) in the
// running process: on Linux the library named by ZE_ENABLE_ALT_DRIVERS (the
// loader has loaded it already), on Windows the stand-in ze_loader.dll.
// Header-only so any test target can use it with just this include path.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "common/expected.h"
#include "test_driver.h"

namespace xsl {
namespace test_driver {

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
