#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "common/content_hash.h"

namespace {

// Kept native binaries on users' disks carry these values in their headers:
// a change of either function turns every kept entry into a miss (or, for
// the checksum, a "corrupt" warning), so the values are pinned here.
std::string pattern() {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) {
    bytes += static_cast<char>((i * 131 + 7) & 0xff);
  }
  return bytes;
}

struct Pinned {
  size_t size; // of pattern()'s first bytes: empty, tail only, both paths
  uint64_t checksum;
  uint64_t hash_low; // contentHash128(bytes, seed 5)
  uint64_t hash_high;
};

TEST(ContentHash, ValuesAreThoseKeptEntriesCarry) {
  const Pinned pinned[] = {
      {0, 0x2059b2e0dd118acfull, 0xb2a27a1b643f8fafull, 0xd28ccf04803cacfaull},
      {7, 0xaf000fe17f2c9f13ull, 0x1ce688b795d4743dull, 0xb24be6c20b09127eull},
      {31, 0x95c4d1a935ffe4f2ull, 0x9a548fbf1dd1ed30ull, 0x1ca8ddb7dd7314f5ull},
      {32, 0x2ab4a06d60b3a789ull, 0xdf3bc01bb56bda5dull, 0xa83dc6df1680c668ull},
      {1000,
       0x4ea5803c58373861ull,
       0x594fcfdb308bc19eull,
       0xb3c11eba8e695fbbull},
  };
  const std::string bytes = pattern();
  for (const Pinned& p : pinned) {
    const std::string_view view(bytes.data(), p.size);
    EXPECT_EQ(xsl::contentChecksum(view), p.checksum) << p.size << " bytes";
    const xsl::Hash128 hash = xsl::contentHash128(view, 5);
    EXPECT_EQ(hash.low, p.hash_low) << p.size << " bytes";
    EXPECT_EQ(hash.high, p.hash_high) << p.size << " bytes";
  }
}

TEST(ContentHash, ChecksumSeesAFlippedBitAndSwappedWords) {
  std::string bytes = pattern();
  const uint64_t original = xsl::contentChecksum(bytes);
  bytes[517] = static_cast<char>(bytes[517] ^ 0x10);
  EXPECT_NE(xsl::contentChecksum(bytes), original);
  bytes[517] = static_cast<char>(bytes[517] ^ 0x10);
  std::string swapped = bytes;
  for (size_t i = 0; i < 8; ++i) {
    std::swap(swapped[64 + i], swapped[96 + i]); // same lane, other step
  }
  EXPECT_NE(xsl::contentChecksum(swapped), original);
}

} // namespace
