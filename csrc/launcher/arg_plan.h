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
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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
  // How the Python value is read and converted: the type code's type ('f'
  // on a parameter declared bfloat16 converts to bfloat16).
  ArgType type = ArgType::kInt32;
  // The kernel declares the parameter `bool` (Triton's i1, sent as 'i'):
  // only 0 and 1 (False/True) are accepted.
  bool boolean = false;
  // Width of the value: argTypeSize(type), or narrower for an integer whose
  // kernel parameter is declared narrower (Triton sends i1 as 'i'); the
  // Python value is range-checked against it.
  uint32_t value_size = 0;
  // Bytes handed to zeKernelSetArgumentValue: the kernel's payload size,
  // which IGC pads to 4 for char/short/half parameters. The value is sign-
  // (signed integers) or zero-extended (everything else) to this size.
  uint32_t size = 0;
  // Integers only: the int64 values that are stored unchanged (they fit
  // `value_size`; 0 and 1 for a boolean; capped at INT64_MAX), precomputed
  // so a launch checks such an int with two compares and stores
  // lowBytes(value, size). Everything else goes through packSignedValue/
  // packUnsignedValue, which wrap or report errors as Triton-XPU's launcher
  // does. The default (empty range) sends every value there. 32 bytes in all.
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
//
// Integers follow Triton-XPU's launcher (driver.c extractI8..extractU64) and
// PyTorch's static launchers, which read b/h/i with PyLong_AsLong, l with
// PyLong_AsLongLong, B/H/I with PyLong_AsUnsignedLong and K with
// PyLong_AsUnsignedLongLong, then cast to the code's C type:
//   * outside the range of the C type read (`long` is 64 bits on Linux and
//     32 on Windows), or negative for an unsigned code: OverflowError;
//   * inside it: the value wraps to the code's width ((int8_t)200 == -56).
// On top of that, refused with ValueError (where Triton's launcher would
// pass bits the kernel misreads): anything but 0/1 for a `bool` parameter,
// and a value that does not fit a parameter declared narrower than the
// code.

// Which Python exception a failed conversion raises.
enum class PackErrorKind : uint8_t {
  kType,     // TypeError: the wrong kind of value for the type code
  kOverflow, // OverflowError: where Triton-XPU's launcher raises it too
  kValue,    // ValueError: a value the kernel's declared type cannot take
};

// A Status that also says which exception a failure raises.
class [[nodiscard]] PackStatus : public Status {
 public:
  PackStatus() = default;
  PackStatus(PackErrorKind kind, Error error)
      : Status(std::move(error)), kind_(kind) {}
  static PackStatus success() {
    return PackStatus();
  }
  PackErrorKind kind() const noexcept {
    return kind_;
  }

 private:
  PackErrorKind kind_ = PackErrorKind::kType;
};

// For Python ints that fit in int64.
PackStatus packSignedValue(
    const PlannedArg& arg,
    size_t index,
    int64_t value,
    void* slot);
// For Python ints above INT64_MAX (only a 64-bit unsigned parameter, or
// B/H/I where `long` is 64 bits, takes them).
PackStatus packUnsignedValue(
    const PlannedArg& arg,
    size_t index,
    uint64_t value,
    void* slot);
// The OverflowError for an int that does not fit 64 bits at all;
// `value_text` is its decimal form.
PackStatus integerTooWide(
    const PlannedArg& arg,
    size_t index,
    std::string_view value_text);
// For floating point parameters (float_convert.h): fails only for a finite
// value beyond float16's range (OverflowError, as PyFloat_Pack2 raises).
PackStatus packFloatingValue(
    const PlannedArg& arg,
    size_t index,
    double value,
    void* slot);

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
