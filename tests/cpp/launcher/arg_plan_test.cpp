#include "launcher/arg_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace xsl {
namespace launcher {
namespace {

using zebin::UserArgument;
using zebin::UserArgumentKind;

UserArgument param(
    uint32_t index,
    UserArgumentKind kind,
    uint64_t size,
    std::string type_name = "",
    uint64_t type_size = 0) {
  UserArgument arg;
  arg.type_size = type_size;
  arg.index = index;
  arg.kind = kind;
  arg.size = size;
  arg.type_name = std::move(type_name);
  return arg;
}

// (global float*, global float*, int, global scratch, profile scratch)
std::vector<UserArgument> tritonAddSignature() {
  return {
      param(0, UserArgumentKind::kGlobalPointer, 8),
      param(1, UserArgumentKind::kGlobalPointer, 8),
      param(2, UserArgumentKind::kByValue, 4),
      param(3, UserArgumentKind::kGlobalPointer, 8),
      param(4, UserArgumentKind::kGlobalPointer, 8)};
}

bool mentions(const Error& error, const std::string& text) {
  return error.message().find(text) != std::string::npos;
}

TEST(ParseTypeCodes, AcceptsEveryCode) {
  auto types = parseTypeCodes("bhilBHIKfdeyO");
  ASSERT_TRUE(types.ok());
  ASSERT_EQ(types->size(), 13u);
  const std::vector<uint32_t> sizes = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 2, 2, 8};
  for (size_t i = 0; i < sizes.size(); ++i) {
    EXPECT_EQ(argTypeSize((*types)[i]), sizes[i]) << i;
    EXPECT_EQ(argTypeCode((*types)[i]), "bhilBHIKfdeyO"[i]);
  }
  EXPECT_TRUE(parseTypeCodes("").ok());
}

TEST(ParseTypeCodes, RejectsUnknownCodeWithPosition) {
  auto types = parseTypeCodes("iOx");
  ASSERT_FALSE(types.ok());
  EXPECT_TRUE(mentions(types.error(), "arg_types[2] = 'x'"));
  auto control = parseTypeCodes(std::string("i\x01", 2));
  ASSERT_FALSE(control.ok());
  EXPECT_TRUE(mentions(control.error(), "arg_types[1]"));
}

TEST(CompileArgPlan, ExactMatchWithScratchPassed) {
  auto plan = compileArgPlan("OOiOO", "add", tritonAddSignature());
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->args.size(), 5u);
  EXPECT_EQ(plan->null_pointer_args, 0u);
  EXPECT_FALSE(plan->binds_shared_memory);
  EXPECT_EQ(plan->kernelArgCount(), 5u);
}

TEST(CompileArgPlan, FillsMissingTritonScratchPointers) {
  auto plan = compileArgPlan("OOi", "add", tritonAddSignature());
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->args.size(), 3u);
  EXPECT_EQ(plan->null_pointer_args, 2u);
  EXPECT_EQ(plan->kernelArgCount(), 5u);
}

TEST(CompileArgPlan, CountMismatchNamesBothSides) {
  auto plan = compileArgPlan("OOiO", "add", tritonAddSignature());
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(mentions(plan.error(), "kernel 'add'"));
  EXPECT_TRUE(mentions(plan.error(), "has 4 arguments"));
  EXPECT_TRUE(mentions(plan.error(), "declares 5"));
}

TEST(CompileArgPlan, KindMismatchNamesIndex) {
  auto plan = compileArgPlan("OiiOO", "add", tritonAddSignature());
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(mentions(plan.error(), "argument 1 ('i', int32)"));
  EXPECT_TRUE(mentions(plan.error(), "pointer"));
  auto scalar_as_pointer = compileArgPlan("OOOOO", "add", tritonAddSignature());
  ASSERT_FALSE(scalar_as_pointer.ok());
  EXPECT_TRUE(mentions(scalar_as_pointer.error(), "argument 2"));
}

