#include "launcher/float_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>

#include "common/bit_cast.h"

namespace xsl {
namespace launcher {
namespace {

bool isHalfNan(uint16_t bits) {
  return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
}
bool isBFloat16Nan(uint16_t bits) {
  return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f) != 0;
}

// Every finite fp16 value converts back to itself; every midpoint between
// neighbours rounds to the even one, and a hair either side of it rounds to
// the nearer one.
TEST(FloatConvert, HalfRoundTripsAndTiesToEvenExhaustive) {
  for (uint32_t bits = 0; bits < 0x7c00; ++bits) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const uint16_t pattern = static_cast<uint16_t>(bits | sign);
      const double value = halfBitsToDouble(pattern);
      ASSERT_EQ(doubleToHalfBits(value), pattern) << std::hex << pattern;
      if (bits + 1 >= 0x7c00) {
        continue; // the midpoint above the largest finite is tested below
      }
      const uint16_t next = static_cast<uint16_t>((bits + 1) | sign);
      const double upper = halfBitsToDouble(next);
      const double middle = (value + upper) / 2; // exact in double
      const uint16_t even = (bits & 1) == 0 ? pattern : next;
      ASSERT_EQ(doubleToHalfBits(middle), even) << std::hex << pattern;
      const double toward_upper = std::nextafter(middle, upper);
      const double toward_value = std::nextafter(middle, value);
      ASSERT_EQ(doubleToHalfBits(toward_upper), next) << std::hex << pattern;
      ASSERT_EQ(doubleToHalfBits(toward_value), pattern) << std::hex << pattern;
    }
  }
}

// bf16 is the top half of (float)x: every bf16 value converts to itself, and
// every double in between truncates to the bf16 below it (in magnitude)
// unless the float rounding already reached the one above.
TEST(FloatConvert, BFloat16TruncatesTheFloatExhaustive) {
  for (uint32_t bits = 0; bits < 0x7f80; ++bits) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const uint16_t pattern = static_cast<uint16_t>(bits | sign);
      const double value = bfloat16BitsToDouble(pattern);
      ASSERT_EQ(doubleToBFloat16Bits(value), pattern) << std::hex << pattern;
      // bf16 is the top half of fp32: the widening must agree.
      ASSERT_EQ(
          value, static_cast<double>(bitCast<float>(uint32_t{pattern} << 16)));
      if (bits + 1 >= 0x7f80) {
        continue;
      }
      const uint16_t next = static_cast<uint16_t>((bits + 1) | sign);
      const double upper = bfloat16BitsToDouble(next);
      const double middle = (value + upper) / 2;
      // The midpoint and everything up to the last float below `upper`
      // truncate down (rounding would tie the midpoint to even).
      ASSERT_EQ(doubleToBFloat16Bits(middle), pattern) << std::hex << pattern;
      ASSERT_EQ(doubleToBFloat16Bits(std::nextafter(middle, upper)), pattern);
      const double last_float_below = static_cast<double>(
          bitCast<float>((uint32_t{pattern} << 16) | 0xffffu));
      ASSERT_EQ(doubleToBFloat16Bits(last_float_below), pattern);
    }
  }
}

