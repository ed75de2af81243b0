// The loader's own entry points, for the build of the test driver that
// stands in for the Level Zero loader (libze_loader.so.1 / ze_loader.dll).
//
// Why a stand-in on Linux: the SYCL runtime's Level Zero adapters carry
// their own copy of the loader's front end. It loads libze_loader.so.1,
// asks it for its version and DDI tables, and calls through those tables.
// Debian 12's loader (1.8) is older than that front end expects, so with it
// the adapter crashes before it enumerates any device. This library answers
// as a loader would that has exactly one driver, this one, and no layers.

#include <cstddef>
#include <cstring>

#include <level_zero/layers/zel_tracing_ddi.h>
#include <level_zero/loader/ze_loader.h>
#include <level_zero/ze_api.h>

namespace {

// Reported as 1.8.0: the adapter's front end then uses zeInit rather than
// zeInitDrivers, which this driver implements the same way either way.
zel_component_version_t loaderVersion() {
  zel_component_version_t version;
  std::memset(&version, 0, sizeof(version));
  std::strncpy(version.component_name, "loader", ZEL_COMPONENT_STRING_SIZE - 1);
  version.spec_version = ZE_API_VERSION_CURRENT;
  version.component_lib_version.major = 1;
  version.component_lib_version.minor = 8;
  version.component_lib_version.patch = 0;
  return version;
}

} // namespace

extern "C" {

ZE_DLLEXPORT ze_result_t ZE_APICALL zeLoaderInit() {
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zelLoaderGetVersionsInternal(
    size_t* num_elems,
    zel_component_version_t* versions) {
  if (num_elems == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (versions == nullptr) {
    *num_elems = 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*num_elems < 1) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  versions[0] = loaderVersion();
  *num_elems = 1;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zelLoaderGetVersions(size_t* num_elems, zel_component_version_t* versions) {
  return zelLoaderGetVersionsInternal(num_elems, versions);
}

// Handles are never wrapped (there is one driver), so translation is the
// identity, as the real loader answers when its handle intercept is off.
ZE_DLLEXPORT ze_result_t ZE_APICALL zelLoaderTranslateHandleInternal(
    zel_handle_type_t handle_type,
    void* handle_in,
    void** handle_out) {
  if (handle_in == nullptr || handle_out == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (static_cast<int>(handle_type) < 0 ||
      static_cast<int>(handle_type) >
          static_cast<int>(ZEL_HANDLE_PHYSICAL_MEM)) {
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  }
  *handle_out = handle_in;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zelLoaderTranslateHandle(
    zel_handle_type_t handle_type,
    void* handle_in,
    void** handle_out) {
  return zelLoaderTranslateHandleInternal(handle_type, handle_in, handle_out);
}

// No tracing layer: the front end treats a null handle as "tracing off",
// and an empty tracer table leaves every zelTracer* function absent, so a
// caller that tries tracing gets ZE_RESULT_ERROR_UNINITIALIZED from it.
ZE_DLLEXPORT void* ZE_APICALL zeLoaderGetTracingHandle() {
  return nullptr;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL zelGetTracerApiProcAddrTable(
    ze_api_version_t version,
    zel_tracer_dditable_t* table) {
  if (table == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT)) {
    return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  }
  return ZE_RESULT_SUCCESS;
}

} // extern "C"
