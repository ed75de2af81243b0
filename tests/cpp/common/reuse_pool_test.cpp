#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "common/reuse_pool.h"

namespace {

TEST(ReusePool, GivesBackWhatWasKeptWithItsMemory) {
  xsl::ReusePool<std::string> pool(2);
  EXPECT_TRUE(pool.take().empty()); // nothing kept: a new object
  std::string buffer(1000, 'x');
  const char* const memory = buffer.data();
  pool.give(std::move(buffer));
  EXPECT_EQ(pool.keptCount(), 1u);
  std::string again = pool.take();
  EXPECT_EQ(again.data(), memory); // the same allocation, not a copy
  EXPECT_EQ(again.size(), 1000u);  // as its last user left it
  EXPECT_EQ(pool.keptCount(), 0u);
}

TEST(ReusePool, KeepsAtMostMaxKept) {
  xsl::ReusePool<std::vector<int>> pool(2);
  for (int i = 0; i < 5; ++i) {
    pool.give(std::vector<int>(100, i));
  }
  EXPECT_EQ(pool.keptCount(), 2u);
  // The first two given are the ones kept; later ones were destroyed.
  std::vector<int> a = pool.take();
  std::vector<int> b = pool.take();
  ASSERT_EQ(a.size(), 100u);
  ASSERT_EQ(b.size(), 100u);
  EXPECT_EQ(a[0] + b[0], 1);
  EXPECT_TRUE(pool.take().empty());
}

// Threads that take and give and then exit leave the pool whole: this is
// what replaced thread_local buffers, whose destructors could run on freed
// storage at thread exit in the mingw-w64 build.
TEST(ReusePool, ServesThreadsThatComeAndGo) {
  constexpr size_t kMaxKept = 3;
  xsl::ReusePool<std::string> pool(kMaxKept);
  for (int round = 0; round < 4; ++round) {
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&pool, t] {
        for (int i = 0; i < 200; ++i) {
          std::string buffer = pool.take();
          buffer.assign(64 + static_cast<size_t>(t * 8 + i % 8), 'a');
          pool.give(std::move(buffer));
        }
      });
    }
    for (std::thread& thread : threads) {
      thread.join();
    }
    EXPECT_GE(pool.keptCount(), 1u);
    EXPECT_LE(pool.keptCount(), kMaxKept);
  }
}

} // namespace
