#pragma once

// The argument plan: how each value in Inductor's `args` tuple becomes the
// bytes of one kernel argument. It is compiled once per (kernel, arg_types)
// from the type string and the kernel's signature in the zebin, so a launch
// only converts values; every count/size/kind mismatch is reported here, once,
// with the argument index.
//
// Kernel argument layout of a Triton-XPU kernel, in order:
//   the caller's arguments (pointers and scalars, constexprs removed),
//   [global scratch, profile scratch]  global pointers; Inductor appends None
//                                      for them when the compiled kernel's
//                                      metadata has the *_scratch_size fields,
//                                      and the plan fills null when it did not,
//   [dynamic shared memory]            a local (SLM) pointer, present when the
//                                      kernel was built for dynamic shared
//                                      memory; bound from `shared` at launch.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "launcher/arg_types.h"
#include "zebin/zebin.h"

namespace xsl {
namespace launcher {

// Triton-XPU kernels end with exactly two scratch pointers.
constexpr uint32_t kTritonScratchPointerCount = 2;

// Parses a type string; the error names the offending position.
Expected<std::vector<ArgType>> parseTypeCodes(std::string_view type_codes);

struct PlannedArg {
  // How the Python value is read and converted. Usually the type code's type;
  // for 'f' on a 2-byte kernel parameter the half/bfloat16 type the kernel
  // declares (torch <= 2.13 sends fp16/bf16 scalars as 'f').
  ArgType type = ArgType::kInt32;
  // Width of the value: argTypeSize(type), or narrower for an integer whose
  // kernel parameter is declared narrower (Triton sends i1 as 'i'); the
  // Python value is range-checked against it.
  uint32_t value_size = 0;
  // Bytes handed to zeKernelSetArgumentValue: the kernel's payload size,
  // which IGC pads to 4 for char/short/half parameters. The value is sign-
  // (signed integers) or zero-extended (everything else) to this size.
  uint32_t size = 0;
  // Integers only: the int64 values that fit `value_size` (capped at
  // INT64_MAX), precomputed so a launch checks an in-range int with two
  // compares and stores lowBytes(value, size).
  // The default (empty range) sends every value through packSignedValue/
  // packUnsignedValue, which also report the errors. 32 bytes in all.
  int64_t min_value = 0;
  int64_t max_value = -1;
};

// Fills min_value/max_value from type, value_size and size.
void setIntegerRange(PlannedArg* arg) noexcept;

// The slot value of an argument: the low `size` bytes of `bits` (little-
// endian hosts and Intel GPUs), zeros above, so a slot compares as one
// uint64 (ze_launch.cpp skips unchanged arguments).
inline uint64_t lowBytes(uint64_t bits, uint32_t size) noexcept {
  return size >= 8 ? bits : bits & ((uint64_t{1} << (size * 8)) - 1);
}

struct ArgPlan {
  std::string type_codes;
  // One per caller argument; kernel argument i is args[i].
  std::vector<PlannedArg> args;
  // Trailing scratch pointers the caller did not pass; bound to null.
  uint32_t null_pointer_args = 0;
  // The kernel's last argument is its dynamic shared memory (SLM) buffer.
  bool binds_shared_memory = false;

  uint32_t kernelArgCount() const noexcept {
    return static_cast<uint32_t>(args.size()) + null_pointer_args +
        (binds_shared_memory ? 1u : 0u);
  }
  // Kernel argument index of the shared memory buffer (if bound).
  uint32_t sharedMemoryArgIndex() const noexcept {
    return static_cast<uint32_t>(args.size()) + null_pointer_args;
  }
};

// Checks `type_codes` against the kernel's user arguments and builds the
// plan. `kernel_name` only labels errors.
Expected<ArgPlan> compileArgPlan(
    std::string_view type_codes,
    std::string_view kernel_name,
    const std::vector<zebin::UserArgument>& kernel_args);

// --- Conversions used at launch (no Python here: the binding extracts a C
// value and these check and store it). `slot` must hold 8 bytes and is
// written whole: the value in its low `size` bytes, zeros above. `index` is
// the argument index for errors.

// For Python ints that fit in int64.
Status packSignedValue(
    const PlannedArg& arg,
    size_t index,
    int64_t value,
    void* slot);
// For Python ints above INT64_MAX (only a 64-bit unsigned parameter fits).
Status packUnsignedValue(
    const PlannedArg& arg,
    size_t index,
    uint64_t value,
    void* slot);
// For floating point parameters; never fails (overflow rounds to inf).
void packFloatingValue(
    const PlannedArg& arg,
    double value,
    void* slot) noexcept;

// Stack storage (8 bytes per argument) for up to kInlineArgCount arguments,
// the heap beyond: a launch of a typical kernel allocates nothing.
constexpr size_t kInlineArgCount = 120;

class ArgStorage {
 public:
  explicit ArgStorage(size_t count) {
    if (count > kInlineArgCount) {
      heap_.resize(count);
      slots_ = heap_.data();
    } else {
      slots_ = inline_;
    }
  }
  ArgStorage(const ArgStorage&) = delete;
  ArgStorage& operator=(const ArgStorage&) = delete;

  void* slot(size_t index) noexcept {
    return &slots_[index];
  }
  const void* slot(size_t index) const noexcept {
    return &slots_[index];
  }
  // Slot i as one value (every slot is written whole).
  const uint64_t* values() const noexcept {
    return slots_;
  }
  uint64_t* mutableValues() noexcept {
    return slots_;
  }
  bool onHeap() const noexcept {
    return !heap_.empty();
  }

 private:
  // Left uninitialized on purpose: every slot is written before use.
  uint64_t inline_[kInlineArgCount];
  std::vector<uint64_t> heap_;
  uint64_t* slots_;
};

} // namespace launcher
} // namespace xsl
