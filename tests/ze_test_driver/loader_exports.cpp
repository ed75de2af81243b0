// Every Level Zero function, exported by name, for the test driver's
// stand-in loader build (generate_loader_exports.py writes the list).

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include <level_zero/ze_ddi.h>

namespace {

// The validation layer, by the name each platform's loader gives it.
#ifdef _WIN32
constexpr char kValidationLayer[] = "ze_validation_layer.dll";

void* openLayer() {
  return reinterpret_cast<void*>(LoadLibraryA(kValidationLayer));
}

void* layerSymbol(void* layer, const char* name) {
  return reinterpret_cast<void*>(
      GetProcAddress(static_cast<HMODULE>(layer), name));
}

const char* layerError() {
  return "LoadLibrary failed";
}
#else
constexpr char kValidationLayer[] = "libze_validation_layer.so.1";

void* openLayer() {
  return dlopen(kValidationLayer, RTLD_NOW | RTLD_LOCAL);
}

void* layerSymbol(void* layer, const char* name) {
  return dlsym(layer, name);
}

const char* layerError() {
  return dlerror();
}
#endif

// ZE_ENABLE_VALIDATION_LAYER=1 puts the installed validation layer between
// caller and driver, as the real loader does: the layer's getter receives
// the driver's table and swaps in its checking functions.
void* validationLayer() {
  static void* layer = [] {
    const char* enabled = std::getenv("ZE_ENABLE_VALIDATION_LAYER");
    if (enabled == nullptr || std::strcmp(enabled, "1") != 0) {
      return static_cast<void*>(nullptr);
    }
    void* loaded = openLayer();
    if (loaded == nullptr) {
      std::fprintf(
          stderr,
          "xsl test driver: ZE_ENABLE_VALIDATION_LAYER=1 but %s does not "
          "load (%s); install the Level Zero validation layer (Debian: "
          "libze1) or unset the variable\n",
          kValidationLayer,
          layerError());
      std::abort();
    }
    return loaded;
  }();
  return layer;
}

// A table is read once: the driver fills its tables with fixed functions.
template <typename Table, typename Getter>
const Table& tableOf(Getter getter, const char* getter_name) {
  static const Table table = [getter, getter_name] {
    Table filled{};
    if (getter(ZE_API_VERSION_CURRENT, &filled) != ZE_RESULT_SUCCESS) {
      return Table{};
    }
    if (void* layer = validationLayer()) {
      auto layer_getter =
          reinterpret_cast<Getter>(layerSymbol(layer, getter_name));
      if (layer_getter != nullptr &&
          layer_getter(ZE_API_VERSION_CURRENT, &filled) != ZE_RESULT_SUCCESS) {
        return Table{};
      }
    }
    return filled;
  }();
  return table;
}

// XSL_TEST_DRIVER_TRACE=1 names every call that comes through an export,
// to see in which order a runtime uses the driver.
bool traceCalls() {
  static const bool trace = std::getenv("XSL_TEST_DRIVER_TRACE") != nullptr;
  return trace;
}

void traceCall(const char* name) {
  std::fprintf(stderr, "xsl test driver: %s\n", name);
}

ze_result_t unsupported(const char* name) {
  // XSL_TEST_DRIVER_LOG_UNSUPPORTED=1 names each call, to find what a
  // runtime asks of the driver.
  static const bool log =
      std::getenv("XSL_TEST_DRIVER_LOG_UNSUPPORTED") != nullptr;
  if (log) {
    std::fprintf(stderr, "xsl test driver: %s is not implemented\n", name);
  }
  return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
}

} // namespace

#define XSL_TABLE_EXPORT(name, table_type, getter, field, params, args)    \
  extern "C" ZE_DLLEXPORT ze_result_t ZE_APICALL name params {             \
    if (traceCalls()) {                                                    \
      traceCall(#name);                                                    \
    }                                                                      \
    const table_type& table = tableOf<table_type>(getter, #getter);        \
    return table.field != nullptr ? table.field args : unsupported(#name); \
  }

// Entry points newer than the installed headers: callers pass arguments
// this export ignores, which the C calling convention allows.
#define XSL_UNSUPPORTED_EXPORT(name)                      \
  extern "C" ZE_DLLEXPORT ze_result_t ZE_APICALL name() { \
    return unsupported(#name);                            \
  }

#include "loader_exports.inc"