TEST(CompileArgPlan, SizeRules) {
  const std::vector<UserArgument> int32_param = {
      param(0, UserArgumentKind::kByValue, 4)};
  EXPECT_TRUE(compileArgPlan("i", "k", int32_param).ok());
  EXPECT_TRUE(compileArgPlan("I", "k", int32_param).ok());
  EXPECT_TRUE(compileArgPlan("f", "k", int32_param).ok());
  // Checked narrowing of integers (int64 code on an int32 parameter).
  auto narrowed = compileArgPlan("l", "k", int32_param);
  ASSERT_TRUE(narrowed.ok());
  EXPECT_EQ(narrowed->args[0].value_size, 4u);
  EXPECT_EQ(narrowed->args[0].size, 4u);
  // Float size mismatches are errors; so is anything on a declared int.
  EXPECT_FALSE(compileArgPlan("d", "k", int32_param).ok());
  const std::vector<UserArgument> declared_int = {
      param(0, UserArgumentKind::kByValue, 4, "int;4", 4)};
  EXPECT_FALSE(compileArgPlan("h", "k", declared_int).ok());
  EXPECT_FALSE(compileArgPlan("e", "k", declared_int).ok());
  EXPECT_FALSE(compileArgPlan("d", "k", declared_int).ok());
}

TEST(CompileArgPlan, TwoByteFloatParameters) {
  // IGC pads a half parameter to a 4-byte payload; 'e' and 'y' both take it
  // (Triton declares bf16 parameters half).
  for (const char* codes : {"e", "y"}) {
    auto plan = compileArgPlan(
        codes, "k", {param(0, UserArgumentKind::kByValue, 4, "half;2", 2)});
    ASSERT_TRUE(plan.ok()) << plan.error().message();
    EXPECT_EQ(plan->args[0].type, *argTypeFromCode(codes[0]));
    EXPECT_EQ(plan->args[0].value_size, 2u);
    EXPECT_EQ(plan->args[0].size, 4u); // the payload size goes to the driver
  }
  // 'f' (torch 2.13 for fp16, bf16 and fp32) on 'half;2' is ambiguous:
  // refused, naming the argument, the declared type and the codes to pass.
  auto half = compileArgPlan(
      "if",
      "k",
      {param(0, UserArgumentKind::kByValue, 4, "int;4", 4),
       param(1, UserArgumentKind::kByValue, 4, "half;2", 2)});
  ASSERT_FALSE(half.ok());
  EXPECT_TRUE(mentions(half.error(), "kernel 'k': argument 1 ('f', float32)"));
  EXPECT_TRUE(mentions(half.error(), "'half;2'"));
  EXPECT_TRUE(mentions(half.error(), "'e' (float16) or 'y' (bfloat16)"));
  EXPECT_TRUE(mentions(half.error(), "torch >= 2.15"));
  // The same without type information on an unpadded 2-byte payload.
  auto unknown = compileArgPlan(
      "f", "k", {param(0, UserArgumentKind::kByValue, 2, "", 0)});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(mentions(unknown.error(), "2-byte floating point parameter"));
  EXPECT_TRUE(mentions(unknown.error(), "'y'"));
  // A parameter declared bfloat16 leaves no doubt.
  auto bf16 = compileArgPlan(
      "f", "k", {param(0, UserArgumentKind::kByValue, 4, "bfloat16;2", 2)});
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->args[0].type, ArgType::kBFloat16);
  EXPECT_EQ(bf16->args[0].size, 4u);
}

TEST(CompileArgPlan, BoolParameterTakesZeroOrOne) {
  // Triton's i1 arrives as 'i' on a parameter declared 'bool;1'.
  auto plan = compileArgPlan(
      "i", "k", {param(0, UserArgumentKind::kByValue, 4, "bool;1", 1)});
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_TRUE(plan->args[0].boolean);
  EXPECT_EQ(plan->args[0].value_size, 1u);
  EXPECT_EQ(plan->args[0].min_value, 0);
  EXPECT_EQ(plan->args[0].max_value, 1);
  auto as_char = compileArgPlan(
      "b", "k", {param(0, UserArgumentKind::kByValue, 4, "bool;1", 1)});
  ASSERT_TRUE(as_char.ok());
  EXPECT_TRUE(as_char->args[0].boolean);
  EXPECT_EQ(as_char->args[0].max_value, 1);
  EXPECT_FALSE(
      compileArgPlan(
          "i", "k", {param(0, UserArgumentKind::kByValue, 4, "char;1", 1)})
          ->args[0]
          .boolean);
}

