#include <string>

#include <gtest/gtest.h>

#include "ocloc/exit_status.h"

namespace xsl {
namespace ocloc {
namespace {

TEST(OclocExitStatus, CompilationCrashOnEveryPlatform) {
  // In-process / Windows signed.
  EXPECT_EQ(describeExitCode(-5152, true).kind, ExitKind::kCrash);
  // Windows exit code read unsigned (Python's returncode).
  EXPECT_EQ(describeExitCode(4294962144LL, true).kind, ExitKind::kCrash);
  // Linux keeps 8 bits: -5152 & 0xff == 224.
  const ExitMeaning linux_crash = describeExitCode(224, false);
  EXPECT_EQ(linux_crash.kind, ExitKind::kCrash);
  EXPECT_NE(
      linux_crash.text.find("OCLOC_COMPILATION_CRASH"), std::string::npos);
}

TEST(OclocExitStatus, WindowsNtStatus) {
  const ExitMeaning access = describeExitCode(3221225477LL, true);
  EXPECT_EQ(access.kind, ExitKind::kCrash);
  EXPECT_NE(access.text.find("ACCESS_VIOLATION"), std::string::npos);
  EXPECT_NE(access.text.find("0xC0000005"), std::string::npos);
  const ExitMeaning dll = describeExitCode(-1073741515LL, true); // 0xC0000135
  EXPECT_NE(dll.text.find("DLL_NOT_FOUND"), std::string::npos);
  EXPECT_EQ(describeExitCode(0xC0001234LL, true).kind, ExitKind::kCrash);
  // The same number on Linux is no NTSTATUS.
  EXPECT_EQ(describeExitCode(5, false).kind, ExitKind::kOther);
}

TEST(OclocExitStatus, OclocCodes) {
  EXPECT_EQ(describeExitCode(223, false).kind, ExitKind::kInvalidDevice);
  EXPECT_EQ(describeExitCode(-33, true).kind, ExitKind::kInvalidDevice);
  EXPECT_EQ(describeExitCode(226, false).kind, ExitKind::kInvalidInput);
  EXPECT_EQ(describeExitCode(-11, true).kind, ExitKind::kBuildFailure);
  EXPECT_EQ(describeExitCode(0, false).kind, ExitKind::kSuccess);
  EXPECT_EQ(describeExitCode(1, false).kind, ExitKind::kOther);
}

TEST(OclocExitStatus, Signals) {
  const ExitMeaning segv = describeSignal(11);
  EXPECT_EQ(segv.kind, ExitKind::kCrash);
  EXPECT_NE(segv.text.find("SIGSEGV"), std::string::npos);
  // A shell wrapper reports 128 + signal.
  const ExitMeaning wrapped = describeExitCode(139, false);
  EXPECT_EQ(wrapped.kind, ExitKind::kCrash);
  EXPECT_NE(wrapped.text.find("SIGSEGV"), std::string::npos);
  EXPECT_EQ(describeSignal(99).text, "signal 99");
}

} // namespace
} // namespace ocloc
} // namespace xsl
