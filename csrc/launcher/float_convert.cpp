#include "launcher/float_convert.h"

#include <cmath>
#include <cstdint>

#include "common/bit_cast.h"

namespace xsl {
namespace launcher {
namespace {

// Rounds a double to a binary format with `exponent_bits` and
// `mantissa_bits` (explicit bits), to nearest, ties to even, returning the
// format's bit pattern in the low bits of the result. A finite value beyond
// the largest finite number gives infinity.
uint64_t roundDoubleToFormat(
    double value,
    unsigned exponent_bits,
    unsigned mantissa_bits,
    bool keep_nan_payload) noexcept {
  const uint64_t bits = bitCast<uint64_t>(value);
  const uint64_t sign = bits >> 63;
  const int64_t double_exponent = static_cast<int64_t>((bits >> 52) & 0x7ff);
  const uint64_t double_mantissa = bits & ((uint64_t{1} << 52) - 1);

  const uint64_t max_exponent = (uint64_t{1} << exponent_bits) - 1;
  const uint64_t sign_bit = sign << (exponent_bits + mantissa_bits);
  const uint64_t infinity = max_exponent << mantissa_bits;

  if (double_exponent == 0x7ff) {
    if (double_mantissa != 0) {
      // Quiet NaN, sign kept; the payload's top bits are kept when
      // `keep_nan_payload` (what the hardware's double -> float conversion
      // does), else dropped (PyFloat_Pack2 up to CPython 3.13).
      const uint64_t payload =
          keep_nan_payload ? double_mantissa >> (52 - mantissa_bits) : 0;
      return sign_bit | infinity | (uint64_t{1} << (mantissa_bits - 1)) |
          payload;
    }
    return sign_bit | infinity;
  }
  if (double_exponent == 0) {
    // Zero or a double subnormal (< 2^-1022): far below half the smallest
    // subnormal of any target format, so it rounds to a signed zero.
    return sign_bit;
  }

  const int64_t bias = (int64_t{1} << (exponent_bits - 1)) - 1;
  // Unbiased exponent, then biased in the target format.
  const int64_t target_exponent = double_exponent - 1023 + bias;
  const uint64_t significand = (uint64_t{1} << 52) | double_mantissa;

  // How many low significand bits drop out: 52 - mantissa_bits for a
  // normal result, more for a subnormal one.
  int64_t shift = 52 - static_cast<int64_t>(mantissa_bits);
  if (target_exponent < 1) {
    shift += 1 - target_exponent;
  }
  if (shift >= 64) {
    return sign_bit; // below half the smallest subnormal
  }
  const unsigned shift_bits = static_cast<unsigned>(shift);
  uint64_t rounded = significand >> shift_bits;
  const uint64_t remainder = significand & ((uint64_t{1} << shift_bits) - 1);
  const uint64_t half = uint64_t{1} << (shift_bits - 1);
  if (remainder > half || (remainder == half && (rounded & 1) != 0)) {
    ++rounded;
  }

  uint64_t magnitude = 0;
  if (target_exponent < 1) {
    // Subnormal; a carry into bit `mantissa_bits` makes it the smallest
    // normal, which is exactly the right pattern.
    magnitude = rounded;
  } else {
    // `rounded` carries the implicit bit, so adding it to (exponent - 1)
    // lets a rounding carry propagate into the exponent.
    magnitude =
        (static_cast<uint64_t>(target_exponent - 1) << mantissa_bits) + rounded;
  }
  if (magnitude >= infinity) {
    return sign_bit | infinity;
  }
  return sign_bit | magnitude;
}

double widenToDouble(
    uint64_t bits,
    unsigned exponent_bits,
    unsigned mantissa_bits) noexcept {
  const bool negative = ((bits >> (exponent_bits + mantissa_bits)) & 1) != 0;
  const uint64_t max_exponent = (uint64_t{1} << exponent_bits) - 1;
  const uint64_t exponent = (bits >> mantissa_bits) & max_exponent;
  const uint64_t mantissa = bits & ((uint64_t{1} << mantissa_bits) - 1);
  const int bias = (1 << (exponent_bits - 1)) - 1;
  double magnitude = 0.0;
  if (exponent == max_exponent) {
    magnitude = mantissa != 0 ? std::nan("") : HUGE_VAL;
  } else if (exponent == 0) {
    magnitude = std::ldexp(
        static_cast<double>(mantissa),
        1 - bias - static_cast<int>(mantissa_bits));
  } else {
    magnitude = std::ldexp(
        static_cast<double>(mantissa | (uint64_t{1} << mantissa_bits)),
        static_cast<int>(exponent) - bias - static_cast<int>(mantissa_bits));
  }
  return negative ? -magnitude : magnitude;
}

} // namespace

std::optional<uint16_t> doubleToHalfBits(double value) noexcept {
  const uint64_t bits = roundDoubleToFormat(value, 5, 10, false);
  if ((bits & 0x7fff) == 0x7c00 && std::isfinite(value)) {
    return std::nullopt; // rounds past 65504: PyFloat_Pack2 overflows
  }
  return static_cast<uint16_t>(bits);
}

uint16_t doubleToBFloat16Bits(double value) noexcept {
  return static_cast<uint16_t>(doubleToFloatBits(value) >> 16);
}

uint32_t doubleToFloatBits(double value) noexcept {
  return static_cast<uint32_t>(roundDoubleToFormat(value, 8, 23, true));
}

double halfBitsToDouble(uint16_t bits) noexcept {
  return widenToDouble(bits, 5, 10);
}

double bfloat16BitsToDouble(uint16_t bits) noexcept {
  return widenToDouble(bits, 8, 7);
}

} // namespace launcher
} // namespace xsl