TEST(CompileArgPlan, PaddedSmallScalars) {
  // char/short parameters arrive in 4-byte payloads.
  const std::vector<UserArgument> with_info = {
      param(0, UserArgumentKind::kByValue, 4, "char;1", 1),
      param(1, UserArgumentKind::kByValue, 4, "ushort;2", 2)};
  auto plan = compileArgPlan("bH", "k", with_info);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_EQ(plan->args[0].value_size, 1u);
  EXPECT_EQ(plan->args[0].size, 4u);
  EXPECT_EQ(plan->args[1].value_size, 2u);
  EXPECT_EQ(plan->args[1].size, 4u);
  // An int code on a declared char: narrowed, range-checked.
  auto bool_as_int = compileArgPlan("iH", "k", with_info);
  ASSERT_TRUE(bool_as_int.ok());
  EXPECT_EQ(bool_as_int->args[0].value_size, 1u);
  // A short code on a declared int is a mismatch, not padding.
  EXPECT_FALSE(
      compileArgPlan(
          "h", "k", {param(0, UserArgumentKind::kByValue, 4, "int;4", 4)})
          .ok());
  // Without type information a small code on a 4-byte payload is accepted.
  auto no_info =
      compileArgPlan("h", "k", {param(0, UserArgumentKind::kByValue, 4)});
  ASSERT_TRUE(no_info.ok());
  EXPECT_EQ(no_info->args[0].value_size, 2u);
  EXPECT_EQ(no_info->args[0].size, 4u);
}

TEST(CompileArgPlan, TrailingLocalArgumentIsSharedMemory) {
  std::vector<UserArgument> signature = tritonAddSignature();
  signature.push_back(param(5, UserArgumentKind::kLocalPointer, 0));
  auto plan = compileArgPlan("OOiOO", "slm", signature);
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_TRUE(plan->binds_shared_memory);
  EXPECT_EQ(plan->sharedMemoryArgIndex(), 5u);
  EXPECT_EQ(plan->kernelArgCount(), 6u);
  auto short_plan = compileArgPlan("OOi", "slm", signature);
  ASSERT_TRUE(short_plan.ok());
  EXPECT_EQ(short_plan->null_pointer_args, 2u);
  EXPECT_EQ(short_plan->sharedMemoryArgIndex(), 5u);
}

TEST(CompileArgPlan, LocalArgumentInTheMiddleIsRejected) {
  const std::vector<UserArgument> signature = {
      param(0, UserArgumentKind::kLocalPointer, 0),
      param(1, UserArgumentKind::kGlobalPointer, 8)};
  auto plan = compileArgPlan("OO", "k", signature);
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(mentions(plan.error(), "kernel argument 0"));
}

TEST(CompileArgPlan, UnsupportedKindsAreNamed) {
  auto plan =
      compileArgPlan("O", "img", {param(0, UserArgumentKind::kImage, 8)});
  ASSERT_FALSE(plan.ok());
  EXPECT_TRUE(mentions(plan.error(), "argument 0"));
}

