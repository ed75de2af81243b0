#include "launcher/arg_plan.h"

#include <cstring>
#include <limits>

#include "launcher/float_convert.h"

namespace xsl {
namespace launcher {
namespace {

constexpr const char* kTypeCodeList = "b h i l B H I K f d e y O";

std::string kernelLabel(std::string_view kernel_name) {
  std::string label = "kernel '";
  label += kernel_name;
  label += "'";
  return label;
}

std::string argLabel(size_t index, ArgType type) {
  std::string label = "argument ";
  label += std::to_string(index);
  label += " ('";
  label += argTypeCode(type);
  label += "', ";
  label += argTypeName(type);
  label += ")";
  return label;
}

bool isPointerKind(zebin::UserArgumentKind kind) {
  return kind == zebin::UserArgumentKind::kGlobalPointer ||
      kind == zebin::UserArgumentKind::kConstantPointer;
}

bool contains(const std::string& text, const char* needle) {
  return text.find(needle) != std::string::npos;
}

// Picks the 2-byte float type for an 'f' argument from the parameter's
// declared type name; empty when the zebin does not say.
std::optional<ArgType> halfWidthFloatFromTypeName(const std::string& name) {
  if (contains(name, "bfloat") || contains(name, "bf16")) {
    return ArgType::kBFloat16;
  }
  if (contains(name, "half")) {
    return ArgType::kFloat16;
  }
  return std::nullopt;
}

// The width of the value for a by-value parameter, and (for 'f' on a
// half/bfloat16 parameter) the type to convert to.
Expected<uint32_t> valueWidth(
    ArgType type,
    const zebin::UserArgument& param,
    const std::string& where,
    ArgType* converted_type) {
  const uint32_t type_size = argTypeSize(type);
  if (type == ArgType::kFloat32) {
    // torch <= 2.13 sends fp16/bf16 scalars as 'f'; the declared type name
    // (when the zebin has kernels_misc_info) says which one the kernel wants.
    if (auto half_type = halfWidthFloatFromTypeName(param.type_name)) {
      *converted_type = *half_type;
      return 2u;
    }
  }
  // The payload can be wider than the source type (a char or half arrives in
  // 4 bytes); the declared type size, when known, is the real width.
  const uint64_t declared = param.type_size;
  const uint64_t kernel_width = declared != 0 ? declared : param.size;
  if (type_size == kernel_width) {
    return type_size;
  }
  if (declared == 0 && type_size < 4 && param.size == 4) {
    return type_size; // a padded small scalar without type information
  }
  if (isInteger(type) && kernel_width < type_size &&
      (kernel_width == 1 || kernel_width == 2 || kernel_width == 4)) {
    // Checked narrowing: the value must fit the kernel's width.
    return static_cast<uint32_t>(kernel_width);
  }
  if (type == ArgType::kFloat32 && kernel_width == 2) {
    return Error(
        where +
        ": the kernel declares a 2-byte floating point parameter; pass 'e' "
        "(float16) or 'y' (bfloat16) in arg_types");
  }
  return Error(
      where + " is " + std::to_string(type_size) +
      " bytes but the kernel's parameter is " + std::to_string(kernel_width) +
      " bytes; fix arg_types to match the kernel signature");
}

Expected<PlannedArg> planOneArg(
    size_t index,
    ArgType type,
    std::string_view kernel_name,
    const zebin::UserArgument& param) {
  const std::string where =
      kernelLabel(kernel_name) + ": " + argLabel(index, type);
  const uint32_t type_size = argTypeSize(type);
  PlannedArg planned;
  planned.type = type;
  planned.value_size = type_size;
  planned.size = type_size;

  if (isPointerKind(param.kind)) {
    if (type != ArgType::kPointer) {
      return Error(
          where +
          ": the kernel declares a pointer here; pass 'O' in arg_types and a "
          "tensor, int address or None");
    }
    if (param.size != 8) {
      return Error(
          where + ": the kernel's pointer parameter is " +
          std::to_string(param.size) +
          " bytes; only 64-bit pointers are supported");
    }
    return planned;
  }
  if (param.kind != zebin::UserArgumentKind::kByValue) {
    return Error(
        where + ": the kernel parameter is of kind '" +
        zebin::userArgumentKindName(param.kind) +
        "', which the static launcher does not support; use Triton's own "
        "launcher for this kernel");
  }
  if (type == ArgType::kPointer) {
    return Error(
        where + ": the kernel declares a " + std::to_string(param.size) +
        "-byte value here, not a pointer; fix arg_types");
  }
  if (param.size != 1 && param.size != 2 && param.size != 4 &&
      param.size != 8) {
    return Error(
        where + ": the kernel's parameter is a " + std::to_string(param.size) +
        "-byte value (a struct?), which the static launcher does not support");
  }
  const Expected<uint32_t> value_size =
      valueWidth(type, param, where, &planned.type);
  if (!value_size) {
    return value_size.error();
  }
  if (*value_size > param.size) {
    return Error(
        where + " is " + std::to_string(*value_size) +
        " bytes but the kernel's parameter is " + std::to_string(param.size) +
        " bytes; fix arg_types to match the kernel signature");
  }
  planned.value_size = *value_size;
  planned.size = static_cast<uint32_t>(param.size);
  return planned;
}

std::string describeCounts(
    std::string_view type_codes,
    const std::vector<zebin::UserArgument>& kernel_args) {
  std::string text = "arg_types '";
  text += type_codes;
  text += "' has ";
  text += std::to_string(type_codes.size());
  text += " arguments, the kernel declares ";
  text += std::to_string(kernel_args.size());
  text += " (";
  for (size_t i = 0; i < kernel_args.size(); ++i) {
    if (i != 0) {
      text += ", ";
    }
    text += zebin::userArgumentKindName(kernel_args[i].kind);
  }
  text += ")";
  return text;
}

std::string rangeText(int64_t low, uint64_t high) {
  return "[" + std::to_string(low) + ", " + std::to_string(high) + "]";
}

void storeLowBytes(uint64_t bits, uint32_t size, void* slot) noexcept {
  // The whole 8-byte slot is written (arg_plan.h lowBytes).
  const uint64_t value = lowBytes(bits, size);
  std::memcpy(slot, &value, sizeof(value));
}

} // namespace

Expected<std::vector<ArgType>> parseTypeCodes(std::string_view type_codes) {
  std::vector<ArgType> types;
  types.reserve(type_codes.size());
  for (size_t i = 0; i < type_codes.size(); ++i) {
    const auto type = argTypeFromCode(type_codes[i]);
    if (!type) {
      const unsigned char code = static_cast<unsigned char>(type_codes[i]);
      std::string shown = (code >= 0x20 && code < 0x7f)
          ? std::string(1, type_codes[i])
          : "\\x" + std::to_string(code);
      return Error(
          "arg_types[" + std::to_string(i) + "] = '" + shown +
          "' is not a type code; use one of " + kTypeCodeList);
    }
    types.push_back(*type);
  }
  return types;
}

Expected<ArgPlan> compileArgPlan(
    std::string_view type_codes,
    std::string_view kernel_name,
    const std::vector<zebin::UserArgument>& kernel_args) {
  auto types = parseTypeCodes(type_codes);
  if (!types) {
    return types.error().withContext(kernelLabel(kernel_name));
  }

  ArgPlan plan;
  plan.type_codes = std::string(type_codes);
  size_t value_params = kernel_args.size();
  if (!kernel_args.empty() &&
      kernel_args.back().kind == zebin::UserArgumentKind::kLocalPointer) {
    plan.binds_shared_memory = true;
    --value_params;
  }
  for (size_t i = 0; i < value_params; ++i) {
    if (kernel_args[i].kind == zebin::UserArgumentKind::kLocalPointer) {
      return Error(
          kernelLabel(kernel_name) + ": kernel argument " + std::to_string(i) +
          " is a local memory pointer that is not the last argument; only a "
          "trailing dynamic shared memory argument is supported");
    }
  }

  const size_t passed = types->size();
  if (passed + kTritonScratchPointerCount == value_params) {
    bool scratch_are_pointers = true;
    for (size_t i = passed; i < value_params; ++i) {
      scratch_are_pointers = scratch_are_pointers &&
          kernel_args[i].kind == zebin::UserArgumentKind::kGlobalPointer;
    }
    if (scratch_are_pointers) {
      plan.null_pointer_args = kTritonScratchPointerCount;
    }
  }
  if (passed + plan.null_pointer_args != value_params) {
    return Error(
        kernelLabel(kernel_name) + ": " +
        describeCounts(type_codes, kernel_args) +
        "; pass one type code and one value per kernel parameter "
        "(constexprs excluded, Triton's scratch pointers as 'O'/None)");
  }

  plan.args.reserve(passed);
  for (size_t i = 0; i < passed; ++i) {
    auto planned = planOneArg(i, (*types)[i], kernel_name, kernel_args[i]);
    if (!planned) {
      return std::move(planned).error();
    }
    setIntegerRange(&*planned);
    plan.args.push_back(*planned);
  }
  return plan;
}

void setIntegerRange(PlannedArg* arg) noexcept {
  if (!isInteger(arg->type) || arg->value_size == 0 || arg->value_size > 8 ||
      arg->size < arg->value_size || arg->size > 8) {
    arg->min_value = 0;
    arg->max_value = -1;
    return;
  }
  const unsigned bits = arg->value_size * 8;
  if (isSignedInteger(arg->type)) {
    arg->min_value = bits == 64 ? std::numeric_limits<int64_t>::min()
                                : -(int64_t{1} << (bits - 1));
    arg->max_value = bits == 64 ? std::numeric_limits<int64_t>::max()
                                : (int64_t{1} << (bits - 1)) - 1;
  } else {
    arg->min_value = 0;
    arg->max_value = bits == 64
        ? std::numeric_limits<int64_t>::max()
        : static_cast<int64_t>((uint64_t{1} << bits) - 1);
  }
}

Status packSignedValue(
    const PlannedArg& arg,
    size_t index,
    int64_t value,
    void* slot) {
  if (!isInteger(arg.type)) {
    return Error(
        argLabel(index, arg.type) +
        ": got an int where a floating point or pointer value belongs");
  }
  const unsigned bits = arg.value_size * 8;
  if (isSignedInteger(arg.type)) {
    const int64_t low = bits == 64 ? std::numeric_limits<int64_t>::min()
                                   : -(int64_t{1} << (bits - 1));
    const int64_t high = bits == 64 ? std::numeric_limits<int64_t>::max()
                                    : (int64_t{1} << (bits - 1)) - 1;
    if (value < low || value > high) {
      return Error(
          argLabel(index, arg.type) + ": " + std::to_string(value) +
          " is out of range " + rangeText(low, static_cast<uint64_t>(high)) +
          (arg.value_size == argTypeSize(arg.type)
               ? std::string()
               : " (the kernel parameter is " + std::to_string(arg.value_size) +
                   " bytes)") +
          "; pass a value that fits");
    }
  } else {
    const uint64_t high = bits == 64 ? std::numeric_limits<uint64_t>::max()
                                     : (uint64_t{1} << bits) - 1;
    if (value < 0 || static_cast<uint64_t>(value) > high) {
      return Error(
          argLabel(index, arg.type) + ": " + std::to_string(value) +
          " is out of range " + rangeText(0, high) +
          (arg.value_size == argTypeSize(arg.type)
               ? std::string()
               : " (the kernel parameter is " + std::to_string(arg.value_size) +
                   " bytes)") +
          "; pass a value that fits");
    }
  }
  storeLowBytes(static_cast<uint64_t>(value), arg.size, slot);
  return Status::success();
}

Status packUnsignedValue(
    const PlannedArg& arg,
    size_t index,
    uint64_t value,
    void* slot) {
  if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return packSignedValue(arg, index, static_cast<int64_t>(value), slot);
  }
  if (!isInteger(arg.type)) {
    return Error(
        argLabel(index, arg.type) +
        ": got an int where a floating point or pointer value belongs");
  }
  if (!isUnsignedInteger(arg.type) || arg.value_size != 8) {
    return Error(
        argLabel(index, arg.type) + ": " + std::to_string(value) +
        " is too large for a " + std::to_string(arg.value_size * 8) +
        "-bit parameter; pass a value that fits");
  }
  storeLowBytes(value, 8, slot);
  return Status::success();
}

void packFloatingValue(
    const PlannedArg& arg,
    double value,
    void* slot) noexcept {
  switch (arg.type) {
    case ArgType::kFloat64:
      std::memcpy(slot, &value, 8);
      break;
    case ArgType::kFloat32:
      storeLowBytes(doubleToFloatBits(value), arg.size, slot);
      break;
    case ArgType::kFloat16:
      storeLowBytes(doubleToHalfBits(value), arg.size, slot);
      break;
    case ArgType::kBFloat16:
      storeLowBytes(doubleToBFloat16Bits(value), arg.size, slot);
      break;
    default:
      break;
  }
}

} // namespace launcher
} // namespace xsl
