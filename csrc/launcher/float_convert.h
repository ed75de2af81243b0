#pragma once

// Conversions from a Python float (an IEEE double) to the bit patterns a
// kernel expects for fp32/fp16/bf16 scalars. All round to nearest, ties to
// even, in one step from the double (no double rounding through float);
// values beyond the largest finite number become infinity (what
// torch.tensor(x, dtype=...) does); NaN stays NaN with its sign.

#include <cstdint>

namespace xsl {
namespace launcher {

// IEEE binary16 bits.
uint16_t doubleToHalfBits(double value) noexcept;
// bfloat16 bits (the top half of a binary32).
uint16_t doubleToBFloat16Bits(double value) noexcept;
// binary32 bits; unlike static_cast<float>, defined for every double.
uint32_t doubleToFloatBits(double value) noexcept;

// Exact widening, for tests and diagnostics.
double halfBitsToDouble(uint16_t bits) noexcept;
double bfloat16BitsToDouble(uint16_t bits) noexcept;

} // namespace launcher
} // namespace xsl