TEST(CompileArgPlan, ZeroArguments) {
  auto plan = compileArgPlan("", "empty", {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->kernelArgCount(), 0u);
  EXPECT_FALSE(compileArgPlan("i", "empty", {}).ok());
}

template <typename T>
T slotAs(const uint64_t& slot) {
  T value{};
  std::memcpy(&value, &slot, sizeof(T));
  return value;
}

PlannedArg planned(ArgType type, uint32_t value_size = 0, uint32_t size = 0) {
  PlannedArg arg;
  arg.type = type;
  arg.value_size = value_size == 0 ? argTypeSize(type) : value_size;
  arg.size = size == 0 ? arg.value_size : size;
  return arg;
}

// --- Integers: Triton-XPU's extractors read b/h/i as C long, B/H/I as
// unsigned long, l/K as (unsigned) long long, and cast to the code's type.
// The oracle below does exactly that with C++ casts.

constexpr int64_t kLongMin = std::numeric_limits<long>::min();
constexpr int64_t kLongMax = std::numeric_limits<long>::max();
constexpr uint64_t kULongMax = std::numeric_limits<unsigned long>::max();

struct Expected64 {
  bool overflow;
  uint64_t slot; // the code's C value, zero-extended from its size
};

template <typename T>
uint64_t bitsOf(T value) {
  using U = typename std::make_unsigned<T>::type;
  return static_cast<uint64_t>(static_cast<U>(value));
}

Expected64 oracleSigned(ArgType type, int64_t value) {
  const bool long_ok = value >= kLongMin && value <= kLongMax;
  const bool ulong_ok = value >= 0 && static_cast<uint64_t>(value) <= kULongMax;
  switch (type) {
    case ArgType::kInt8:
      return {!long_ok, bitsOf(static_cast<int8_t>(static_cast<long>(value)))};
    case ArgType::kInt16:
      return {!long_ok, bitsOf(static_cast<int16_t>(static_cast<long>(value)))};
    case ArgType::kInt32:
      return {!long_ok, bitsOf(static_cast<int32_t>(static_cast<long>(value)))};
    case ArgType::kInt64:
      return {false, bitsOf(value)};
    case ArgType::kUInt8:
      return {
          !ulong_ok, static_cast<uint8_t>(static_cast<unsigned long>(value))};
    case ArgType::kUInt16:
      return {
          !ulong_ok, static_cast<uint16_t>(static_cast<unsigned long>(value))};
    case ArgType::kUInt32:
      return {
          !ulong_ok, static_cast<uint32_t>(static_cast<unsigned long>(value))};
    case ArgType::kUInt64:
      return {value < 0, static_cast<uint64_t>(value)};
    default:
      return {true, 0};
  }
}

Expected64 oracleUnsigned(ArgType type, uint64_t value) {
  switch (type) {
    case ArgType::kUInt8:
    case ArgType::kUInt16:
    case ArgType::kUInt32: {
      const uint32_t bits = argTypeSize(type) * 8;
      return {value > kULongMax, value & ((uint64_t{1} << bits) - 1)};
    }
    case ArgType::kUInt64:
      return {false, value};
    default:
      return {true, 0}; // above INT64_MAX: no signed C type reads it
  }
}

const std::vector<int64_t>& signedEdges() {
  static const std::vector<int64_t> edges = {
      0,
      1,
      -1,
      127,
      128,
      -128,
      -129,
      200,
      255,
      256,
      32767,
      32768,
      -32768,
      -32769,
      65535,
      65536,
      int64_t{INT32_MAX},
      int64_t{INT32_MAX} + 1,
      int64_t{INT32_MIN},
      int64_t{INT32_MIN} - 1,
      int64_t{UINT32_MAX},
      int64_t{UINT32_MAX} + 1,
      int64_t{1} << 40,
      -(int64_t{1} << 40),
      INT64_MAX,
      INT64_MIN};
  return edges;
}

TEST(PackValues, IntegersMatchTritonExtractorsForEveryCode) {
  const char* codes = "bhilBHIK";
  const std::vector<uint64_t> big = {
      uint64_t{1} << 63, (uint64_t{1} << 63) + 7, UINT64_MAX};
  for (const char* code = codes; *code != '\0'; ++code) {
    const ArgType type = *argTypeFromCode(*code);
    PlannedArg arg = planned(type);
    setIntegerRange(&arg);
    for (int64_t value : signedEdges()) {
      uint64_t slot = 0x5a5a5a5a5a5a5a5a;
      const PackStatus status = packSignedValue(arg, 4, value, &slot);
      const Expected64 expected = oracleSigned(type, value);
      if (expected.overflow) {
        ASSERT_FALSE(status.ok()) << *code << " " << value;
        EXPECT_EQ(status.kind(), PackErrorKind::kOverflow) << *code << value;
        EXPECT_TRUE(mentions(status.error(), "argument 4 ('"));
        EXPECT_TRUE(mentions(status.error(), std::to_string(value)));
        EXPECT_TRUE(mentions(status.error(), "OverflowError"));
      } else {
        ASSERT_TRUE(status.ok())
            << *code << " " << value << ": " << status.error().message();
        EXPECT_EQ(slot, expected.slot) << *code << " " << value;
      }
    }
    for (uint64_t value : big) {
      uint64_t slot = 0;
      const PackStatus status = packUnsignedValue(arg, 2, value, &slot);
      const Expected64 expected = oracleUnsigned(type, value);
      if (expected.overflow) {
        ASSERT_FALSE(status.ok()) << *code << " " << value;
        EXPECT_EQ(status.kind(), PackErrorKind::kOverflow);
        EXPECT_TRUE(mentions(status.error(), std::to_string(value)));
      } else {
        ASSERT_TRUE(status.ok()) << *code << " " << value;
        EXPECT_EQ(slot, expected.slot) << *code << " " << value;
      }
    }
    // Beyond 64 bits every code overflows, naming the value.
    const PackStatus huge = integerTooWide(arg, 6, "18446744073709551616");
    ASSERT_FALSE(huge.ok());
    EXPECT_EQ(huge.kind(), PackErrorKind::kOverflow);
    EXPECT_TRUE(mentions(huge.error(), "argument 6"));
    EXPECT_TRUE(mentions(huge.error(), "18446744073709551616"));
  }
}

// The oracle's own anchors: hand-computed results of the C casts.
TEST(PackValues, IntegerWrapAndOverflowExamples) {
  uint64_t slot = 0;
  ASSERT_TRUE(packSignedValue(planned(ArgType::kInt8), 0, 200, &slot).ok());
  EXPECT_EQ(slot, 0xc8u); // (int8_t)200 == -56
  ASSERT_TRUE(packSignedValue(planned(ArgType::kInt16), 0, 32768, &slot).ok());
  EXPECT_EQ(slotAs<int16_t>(slot), -32768);
  ASSERT_TRUE(packSignedValue(planned(ArgType::kUInt8), 0, 256, &slot).ok());
  EXPECT_EQ(slot, 0u);
  ASSERT_TRUE(packSignedValue(planned(ArgType::kUInt8), 0, 511, &slot).ok());
  EXPECT_EQ(slot, 0xffu);
  // Negative for an unsigned code: OverflowError, as PyLong_AsUnsigned*.
  for (ArgType type :
       {ArgType::kUInt8,
        ArgType::kUInt16,
        ArgType::kUInt32,
        ArgType::kUInt64}) {
    const PackStatus negative = packSignedValue(planned(type), 3, -1, &slot);
    ASSERT_FALSE(negative.ok());
    EXPECT_EQ(negative.kind(), PackErrorKind::kOverflow);
    EXPECT_TRUE(mentions(negative.error(), "argument 3"));
  }
  // int64/uint64: exactly their C ranges.
  ASSERT_TRUE(
      packSignedValue(planned(ArgType::kInt64), 0, INT64_MIN, &slot).ok());
  EXPECT_EQ(slotAs<int64_t>(slot), INT64_MIN);
  EXPECT_FALSE(
      packUnsignedValue(planned(ArgType::kInt64), 0, UINT64_MAX, &slot).ok());
  ASSERT_TRUE(
      packUnsignedValue(planned(ArgType::kUInt64), 0, UINT64_MAX, &slot).ok());
  EXPECT_EQ(slot, UINT64_MAX);
  // int32 beyond its range: wraps where long is 64 bits (Linux), overflows
  // where it is 32 (Windows), as PyLong_AsLong does.
  const PackStatus wide =
      packSignedValue(planned(ArgType::kInt32), 7, int64_t{1} << 32, &slot);
  if constexpr (sizeof(long) == 8) {
    ASSERT_TRUE(wide.ok());
    EXPECT_EQ(slot, 0u);
  } else {
    ASSERT_FALSE(wide.ok());
    EXPECT_TRUE(mentions(wide.error(), "argument 7 ('i', int32)"));
    EXPECT_TRUE(mentions(wide.error(), "4294967296"));
  }
}

TEST(PackValues, WrappedValuesAreExtendedToThePayload) {
  uint64_t slot = ~uint64_t{0};
  // int8 in a 4-byte payload: cast to int8, then sign-extended.
  ASSERT_TRUE(
      packSignedValue(planned(ArgType::kInt8, 1, 4), 0, -2, &slot).ok());
  EXPECT_EQ(slot, 0xfffffffeu);
  ASSERT_TRUE(
      packSignedValue(planned(ArgType::kInt8, 1, 4), 0, 200, &slot).ok());
  EXPECT_EQ(slot, 0xffffffc8u);
  // uint8/uint16 cast, then zero-extended.
  ASSERT_TRUE(
      packSignedValue(planned(ArgType::kUInt8, 1, 4), 0, 300, &slot).ok());
  EXPECT_EQ(slot, 44u);
  ASSERT_TRUE(
      packSignedValue(planned(ArgType::kUInt16, 2, 4), 0, 65535, &slot).ok());
  EXPECT_EQ(slot, 65535u);
  // half in a 4-byte payload: the bits, zero-extended.
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kFloat16, 2, 4), 0, -1.0, &slot).ok());
  EXPECT_EQ(slot, 0xbc00u);
}

