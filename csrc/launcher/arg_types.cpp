#include "launcher/arg_types.h"

namespace xsl {
namespace launcher {

std::optional<ArgType> argTypeFromCode(char code) noexcept {
  switch (code) {
    case 'b':
      return ArgType::kInt8;
    case 'h':
      return ArgType::kInt16;
    case 'i':
      return ArgType::kInt32;
    case 'l':
      return ArgType::kInt64;
    case 'B':
      return ArgType::kUInt8;
    case 'H':
      return ArgType::kUInt16;
    case 'I':
      return ArgType::kUInt32;
    case 'K':
      return ArgType::kUInt64;
    case 'f':
      return ArgType::kFloat32;
    case 'd':
      return ArgType::kFloat64;
    case 'e':
      return ArgType::kFloat16;
    case 'y':
      return ArgType::kBFloat16;
    case 'O':
      return ArgType::kPointer;
    default:
      return std::nullopt;
  }
}

char argTypeCode(ArgType type) noexcept {
  switch (type) {
    case ArgType::kInt8:
      return 'b';
    case ArgType::kInt16:
      return 'h';
    case ArgType::kInt32:
      return 'i';
    case ArgType::kInt64:
      return 'l';
    case ArgType::kUInt8:
      return 'B';
    case ArgType::kUInt16:
      return 'H';
    case ArgType::kUInt32:
      return 'I';
    case ArgType::kUInt64:
      return 'K';
    case ArgType::kFloat32:
      return 'f';
    case ArgType::kFloat64:
      return 'd';
    case ArgType::kFloat16:
      return 'e';
    case ArgType::kBFloat16:
      return 'y';
    case ArgType::kPointer:
      return 'O';
  }
  return '?';
}

const char* argTypeName(ArgType type) noexcept {
  switch (type) {
    case ArgType::kInt8:
      return "int8";
    case ArgType::kInt16:
      return "int16";
    case ArgType::kInt32:
      return "int32";
    case ArgType::kInt64:
      return "int64";
    case ArgType::kUInt8:
      return "uint8";
    case ArgType::kUInt16:
      return "uint16";
    case ArgType::kUInt32:
      return "uint32";
    case ArgType::kUInt64:
      return "uint64";
    case ArgType::kFloat32:
      return "float32";
    case ArgType::kFloat64:
      return "float64";
    case ArgType::kFloat16:
      return "float16";
    case ArgType::kBFloat16:
      return "bfloat16";
    case ArgType::kPointer:
      return "pointer";
  }
  return "unknown";
}

uint32_t argTypeSize(ArgType type) noexcept {
  switch (type) {
    case ArgType::kInt8:
    case ArgType::kUInt8:
      return 1;
    case ArgType::kInt16:
    case ArgType::kUInt16:
    case ArgType::kFloat16:
    case ArgType::kBFloat16:
      return 2;
    case ArgType::kInt32:
    case ArgType::kUInt32:
    case ArgType::kFloat32:
      return 4;
    case ArgType::kInt64:
    case ArgType::kUInt64:
    case ArgType::kFloat64:
    case ArgType::kPointer:
      return 8;
  }
  return 0;
}

} // namespace launcher
} // namespace xsl
