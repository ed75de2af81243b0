// Both backends against the fake ocloc (fake_ocloc.h): the subprocess path
// (CreateProcessW / fork+exec, quoting, exit codes, crash codes, temporary
// folder cleanup) and the library path (LoadLibraryExW / dlopen,
// oclocInvoke), on Linux and on Windows under wine.

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include <gtest/gtest.h>

#include "common/platform.h"
#include "common/utf8_path.h"
#include "ocloc/backend.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"

namespace xsl {
namespace ocloc {
namespace {

void setEnv(const char* name, const std::string& value) {
#ifdef _WIN32
  _putenv_s(name, value.c_str());
#else
  setenv(name, value.c_str(), 1);
#endif
}

void unsetEnv(const char* name) {
#ifdef _WIN32
  _putenv_s(name, "");
#else
  unsetenv(name);
#endif
}

std::string spirv() {
  const uint32_t words[] = {0x07230203u, 0x00010000u, 0, 1, 0};
  return std::string(reinterpret_cast<const char*>(words), sizeof(words));
}

class FakeBackends : public ::testing::TestWithParam<bool> {
 protected:
  bool inProcess() const {
    return GetParam();
  }
  std::unique_ptr<OclocCompiler> open() {
    auto backend = inProcess() ? openLibraryBackend(XSL_FAKE_LIBOCLOC)
                               : openExecutableBackend(XSL_FAKE_OCLOC);
    EXPECT_TRUE(backend.ok()) << (backend ? "" : backend.error().message());
    if (!backend) {
      return nullptr;
    }
    EXPECT_EQ((*backend)->inProcess(), inProcess());
    return std::make_unique<OclocCompiler>(std::move(*backend));
  }
  Expected<CompileResult> compile(
      const std::string& device,
      const std::string& flags = "",
      const std::string& input = spirv()) {
    auto compiler = open();
    if (!compiler) {
      return Error("backend did not open");
    }
    CompileOptions options;
    options.device = device;
    options.build_flags = flags;
    return compiler->compile(input, options);
  }
};

TEST_P(FakeBackends, SpillRetryKeepsLargeGrfAndQuotingSurvives) {
  const std::string flags = "-DLABEL=\"a b\" -cl-fast-relaxed-math";
  auto result = compile("fake", flags);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(result->build_flags, flags + " -cl-intel-256-GRF-per-thread");
  EXPECT_TRUE(result->large_grf);
  EXPECT_EQ(result->spill_bytes, 0u);
  ASSERT_EQ(result->attempts.size(), 2u);
  EXPECT_EQ(result->attempts[0].spill_bytes, 1024u);
  EXPECT_NE(
      result->log.find("options: [" + flags + " -cl-intel-256"),
      std::string::npos)
      << result->log;
  EXPECT_FALSE(result->allow_zebin_option);
}

TEST_P(FakeBackends, LegacyFormatIsDetected) {
  auto result = compile("fake-legacy");
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(result->allow_zebin_option);
  EXPECT_EQ(
      result->zebin.compare(
          0,
          4,
          "\x7f"
          "ELF"),
      0);
}

TEST_P(FakeBackends, CrashesAndErrorCodesAreNamed) {
  auto crash = compile("fake-crash");
  ASSERT_FALSE(crash.ok());
  const std::string& crash_text = crash.error().message();
  EXPECT_NE(crash_text.find("ocloc crashed"), std::string::npos) << crash_text;
  if (inProcess()) {
    EXPECT_NE(crash_text.find("OCLOC_COMPILATION_CRASH"), std::string::npos);
  } else {
#ifdef _WIN32
    EXPECT_NE(crash_text.find("ACCESS_VIOLATION"), std::string::npos)
        << crash_text;
#else
    EXPECT_NE(crash_text.find("SIGSEGV"), std::string::npos) << crash_text;
#endif
  }

  auto code = compile("fake-5152");
  ASSERT_FALSE(code.ok());
  EXPECT_NE(
      code.error().message().find("OCLOC_COMPILATION_CRASH (-5152)"),
      std::string::npos)
      << code.error().message();

  auto device = compile("gpu9000");
  ASSERT_FALSE(device.ok());
  EXPECT_NE(
      device.error().message().find("does not know device 'gpu9000'"),
      std::string::npos);
  EXPECT_NE(
      device.error().message().find("Cannot get HW Info"), std::string::npos);

  // Big-endian SPIR-V passes our check; the fake rejects it with a log.
  std::string swapped = spirv();
  swapped[0] = '\x07';
  swapped[1] = '\x23';
  swapped[2] = '\x02';
  swapped[3] = '\x03';
  auto build = compile("fake", "", swapped);
  ASSERT_FALSE(build.ok());
  EXPECT_NE(
      build.error().message().find("could not build the SPIR-V"),
      std::string::npos)
      << build.error().message();
  EXPECT_NE(
      build.error().message().find("does not look like spirv"),
      std::string::npos);
}

TEST_P(FakeBackends, VersionIsTrimmed) {
  auto compiler = open();
  ASSERT_TRUE(compiler);
  auto version = queryOclocVersion(compiler->backend());
  ASSERT_TRUE(version.ok()) << version.error().message();
  EXPECT_EQ(*version, "99.1.0");
}

INSTANTIATE_TEST_SUITE_P(
    Backends,
    FakeBackends,
    ::testing::Values(false, true),
    [](const ::testing::TestParamInfo<bool>& info) {
      return info.param ? std::string("Library") : std::string("Executable");
    });

TEST(OclocBackend, SubprocessLeavesNoTemporaryFolders) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // A temporary folder of this test's own (TMPDIR, TMP on Windows): other
  // tests running at the same time make and remove theirs in the shared one.
  const fs::path temp =
      fs::temp_directory_path(ec) / "xsl_subprocess_temp_test";
  ASSERT_FALSE(ec);
  fs::remove_all(temp, ec);
  ASSERT_TRUE(fs::create_directories(temp, ec)) << ec.message();
#ifdef _WIN32
  const char* const variable = "TMP";
#else
  const char* const variable = "TMPDIR";
#endif
  const auto previous = platform::getEnvUtf8(variable);
  setEnv(variable, temp.string());
  // Restores the variable and removes the folder, however the test ends.
  struct Restore {
    const char* variable;
    const std::optional<std::string>& previous;
    const fs::path& folder;
    ~Restore() {
      if (previous) {
        setEnv(variable, *previous);
      } else {
        unsetEnv(variable);
      }
      std::error_code ignored;
      fs::remove_all(folder, ignored);
    }
  } restore{variable, previous, temp};
  auto count = [&]() {
    size_t n = 0;
    for (const auto& entry : fs::directory_iterator(temp, ec)) {
      n += entry.path().filename().string().rfind("xocl", 0) == 0 ? 1 : 0;
    }
    return n;
  };
  const size_t before = count();
  auto backend = openExecutableBackend(XSL_FAKE_OCLOC);
  ASSERT_TRUE(backend.ok());
  OclocCompiler compiler(std::move(*backend));
  CompileOptions options;
  options.device = "fake";
  ASSERT_TRUE(compiler.compile(spirv(), options).ok());
  options.device = "gpu9000";
  ASSERT_FALSE(compiler.compile(spirv(), options).ok());
  EXPECT_EQ(count(), before);
}

TEST(OclocBackend, MissingProgramsAndLibrariesAreErrors) {
  auto library = openLibraryBackend("/nonexistent/libocloc.so");
  ASSERT_FALSE(library.ok());
  EXPECT_NE(
      library.error().message().find("/nonexistent/libocloc.so"),
      std::string::npos);
  auto executable = openExecutableBackend("/nonexistent/ocloc");
  ASSERT_TRUE(executable.ok()); // opening only records the path
  auto result = (*executable)->compile(spirv(), {"-device", "fake"});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(
      result.error().message().find("/nonexistent/ocloc"), std::string::npos)
      << result.error().message();
  // A library without the ocloc API is refused by name.
  auto not_ocloc = openLibraryBackend(XSL_NOT_OCLOC_LIBRARY);
  ASSERT_FALSE(not_ocloc.ok());
  EXPECT_NE(not_ocloc.error().message().find("oclocInvoke"), std::string::npos);
}

} // namespace
} // namespace ocloc
} // namespace xsl

