// The kept native binaries: exact keys, atomic entries, bad entries ignored
// with one warning and removed, the size bound, clear().

#include "launcher/native_binary_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "file_io/file_io.h"
#include "test_paths.h"

namespace xsl {
namespace launcher {
namespace {

std::string fakeZebin(char fill, size_t size = 300) {
  std::string bytes =
      "\x7f"
      "ELF";
  bytes.append(size, fill);
  return bytes;
}

class NativeBinaryCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = test_paths::scratchDir("native_cache") + "/" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name();
    NativeBinaryCache::Settings settings;
    settings.enabled = true;
    settings.folder = folder_;
    cache_ = std::make_unique<NativeBinaryCache>(settings);
    static_cast<void>(cache_->clear());
    key_.spirv = spirv_;
    key_.build_flags = flags_;
    key_.ip_version = 0x030f0007;
    key_.driver_version = 1;
  }

  std::string folder_;
  std::unique_ptr<NativeBinaryCache> cache_;
  std::string spirv_ = std::string("\x03\x02\x23\x07", 4) + "spirv-body";
  std::string flags_ = "-cl-intel-256-GRF-per-thread";
  NativeBinaryKey key_;
};

TEST_F(NativeBinaryCacheTest, KeepsAndFindsTheBinary) {
  std::string warning;
  EXPECT_FALSE(cache_->find(key_, &warning).has_value());
  EXPECT_EQ(warning, ""); // a plain miss says nothing
  cache_->keep(key_, fakeZebin('a'), &warning);
  EXPECT_EQ(warning, "");
  auto found = cache_->find(key_, &warning);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(*found, fakeZebin('a'));
  auto usage = cache_->usage();
  ASSERT_TRUE(usage.ok());
  EXPECT_EQ(usage->entries, 1u);
  // Short names: 16 hex digits and the suffix.
  const std::string path = cache_->entryPath(key_);
  EXPECT_EQ(path.size(), folder_.size() + 1 + 16 + 6);
}

TEST_F(NativeBinaryCacheTest, EveryKeyPartSelectsTheEntry) {
  cache_->keep(key_, fakeZebin('a'), nullptr);
  const std::string other_spirv = spirv_ + "x";
  const std::string other_flags = "";
  NativeBinaryKey keys[4] = {key_, key_, key_, key_};
  keys[0].spirv = other_spirv;
  keys[1].build_flags = other_flags;
  keys[2].ip_version = 0x05004000; // another GPU
  keys[3].driver_version = 2;      // a driver update
  for (const NativeBinaryKey& key : keys) {
    std::string warning;
    EXPECT_FALSE(cache_->find(key, &warning).has_value());
    EXPECT_NE(cache_->entryPath(key), cache_->entryPath(key_));
  }
  EXPECT_TRUE(cache_->find(key_, nullptr).has_value());
}

// An entry under the right name whose content is for another key (a hash
// collision, or a file copied in) is not used.
TEST_F(NativeBinaryCacheTest, AForeignEntryUnderTheNameIsNotUsed) {
  NativeBinaryKey other = key_;
  other.driver_version = 7;
  cache_->keep(other, fakeZebin('b'), nullptr);
  auto entry = file_io::readFileBytes(cache_->entryPath(other));
  ASSERT_TRUE(entry.ok());
  ASSERT_TRUE(file_io::writeFileBytes(cache_->entryPath(key_), *entry).ok());
  std::string warning;
  EXPECT_FALSE(cache_->find(key_, &warning).has_value());
  EXPECT_NE(
      warning.find("another kernel, device, driver or build flags"),
      std::string::npos)
      << warning;
}

TEST_F(NativeBinaryCacheTest, TruncatedCorruptAndForeignFilesAreIgnored) {
  cache_->keep(key_, fakeZebin('a'), nullptr);
  const std::string path = cache_->entryPath(key_);
  auto good = file_io::readFileBytes(path);
  ASSERT_TRUE(good.ok());
  std::string flipped = *good;
  flipped[flipped.size() - 5] ^= 0x40;
  const std::string cases[] = {
      good->substr(0, good->size() - 1), // truncated
      good->substr(0, 20),               // truncated in the header
      flipped,                           // one bit of the binary flipped
      *good + "x",                       // padded
      "not an entry at all",             // foreign
  };
  const char* expected[] = {
      "truncated", "not an entry", "corrupt", "truncated", "not an entry"};
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    ASSERT_TRUE(file_io::writeFileBytes(path, cases[i]).ok());
    std::string warning;
    EXPECT_FALSE(cache_->find(key_, &warning).has_value()) << i;
    EXPECT_NE(warning.find(expected[i]), std::string::npos)
        << i << ": " << warning;
    EXPECT_NE(warning.find("compiled again"), std::string::npos) << warning;
    // Removed, so the next load compiles and keeps a good one.
    EXPECT_FALSE(file_io::readFileBytes(path).ok()) << i;
  }
}

