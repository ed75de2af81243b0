#include "launcher/arg_plan.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
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

TEST(CompileArgPlan, HalfWidthFloatFromTypeName) {
  // IGC pads a half parameter to a 4-byte payload; the type name tells.
  auto half = compileArgPlan(
      "f", "k", {param(0, UserArgumentKind::kByValue, 4, "half;2", 2)});
  ASSERT_TRUE(half.ok());
  EXPECT_EQ(half->args[0].type, ArgType::kFloat16);
  EXPECT_EQ(half->args[0].value_size, 2u);
  EXPECT_EQ(half->args[0].size, 4u); // the payload size goes to the driver
  auto bf16 = compileArgPlan(
      "f", "k", {param(0, UserArgumentKind::kByValue, 2, "bfloat16", 2)});
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->args[0].type, ArgType::kBFloat16);
  auto unknown = compileArgPlan(
      "f", "k", {param(0, UserArgumentKind::kByValue, 2, "", 0)});
  ASSERT_FALSE(unknown.ok());
  EXPECT_TRUE(mentions(unknown.error(), "'e'"));
  auto half_code = compileArgPlan(
      "e", "k", {param(0, UserArgumentKind::kByValue, 4, "half;2", 2)});
  ASSERT_TRUE(half_code.ok());
  EXPECT_EQ(half_code->args[0].value_size, 2u);
  EXPECT_EQ(half_code->args[0].size, 4u);
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
  // Triton sends i1 as 'i': narrowed to the declared char, range-checked.
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

TEST(PackValues, SignedRangesAreExact) {
  uint64_t slot = 0;
  EXPECT_TRUE(packSignedValue(planned(ArgType::kInt8), 0, -128, &slot).ok());
  EXPECT_EQ(slotAs<int8_t>(slot), -128);
  EXPECT_TRUE(packSignedValue(planned(ArgType::kInt8), 0, 127, &slot).ok());
  EXPECT_FALSE(packSignedValue(planned(ArgType::kInt8), 0, 128, &slot).ok());
  EXPECT_FALSE(packSignedValue(planned(ArgType::kInt8), 0, -129, &slot).ok());
  EXPECT_TRUE(packSignedValue(planned(ArgType::kInt16), 0, -32768, &slot).ok());
  EXPECT_FALSE(packSignedValue(planned(ArgType::kInt16), 0, 32768, &slot).ok());
  EXPECT_TRUE(
      packSignedValue(planned(ArgType::kInt32), 0, INT32_MIN, &slot).ok());
  EXPECT_EQ(slotAs<int32_t>(slot), INT32_MIN);
  auto too_big = packSignedValue(
      planned(ArgType::kInt32), 7, int64_t{INT32_MAX} + 1, &slot);
  ASSERT_FALSE(too_big.ok());
  EXPECT_TRUE(mentions(too_big.error(), "argument 7 ('i', int32)"));
  EXPECT_TRUE(mentions(too_big.error(), "2147483648"));
  EXPECT_TRUE(
      packSignedValue(planned(ArgType::kInt64), 0, INT64_MIN, &slot).ok());
  EXPECT_EQ(slotAs<int64_t>(slot), INT64_MIN);
}

TEST(PackValues, UnsignedRangesAreExact) {
  uint64_t slot = 0;
  EXPECT_TRUE(packSignedValue(planned(ArgType::kUInt8), 0, 255, &slot).ok());
  EXPECT_EQ(slotAs<uint8_t>(slot), 255);
  EXPECT_FALSE(packSignedValue(planned(ArgType::kUInt8), 0, 256, &slot).ok());
  EXPECT_FALSE(packSignedValue(planned(ArgType::kUInt8), 0, -1, &slot).ok());
  EXPECT_TRUE(
      packSignedValue(planned(ArgType::kUInt32), 0, UINT32_MAX, &slot).ok());
  EXPECT_FALSE(packSignedValue(
                   planned(ArgType::kUInt32), 0, int64_t{UINT32_MAX} + 1, &slot)
                   .ok());
  EXPECT_TRUE(
      packUnsignedValue(planned(ArgType::kUInt64), 0, UINT64_MAX, &slot).ok());
  EXPECT_EQ(slot, UINT64_MAX);
  EXPECT_FALSE(
      packUnsignedValue(planned(ArgType::kInt64), 0, UINT64_MAX, &slot).ok());
  EXPECT_FALSE(
      packUnsignedValue(planned(ArgType::kUInt32), 0, UINT64_MAX, &slot).ok());
  EXPECT_FALSE(packSignedValue(planned(ArgType::kUInt64), 0, -1, &slot).ok());
}

TEST(PackValues, NarrowedIntegerChecksKernelWidth) {
  uint64_t slot = 0;
  const PlannedArg narrow = planned(ArgType::kInt64, 4);
  EXPECT_TRUE(packSignedValue(narrow, 0, -5, &slot).ok());
  EXPECT_EQ(slotAs<int32_t>(slot), -5);
  auto error = packSignedValue(narrow, 3, int64_t{1} << 40, &slot);
  ASSERT_FALSE(error.ok());
  EXPECT_TRUE(mentions(error.error(), "4 bytes"));
}

TEST(PackValues, PaddedValuesAreExtended) {
  uint64_t slot = ~uint64_t{0};
  // int8 in a 4-byte payload: sign-extended.
  EXPECT_TRUE(
      packSignedValue(planned(ArgType::kInt8, 1, 4), 0, -2, &slot).ok());
  EXPECT_EQ(slotAs<int32_t>(slot), -2);
  EXPECT_FALSE(
      packSignedValue(planned(ArgType::kInt8, 1, 4), 0, 200, &slot).ok());
  // uint16 zero-extended.
  EXPECT_TRUE(
      packSignedValue(planned(ArgType::kUInt16, 2, 4), 0, 65535, &slot).ok());
  EXPECT_EQ(slotAs<uint32_t>(slot), 65535u);
  // half in a 4-byte payload: the bits, zero-extended.
  packFloatingValue(planned(ArgType::kFloat16, 2, 4), -1.0, &slot);
  EXPECT_EQ(slotAs<uint32_t>(slot), 0xbc00u);
}

TEST(PackValues, IntForFloatParameterIsATypeError) {
  uint64_t slot = 0;
  EXPECT_FALSE(packSignedValue(planned(ArgType::kFloat32), 2, 1, &slot).ok());
}

TEST(PackValues, Floats) {
  uint64_t slot = 0;
  packFloatingValue(planned(ArgType::kFloat32), 1.5, &slot);
  EXPECT_EQ(slotAs<float>(slot), 1.5f);
  packFloatingValue(planned(ArgType::kFloat64), 0.1, &slot);
  EXPECT_EQ(slotAs<double>(slot), 0.1);
  packFloatingValue(planned(ArgType::kFloat16), 1.0, &slot);
  EXPECT_EQ(slotAs<uint16_t>(slot), 0x3c00);
  packFloatingValue(planned(ArgType::kBFloat16), 1.0, &slot);
  EXPECT_EQ(slotAs<uint16_t>(slot), 0x3f80);
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
