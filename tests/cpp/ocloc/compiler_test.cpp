// The make_zebin logic on a fake backend: which builds run, which is kept,
// the legacy-format switch, and the errors.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ocloc/compiler.h"
#include "zebin_writer.h"

namespace xsl {
namespace ocloc {
namespace {

using zebin::testing::simpleZeInfo;
using zebin::testing::ZebinWriter;

std::string zebinWithSpills(const std::vector<uint64_t>& spills) {
  ZebinWriter writer;
  std::string ze_info = "version: '1.40'\nkernels:\n";
  for (size_t i = 0; i < spills.size(); ++i) {
    const std::string name = "k" + std::to_string(i);
    writer.kernel(name);
    ze_info += "  - name: " + name +
        "\n    execution_env:\n      grf_count: 128\n      simd_size: 16\n"
        "      spill_size: " +
        std::to_string(spills[i]) + "\n";
  }
  return writer.zeInfo(ze_info).build();
}

std::string legacyBinary() {
  return ZebinWriter()
      .elfType(0xff04)
      .machine(0)
      .kernel("k")
      .zeInfo(simpleZeInfo({"k"}))
      .build();
}

std::string tinySpirv() {
  // Magic, version, generator, bound, schema: enough for the magic check.
  const uint32_t words[] = {0x07230203u, 0x00010000u, 0, 1, 0};
  return std::string(reinterpret_cast<const char*>(words), sizeof(words));
}

bool hasArg(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

std::string optionsOf(const std::vector<std::string>& args) {
  auto it = std::find(args.begin(), args.end(), "-options");
  return it == args.end() || it + 1 == args.end() ? "" : *(it + 1);
}

class FakeBackend final : public OclocBackend {
 public:
  using Handler = std::function<InvokeResult(const std::vector<std::string>&)>;
  explicit FakeBackend(
      Handler handler,
      std::vector<std::vector<std::string>>* calls)
      : handler_(std::move(handler)), calls_(calls) {}
  std::string description() const override {
    return "fake ocloc";
  }
  bool inProcess() const override {
    return true;
  }
  Expected<InvokeResult> compile(
      std::string_view /*source*/,
      const std::vector<std::string>& args) override {
    calls_->push_back(args);
    return handler_(args);
  }
  Expected<std::string> query(const std::string&) override {
    return std::string("99.1.2");
  }

 private:
  Handler handler_;
  std::vector<std::vector<std::string>>* calls_;
};

InvokeResult success(std::string binary) {
  InvokeResult result;
  result.status = describeExitCode(0, true);
  result.binary = std::move(binary);
  result.log = "Build succeeded.\n";
  return result;
}

InvokeResult failure(int code, std::string log) {
  InvokeResult result;
  result.status = describeExitCode(code, true);
  result.log = std::move(log);
  return result;
}

struct Harness {
  std::vector<std::vector<std::string>> calls;
  std::unique_ptr<OclocCompiler> compiler;
  explicit Harness(FakeBackend::Handler handler) {
    compiler = std::make_unique<OclocCompiler>(
        std::make_unique<FakeBackend>(std::move(handler), &calls));
  }
};

CompileOptions pvcOptions(const std::string& flags = "-cl-fast-relaxed-math") {
  CompileOptions options;
  options.device = "pvc";
  options.build_flags = flags;
  return options;
}

TEST(OclocCompiler, NoSpillsMeansOneBuildWithFlagsPassedThrough) {
  Harness h([](const std::vector<std::string>&) {
    return success(zebinWithSpills({0, 0}));
  });
  auto result = h.compiler->compile(tinySpirv(), pvcOptions());
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_EQ(h.calls.size(), 1u);
  EXPECT_EQ(optionsOf(h.calls[0]), "-cl-fast-relaxed-math");
  EXPECT_TRUE(hasArg(h.calls[0], "-spirv_input"));
  EXPECT_TRUE(hasArg(h.calls[0], "pvc"));
  EXPECT_EQ(result->build_flags, "-cl-fast-relaxed-math");
  EXPECT_FALSE(result->large_grf);
  EXPECT_EQ(result->spill_bytes, 0u);
}

TEST(OclocCompiler, SpillsInAnyKernelTriggerLargeGrfAndFewerSpillsWin) {
  Harness h([](const std::vector<std::string>& args) {
    const bool large = optionsOf(args).find(kLargeGrfFlag) != std::string::npos;
    // Only the second kernel spills: every kernel must be looked at.
    return success(
        large ? zebinWithSpills({0, 64}) : zebinWithSpills({0, 512}));
  });
  auto result = h.compiler->compile(tinySpirv(), pvcOptions());
  ASSERT_TRUE(result.ok()) << result.error().message();
  ASSERT_EQ(h.calls.size(), 2u);
  EXPECT_TRUE(result->large_grf);
  EXPECT_EQ(result->spill_bytes, 64u);
  EXPECT_EQ(
      result->build_flags,
      std::string("-cl-fast-relaxed-math ") + kLargeGrfFlag);
  ASSERT_EQ(result->attempts.size(), 2u);
  EXPECT_EQ(result->attempts[0].spill_bytes, 512u);
}

TEST(OclocCompiler, LargeGrfThatDoesNotHelpIsDropped) {
  Harness h([](const std::vector<std::string>&) {
    return success(zebinWithSpills({256}));
  });
  auto result = h.compiler->compile(tinySpirv(), pvcOptions(""));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_EQ(h.calls.size(), 2u);
  EXPECT_FALSE(result->large_grf);
  EXPECT_EQ(result->build_flags, "");
  EXPECT_EQ(result->spill_bytes, 256u);
}

TEST(OclocCompiler, FailedDefaultBuildFallsBackToLargeGrf) {
  Harness h([](const std::vector<std::string>& args) {
    if (optionsOf(args).find(kLargeGrfFlag) == std::string::npos) {
      return failure(-11, "error: out of registers\n");
    }
    return success(zebinWithSpills({0}));
  });
  auto result = h.compiler->compile(tinySpirv(), pvcOptions(""));
  ASSERT_TRUE(result.ok()) << result.error().message();
  EXPECT_TRUE(result->large_grf);
  EXPECT_EQ(result->build_flags, kLargeGrfFlag);
}

TEST(OclocCompiler, NoRetryWhenFlagsChooseGrfOrRetryIsOff) {
  Harness h([](const std::vector<std::string>&) {
    return success(zebinWithSpills({4096}));
  });
  auto chosen = h.compiler->compile(
      tinySpirv(), pvcOptions("-cl-intel-128-GRF-per-thread"));
  ASSERT_TRUE(chosen.ok()) << chosen.error().message();
  CompileOptions off = pvcOptions();
  off.retry_large_grf = false;
  auto disabled = h.compiler->compile(tinySpirv(), off);
  ASSERT_TRUE(disabled.ok()) << disabled.error().message();
  EXPECT_EQ(h.calls.size(), 2u);
  EXPECT_EQ(disabled->spill_bytes, 4096u);
}

TEST(OclocCompiler, LegacyOutputSwitchesToZebinOptionOnce) {
  Harness h([](const std::vector<std::string>& args) {
    return success(
        hasArg(args, kAllowZebinOption) ? zebinWithSpills({0})
                                        : legacyBinary());
  });
  auto first = h.compiler->compile(tinySpirv(), pvcOptions());
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_TRUE(first->allow_zebin_option);
  EXPECT_EQ(h.calls.size(), 2u);
  EXPECT_TRUE(hasArg(h.calls[1], "-internal_options"));
  // Remembered: the next compile asks for zebin straight away.
  auto second = h.compiler->compile(tinySpirv(), pvcOptions());
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_EQ(h.calls.size(), 3u);
  EXPECT_TRUE(hasArg(h.calls[2], kAllowZebinOption));
}

TEST(OclocCompiler, NewOclocNeverGetsTheZebinOption) {
  Harness h([](const std::vector<std::string>&) {
    return success(zebinWithSpills({0}));
  });
  ASSERT_TRUE(h.compiler->compile(tinySpirv(), pvcOptions()).ok());
  ASSERT_TRUE(h.compiler->compile(tinySpirv(), pvcOptions()).ok());
  for (const auto& call : h.calls) {
    EXPECT_FALSE(hasArg(call, kAllowZebinOption));
  }
  EXPECT_EQ(h.compiler->allowZebinOption(), false);
}

TEST(OclocCompiler, ErrorsNameTheCauseAndKeepTheLog) {
  Harness invalid_device([](const std::vector<std::string>&) {
    return failure(-33, "Error: Cannot get HW Info for device xyz.\n");
  });
  CompileOptions options = pvcOptions();
  options.device = "xyz";
  auto device = invalid_device.compiler->compile(tinySpirv(), options);
  ASSERT_FALSE(device.ok());
  EXPECT_NE(
      device.error().message().find("does not know device 'xyz'"),
      std::string::npos);
  EXPECT_NE(
      device.error().message().find("Cannot get HW Info"), std::string::npos);
  // Another GRF mode cannot fix an unknown device: one call only.
  EXPECT_EQ(invalid_device.calls.size(), 1u);

  Harness crash([](const std::vector<std::string>&) {
    return failure(-5152, "IGC crashed\n");
  });
  auto crashed = crash.compiler->compile(tinySpirv(), pvcOptions());
  ASSERT_FALSE(crashed.ok());
  EXPECT_NE(crashed.error().message().find("ocloc crashed"), std::string::npos);
  EXPECT_NE(crashed.error().message().find("-5152"), std::string::npos);
  EXPECT_EQ(crash.calls.size(), 2u); // Triton retries crashes with large GRF

  Harness garbage(
      [](const std::vector<std::string>&) { return success("not an ELF"); });
  auto unreadable = garbage.compiler->compile(tinySpirv(), pvcOptions());
  ASSERT_FALSE(unreadable.ok());
  EXPECT_NE(
      unreadable.error().message().find("not a readable zebin"),
      std::string::npos);
}

TEST(OclocCompiler, BadInputIsRejectedBeforeOclocRuns) {
  Harness h([](const std::vector<std::string>&) {
    return success(zebinWithSpills({0}));
  });
  auto not_spirv = h.compiler->compile("#include <x>\nkernel", pvcOptions());
  ASSERT_FALSE(not_spirv.ok());
  EXPECT_NE(not_spirv.error().message().find("not SPIR-V"), std::string::npos);
  CompileOptions no_device;
  auto device = h.compiler->compile(tinySpirv(), no_device);
  ASSERT_FALSE(device.ok());
  EXPECT_NE(device.error().message().find("device"), std::string::npos);
  EXPECT_TRUE(h.calls.empty());
}

TEST(OclocCompiler, VersionRule) {
  EXPECT_TRUE(versionNeedsAllowZebin("22.43.24595"));
  EXPECT_FALSE(versionNeedsAllowZebin("24.35.30872"));
  EXPECT_FALSE(versionNeedsAllowZebin("unknown"));
  EXPECT_FALSE(versionNeedsAllowZebin("99999999999999999999"));
  EXPECT_TRUE(flagsChooseGrfMode("-cl-intel-enable-auto-large-GRF-mode"));
  EXPECT_FALSE(flagsChooseGrfMode("-cl-fast-relaxed-math"));
}

} // namespace
} // namespace ocloc
} // namespace xsl
