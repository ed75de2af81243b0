// SPIR-V through LoadedKernel with the test driver (which compiles SPIR-V
// with IGC through libocloc, as a real driver does): the same n_regs and
// n_spills as the driver-compiled zebin, the kept native binary on the next
// load, and one clear error for each kind of bad input. Skipped where the
// test driver cannot load libocloc (ASan builds; under wine, no
// ocloc64.dll).

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "file_io/file_io.h"
#include "in_process_ocloc.h"
#include "launcher/kernel_module.h"
#include "launcher/loaded_kernel.h"
#include "launcher/native_binary_cache.h"
#include "launcher/triton_metadata.h"
#include "level_zero/level_zero.h"
#include "test_paths.h"
#include "zebin/zebin.h"

namespace xsl {
namespace launcher {
namespace {

std::string tritonSpirv(const std::string& name) {
  return test_paths::fromEnvironment("XSL_SOURCE_DIR") +
      "/tests/kernels/triton/" + name + ".spv";
}

constexpr const char* kLargeGrf = "-cl-intel-256-GRF-per-thread";

void setEnvironment(const char* name, const char* value) {
#ifdef _WIN32
  _putenv_s(name, value);
#else
  setenv(name, value, 1);
#endif
}

class SpirvLoadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!ocloc::kInProcessAllowed) {
      GTEST_SKIP() << "the test driver compiles SPIR-V with libocloc: "
                   << ocloc::kNoInProcessReason;
    }
    auto context = level_zero::sharedContext(0);
    ASSERT_TRUE(context.ok()) << context.error().message();
    context_ = *context;
    // Under wine the stand-in driver has no ocloc library (ocloc64.dll) to
    // compile SPIR-V with; the Windows SYCL runtime test covers SPIR-V
    // there with a driver-compiled zebin.
    auto spirv = file_io::readFileBytes(tritonSpirv("vector_add"));
    ASSERT_TRUE(spirv.ok()) << spirv.error().message();
    auto probe = KernelModule::create(context_, *spirv, "probe", "");
    if (!probe &&
        probe.error().message().find("no ocloc library") != std::string::npos) {
      GTEST_SKIP() << "the test driver cannot compile SPIR-V here: "
                   << probe.error().message().substr(0, 200);
    }
    NativeBinaryCache::Settings settings;
    settings.enabled = true;
    settings.folder = test_paths::scratchDir("spirv_load") + "/" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    cache_ = std::make_unique<NativeBinaryCache>(settings);
    static_cast<void>(cache_->clear());
    off_ = std::make_unique<NativeBinaryCache>(NativeBinaryCache::Settings());
  }

  Expected<std::unique_ptr<LoadedKernel>> load(
      const std::string& path,
      const std::string& name,
      const char* flags,
      const NativeBinaryCache* cache) {
    LoadOptions options;
    if (flags != nullptr) {
      options.build_flags = flags;
    }
    options.cache = cache;
    return LoadedKernel::load(context_, path, name, options);
  }

  std::shared_ptr<level_zero::Context> context_;
  std::unique_ptr<NativeBinaryCache> cache_;
  std::unique_ptr<NativeBinaryCache> off_;
};

TritonRelease release(const char* version) {
  auto found = tritonReleaseFor(version);
  EXPECT_TRUE(found.ok());
  return found.ok() ? *found : TritonRelease();
}

