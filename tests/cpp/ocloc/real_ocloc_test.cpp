// Real compiles with the local ocloc (Debian's intel-opencl-icd here), in
// process and as a subprocess. Skipped when ocloc or the SPIR-V corpus
// (tests/kernels, built by the xsl_zebin_corpus target) is missing, as
// under wine.

#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "common/platform.h"
#include "file_io/file_io.h"
#include "in_process_ocloc.h"
#include "ocloc/backend.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"
#include "zebin/zebin.h"

namespace xsl {
namespace ocloc {
namespace {

class RealOcloc : public ::testing::Test {
 protected:
  void SetUp() override {
    auto found = findOcloc(DiscoveryEnvironment::host());
    if (!found) {
      GTEST_SKIP() << "no ocloc on this machine: " << found.error().message();
    }
    install_ = *found;
    auto binary_dir = platform::getEnvUtf8("XSL_BINARY_DIR");
    if (!binary_dir) {
      GTEST_SKIP() << "XSL_BINARY_DIR is not set (run through ctest)";
    }
    corpus_ = *binary_dir + "/corpus/";
    auto add = file_io::readFileBytes(corpus_ + "add.spv");
    if (!add) {
      GTEST_SKIP() << "no SPIR-V corpus in " << corpus_
                   << " (build the xsl_zebin_corpus target)";
    }
    add_spirv_ = *add;
  }

  std::unique_ptr<OclocCompiler> open(BackendChoice choice) {
    auto compiler = OclocCompiler::open(install_, choice);
    EXPECT_TRUE(compiler.ok()) << (compiler ? "" : compiler.error().message());
    return compiler ? std::move(*compiler) : nullptr;
  }

  static std::string zeInfoText(const std::string& bytes) {
    auto elf = zebin::readElf(bytes);
    if (!elf) {
      return "unreadable: " + elf.error().message();
    }
    const zebin::Section* section = elf->findSection(".ze_info");
    return section == nullptr ? "missing" : std::string(section->data);
  }

  OclocInstall install_;
  std::string corpus_;
  std::string add_spirv_;
};

TEST_F(RealOcloc, VersionFromBothBackends) {
  if (!kInProcessAllowed) {
    GTEST_SKIP() << kNoInProcessReason;
  }
  if (install_.library.empty()) {
    GTEST_SKIP() << "ocloc library not found next to " << install_.executable;
  }
  auto library = openLibraryBackend(install_.library);
  ASSERT_TRUE(library.ok()) << library.error().message();
  auto executable = openExecutableBackend(install_.executable);
  ASSERT_TRUE(executable.ok()) << executable.error().message();
  auto from_library = queryOclocVersion(**library);
  auto from_executable = queryOclocVersion(**executable);
  ASSERT_TRUE(from_library.ok()) << from_library.error().message();
  ASSERT_TRUE(from_executable.ok()) << from_executable.error().message();
  EXPECT_EQ(*from_library, *from_executable);
  EXPECT_NE(from_library->find('.'), std::string::npos) << *from_library;
  // ocloc writes the answer NUL-terminated; none of that may leak through.
  EXPECT_EQ(from_library->find('\0'), std::string::npos);
  EXPECT_NE(from_library->back(), ' ');
}

TEST_F(RealOcloc, InProcessAndSubprocessGiveTheSameZeInfo) {
  if (!kInProcessAllowed) {
    GTEST_SKIP() << kNoInProcessReason;
  }
  if (install_.library.empty()) {
    GTEST_SKIP() << "ocloc library not found next to " << install_.executable;
  }
  auto in_process = open(BackendChoice::kLibrary);
  auto subprocess = open(BackendChoice::kExecutable);
  ASSERT_TRUE(in_process && subprocess);
  EXPECT_TRUE(in_process->backend().inProcess());
  EXPECT_FALSE(subprocess->backend().inProcess());
  CompileOptions options;
  options.device = "pvc";
  options.build_flags = "-cl-intel-256-GRF-per-thread";
  auto a = in_process->compile(add_spirv_, options);
  ASSERT_TRUE(a.ok()) << a.error().message();
  auto b = subprocess->compile(add_spirv_, options);
  ASSERT_TRUE(b.ok()) << b.error().message();
  EXPECT_EQ(a->build_flags, b->build_flags);
  const std::string ze_info = zeInfoText(a->zebin);
  EXPECT_NE(ze_info.find("grf_count:       256"), std::string::npos) << ze_info;
  EXPECT_EQ(ze_info, zeInfoText(b->zebin));
  auto parsed = zebin::readZebin(a->zebin);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message();
  EXPECT_NE(parsed->findKernel("add"), nullptr);
}

TEST_F(RealOcloc, SpillingKernelIsRebuiltWithLargeGrf) {
  auto spill = file_io::readFileBytes(corpus_ + "spill.spv");
  if (!spill) {
    GTEST_SKIP() << "no spill.spv in " << corpus_;
  }
  auto compiler = open(
      kInProcessAllowed ? BackendChoice::kAuto : BackendChoice::kExecutable);
  ASSERT_TRUE(compiler);
  CompileOptions options;
  options.device = "pvc";
  auto result = compiler->compile(*spill, options);
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_EQ(result->attempts.size(), 2u);
  EXPECT_GT(result->attempts[0].spill_bytes, 0u);
  // pvc: 256 GRF halves the scratch of this kernel, so it is kept.
  EXPECT_LT(result->spill_bytes, result->attempts[0].spill_bytes);
  EXPECT_TRUE(result->large_grf);
  EXPECT_EQ(result->build_flags, kLargeGrfFlag);
}

TEST_F(RealOcloc, ClearErrorsForBadDeviceAndBadSpirv) {
  for (BackendChoice choice :
       {BackendChoice::kAuto, BackendChoice::kExecutable}) {
    if (choice == BackendChoice::kAuto && !kInProcessAllowed) {
      continue;
    }
    auto compiler = open(choice);
    ASSERT_TRUE(compiler);
    CompileOptions options;
    options.device = "no-such-gpu";
    auto device = compiler->compile(add_spirv_, options);
    ASSERT_FALSE(device.ok());
    EXPECT_NE(
        device.error().message().find("does not know device "
                                      "'no-such-gpu'"),
        std::string::npos)
        << device.error().message();

    // Right magic, garbage after it: ocloc itself must refuse it.
    std::string broken = add_spirv_.substr(0, 20) + std::string(64, '\x5a');
    options.device = "pvc";
    auto invalid = compiler->compile(broken, options);
    ASSERT_FALSE(invalid.ok());
    EXPECT_NE(invalid.error().message().find("ocloc"), std::string::npos);
    EXPECT_NE(invalid.error().message().find("pvc"), std::string::npos);
  }
}

} // namespace
} // namespace ocloc
} // namespace xsl