TEST(FloatConvert, HalfSpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(doubleToHalfBits(0.0), 0x0000);
  EXPECT_EQ(doubleToHalfBits(-0.0), 0x8000);
  EXPECT_EQ(doubleToHalfBits(1.0), 0x3c00);
  EXPECT_EQ(doubleToHalfBits(-2.0), 0xc000);
  EXPECT_EQ(doubleToHalfBits(65504.0), 0x7bff);
  // Largest finite + half an ulp ties to even, i.e. past the largest finite:
  // PyFloat_Pack2 raises OverflowError there, as for anything larger.
  EXPECT_EQ(doubleToHalfBits(65520.0), std::nullopt);
  EXPECT_EQ(doubleToHalfBits(-65520.0), std::nullopt);
  EXPECT_EQ(doubleToHalfBits(std::nextafter(65520.0, 0.0)), 0x7bff);
  EXPECT_EQ(doubleToHalfBits(-std::nextafter(65520.0, 0.0)), 0xfbff);
  EXPECT_EQ(doubleToHalfBits(1e300), std::nullopt);
  EXPECT_EQ(doubleToHalfBits(-1e300), std::nullopt);
  EXPECT_EQ(doubleToHalfBits(std::numeric_limits<double>::max()), std::nullopt);
  // Infinities pass as infinities.
  EXPECT_EQ(doubleToHalfBits(inf), 0x7c00);
  EXPECT_EQ(doubleToHalfBits(-inf), 0xfc00);
  // NaN: the quiet NaN with the sign, payload dropped (CPython <= 3.13).
  EXPECT_EQ(doubleToHalfBits(std::nan("")), 0x7e00);
  EXPECT_EQ(doubleToHalfBits(-std::nan("")), 0xfe00);
  EXPECT_EQ(doubleToHalfBits(bitCast<double>(0x7ff4000000000001)), 0x7e00);
  EXPECT_TRUE(isHalfNan(*doubleToHalfBits(std::nan(""))));
  // Smallest subnormal 2^-24; half of it ties to even (zero); just above
  // rounds up.
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -24)), 0x0001);
  EXPECT_EQ(doubleToHalfBits(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(
      doubleToHalfBits(std::nextafter(std::ldexp(1.0, -25), 1.0)), 0x0001);
  EXPECT_EQ(doubleToHalfBits(-std::ldexp(1.0, -26)), 0x8000);
  EXPECT_EQ(doubleToHalfBits(std::numeric_limits<double>::denorm_min()), 0);
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(
      doubleToHalfBits(std::ldexp(1.0, -14) - std::ldexp(1.0, -26)), 0x0400);
  EXPECT_EQ(doubleToHalfBits(0.1), 0x2e66);
  EXPECT_EQ(doubleToHalfBits(3.140625), 0x4248);
}

TEST(FloatConvert, BFloat16SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(doubleToBFloat16Bits(1.0), 0x3f80);
  EXPECT_EQ(doubleToBFloat16Bits(-0.0), 0x8000);
  EXPECT_EQ(doubleToBFloat16Bits(inf), 0x7f80);
  EXPECT_EQ(doubleToBFloat16Bits(-inf), 0xff80);
  // Beyond float's range (float)x is inf, so bf16 is inf: no error.
  EXPECT_EQ(doubleToBFloat16Bits(1e300), 0x7f80);
  EXPECT_EQ(doubleToBFloat16Bits(-1e300), 0xff80);
  // Float's largest finite truncates to bf16's largest finite.
  EXPECT_EQ(doubleToBFloat16Bits(std::numeric_limits<float>::max()), 0x7f7f);
  EXPECT_TRUE(isBFloat16Nan(doubleToBFloat16Bits(std::nan(""))));
  EXPECT_EQ(doubleToBFloat16Bits(-std::nan("")), 0xffc0);
  // Truncates, as Triton-XPU's extractBF16 and torch's unpackTritonBf16:
  // 0.1 is 0x3dcccccd as a float; the nearest bf16 would be 0x3dcd.
  EXPECT_EQ(doubleToBFloat16Bits(0.1), 0x3dcc);
  EXPECT_EQ(doubleToBFloat16Bits(-0.1), 0xbdcc);
  EXPECT_EQ(doubleToBFloat16Bits(3.140625), 0x4049);
  // 1 + 3/256, the midpoint of 0x3f81 and 0x3f82: truncated, not tied.
  EXPECT_EQ(doubleToBFloat16Bits(1.01171875), 0x3f81);
  // The float rounding comes first: 1 + 2^-7 - 2^-40 rounds to the float
  // 1 + 2^-7 (0x3f810000), while 1 + 2^-7 - 2^-20 is a float below it.
  EXPECT_EQ(
      doubleToBFloat16Bits(1.0 + std::ldexp(1.0, -7) - std::ldexp(1.0, -40)),
      0x3f81);
  EXPECT_EQ(
      doubleToBFloat16Bits(1.0 + std::ldexp(1.0, -7) - std::ldexp(1.0, -20)),
      0x3f80);
  // Smallest bf16 subnormal 2^-133; below it truncates to zero.
  EXPECT_EQ(doubleToBFloat16Bits(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(doubleToBFloat16Bits(std::ldexp(1.0, -134)), 0x0000);
  EXPECT_EQ(doubleToBFloat16Bits(1.9 * std::ldexp(1.0, -133)), 0x0001);
}

// (float)x and its top half against the hardware conversion, for doubles in
// and around float's range and for NaNs with random payloads.
TEST(FloatConvert, Float32AndBFloat16MatchHardwareConversion) {
  std::mt19937_64 random(12345);
  std::uniform_int_distribution<uint64_t> any_bits;
  const double float_max = std::numeric_limits<float>::max();
  int checked = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = any_bits(random);
    double value = bitCast<double>(bits);
    if (i % 10 == 0) {
      // A NaN with this sign and payload.
      value =
          bitCast<double>((bits & 0x800fffffffffffffu) | 0x7ff0000000000001u);
    } else {
      // Narrow the exponent range so most samples land near float's range.
      int exponent = 0;
      value = std::ldexp(
          std::frexp(value, &exponent) * 2, static_cast<int>(bits % 300) - 160);
      if (!(std::fabs(value) <= float_max)) {
        continue; // a C cast out of float's range is undefined in C++
      }
    }
    const uint32_t expected = bitCast<uint32_t>(static_cast<float>(value));
    ASSERT_EQ(doubleToFloatBits(value), expected) << std::hex << bits;
    ASSERT_EQ(doubleToBFloat16Bits(value), expected >> 16) << std::hex << bits;
    ++checked;
  }
  EXPECT_GT(checked, 100000);
  EXPECT_EQ(doubleToFloatBits(1e300), 0x7f800000u);
  EXPECT_EQ(doubleToFloatBits(-1e300), 0xff800000u);
  EXPECT_EQ(doubleToFloatBits(1e-300), 0u);
  // NaN: quieted, sign and the payload's top 22 bits kept.
  EXPECT_EQ(
      doubleToFloatBits(bitCast<double>(0x7ff4000000000001)), 0x7fe00000u);
  EXPECT_EQ(
      doubleToFloatBits(bitCast<double>(0xfff0000020000000)), 0xffc00001u);
}

} // namespace
} // namespace launcher
} // namespace xsl
