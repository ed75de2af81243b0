// The loader-only entry points, for the stand-in loader build (a copy of
// this driver named libze_loader.so.1 / ze_loader.dll). Level Zero front
// ends that are linked into other libraries (the SYCL runtime's Unified
// Runtime adapters carry one) find the loader by name, ask it for these and
// then for the DDI tables, which the driver exports itself. The stand-in
// reports itself as a loader of API 1.4 with no layers.

#include <cstddef>
#include <cstring>

#include <level_zero/ze_api.h>

// The loader's own types (level_zero/loader/ze_loader.h, which not every
// header package ships).
namespace {
constexpr size_t kComponentNameSize = 64;
struct ZelVersion {
  int major;
  int minor;
  int patch;
};
struct ZelComponentVersion {
  char component_name[kComponentNameSize];
  ze_api_version_t spec_version;
  ZelVersion component_lib_version;
};
typedef int ZelHandleType;
} // namespace

extern "C" {

ZE_DLLEXPORT ze_result_t ZE_APICALL zeLoaderInit() {
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zelLoaderGetVersionsInternal(size_t* num_elems, ZelComponentVersion* out) {
  if (num_elems == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (out == nullptr) {
    *num_elems = 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*num_elems < 1) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  std::memset(out, 0, sizeof(*out));
  std::strncpy(out->component_name, "loader", kComponentNameSize - 1);
  out->spec_version = ZE_API_VERSION_1_4;
  out->component_lib_version.major = 1;
  out->component_lib_version.minor = 8;
  out->component_lib_version.patch = 0;
  *num_elems = 1;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zelLoaderGetVersions(size_t* num_elems, ZelComponentVersion* out) {
  return zelLoaderGetVersionsInternal(num_elems, out);
}

// Handles are the driver's own: there is no loader layer to translate.
ZE_DLLEXPORT ze_result_t ZE_APICALL zelLoaderTranslateHandleInternal(
    ZelHandleType,
    void* handleIn,
    void** handleOut) {
  if (handleIn == nullptr || handleOut == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  *handleOut = handleIn;
  return ZE_RESULT_SUCCESS;
}

ZE_DLLEXPORT ze_result_t ZE_APICALL
zelLoaderTranslateHandle(ZelHandleType type, void* handleIn, void** handleOut) {
  return zelLoaderTranslateHandleInternal(type, handleIn, handleOut);
}

// The tracer API table stays as the caller initialised it: no tracing.
ZE_DLLEXPORT ze_result_t ZE_APICALL
zelGetTracerApiProcAddrTable(ze_api_version_t version, void* table) {
  if (table == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  return ZE_MAJOR_VERSION(version) == ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT)
      ? ZE_RESULT_SUCCESS
      : ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
}

ZE_DLLEXPORT void* ZE_APICALL zeLoaderGetTracingHandle() {
  return nullptr; // no tracing layer
}

} // extern "C"