// For each kernel and GRF mode, under each Triton-XPU release's rules:
// loading the SPIR-V reports what loading the zebin the driver made from it
// with the same flags reports (the flags the SPIR-V load built with, which
// carry the large GRF flag when Triton's retry applied).
TEST_F(SpirvLoadTest, ReportsWhatTheDriverCompiledZebinReports) {
  const TritonRelease before = tritonRelease();
  const std::string scratch = test_paths::scratchDir("spirv_load");
  for (const char* version : {"3.8.0", "3.9.0"}) {
    setTritonRelease(release(version));
    for (const char* name : {"vector_add", "softmax", "spill", "matmul"}) {
      for (const char* flags : {"", kLargeGrf}) {
        auto from_spirv = load(tritonSpirv(name), name, flags, off_.get());
        ASSERT_TRUE(from_spirv.ok()) << from_spirv.error().message();
        const std::string built = (*from_spirv)->buildFlags().value_or("?");
        // The driver's native binary of the same SPIR-V and flags, as a file.
        auto spirv = file_io::readFileBytes(tritonSpirv(name));
        ASSERT_TRUE(spirv.ok());
        std::string native;
        auto module = KernelModule::create(
            context_, *spirv, tritonSpirv(name), built, &native);
        ASSERT_TRUE(module.ok()) << module.error().message();
        const std::string zebin_path = scratch + "/" + name + "_" + version +
            (flags[0] != '\0' ? "_grf256" : "_grf128") + ".zebin";
        ASSERT_TRUE(file_io::writeFileBytes(zebin_path, native).ok());
        auto from_zebin = load(zebin_path, name, built.c_str(), off_.get());
        ASSERT_TRUE(from_zebin.ok()) << from_zebin.error().message();
        EXPECT_EQ(
            (*from_spirv)->registerCount(), (*from_zebin)->registerCount())
            << version << " " << name << " " << flags;
        EXPECT_EQ((*from_spirv)->spillCount(), (*from_zebin)->spillCount())
            << version << " " << name << " " << flags;
        EXPECT_EQ(
            (*from_spirv)->threadsPerWarp(), (*from_zebin)->threadsPerWarp());
      }
    }
  }
  setTritonRelease(before);
}

// Triton-XPU's large-GRF retry for SPIR-V that names no GRF mode, by
// release (driver.c): the spilling kernel spills more than 1000 bytes and
// more than 16 dwords per lane at the default GRF mode.
TEST_F(SpirvLoadTest, SpillingSpirvIsBuiltAgainWithLargeGrfAsTritonDoes) {
  const TritonRelease before = tritonRelease();
  const std::string spill = tritonSpirv("spill");
  setTritonRelease(release("3.8.0"));
  auto large = load(spill, "spill", kLargeGrf, off_.get());
  ASSERT_TRUE(large.ok()) << large.error().message();
  // A GRF mode named: no retry, whatever it spills.
  auto named = load(spill, "spill", "-cl-intel-128-GRF-per-thread", off_.get());
  ASSERT_TRUE(named.ok()) << named.error().message();
  ASSERT_GT((*named)->kernel().properties().spill_mem_size, 1000u);
  EXPECT_EQ((*named)->registerCount(), 128);
  EXPECT_EQ(*(*named)->buildFlags(), "-cl-intel-128-GRF-per-thread");

  // 3.4 - 3.8: the large-GRF module replaces the first.
  auto retried = load(spill, "spill", "", off_.get());
  ASSERT_TRUE(retried.ok()) << retried.error().message();
  EXPECT_EQ(*(*retried)->buildFlags(), std::string(" ") + kLargeGrf);
  EXPECT_EQ((*retried)->registerCount(), 256);
  EXPECT_EQ((*retried)->spillCount(), (*large)->spillCount());
  EXPECT_EQ((*retried)->info().execution_env.grf_count, 256u);

  // 3.3: the first module and its spills stay, n_regs says 256.
  setTritonRelease(release("3.3.0b1"));
  auto kept_first = load(spill, "spill", "", off_.get());
  ASSERT_TRUE(kept_first.ok()) << kept_first.error().message();
  EXPECT_EQ((*kept_first)->registerCount(), 256);
  EXPECT_EQ(
      (*kept_first)->spillCount(),
      static_cast<int64_t>((*named)->kernel().properties().spill_mem_size));
  EXPECT_EQ((*kept_first)->info().execution_env.grf_count, 128u);

  // 3.9: the same retry, gated per lane (> 16).
  setTritonRelease(release("3.9.0"));
  auto per_lane = load(spill, "spill", "", off_.get());
  ASSERT_TRUE(per_lane.ok()) << per_lane.error().message();
  EXPECT_EQ((*per_lane)->registerCount(), 256);
  // Kernels that spill little are not built again.
  auto small = load(tritonSpirv("vector_add"), "vector_add", "", off_.get());
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(*(*small)->buildFlags(), "");
  EXPECT_EQ((*small)->registerCount(), 128);
  setTritonRelease(before);
}