TEST(PackValues, NarrowerDeclaredIntegerIsRangeChecked) {
  uint64_t slot = 0;
  PlannedArg narrow = planned(ArgType::kInt64, 4);
  setIntegerRange(&narrow);
  EXPECT_TRUE(packSignedValue(narrow, 0, -5, &slot).ok());
  EXPECT_EQ(slotAs<int32_t>(slot), -5);
  const PackStatus error = packSignedValue(narrow, 3, int64_t{1} << 40, &slot);
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.kind(), PackErrorKind::kValue);
  EXPECT_TRUE(mentions(error.error(), "4 bytes"));
}

TEST(PackValues, BoolTakesOnlyZeroAndOne) {
  PlannedArg flag = planned(ArgType::kInt32, 1, 4);
  flag.boolean = true;
  setIntegerRange(&flag);
  uint64_t slot = ~uint64_t{0};
  ASSERT_TRUE(packSignedValue(flag, 0, 0, &slot).ok());
  EXPECT_EQ(slot, 0u);
  ASSERT_TRUE(packSignedValue(flag, 0, 1, &slot).ok());
  EXPECT_EQ(slot, 1u);
  // Triton's launcher would pass 2 as 0x02; here it is refused.
  for (int64_t value : {int64_t{2}, int64_t{-1}, int64_t{256}}) {
    const PackStatus status = packSignedValue(flag, 5, value, &slot);
    ASSERT_FALSE(status.ok()) << value;
    EXPECT_EQ(status.kind(), PackErrorKind::kValue);
    EXPECT_TRUE(mentions(status.error(), "argument 5"));
    EXPECT_TRUE(mentions(status.error(), "bool"));
    EXPECT_TRUE(mentions(status.error(), std::to_string(value)));
  }
  // Not 0 or 1 either, though it would wrap to 1 as an int32; where `long`
  // is 32 bits, reading it already overflows, as in Triton's launcher.
  const PackStatus wraps_to_one =
      packSignedValue(flag, 5, (int64_t{1} << 32) + 1, &slot);
  ASSERT_FALSE(wraps_to_one.ok());
  EXPECT_EQ(
      wraps_to_one.kind(),
      sizeof(long) == 8 ? PackErrorKind::kValue : PackErrorKind::kOverflow);
  EXPECT_FALSE(packUnsignedValue(flag, 0, UINT64_MAX, &slot).ok());
}

