#pragma once

// libocloc dlopens IGC with RTLD_DEEPBIND, which the ASan runtime refuses
// (it aborts the process): in sanitizer builds the real ocloc runs only as a
// subprocess, and nothing loads libocloc in-process (neither the tests nor
// the Level Zero test driver, which compiles SPIR-V with it).

#if defined(__SANITIZE_ADDRESS__)
#define XSL_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define XSL_ASAN_BUILD 1
#endif
#endif

namespace xsl {
namespace ocloc {

#ifdef XSL_ASAN_BUILD
constexpr bool kInProcessAllowed = false;
#else
constexpr bool kInProcessAllowed = true;
#endif
constexpr const char* kNoInProcessReason =
    "libocloc loads IGC with RTLD_DEEPBIND, which AddressSanitizer refuses";

} // namespace ocloc
} // namespace xsl