// The first build's entry keeps how Triton's retry went: a warm 3.3 load
// takes n_regs from it without the retry's entry, and a retry the driver
// refused is not compiled again by a warm load (3.3 and 3.8: the retried
// module is loaded from 3.4).
TEST_F(SpirvLoadTest, AWarmLoadTakesTheRetryOutcomeFromTheFirstBuildsEntry) {
  const TritonRelease before = tritonRelease();
  const std::string spill = tritonSpirv("spill");
  auto spirv = file_io::readFileBytes(spill);
  auto device = context_->device().identity();
  ASSERT_TRUE(spirv.ok() && device.ok());
  const std::string large = std::string(" ") + kLargeGrf;
  const std::string retry_entry = cache_->entryPath(
      {*spirv, large, device->ip_version, device->driver_version});

  setTritonRelease(release("3.3.0b1"));
  auto cold = load(spill, "spill", "", cache_.get());
  ASSERT_TRUE(cold.ok()) << cold.error().message();
  EXPECT_EQ((*cold)->registerCount(), 256);
  ASSERT_TRUE(file_io::removeFile(retry_entry).ok());
  auto warm = load(spill, "spill", "", cache_.get());
  ASSERT_TRUE(warm.ok()) << warm.error().message();
  EXPECT_TRUE((*warm)->fromKeptBinary());
  EXPECT_EQ((*warm)->registerCount(), 256);
  EXPECT_EQ((*warm)->spillCount(), (*cold)->spillCount());
  EXPECT_TRUE((*warm)->loadWarnings().empty());
  EXPECT_FALSE(file_io::readFileBytes(retry_entry).ok()); // not built again

  for (const char* version : {"3.3.0b1", "3.8.0"}) {
    setTritonRelease(release(version));
    ASSERT_TRUE(cache_->clear().ok());
    setEnvironment("XSL_TEST_DRIVER_REJECT_FLAG", kLargeGrf);
    auto refused = load(spill, "spill", "", cache_.get());
    setEnvironment("XSL_TEST_DRIVER_REJECT_FLAG", "");
    ASSERT_TRUE(refused.ok()) << version << ": " << refused.error().message();
    EXPECT_EQ(*(*refused)->buildFlags(), "") << version;
    EXPECT_NE((*refused)->registerCount(), 256) << version;
    // The driver would build the retry now: a warm load that tried would
    // report 256 and keep its entry.
    auto again = load(spill, "spill", "", cache_.get());
    ASSERT_TRUE(again.ok()) << version << ": " << again.error().message();
    EXPECT_TRUE((*again)->fromKeptBinary()) << version;
    EXPECT_EQ(*(*again)->buildFlags(), "") << version;
    EXPECT_EQ((*again)->registerCount(), (*refused)->registerCount());
    EXPECT_EQ((*again)->spillCount(), (*refused)->spillCount());
    EXPECT_FALSE(file_io::readFileBytes(retry_entry).ok()) << version;
  }
  setTritonRelease(before);
}

TEST_F(SpirvLoadTest, TheNextLoadUsesTheKeptNativeBinary) {
  auto first = load(tritonSpirv("softmax"), "softmax", "", cache_.get());
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_FALSE((*first)->fromKeptBinary());
  EXPECT_TRUE((*first)->loadWarnings().empty());
  auto second = load(tritonSpirv("softmax"), "softmax", "", cache_.get());
  ASSERT_TRUE(second.ok()) << second.error().message();
  EXPECT_TRUE((*second)->fromKeptBinary());
  EXPECT_EQ((*second)->spillCount(), (*first)->spillCount());
  EXPECT_EQ((*second)->registerCount(), (*first)->registerCount());
  // Other flags are another entry: compiled, then kept.
  auto large = load(tritonSpirv("softmax"), "softmax", kLargeGrf, cache_.get());
  ASSERT_TRUE(large.ok());
  EXPECT_FALSE((*large)->fromKeptBinary());
  EXPECT_EQ((*large)->registerCount(), 256);
  auto usage = cache_->usage();
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->entries, 2u);
}