TEST(PackValues, IntForFloatParameterIsATypeError) {
  uint64_t slot = 0;
  const PackStatus status =
      packSignedValue(planned(ArgType::kFloat32), 2, 1, &slot);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.kind(), PackErrorKind::kType);
}

TEST(PackValues, Floats) {
  uint64_t slot = 0;
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kFloat32), 0, 1.5, &slot).ok());
  EXPECT_EQ(slotAs<float>(slot), 1.5f);
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kFloat64), 0, 0.1, &slot).ok());
  EXPECT_EQ(slotAs<double>(slot), 0.1);
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kFloat16), 0, 1.0, &slot).ok());
  EXPECT_EQ(slot, 0x3c00u);
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kBFloat16), 0, 3.140625, &slot).ok());
  EXPECT_EQ(slot, 0x4049u);
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kBFloat16), 0, 0.1, &slot).ok());
  EXPECT_EQ(slot, 0x3dccu); // truncated, as Triton-XPU's extractBF16
  // fp32 and bf16 overflow to inf; fp16 overflow is an OverflowError.
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kFloat32), 0, 1e300, &slot).ok());
  EXPECT_EQ(slot, 0x7f800000u);
  ASSERT_TRUE(
      packFloatingValue(planned(ArgType::kBFloat16), 0, -1e300, &slot).ok());
  EXPECT_EQ(slot, 0xff80u);
  const PackStatus overflow =
      packFloatingValue(planned(ArgType::kFloat16), 3, 70000.0, &slot);
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.kind(), PackErrorKind::kOverflow);
  EXPECT_TRUE(mentions(overflow.error(), "argument 3 ('e', float16)"));
  EXPECT_TRUE(mentions(overflow.error(), "70000"));
  EXPECT_FALSE(
      packFloatingValue(planned(ArgType::kFloat16), 0, 65520.0, &slot).ok());
  ASSERT_TRUE(packFloatingValue(
                  planned(ArgType::kFloat16),
                  0,
                  std::numeric_limits<double>::infinity(),
                  &slot)
                  .ok());
  EXPECT_EQ(slot, 0x7c00u);
}

TEST(ArgStorage, InlineUpTo120ThenHeap) {
  ArgStorage small(120);
  EXPECT_FALSE(small.onHeap());
  ArgStorage large(121);
  EXPECT_TRUE(large.onHeap());
  // Every slot is writable and distinct.
  for (size_t i = 0; i < 121; ++i) {
    const uint64_t value = i * 3;
    std::memcpy(large.slot(i), &value, 8);
  }
  for (size_t i = 0; i < 121; ++i) {
    uint64_t value = 0;
    std::memcpy(&value, large.slot(i), 8);
    EXPECT_EQ(value, i * 3);
  }
}

} // namespace
} // namespace launcher
} // namespace xsl
