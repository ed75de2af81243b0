// The driver backend (SPIR-V -> zebin through Level Zero) against the test
// driver, which compiles SPIR-V with the real in-process libocloc: the zebin
// matches ocloc's for the same options, targets pick devices by IP version,
// and every failure is one clear error with the build log. Scenario* tests
// run only in their own ctest entries (XSL_TEST_SCENARIO). Under wine the
// stand-in ze_loader.dll has no ocloc library to compile with, so only the
// error paths run there.

#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "common/platform.h"
#include "compile/driver_compiler.h"
#include "compile/zebin_compiler.h"
#include "file_io/file_io.h"
#include "in_process_ocloc.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"
#include "standin_loader_environment.h"
#include "test_driver_client.h"
#include "zebin/zebin.h"

namespace xsl {
namespace compile {
namespace {

// The ocloc module's types, which the driver compiler shares.
using ocloc::BackendChoice;
using ocloc::CompileOptions;
using ocloc::DiscoveryEnvironment;
using ocloc::kInProcessAllowed;
using ocloc::kNoInProcessReason;
using ocloc::kOclocEnvVar;
using ocloc::OclocCompiler;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string scenario() {
  return platform::getEnvUtf8("XSL_TEST_SCENARIO").value_or("");
}

#define SKIP_UNLESS_SCENARIO(name)                                    \
  if (scenario() != (name)) {                                         \
    GTEST_SKIP() << "runs in the ctest entry with XSL_TEST_SCENARIO=" \
                 << (name);                                           \
  }

std::string corpus(const std::string& name) {
  auto dir = platform::getEnvUtf8("XSL_BINARY_DIR");
  if (!dir) {
    return std::string();
  }
  auto bytes = file_io::readFileBytes(*dir + "/corpus/" + name + ".spv");
  return bytes ? *bytes : std::string();
}

CompileOptions options(
    const std::string& device,
    const std::string& flags = "",
    bool retry = true) {
  CompileOptions out;
  out.device = device;
  out.build_flags = flags;
  out.retry_large_grf = retry;
  return out;
}

TEST(DriverTarget, NamesAndIpVersionsParse) {
  auto pvc = parseTarget("pvc");
  ASSERT_TRUE(pvc.ok());
  ASSERT_EQ(pvc->size(), 2u);
  EXPECT_EQ((*pvc)[0].architecture, 12u);
  EXPECT_EQ((*pvc)[0].release, 60u);
  auto ip = parseTarget("12.55.8");
  ASSERT_TRUE(ip.ok());
  EXPECT_TRUE((*ip)[0].has_revision);
  EXPECT_EQ((*ip)[0].revision, 8u);
  auto raw = parseTarget("0x030f0007"); // 12.60.7
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ((*raw)[0].architecture, 12u);
  EXPECT_EQ((*raw)[0].release, 60u);
  EXPECT_EQ(ipVersionText(0x030f0007u), "12.60.7");
  auto bad = parseTarget("gpu9000");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error().message(), "'gpu9000'"));
  EXPECT_TRUE(contains(bad.error().message(), "pvc"));
}

TEST(DriverTarget, DevicesMatchByArchitectureAndRelease) {
  DriverDevice device;
  device.ip_version = 0x030f0007u; // 12.60.7
  EXPECT_TRUE(deviceMatches(device, *parseTarget("pvc")));
  EXPECT_TRUE(deviceMatches(device, *parseTarget("12.60")));
  EXPECT_FALSE(deviceMatches(device, *parseTarget("12.60.3")));
  EXPECT_FALSE(deviceMatches(device, *parseTarget("dg2")));
  device.ip_version = 0; // a driver that reports none matches nothing
  EXPECT_FALSE(deviceMatches(device, *parseTarget("pvc")));
}

TEST(DriverTarget, CompilerKindParses) {
  EXPECT_EQ(*parseCompilerKind("driver"), CompilerKind::kDriver);
  EXPECT_EQ(*parseCompilerKind(""), CompilerKind::kAuto);
  auto bad = parseCompilerKind("gpu");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error().message(), kZebinCompilerEnvVar));
}