// An entry keeps its build's retry outcome; a value no outcome has is
// corruption (no single flipped bit turns one outcome into another).
TEST_F(NativeBinaryCacheTest, AnEntryKeepsItsRetryOutcome) {
  const NativeBinaryCache::Lookup lookup = cache_->locate(key_);
  for (RetryOutcome kept :
       {RetryOutcome::kUnknown, RetryOutcome::kBuilt, RetryOutcome::kFailed}) {
    cache_->keep(key_, lookup, fakeZebin('a'), nullptr, kept);
    std::string buffer;
    RetryOutcome read = RetryOutcome::kBuilt;
    if (kept == RetryOutcome::kBuilt) {
      read = RetryOutcome::kFailed;
    }
    auto found = cache_->find(key_, lookup, buffer, nullptr, &read);
    ASSERT_TRUE(found.has_value());
    EXPECT_EQ(*found, fakeZebin('a'));
    EXPECT_EQ(read, kept);
  }
  // The outcome is the header's last word (its low byte at 64).
  std::string entry = NativeBinaryCache::entryBytes(
      key_, fakeZebin('a'), RetryOutcome::kFailed);
  ASSERT_EQ(static_cast<unsigned char>(entry[64]), 2u);
  entry[64] = 3;
  std::string problem;
  EXPECT_FALSE(
      NativeBinaryCache::entryBinary(entry, key_, &problem).has_value());
  EXPECT_NE(problem.find("corrupt (retry outcome 3)"), std::string::npos)
      << problem;
}

TEST_F(NativeBinaryCacheTest, TheBoundRemovesTheOldestEntries) {
  NativeBinaryCache::Settings settings = cache_->settings();
  settings.max_bytes = 4000; // room for about ten 350-byte entries
  NativeBinaryCache bounded(settings);
  std::vector<std::string> spirvs;
  for (int i = 0; i < 30; ++i) {
    spirvs.push_back(spirv_ + std::to_string(i));
  }
  for (const std::string& spirv : spirvs) {
    NativeBinaryKey key = key_;
    key.spirv = spirv;
    bounded.keep(key, fakeZebin('c'), nullptr);
    // Distinct write times, so that "oldest" is well defined.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  }
  auto usage = bounded.usage();
  ASSERT_TRUE(usage.ok());
  EXPECT_LE(usage->bytes, settings.max_bytes);
  EXPECT_GT(usage->entries, 3u);
  NativeBinaryKey newest = key_;
  newest.spirv = spirvs.back();
  EXPECT_TRUE(bounded.find(newest, nullptr).has_value());
}

TEST_F(NativeBinaryCacheTest, ConcurrentWritersLeaveOneWholeEntry) {
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([this] {
      for (int i = 0; i < 20; ++i) {
        cache_->keep(key_, fakeZebin('d', 20000), nullptr);
      }
    });
  }
  for (int i = 0; i < 100; ++i) {
    std::string warning;
    auto found = cache_->find(key_, &warning);
    // Never a partial entry: either not there yet, or whole.
    EXPECT_EQ(warning, "");
    if (found) {
      EXPECT_EQ(*found, fakeZebin('d', 20000));
    }
  }
  for (std::thread& writer : writers) {
    writer.join();
  }
  EXPECT_TRUE(cache_->find(key_, nullptr).has_value());
  auto files = file_io::listFiles(folder_);
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(files->size(), 1u); // no temporary file left behind
}

TEST_F(NativeBinaryCacheTest, ClearRemovesEveryEntry) {
  cache_->keep(key_, fakeZebin('a'), nullptr);
  auto removed = cache_->clear();
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
  EXPECT_FALSE(cache_->find(key_, nullptr).has_value());
}

TEST_F(NativeBinaryCacheTest, AnUnwritableFolderOnlyWarns) {
  NativeBinaryCache::Settings settings = cache_->settings();
  const std::string file = folder_ + "/a-file";
  ASSERT_TRUE(file_io::makeDirectories(folder_).ok());
  ASSERT_TRUE(file_io::writeFileBytes(file, "x").ok());
  settings.folder = file + "/below-a-file";
  NativeBinaryCache blocked(settings);
  std::string warning;
  blocked.keep(key_, fakeZebin('a'), &warning);
  EXPECT_NE(warning.find("could not keep the native binary"), std::string::npos)
      << warning;
  EXPECT_NE(warning.find("XSL_KERNEL_CACHE_DIR"), std::string::npos);
}

TEST(NativeBinaryCacheSettings, DisabledCacheDoesNothing) {
  NativeBinaryCache off{NativeBinaryCache::Settings()};
  NativeBinaryKey key;
  EXPECT_FALSE(off.enabled());
  off.keep(
      key,
      "\x7f"
      "ELF",
      nullptr);
  EXPECT_FALSE(off.find(key, nullptr).has_value());
}

} // namespace
} // namespace launcher
} // namespace xsl
