#pragma once

// Human-readable meaning of what ocloc returned: the return value of
// oclocInvoke, the exit code of the executable (Linux keeps only the low
// 8 bits, so -5152 arrives as 224; Windows keeps all 32, so it arrives as
// -5152 or, read unsigned, 4294962144), Windows NTSTATUS crash codes
// (0xC0000005 ...), and POSIX signals.

#include <cstdint>
#include <string>

namespace xsl {
namespace ocloc {

// ocloc's own error codes (NEO shared/offline_compiler ocloc_error_code.h).
constexpr int kOclocSuccess = 0;
constexpr int kOclocOutOfHostMemory = -6;
constexpr int kOclocBuildProgramFailure = -11;
constexpr int kOclocInvalidDevice = -33;
constexpr int kOclocInvalidProgram = -44;
constexpr int kOclocInvalidCommandLine = -5150;
constexpr int kOclocInvalidFile = -5151;
constexpr int kOclocCompilationCrash = -5152;

enum class ExitKind {
  kSuccess,
  kBuildFailure,  // the compiler rejected the program (log has details)
  kInvalidDevice, // -device names nothing this ocloc knows
  kInvalidInput,  // invalid file / program / command line
  kCrash,         // ocloc or IGC crashed (signal, NTSTATUS, -5152)
  kOther,
};

struct ExitMeaning {
  ExitKind kind = ExitKind::kOther;
  std::string text; // "OCLOC_INVALID_DEVICE (-33)", "signal 11 (SIGSEGV)"
};

// `code` as the ocloc executable exited with it (`windows` says how it was
// truncated) or as oclocInvoke returned it (pass windows = true: no
// truncation happens in-process).
ExitMeaning describeExitCode(int64_t code, bool windows);
ExitMeaning describeSignal(int signal_number);

} // namespace ocloc
} // namespace xsl