TEST(DriverTarget, CompilerChoiceParses) {
  const std::tuple<const char*, CompilerKind, BackendChoice> cases[] = {
      {"ocloc-library", CompilerKind::kOcloc, BackendChoice::kLibrary},
      {"ocloc-executable", CompilerKind::kOcloc, BackendChoice::kExecutable},
      {"ocloc", CompilerKind::kOcloc, BackendChoice::kAuto},
      {"driver", CompilerKind::kDriver, BackendChoice::kAuto},
      {"", CompilerKind::kAuto, BackendChoice::kAuto}};
  for (const auto& [text, kind, backend] : cases) {
    auto choice = parseCompilerChoice(text);
    ASSERT_TRUE(choice.ok()) << text;
    EXPECT_EQ(choice->kind, kind) << text;
    EXPECT_EQ(choice->ocloc_backend, backend) << text;
  }
  auto bad = parseCompilerChoice("ocloc-dll");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(contains(bad.error().message(), "'ocloc-dll' is not one of"));
  EXPECT_TRUE(contains(bad.error().message(), "ocloc-executable"));
}

class DriverCompile : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!scenario().empty()) {
      GTEST_SKIP() << "default environment only";
    }
    auto opened = DriverCompiler::open();
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    driver_ = std::move(*opened);
    add_ = corpus("add");
    if (add_.empty()) {
      GTEST_SKIP() << "no SPIR-V corpus (build the xsl_zebin_corpus target)";
    }
  }
  std::unique_ptr<DriverCompiler> driver_;
  std::string add_;
};

TEST_F(DriverCompile, DescribesTheDevices) {
  ASSERT_EQ(driver_->devices().size(), 2u);
  EXPECT_EQ(driver_->devices()[0].ip_version, 0x030f0007u);
  EXPECT_TRUE(contains(driver_->description(), "(IP 12.60.7)"));
  auto device = driver_->deviceFor("pvc");
  ASSERT_TRUE(device.ok()) << device.error().message();
  EXPECT_EQ(device->device_index, 0u);
}

TEST_F(DriverCompile, ArchitectureMismatchIsOneLine) {
  auto result = driver_->compile(add_, options("bmg"));
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message();
  EXPECT_TRUE(contains(message, "no Intel GPU of target 'bmg'")) << message;
  EXPECT_TRUE(contains(message, "IP 12.60.7")) << message;
  EXPECT_FALSE(contains(message, "\n")) << message;
}

TEST_F(DriverCompile, InvalidSpirvIsRefusedBeforeTheDriver) {
  auto result = driver_->compile("not spir-v at all", options("pvc"));
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(contains(result.error().message(), "is not SPIR-V"));
}

#ifndef _WIN32
std::string zeInfoOf(const std::string& zebin_bytes) {
  auto elf = zebin::readElf(zebin_bytes);
  EXPECT_TRUE(elf.ok()) << elf.error().message();
  const zebin::Section* section = elf ? elf->findSection(".ze_info") : nullptr;
  return section == nullptr ? std::string() : std::string(section->data);
}

// The test driver compiles with the local libocloc: skipped without one.
class DriverVsOcloc : public DriverCompile {
 protected:
  void SetUp() override {
    DriverCompile::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
      return;
    }
    if (!kInProcessAllowed) {
      GTEST_SKIP() << kNoInProcessReason;
    }
    auto install = ocloc::findOcloc(DiscoveryEnvironment::host());
    if (!install || install->library.empty()) {
      GTEST_SKIP() << "no ocloc library here";
    }
    auto ocloc = OclocCompiler::open(*install, BackendChoice::kLibrary);
    ASSERT_TRUE(ocloc.ok()) << ocloc.error().message();
    ocloc_ = std::move(*ocloc);
  }
  std::unique_ptr<OclocCompiler> ocloc_;
};

TEST_F(DriverVsOcloc, SameZeInfoForTheSameOptions) {
  for (const char* name : {"add", "slm_reduce", "two_kernels", "many_args"}) {
    const std::string spirv = corpus(name);
    ASSERT_FALSE(spirv.empty()) << name;
    for (const char* flags : {"", kDriverLargeGrfFlag}) {
      CompileOptions opts = options("pvc", flags, false);
      auto by_driver = driver_->compile(spirv, opts);
      ASSERT_TRUE(by_driver.ok()) << by_driver.error().message();
      auto by_ocloc = ocloc_->compile(spirv, opts);
      ASSERT_TRUE(by_ocloc.ok()) << by_ocloc.error().message();
      EXPECT_EQ(zeInfoOf(by_driver->zebin), zeInfoOf(by_ocloc->zebin))
          << name << " with '" << flags << "'";
      EXPECT_EQ(
          contains(zeInfoOf(by_driver->zebin), "grf_count:       256"),
          std::string(flags).size() > 0)
          << name;
    }
  }
}

