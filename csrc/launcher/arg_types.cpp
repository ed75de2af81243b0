#include "launcher/arg_types.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>

#include "common/enum_names.h"

namespace xsl {
namespace launcher {

namespace {

// The facts of each type, indexed by ArgType: the code Inductor sends, the
// name errors use, the bytes the kernel receives.
constexpr char kCodes[] = "bhilBHIKfdeyO";
constexpr const char* kNames[] = {
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "float16",
    "bfloat16",
    "pointer"};
constexpr uint32_t kSizes[] = {1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 2, 2, 8};

constexpr size_t kTypeCount = static_cast<size_t>(ArgType::kPointer) + 1;
static_assert(sizeof(kCodes) == kTypeCount + 1, "one code per ArgType");
static_assert(std::size(kNames) == kTypeCount, "one name per ArgType");
static_assert(std::size(kSizes) == kTypeCount, "one size per ArgType");

} // namespace

std::optional<ArgType> argTypeFromCode(char code) noexcept {
  for (size_t i = 0; i < kTypeCount; ++i) {
    if (kCodes[i] == code) {
      return static_cast<ArgType>(i);
    }
  }
  return std::nullopt;
}

char argTypeCode(ArgType type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < kTypeCount ? kCodes[i] : '?';
}

const char* argTypeName(ArgType type) noexcept {
  return enumName(type, kNames, "unknown");
}

uint32_t argTypeSize(ArgType type) noexcept {
  const auto i = static_cast<size_t>(type);
  return i < kTypeCount ? kSizes[i] : 0;
}

const std::string& argTypeCodeList() {
  static const std::string list = [] {
    std::string codes;
    for (size_t i = 0; i < kTypeCount; ++i) {
      codes += i == 0 ? "" : " ";
      codes += kCodes[i];
    }
    return codes;
  }();
  return list;
}

std::string argumentLabel(size_t index, ArgType type) {
  std::string label = "argument ";
  label += std::to_string(index);
  label += " ('";
  label += argTypeCode(type);
  label += "', ";
  label += argTypeName(type);
  label += ")";
  return label;
}

} // namespace launcher
} // namespace xsl