// A thread reads every kept entry into one buffer: warm loads of a larger
// entry, a smaller one, then the larger again each get their own binary.
TEST_F(SpirvLoadTest, WarmLoadsOnOneThreadEachReadTheirOwnEntry) {
  const char* const names[] = {"matmul", "vector_add", "matmul", "softmax"};
  for (const char* name : names) {
    ASSERT_TRUE(load(tritonSpirv(name), name, "", cache_.get()).ok()) << name;
  }
  for (const char* name : names) {
    auto cold = load(tritonSpirv(name), name, "", off_.get());
    auto warm = load(tritonSpirv(name), name, "", cache_.get());
    ASSERT_TRUE(cold.ok() && warm.ok()) << name;
    EXPECT_TRUE((*warm)->fromKeptBinary()) << name;
    EXPECT_TRUE((*warm)->loadWarnings().empty()) << name;
    EXPECT_EQ((*warm)->name(), name);
    EXPECT_EQ((*warm)->registerCount(), (*cold)->registerCount()) << name;
    EXPECT_EQ((*warm)->spillCount(), (*cold)->spillCount()) << name;
    EXPECT_EQ((*warm)->threadsPerWarp(), (*cold)->threadsPerWarp()) << name;
  }
}

TEST_F(SpirvLoadTest, ACorruptEntryIsCompiledAgainWithOneWarning) {
  ASSERT_TRUE(
      load(tritonSpirv("vector_add"), "vector_add", "", cache_.get()).ok());
  auto files = file_io::listFiles(cache_->settings().folder);
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->size(), 1u);
  const std::string entry = cache_->settings().folder + "/" + (*files)[0].name;
  auto bytes = file_io::readFileBytes(entry);
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(
      file_io::writeFileBytes(entry, bytes->substr(0, bytes->size() / 2)).ok());
  auto again = load(tritonSpirv("vector_add"), "vector_add", "", cache_.get());
  ASSERT_TRUE(again.ok()) << again.error().message();
  EXPECT_FALSE((*again)->fromKeptBinary());
  ASSERT_EQ((*again)->loadWarnings().size(), 1u);
  EXPECT_NE((*again)->loadWarnings()[0].find("truncated"), std::string::npos);
  // Kept again, whole.
  auto third = load(tritonSpirv("vector_add"), "vector_add", "", cache_.get());
  ASSERT_TRUE(third.ok());
  EXPECT_TRUE((*third)->fromKeptBinary());
  EXPECT_TRUE((*third)->loadWarnings().empty());
}

