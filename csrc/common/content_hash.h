#pragma once

// Hashes of bytes for files this project writes itself (the kept native
// binaries, launcher/native_binary_cache.h). Not cryptographic: whoever can
// write those files can replace them anyway.
//  - contentHash128: a key. Four independent multiply-rotate lanes, eight
//    bytes a step, finished two ways; accidental collisions are negligible
//    (2^-128).
//  - contentChecksum: corruption and truncation checks of a file's payload.
//    Two running sums per lane (Fletcher's scheme on 64-bit words) and no
//    multiply per word: a flipped bit or a moved word changes it.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace xsl {

namespace content_hash_detail {

constexpr uint64_t kOdd1 = 0x9e3779b97f4a7c15ull;
constexpr uint64_t kOdd2 = 0xc2b2ae3d27d4eb4full;
constexpr uint64_t kOdd3 = 0x165667b19e3779f9ull;

inline uint64_t rotl(uint64_t x, int n) {
  return (x << n) | (x >> (64 - n));
}

inline uint64_t finalMix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

inline uint64_t load64(const char* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The last `left` (< 8) bytes as one word, with the count in the top byte.
inline uint64_t tailWord(const char* p, size_t left) {
  uint64_t v = 0;
  std::memcpy(&v, p, left);
  return v ^ (static_cast<uint64_t>(left) << 56);
}

} // namespace content_hash_detail

struct Hash128 {
  uint64_t low = 0;
  uint64_t high = 0;
  bool operator==(const Hash128& other) const {
    return low == other.low && high == other.high;
  }
};

inline Hash128 contentHash128(std::string_view bytes, uint64_t seed = 0) {
  using namespace content_hash_detail;
  const char* p = bytes.data();
  size_t left = bytes.size();
  // Named lanes, not an array: GCC 12 kept an array's lanes in memory (a
  // store and a load per word); named, they stay in registers.
  uint64_t lane0 = seed + kOdd1;
  uint64_t lane1 = seed ^ kOdd2;
  uint64_t lane2 = seed;
  uint64_t lane3 = seed - kOdd1;
  while (left >= 32) {
    lane0 = rotl(lane0 + load64(p) * kOdd2, 31) * kOdd1;
    lane1 = rotl(lane1 + load64(p + 8) * kOdd2, 31) * kOdd1;
    lane2 = rotl(lane2 + load64(p + 16) * kOdd2, 31) * kOdd1;
    lane3 = rotl(lane3 + load64(p + 24) * kOdd2, 31) * kOdd1;
    p += 32;
    left -= 32;
  }
  const uint64_t lane[4] = {lane0, lane1, lane2, lane3};
  uint64_t a = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) +
      rotl(lane[3], 18) + static_cast<uint64_t>(bytes.size());
  uint64_t b = (lane[0] ^ rotl(lane[2], 29)) + (lane[1] ^ rotl(lane[3], 41)) +
      kOdd3 * static_cast<uint64_t>(bytes.size());
  while (left >= 8) {
    const uint64_t v = finalMix(load64(p));
    a = rotl(a ^ v, 27) * kOdd1 + kOdd3;
    b = rotl(b + v, 31) * kOdd2 + kOdd1;
    p += 8;
    left -= 8;
  }
  if (left > 0) {
    const uint64_t v = finalMix(tailWord(p, left));
    a = rotl(a ^ v, 11) * kOdd1;
    b = rotl(b + v, 17) * kOdd2;
  }
  Hash128 out;
  out.low = finalMix(a);
  out.high = finalMix(b ^ out.low);
  return out;
}

// 64 bits of contentHash128.
inline uint64_t contentHash(std::string_view bytes, uint64_t seed = 0) {
  return contentHash128(bytes, seed).low;
}

inline uint64_t contentChecksum(std::string_view bytes) {
  using namespace content_hash_detail;
  const char* p = bytes.data();
  size_t left = bytes.size();
  // Named sums, as contentHash128's lanes, for the same reason.
  uint64_t sum0 = 1, sum1 = 2, sum2 = 3, sum3 = 4;
  uint64_t twice0 = 0, twice1 = 0, twice2 = 0, twice3 = 0;
  while (left >= 32) {
    sum0 += load64(p);
    twice0 += sum0;
    sum1 += load64(p + 8);
    twice1 += sum1;
    sum2 += load64(p + 16);
    twice2 += sum2;
    sum3 += load64(p + 24);
    twice3 += sum3;
    p += 32;
    left -= 32;
  }
  const uint64_t sum[4] = {sum0, sum1, sum2, sum3};
  const uint64_t sum_of_sums[4] = {twice0, twice1, twice2, twice3};
  uint64_t a = static_cast<uint64_t>(bytes.size());
  while (left >= 8) {
    a = rotl(a, 13) + load64(p);
    p += 8;
    left -= 8;
  }
  if (left > 0) {
    a = rotl(a, 13) + tailWord(p, left);
  }
  uint64_t out = finalMix(a);
  for (int i = 0; i < 4; ++i) {
    out = finalMix(out ^ sum[i]) + rotl(sum_of_sums[i], 17 + 8 * i);
  }
  return finalMix(out);
}

} // namespace xsl
