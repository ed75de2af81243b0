#ifndef XSL_COMPILE_CAPI_H
#define XSL_COMPILE_CAPI_H

/* A small C ABI over the zebin compilers, ocloc and the GPU driver
 * (zebin_compiler.h; library xsl_compile_capi), for callers that cannot link
 * C++: Python's ctypes (tests/python/ocloc_support.py and the benchmarks) on
 * Linux and Windows.
 *
 * Strings are UTF-8 and NUL-terminated. Every object returned is owned by
 * the caller and freed with the matching xsl_compile_*_free function; error
 * messages (out parameter `error`) are freed with xsl_compile_string_free. */

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#ifdef XSL_COMPILE_CAPI_BUILD
#define XSL_COMPILE_API __declspec(dllexport)
#else
#define XSL_COMPILE_API __declspec(dllimport)
#endif
#else
#define XSL_COMPILE_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xsl_compiler xsl_compiler;
typedef struct xsl_compile_result xsl_compile_result;

/* backend: 0 = library if it loads, else executable, and the installed GPU
 * driver (Level Zero) when no ocloc is found (XSL_ZEBIN_COMPILER=ocloc|driver
 * forces one); 1 = ocloc library only; 2 = ocloc executable only; 3 = the
 * driver only. ocloc_path: NULL to discover ocloc (XSL_OCLOC, wheel, PATH,
 * oneAPI, system folders), else what XSL_OCLOC would hold.
 * python_paths: NULL, or the caller's sys.path joined with os.pathsep
 * (';' on Windows, ':' elsewhere), searched first for the intel_ocloc wheel.
 * Returns NULL and sets *error on failure. */
XSL_COMPILE_API xsl_compiler* xsl_compile_open(
    int backend,
    const char* ocloc_path,
    const char* python_paths,
    char** error);
XSL_COMPILE_API void xsl_compile_close(xsl_compiler* compiler);

/* Where ocloc was found (or "source: driver"), which backend runs it and
 * its version, one "key: value" per line, then "tried:" and every place
 * looked at, indented. Owned by the compiler. */
XSL_COMPILE_API const char* xsl_compile_describe(const xsl_compiler* compiler);

/* SPIR-V -> zebin. retry_large_grf: nonzero = Triton's default-GRF retry.
 * Returns NULL and sets *error on failure. */
XSL_COMPILE_API xsl_compile_result* xsl_compile_spirv(
    xsl_compiler* compiler,
    const void* spirv,
    size_t spirv_size,
    const char* device,
    const char* build_flags,
    int retry_large_grf,
    char** error);

XSL_COMPILE_API const void* xsl_compile_result_zebin(
    const xsl_compile_result* result,
    size_t* size);
XSL_COMPILE_API const char* xsl_compile_result_build_flags(
    const xsl_compile_result* result);
XSL_COMPILE_API uint64_t
xsl_compile_result_spill_bytes(const xsl_compile_result* result);
XSL_COMPILE_API const char* xsl_compile_result_log(
    const xsl_compile_result* result);
XSL_COMPILE_API void xsl_compile_result_free(xsl_compile_result* result);

XSL_COMPILE_API void xsl_compile_string_free(char* text);

#ifdef __cplusplus
}
#endif

#endif /* XSL_COMPILE_CAPI_H */