TEST_F(DriverVsOcloc, SpillingKernelKeepsTheLargeGrfBuild) {
  const std::string spirv = corpus("spill");
  ASSERT_FALSE(spirv.empty());
  auto result = driver_->compile(spirv, options("pvc"));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->build_flags, kDriverLargeGrfFlag);
  EXPECT_TRUE(result->large_grf);
  ASSERT_EQ(result->attempts.size(), 2u);
  EXPECT_GT(result->attempts[0].spill_bytes, result->spill_bytes);
}

TEST_F(DriverVsOcloc, BuildFailureCarriesTheBuildLog) {
  // SPIR-V header and a truncated body: the driver's IGC refuses it.
  std::string broken = add_.substr(0, 40);
  auto result = driver_->compile(broken, options("pvc"));
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message();
  EXPECT_TRUE(contains(message, "the driver could not build the SPIR-V"))
      << message;
  EXPECT_TRUE(contains(message, "build log:\nxsl test driver:")) << message;
}
#endif

TEST(ScenarioNoDevices, DriverOpenSaysSo) {
  SKIP_UNLESS_SCENARIO("no_devices");
  auto opened = DriverCompiler::open();
  ASSERT_FALSE(opened.ok());
  EXPECT_TRUE(
      contains(opened.error().message(), "no Intel GPU to compile with"))
      << opened.error().message();
}

TEST(ScenarioDg2Device, PvcTargetIsAMismatchDg2Builds) {
  SKIP_UNLESS_SCENARIO("dg2");
  auto opened = DriverCompiler::open();
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  auto pvc = (*opened)->deviceFor("pvc");
  ASSERT_FALSE(pvc.ok());
  EXPECT_TRUE(contains(pvc.error().message(), "IP 12.55.8"));
  EXPECT_TRUE((*opened)->deviceFor("dg2").ok());
  EXPECT_TRUE((*opened)->deviceFor("acm-g10").ok());
}

// No ocloc library for the test driver (always so under wine): the driver
// refuses SPIR-V and the error carries its build log.
TEST(ScenarioDriverWithoutCompiler, ErrorCarriesTheBuildLog) {
  SKIP_UNLESS_SCENARIO("driver_without_compiler");
  auto opened = DriverCompiler::open();
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  std::string spirv = corpus("add");
  if (spirv.empty()) {
    // A valid SPIR-V header is enough: the build fails before IGC.
    spirv.assign(20, '\0');
    spirv[0] = '\x03';
    spirv[1] = '\x02';
    spirv[2] = '\x23';
    spirv[3] = '\x07';
  }
  auto result = (*opened)->compile(spirv, options("pvc"));
  ASSERT_FALSE(result.ok());
  const std::string& message = result.error().message();
  EXPECT_TRUE(contains(message, "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE"))
      << message;
  EXPECT_TRUE(contains(message, "no ocloc library to compile SPIR-V with"))
      << message;
}

// No ocloc anywhere (a file system without it), a test-driver GPU:
// automatic discovery ends at the driver and says so.
TEST_F(DriverCompile, AutomaticDiscoveryFallsBackToTheDriver) {
  DiscoveryEnvironment env = DiscoveryEnvironment::host();
  env.is_file = [](const std::string&) { return false; };
  env.is_directory = [](const std::string&) { return false; };
  auto get_env = env.get_env;
  env.get_env = [get_env](const std::string& name) {
    return name == kOclocEnvVar || name == kZebinCompilerEnvVar
        ? std::optional<std::string>()
        : get_env(name);
  };
  auto opened =
      ZebinCompiler::open(CompilerKind::kAuto, BackendChoice::kAuto, env);
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  EXPECT_TRUE((*opened)->isDriver());
  EXPECT_TRUE(contains((*opened)->description(), "source: driver"));
  ASSERT_FALSE((*opened)->tried().empty());
  EXPECT_TRUE(contains((*opened)->tried().back(), "driver: Level Zero driver"));
  auto forced =
      ZebinCompiler::open(CompilerKind::kOcloc, BackendChoice::kAuto, env);
  ASSERT_FALSE(forced.ok());
  EXPECT_TRUE(contains(
      forced.error().message(),
      "ocloc (the Intel GPU offline compiler) was not found"));
}

} // namespace
} // namespace compile
} // namespace xsl
