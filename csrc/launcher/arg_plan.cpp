#include "launcher/arg_plan.h"

#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "launcher/float_convert.h"

namespace xsl {
namespace launcher {
namespace {

std::string kernelLabel(std::string_view kernel_name) {
  std::string label = "kernel '";
  label += kernel_name;
  label += "'";
  return label;
}

bool isPointerKind(zebin::UserArgumentKind kind) {
  return kind == zebin::UserArgumentKind::kGlobalPointer ||
      kind == zebin::UserArgumentKind::kConstantPointer;
}

bool contains(const std::string& text, const char* needle) {
  return text.find(needle) != std::string::npos;
}

// The declared type without its size ("half;2" -> "half").
std::string_view baseTypeName(const std::string& type_name) {
  return std::string_view(type_name).substr(0, type_name.find(';'));
}

// True when kernels_misc_info declares the parameter bool (Triton's i1).
bool isBoolTypeName(const std::string& type_name) {
  const std::string_view base = baseTypeName(type_name);
  return base == "bool" || base == "_Bool";
}

// The width of the value for a by-value parameter, and (for 'f' on a
// parameter declared bfloat16) the type to convert to.
Expected<uint32_t> valueWidth(
    ArgType type,
    const zebin::UserArgument& param,
    const std::string& where,
    ArgType* converted_type) {
  const uint32_t type_size = argTypeSize(type);
  // The payload can be wider than the source type (a char or half arrives in
  // 4 bytes); the declared type size, when known, is the real width.
  const uint64_t declared = param.type_size;
  const uint64_t kernel_width = declared != 0 ? declared : param.size;
  if (type == ArgType::kFloat32 && kernel_width == 2) {
    // torch <= 2.13 sends 'f' for fp16, bf16 and fp32 scalars alike.
    if (contains(param.type_name, "bfloat") ||
        contains(param.type_name, "bf16")) {
      *converted_type = ArgType::kBFloat16;
      return 2u;
    }
    // Triton declares a bf16 parameter `half` in its SPIR-V, so a 'half;2'
    // parameter is fp16 or bf16 and 'f' does not say which; guessing sends
    // the wrong bits for one of them (3.140625 as fp16 0x4248 reads as bf16
    // 50.0).
    const std::string declared_as = param.type_name.empty()
        ? std::string("a 2-byte floating point parameter")
        : "a '" + param.type_name + "' parameter";
    return Error(
        where + ": the kernel declares " + declared_as +
        ", which Triton compiles from both fp16 and bf16, and 'f' does not "
        "say which (torch 2.13 sends 'f' for fp16, bf16 and fp32 scalars); "
        "pass 'e' (float16) or 'y' (bfloat16) in arg_types, as torch >= "
        "2.15 does, or launch this kernel with Triton's own launcher "
        "(torch._inductor.config.use_static_triton_launcher = False)");
  }
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
      kernelLabel(kernel_name) + ": " + argumentLabel(index, type);
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
  if (isBoolTypeName(param.type_name)) {
    if (!isInteger(planned.type)) {
      return Error(
          where +
          ": the kernel declares a bool parameter; pass an integer code ('i', "
          "as Triton sends i1) and 0, 1, False or True");
    }
    planned.boolean = true;
  }
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
          "' is not a type code; use one of " + argTypeCodeList());
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
  if (arg->boolean) {
    arg->min_value = 0;
    arg->max_value = 1;
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

namespace {

// The range of the C type Triton-XPU's launcher reads a code's value with:
// long for b/h/i, unsigned long for B/H/I (PyLong_AsLong,
// PyLong_AsUnsignedLong), long long / unsigned long long for l/K.
struct ReadRange {
  int64_t min_signed;
  uint64_t max;
};

ReadRange readRange(ArgType type) noexcept {
  switch (type) {
    case ArgType::kInt8:
    case ArgType::kInt16:
    case ArgType::kInt32:
      return ReadRange{
          std::numeric_limits<long>::min(),
          static_cast<uint64_t>(std::numeric_limits<long>::max())};
    case ArgType::kUInt8:
    case ArgType::kUInt16:
    case ArgType::kUInt32:
      return ReadRange{0, std::numeric_limits<unsigned long>::max()};
    case ArgType::kUInt64:
      return ReadRange{0, std::numeric_limits<uint64_t>::max()};
    default:
      return ReadRange{
          std::numeric_limits<int64_t>::min(),
          static_cast<uint64_t>(std::numeric_limits<int64_t>::max())};
  }
}

const char* readFunctionName(ArgType type) noexcept {
  switch (type) {
    case ArgType::kInt8:
    case ArgType::kInt16:
    case ArgType::kInt32:
      return "PyLong_AsLong";
    case ArgType::kUInt8:
    case ArgType::kUInt16:
    case ArgType::kUInt32:
      return "PyLong_AsUnsignedLong";
    case ArgType::kUInt64:
      return "PyLong_AsUnsignedLongLong";
    default:
      return "PyLong_AsLongLong";
  }
}

PackStatus typeError(const PlannedArg& arg, size_t index) {
  return PackStatus(
      PackErrorKind::kType,
      Error(
          argumentLabel(index, arg.type) +
          ": got an int where a floating point or pointer value belongs"));
}

PackStatus overflowError(
    const PlannedArg& arg,
    size_t index,
    std::string_view value_text) {
  const ReadRange range = readRange(arg.type);
  const uint32_t code_bits = argTypeSize(arg.type) * 8;
  std::string message = argumentLabel(index, arg.type) + ": ";
  message += value_text;
  message += " is outside " + rangeText(range.min_signed, range.max) +
      ", the range Triton's launcher reads this code with (" +
      readFunctionName(arg.type) + "), which raises OverflowError here too";
  if (code_bits < 64) {
    message += " (inside it values wrap to " + std::to_string(code_bits) +
        " bits, as the C cast does)";
  }
  message += "; pass a value in that range";
  return PackStatus(PackErrorKind::kOverflow, Error(std::move(message)));
}

PackStatus declaredRangeError(
    const PlannedArg& arg,
    size_t index,
    std::string_view value_text) {
  std::string message = argumentLabel(index, arg.type) + ": ";
  if (arg.boolean) {
    message +=
        "the kernel declares a bool parameter, which takes 0, 1, "
        "False or True, not ";
    message += value_text;
    message += "; pass a bool";
  } else {
    message += value_text;
    message += " is out of range " +
        rangeText(arg.min_value, static_cast<uint64_t>(arg.max_value)) +
        " (the kernel parameter is " + std::to_string(arg.value_size) +
        " bytes); pass a value that fits";
  }
  return PackStatus(PackErrorKind::kValue, Error(std::move(message)));
}

// The declared type is narrower than the code (or bool): no wrapping there.
bool declaredNarrower(const PlannedArg& arg) noexcept {
  return arg.boolean || arg.value_size < argTypeSize(arg.type);
}

// Stores `bits` cast to the code's C type (wrapping), sign- or zero-extended
// to the payload size.
void storeCast(const PlannedArg& arg, uint64_t bits, void* slot) noexcept {
  const uint32_t code_size = argTypeSize(arg.type);
  uint64_t value = lowBytes(bits, code_size);
  if (isSignedInteger(arg.type) && code_size < 8 &&
      ((value >> (code_size * 8 - 1)) & 1) != 0) {
    value |= ~((uint64_t{1} << (code_size * 8)) - 1); // sign extension
  }
  storeLowBytes(value, arg.size, slot);
}

} // namespace

PackStatus packSignedValue(
    const PlannedArg& arg,
    size_t index,
    int64_t value,
    void* slot) {
  if (!isInteger(arg.type)) {
    return typeError(arg, index);
  }
  const ReadRange range = readRange(arg.type);
  if (value < range.min_signed ||
      (value > 0 && static_cast<uint64_t>(value) > range.max)) {
    return overflowError(arg, index, std::to_string(value));
  }
  if (declaredNarrower(arg) &&
      (value < arg.min_value || value > arg.max_value)) {
    return declaredRangeError(arg, index, std::to_string(value));
  }
  storeCast(arg, static_cast<uint64_t>(value), slot);
  return PackStatus::success();
}

PackStatus packUnsignedValue(
    const PlannedArg& arg,
    size_t index,
    uint64_t value,
    void* slot) {
  if (value <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return packSignedValue(arg, index, static_cast<int64_t>(value), slot);
  }
  if (!isInteger(arg.type)) {
    return typeError(arg, index);
  }
  if (value > readRange(arg.type).max) {
    return overflowError(arg, index, std::to_string(value));
  }
  if (declaredNarrower(arg)) {
    return declaredRangeError(arg, index, std::to_string(value));
  }
  storeCast(arg, value, slot);
  return PackStatus::success();
}

PackStatus integerTooWide(
    const PlannedArg& arg,
    size_t index,
    std::string_view value_text) {
  if (!isInteger(arg.type)) {
    return typeError(arg, index);
  }
  return overflowError(arg, index, value_text);
}

PackStatus packFloatingValue(
    const PlannedArg& arg,
    size_t index,
    double value,
    void* slot) {
  switch (arg.type) {
    case ArgType::kFloat64:
      std::memcpy(slot, &value, 8);
      break;
    case ArgType::kFloat32:
      storeLowBytes(doubleToFloatBits(value), arg.size, slot);
      break;
    case ArgType::kFloat16: {
      const std::optional<uint16_t> bits = doubleToHalfBits(value);
      if (!bits) {
        char text[32];
        std::snprintf(text, sizeof(text), "%.17g", value);
        return PackStatus(
            PackErrorKind::kOverflow,
            Error(
                argumentLabel(index, arg.type) + ": " + text +
                " is too large for float16 (largest finite 65504; values "
                "from 65520 up round past it), and Triton's launcher "
                "(PyFloat_Pack2) raises OverflowError here too; pass a "
                "smaller value, or inf"));
      }
      storeLowBytes(*bits, arg.size, slot);
      break;
    }
    case ArgType::kBFloat16:
      storeLowBytes(doubleToBFloat16Bits(value), arg.size, slot);
      break;
    default:
      break;
  }
  return PackStatus::success();
}

} // namespace launcher
} // namespace xsl
