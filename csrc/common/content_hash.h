#pragma once

// A fast 64-bit hash of bytes (four independent multiply-rotate lanes, eight
// bytes a step, then a final mix), for names and corruption checks of files
// this project writes itself. Not cryptographic: where a match must be exact
// (a kept native binary for given SPIR-V), the bytes are compared as well.

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

} // namespace content_hash_detail

inline uint64_t contentHash(std::string_view bytes, uint64_t seed = 0) {
  using namespace content_hash_detail;
  const char* p = bytes.data();
  size_t left = bytes.size();
  uint64_t lane[4] = {seed + kOdd1, seed ^ kOdd2, seed, seed - kOdd1};
  while (left >= 32) {
    for (int i = 0; i < 4; ++i) {
      lane[i] = rotl(lane[i] + load64(p + 8 * i) * kOdd2, 31) * kOdd1;
    }
    p += 32;
    left -= 32;
  }
  uint64_t h = rotl(lane[0], 1) + rotl(lane[1], 7) + rotl(lane[2], 12) +
      rotl(lane[3], 18) + static_cast<uint64_t>(bytes.size());
  while (left >= 8) {
    h = rotl(h ^ finalMix(load64(p)), 27) * kOdd1 + kOdd3;
    p += 8;
    left -= 8;
  }
  while (left > 0) {
    h = rotl(
            h ^ (static_cast<uint64_t>(static_cast<unsigned char>(*p)) * kOdd3),
            11) *
        kOdd1;
    ++p;
    --left;
  }
  return finalMix(h);
}

} // namespace xsl
