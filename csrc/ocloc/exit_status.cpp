#include "ocloc/exit_status.h"

#include <cstdint>
#include <sstream>
#include <string>

namespace xsl {
namespace ocloc {
namespace {

struct NamedCode {
  int code;
  const char* name;
  ExitKind kind;
};

constexpr NamedCode kOclocCodes[] = {
    {kOclocOutOfHostMemory, "OCLOC_OUT_OF_HOST_MEMORY", ExitKind::kOther},
    {kOclocBuildProgramFailure,
     "OCLOC_BUILD_PROGRAM_FAILURE",
     ExitKind::kBuildFailure},
    {kOclocInvalidDevice, "OCLOC_INVALID_DEVICE", ExitKind::kInvalidDevice},
    {kOclocInvalidProgram, "OCLOC_INVALID_PROGRAM", ExitKind::kInvalidInput},
    {kOclocInvalidCommandLine,
     "OCLOC_INVALID_COMMAND_LINE",
     ExitKind::kInvalidInput},
    {kOclocInvalidFile, "OCLOC_INVALID_FILE", ExitKind::kInvalidInput},
    {kOclocCompilationCrash, "OCLOC_COMPILATION_CRASH", ExitKind::kCrash},
};

struct NamedStatus {
  uint32_t code;
  const char* name;
};

// NTSTATUS values a crashed Windows process exits with.
constexpr NamedStatus kWindowsCrashCodes[] = {
    {0xC0000005u, "STATUS_ACCESS_VIOLATION"},
    {0xC000001Du, "STATUS_ILLEGAL_INSTRUCTION"},
    {0xC0000094u, "STATUS_INTEGER_DIVIDE_BY_ZERO"},
    {0xC00000FDu, "STATUS_STACK_OVERFLOW"},
    {0xC0000135u, "STATUS_DLL_NOT_FOUND (a DLL ocloc needs is missing)"},
    {0xC0000139u, "STATUS_ENTRYPOINT_NOT_FOUND (mismatched ocloc DLLs)"},
    {0xC0000142u, "STATUS_DLL_INIT_FAILED"},
    {0xC0000374u, "STATUS_HEAP_CORRUPTION"},
    {0xC0000409u, "STATUS_STACK_BUFFER_OVERRUN (fail fast)"},
    {0x40000015u, "STATUS_FATAL_APP_EXIT (abort)"},
};

std::string hex32(uint32_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << std::uppercase << value;
  return out.str();
}

} // namespace

ExitMeaning describeExitCode(int64_t code, bool windows) {
  ExitMeaning meaning;
  if (code == 0) {
    meaning.kind = ExitKind::kSuccess;
    meaning.text = "success (0)";
    return meaning;
  }
  // Python reports Windows exit codes unsigned; fold them back to int32.
  int64_t folded = code;
  if (windows && code > 0x7fffffffLL && code <= 0xffffffffLL) {
    folded = static_cast<int32_t>(static_cast<uint32_t>(code));
  }
  for (const auto& named : kOclocCodes) {
    // POSIX exit statuses keep 8 bits: -5152 becomes 224.
    const int64_t expected =
        windows ? named.code : static_cast<int64_t>(named.code & 0xff);
    if (folded == expected || folded == named.code) {
      meaning.kind = named.kind;
      meaning.text =
          std::string(named.name) + " (" + std::to_string(named.code) + ")";
      return meaning;
    }
  }
  if (windows) {
    const auto unsigned_code = static_cast<uint32_t>(folded);
    for (const auto& named : kWindowsCrashCodes) {
      if (unsigned_code == named.code) {
        meaning.kind = ExitKind::kCrash;
        meaning.text = std::string(named.name) + " (" + hex32(named.code) + ")";
        return meaning;
      }
    }
    if ((unsigned_code & 0xC0000000u) == 0xC0000000u) {
      meaning.kind = ExitKind::kCrash;
      meaning.text = "NTSTATUS error " + hex32(unsigned_code);
      return meaning;
    }
  } else if (folded > 128 && folded < 128 + 65) {
    // A shell-style 128+N status: the program (or a wrapper script) died
    // from signal N.
    meaning = describeSignal(static_cast<int>(folded - 128));
    meaning.text = "exit code " + std::to_string(folded) + ", " + meaning.text;
    return meaning;
  }
  meaning.kind = ExitKind::kOther;
  meaning.text = "exit code " + std::to_string(folded);
  return meaning;
}

ExitMeaning describeSignal(int signal_number) {
  // POSIX numbers, stable on Linux x86-64; named here so Windows builds
  // that parse Linux results need no <csignal> constants.
  static const char* const kNames[] = {
      nullptr,
      "SIGHUP",
      "SIGINT",
      "SIGQUIT",
      "SIGILL",
      "SIGTRAP",
      "SIGABRT",
      "SIGBUS",
      "SIGFPE",
      "SIGKILL",
      "SIGUSR1",
      "SIGSEGV",
      "SIGUSR2",
      "SIGPIPE",
      "SIGALRM",
      "SIGTERM"};
  ExitMeaning meaning;
  meaning.kind = ExitKind::kCrash;
  meaning.text = "signal " + std::to_string(signal_number);
  if (signal_number > 0 &&
      static_cast<size_t>(signal_number) < sizeof(kNames) / sizeof(kNames[0])) {
    meaning.text += std::string(" (") + kNames[signal_number] + ")";
  }
  return meaning;
}

} // namespace ocloc
} // namespace xsl