TEST_F(SpirvLoadTest, BadInputGetsOneClearError) {
  const std::string scratch = test_paths::scratchDir("spirv_load");
  // Malformed SPIR-V never reaches the driver (whose SPIR-V reader may end
  // the process: IGC calls exit(1) for an unknown version word).
  auto real = file_io::readFileBytes(tritonSpirv("vector_add"));
  ASSERT_TRUE(real.ok());
  const std::string magic("\x03\x02\x23\x07", 4);
  std::string bad_version = *real;
  bad_version[6] = '\x7f'; // version 1.127
  std::string overrun = real->substr(0, 20);
  overrun += std::string("\x11\x00\x09\x00", 4); // OpCapability, 9 words
  const struct {
    const char* file;
    std::string bytes;
    const char* says;
  } malformed[] = {
      {"garbage.spv", magic + "garbage here", "not a whole number"},
      {"version.spv", bad_version, "is not a SPIR-V version (1.0 to 1.6)"},
      {"header.spv", real->substr(0, 20), "followed by no instruction"},
      {"overrun.spv", overrun, "runs past the end of the file"},
      {"odd.spv", *real + "x", "not a whole number of 32-bit words"},
  };
  for (const auto& bad : malformed) {
    const std::string path = scratch + "/" + bad.file;
    ASSERT_TRUE(file_io::writeFileBytes(path, bad.bytes).ok());
    auto refused = load(path, "k", "", cache_.get());
    ASSERT_FALSE(refused.ok()) << bad.file;
    EXPECT_EQ(
        refused.error().message().rfind(path + ": not a valid SPIR-V", 0), 0u)
        << refused.error().message();
    EXPECT_NE(refused.error().message().find(bad.says), std::string::npos)
        << refused.error().message();
  }
  // Well-formed words, not a whole module (cut at an instruction boundary):
  // the driver's build fails, and its log is in the error.
  size_t cut = 5;
  for (size_t at = 5, words = real->size() / 4; at < words / 2;) {
    uint32_t first = 0;
    std::memcpy(&first, real->data() + 4 * at, sizeof(first));
    at += first >> 16;
    cut = at;
  }
  const std::string partial = scratch + "/partial.spv";
  ASSERT_TRUE(file_io::writeFileBytes(partial, real->substr(0, 4 * cut)).ok());
  auto unbuilt = load(partial, "vector_add", "", cache_.get());
  ASSERT_FALSE(unbuilt.ok());
  EXPECT_NE(unbuilt.error().message().find(partial), std::string::npos);
  EXPECT_NE(
      unbuilt.error().message().find("could not build the SPIR-V"),
      std::string::npos)
      << unbuilt.error().message();
  EXPECT_NE(unbuilt.error().message().find("build log"), std::string::npos);

  const std::string empty = scratch + "/empty.spv";
  ASSERT_TRUE(file_io::writeFileBytes(empty, "").ok());
  auto none = load(empty, "k", "", cache_.get());
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().message().find("empty"), std::string::npos);

  const std::string text = scratch + "/text.spv";
  ASSERT_TRUE(file_io::writeFileBytes(text, "hello world").ok());
  auto neither = load(text, "k", "", cache_.get());
  ASSERT_FALSE(neither.ok());
  EXPECT_NE(
      neither.error().message().find("neither a zebin (ELF) nor SPIR-V"),
      std::string::npos)
      << neither.error().message();
  EXPECT_NE(neither.error().message().find("68656c6c"), std::string::npos);

  // Flags the driver refuses (the stand-in refuses the one named in
  // XSL_TEST_DRIVER_REJECT_FLAG, as IGC itself accepts any).
  setEnvironment("XSL_TEST_DRIVER_REJECT_FLAG", "-no-such-option");
  auto flags = load(
      tritonSpirv("vector_add"),
      "vector_add",
      "-cl-intel-256-GRF-per-thread -no-such-option",
      cache_.get());
  setEnvironment("XSL_TEST_DRIVER_REJECT_FLAG", "");
  ASSERT_FALSE(flags.ok());
  EXPECT_NE(
      flags.error().message().find(
          "build flags '-cl-intel-256-GRF-per-thread -no-such-option'"),
      std::string::npos)
      << flags.error().message();
  EXPECT_NE(
      flags.error().message().find("unsupported build option"),
      std::string::npos)
      << flags.error().message();

  auto missing =
      load(tritonSpirv("vector_add"), "no_such_kernel", "", cache_.get());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("vector_add"), std::string::npos)
      << missing.error().message();
}

// A zebin renamed .spv is loaded as the zebin it is: the magic number
// decides, never the suffix.
TEST_F(SpirvLoadTest, TheMagicNumberDecidesNotTheSuffix) {
  const std::string scratch = test_paths::scratchDir("spirv_load");
  auto spirv = file_io::readFileBytes(tritonSpirv("vector_add"));
  ASSERT_TRUE(spirv.ok());
  std::string native;
  auto module =
      KernelModule::create(context_, *spirv, "vector_add.spv", "", &native);
  ASSERT_TRUE(module.ok());
  const std::string renamed = scratch + "/zebin_renamed.spv";
  ASSERT_TRUE(file_io::writeFileBytes(renamed, native).ok());
  auto loaded = load(renamed, "vector_add", "", cache_.get());
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_EQ((*loaded)->module().format(), zebin::BinaryFormat::kZebin);
  const std::string spirv_as_zebin = scratch + "/spirv_renamed.zebin";
  ASSERT_TRUE(file_io::writeFileBytes(spirv_as_zebin, *spirv).ok());
  auto compiled = load(spirv_as_zebin, "vector_add", "", off_.get());
  ASSERT_TRUE(compiled.ok()) << compiled.error().message();
  EXPECT_EQ((*compiled)->module().format(), zebin::BinaryFormat::kSpirv);
}

} // namespace
} // namespace launcher
} // namespace xsl
