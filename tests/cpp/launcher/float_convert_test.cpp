#include "launcher/float_convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>

namespace xsl {
namespace launcher {
namespace {

bool isHalfNan(uint16_t bits) {
  return (bits & 0x7c00) == 0x7c00 && (bits & 0x03ff) != 0;
}
bool isBFloat16Nan(uint16_t bits) {
  return (bits & 0x7f80) == 0x7f80 && (bits & 0x007f) != 0;
}

float floatFromBits(uint32_t bits) {
  float value = 0;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
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

TEST(FloatConvert, BFloat16RoundTripsAndTiesToEvenExhaustive) {
  for (uint32_t bits = 0; bits < 0x7f80; ++bits) {
    for (uint32_t sign : {0u, 0x8000u}) {
      const uint16_t pattern = static_cast<uint16_t>(bits | sign);
      const double value = bfloat16BitsToDouble(pattern);
      ASSERT_EQ(doubleToBFloat16Bits(value), pattern) << std::hex << pattern;
      // bf16 is the top half of fp32: the widening must agree.
      ASSERT_EQ(
          value, static_cast<double>(floatFromBits(uint32_t{pattern} << 16)));
      if (bits + 1 >= 0x7f80) {
        continue;
      }
      const uint16_t next = static_cast<uint16_t>((bits + 1) | sign);
      const double upper = bfloat16BitsToDouble(next);
      const double middle = (value + upper) / 2;
      const uint16_t even = (bits & 1) == 0 ? pattern : next;
      ASSERT_EQ(doubleToBFloat16Bits(middle), even) << std::hex << pattern;
      ASSERT_EQ(doubleToBFloat16Bits(std::nextafter(middle, upper)), next);
      ASSERT_EQ(doubleToBFloat16Bits(std::nextafter(middle, value)), pattern);
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
  // Largest finite + half an ulp ties to even: the "even" neighbour is inf.
  EXPECT_EQ(doubleToHalfBits(65520.0), 0x7c00);
  EXPECT_EQ(doubleToHalfBits(std::nextafter(65520.0, 0.0)), 0x7bff);
  EXPECT_EQ(doubleToHalfBits(1e300), 0x7c00);
  EXPECT_EQ(doubleToHalfBits(-1e300), 0xfc00);
  EXPECT_EQ(doubleToHalfBits(inf), 0x7c00);
  EXPECT_EQ(doubleToHalfBits(-inf), 0xfc00);
  EXPECT_TRUE(isHalfNan(doubleToHalfBits(std::nan(""))));
  EXPECT_EQ(doubleToHalfBits(-std::nan("")) & 0x8000, 0x8000);
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
  EXPECT_EQ(doubleToBFloat16Bits(1e300), 0x7f80);
  EXPECT_TRUE(isBFloat16Nan(doubleToBFloat16Bits(std::nan(""))));
  // Rounds, does not truncate (upstream truncates): 1 + 3/256 is the
  // midpoint between 1 + 1/128 and 1 + 2/128 and ties to the even one.
  EXPECT_EQ(doubleToBFloat16Bits(1.01171875), 0x3f82);
  EXPECT_EQ(doubleToBFloat16Bits(0.1), 0x3dcd);
  // One rounding from double: via float this would round twice. The value
  // 1 + 2^-8 + 2^-30 is just above a bf16 midpoint, but rounds to exactly
  // the midpoint 1 + 2^-8 in float, which then ties to even (down).
  const double above_mid = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -30);
  EXPECT_EQ(doubleToBFloat16Bits(above_mid), 0x3f81);
  // Smallest bf16 subnormal 2^-133.
  EXPECT_EQ(doubleToBFloat16Bits(std::ldexp(1.0, -133)), 0x0001);
  EXPECT_EQ(doubleToBFloat16Bits(std::ldexp(1.0, -134)), 0x0000);
}

TEST(FloatConvert, Float32MatchesHardwareConversionInRange) {
  std::mt19937_64 random(12345);
  std::uniform_int_distribution<uint64_t> any_bits;
  const double float_max = std::numeric_limits<float>::max();
  for (int i = 0; i < 200000; ++i) {
    const uint64_t bits = any_bits(random);
    double value = 0;
    std::memcpy(&value, &bits, sizeof(value));
    // Narrow the exponent range so most samples land near float's range.
    int exponent = 0;
    value = std::ldexp(
        std::frexp(value, &exponent) * 2, static_cast<int>(bits % 300) - 160);
    if (!(std::fabs(value) <= float_max)) {
      continue;
    }
    const float expected = static_cast<float>(value);
    uint32_t expected_bits = 0;
    std::memcpy(&expected_bits, &expected, sizeof(expected));
    ASSERT_EQ(doubleToFloatBits(value), expected_bits) << value;
  }
  EXPECT_EQ(doubleToFloatBits(1e300), 0x7f800000u);
  EXPECT_EQ(doubleToFloatBits(-1e300), 0xff800000u);
  EXPECT_EQ(doubleToFloatBits(1e-300), 0u);
}

} // namespace
} // namespace launcher
} // namespace xsl