namespace xsl {
namespace ocloc {
namespace {

// The host discovery end to end: an install laid out like oneAPI on
// Windows (found through ONEAPI_ROOT), like a prefix with lib/ on Linux
// (found through XSL_OCLOC), opened and used in-process.
TEST(OclocBackend, HostDiscoveryFindsAFakeInstall) {
  namespace fs = std::filesystem;
  auto env = platform::getEnvUtf8("XSL_OCLOC");
  std::error_code ec;
  const fs::path root = fs::temp_directory_path(ec) / "xsl_fake_ocloc_install";
  fs::remove_all(root, ec);
#ifdef _WIN32
  const fs::path bin = root / "ocloc" / "latest" / "bin";
  const fs::path library = bin / "ocloc64.dll";
  const fs::path executable = bin / "ocloc.exe";
#else
  const fs::path bin = root / "bin";
  const fs::path library = root / "lib" / "libocloc.so";
  const fs::path executable = bin / "ocloc";
#endif
  fs::create_directories(bin, ec);
  fs::create_directories(library.parent_path(), ec);
  fs::copy_file(XSL_FAKE_OCLOC, executable, ec);
  ASSERT_FALSE(ec) << ec.message();
  fs::copy_file(XSL_FAKE_LIBOCLOC, library, ec);
  ASSERT_FALSE(ec) << ec.message();
#ifdef _WIN32
  unsetEnv("XSL_OCLOC");
  auto old_root = platform::getEnvUtf8("ONEAPI_ROOT");
  setEnv("ONEAPI_ROOT", xsl::utf8FromPath(root));
#else
  setEnv("XSL_OCLOC", xsl::utf8FromPath(bin));
#endif
  auto found = findOcloc(DiscoveryEnvironment::host());
#ifdef _WIN32
  old_root ? setEnv("ONEAPI_ROOT", *old_root) : unsetEnv("ONEAPI_ROOT");
#endif
  env ? setEnv("XSL_OCLOC", *env) : unsetEnv("XSL_OCLOC");
  ASSERT_TRUE(found.ok()) << found.error().message();
#ifdef _WIN32
  EXPECT_EQ(found->source, OclocSource::kOneApi);
#else
  EXPECT_EQ(found->source, OclocSource::kEnvironment);
#endif
  EXPECT_TRUE(
      fs::equivalent(xsl::pathFromUtf8(found->executable), executable, ec));
  EXPECT_TRUE(fs::equivalent(xsl::pathFromUtf8(found->library), library, ec));
  auto compiler = OclocCompiler::open(*found, BackendChoice::kAuto);
  ASSERT_TRUE(compiler.ok()) << compiler.error().message();
  EXPECT_TRUE((*compiler)->backend().inProcess());
  CompileOptions options;
  options.device = "fake";
  auto result = (*compiler)->compile(spirv(), options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(result->large_grf);
  compiler->reset();
  fs::remove_all(root, ec); // the library stays loaded: may fail on Windows
}

} // namespace
} // namespace ocloc
} // namespace xsl
