#pragma once

// The one-character argument type codes Inductor sends in `arg_types`
// (torch/_inductor/runtime/static_triton_launcher.py): b h i l = int8..64,
// B H I K = uint8..64, f d = float32/float64, e y = float16/bfloat16,
// O = pointer (int, None, or an object with data_ptr()).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace xsl {
namespace launcher {

enum class ArgType : uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kPointer,
};

std::optional<ArgType> argTypeFromCode(char code) noexcept;
char argTypeCode(ArgType type) noexcept;
// "int32", "float16", "pointer", ...
const char* argTypeName(ArgType type) noexcept;
// Bytes the kernel receives for this type.
uint32_t argTypeSize(ArgType type) noexcept;
// "b h i l B H I K f d e y O": every code, for errors that list them.
const std::string& argTypeCodeList();
// "argument 3 ('i', int32)": how every error names an argument.
std::string argumentLabel(size_t index, ArgType type);

inline bool isSignedInteger(ArgType type) noexcept {
  return type == ArgType::kInt8 || type == ArgType::kInt16 ||
      type == ArgType::kInt32 || type == ArgType::kInt64;
}
inline bool isUnsignedInteger(ArgType type) noexcept {
  return type == ArgType::kUInt8 || type == ArgType::kUInt16 ||
      type == ArgType::kUInt32 || type == ArgType::kUInt64;
}
inline bool isInteger(ArgType type) noexcept {
  return isSignedInteger(type) || isUnsignedInteger(type);
}

} // namespace launcher
} // namespace xsl
