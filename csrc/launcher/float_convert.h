#pragma once

// Conversions from a Python float (an IEEE double) to the bit patterns a
// kernel receives for fp32/fp16/bf16 scalars, exactly as Triton-XPU's own
// launcher (third_party/intel/backend/driver.c: extractFP32, extractFP16,
// extractBF16) and PyTorch's static-launcher helpers
// (torch/csrc/inductor/static_launcher/common.h: unpackTritonFp16,
// unpackTritonBf16) produce them, so a kernel gets the same bits on the
// static and the Triton path:
//
//   fp32  the C cast (float)x: round to nearest even, overflow to infinity,
//         NaN quieted with its sign and top payload bits kept.
//   fp16  CPython's PyFloat_Pack2(x): round to nearest even in one step from
//         the double; a finite value that rounds past 65504 raises
//         OverflowError (here: no value); inf stays inf, NaN becomes a
//         quiet NaN with its sign (CPython <= 3.13's rule; the Python
//         bridge asks the running CPython for NaN bits).
//   bf16  the top 16 bits of (float)x: the double is rounded to fp32, then
//         TRUNCATED (0.1 -> 0x3dcc, not the nearest 0x3dcd).

#include <cstdint>
#include <optional>

namespace xsl {
namespace launcher {

// IEEE binary16 bits; nullopt when PyFloat_Pack2 raises OverflowError.
std::optional<uint16_t> doubleToHalfBits(double value) noexcept;
// bfloat16 bits: doubleToFloatBits(value) >> 16.
uint16_t doubleToBFloat16Bits(double value) noexcept;
// binary32 bits of (float)value; unlike static_cast<float>, defined for
// every double.
uint32_t doubleToFloatBits(double value) noexcept;

// Exact widening, for tests and diagnostics.
double halfBitsToDouble(uint16_t bits) noexcept;
double bfloat16BitsToDouble(uint16_t bits) noexcept;

} // namespace launcher
} // namespace xsl
