// The `.ze_info` schema: the keys the reader knows, what the entries imply
// beyond what they state, and the version number's form.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zebin/yaml.h"
#include "zebin/ze_info_schema.h"

namespace xsl {
namespace zebin {
namespace schema {
namespace {

template <size_t N>
bool isOneOf(std::string_view key, const std::string_view (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

// Argument size from a kernels_misc_info type name such as 'float4*;8'.
uint64_t sizeFromTypeName(const std::string& type_name) {
  const size_t semicolon = type_name.rfind(';');
  if (semicolon == std::string::npos) {
    return 0;
  }
  Expected<int64_t> size =
      yaml::parseInt(std::string_view(type_name).substr(semicolon + 1));
  return size && *size > 0 ? static_cast<uint64_t>(*size) : 0;
}

Status deriveUserArguments(
    KernelInfo& kernel,
    std::vector<std::string>& warnings) {
  // As string_views: a std::string compared with a literal measures the
  // literal with strlen each time, for every payload entry.
  const auto isUserArgument = [](const PayloadArgument& arg) {
    const std::string_view type = arg.arg_type;
    return arg.arg_index && (type == "arg_bypointer" || type == "arg_byvalue");
  };
  size_t count = kernel.arg_infos.size();
  for (const PayloadArgument& arg : kernel.payload_arguments) {
    if (isUserArgument(arg)) {
      count = std::max(count, static_cast<size_t>(*arg.arg_index) + 1);
    }
  }
  for (const ArgInfo& info : kernel.arg_infos) {
    if (info.index > kMaxArgIndex) {
      return Error(
          "kernels_misc_info: argument index " + std::to_string(info.index) +
          " is larger than " + std::to_string(kMaxArgIndex));
    }
    count = std::max(count, static_cast<size_t>(info.index) + 1);
  }
  std::vector<UserArgument> args(count);
  std::vector<bool> seen(count, false);
  for (size_t i = 0; i < count; ++i) {
    args[i].index = static_cast<uint32_t>(i);
  }
  for (const PayloadArgument& arg : kernel.payload_arguments) {
    // Implicit arguments tied to a user argument (buffer size, ...) may
    // name an index no user argument has: skip them before indexing.
    if (!isUserArgument(arg)) {
      continue;
    }
    UserArgument& user = args[static_cast<size_t>(*arg.arg_index)];
    const bool first = !seen[static_cast<size_t>(*arg.arg_index)];
    if (std::string_view(arg.arg_type) == "arg_bypointer") {
      const std::string_view space = arg.addrspace;
      UserArgumentKind kind = UserArgumentKind::kOther;
      if (space == "global" || space.empty()) {
        kind = UserArgumentKind::kGlobalPointer;
      } else if (space == "constant") {
        kind = UserArgumentKind::kConstantPointer;
      } else if (space == "local") {
        kind = UserArgumentKind::kLocalPointer;
      } else if (space == "image") {
        kind = UserArgumentKind::kImage;
      } else if (space == "sampler") {
        kind = UserArgumentKind::kSampler;
      }
      if (first) {
        user.kind = kind;
        user.size = kind == UserArgumentKind::kLocalPointer ? 0 : 8;
      }
    } else if (arg.is_ptr) { // an arg_byvalue carrying a pointer
      user.kind = UserArgumentKind::kGlobalPointer;
      user.size = 8;
    } else {
      // A struct passed by value arrives in pieces; the host passes the
      // whole value, so its size is where the last piece ends.
      user.kind = UserArgumentKind::kByValue;
      user.size = std::max(
          user.size,
          static_cast<uint64_t>(arg.source_offset) +
              static_cast<uint64_t>(arg.size));
    }
    seen[static_cast<size_t>(*arg.arg_index)] = true;
  }
  for (const ArgInfo& info : kernel.arg_infos) {
    UserArgument& user = args[static_cast<size_t>(info.index)];
    user.name = info.name;
    user.type_name = info.type_name;
    user.type_size = sizeFromTypeName(info.type_name);
    if (seen[static_cast<size_t>(info.index)]) {
      continue;
    }
    // Not in the payload (unused by the kernel): the host must still
    // pass it, so take its shape from the source-level description.
    seen[static_cast<size_t>(info.index)] = true;
    const std::string_view qualifier = info.address_qualifier;
    if (qualifier == "__global") {
      user.kind = UserArgumentKind::kGlobalPointer;
      user.size = 8;
    } else if (qualifier == "__constant") {
      user.kind = UserArgumentKind::kConstantPointer;
      user.size = 8;
    } else if (qualifier == "__local") {
      user.kind = UserArgumentKind::kLocalPointer;
      user.size = 0;
    } else {
      user.kind = UserArgumentKind::kByValue;
      user.size = user.type_size;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    if (!seen[i]) {
      warnings.push_back(
          "kernel '" + kernel.name + "': argument " + std::to_string(i) +
          " has no payload entry and no kernels_misc_info entry");
    }
  }
  kernel.user_arguments = std::move(args);
  return Status::success();
}

Status deriveKernel(
    KernelInfo& kernel,
    const ZeInfoVersion& version,
    std::vector<std::string>& warnings) {
  const ExecutionEnv& env = kernel.execution_env;
  // Spill bytes: zeinfo >= 1.39 states them; before that the scratch
  // buffer in slot 0 holds spill/fill (and, for single_space, private).
  if (version.atLeast(1, 39)) {
    kernel.spill_bytes = static_cast<uint64_t>(env.spill_size.value_or(0));
  } else {
    for (const PerThreadMemoryBuffer& buffer :
         kernel.per_thread_memory_buffers) {
      if (buffer.type == "scratch" && buffer.slot == 0) {
        kernel.spill_bytes = static_cast<uint64_t>(buffer.size);
        break;
      }
    }
  }
  if (env.private_size > 0) {
    kernel.private_bytes = static_cast<uint64_t>(env.private_size);
  } else {
    for (const PerThreadMemoryBuffer& buffer :
         kernel.per_thread_memory_buffers) {
      if (buffer.usage == "private_space") {
        const uint64_t lanes =
            buffer.is_simt_thread ? static_cast<uint64_t>(env.simd_size) : 1u;
        kernel.private_bytes += static_cast<uint64_t>(buffer.size) * lanes;
      }
    }
  }
  kernel.threads_per_warp = static_cast<uint32_t>(
      env.required_sub_group_size > 0 ? env.required_sub_group_size
                                      : env.simd_size);
  return deriveUserArguments(kernel, warnings);
}

} // namespace

namespace {

// A key of a .ze_info map and the field its value goes to.
template <typename Struct, typename Field>
struct KeyField {
  std::string_view key;
  Field Struct::*field;
};

template <typename Struct, typename Field, size_t N>
Field* fieldFor(
    Struct& out,
    std::string_view key,
    const KeyField<Struct, Field> (&fields)[N]) {
  for (const KeyField<Struct, Field>& known : fields) {
    if (known.key == key) {
      return &(out.*known.field);
    }
  }
  return nullptr;
}

using Env = ExecutionEnv;
using Payload = PayloadArgument;

constexpr KeyField<Env, int64_t> kExecutionEnvCounts[] = {
    {"grf_count", &Env::grf_count},
    {"simd_size", &Env::simd_size},
    {"private_size", &Env::private_size},
    {"slm_size", &Env::slm_size},
    {"barrier_count", &Env::barrier_count},
    {"required_sub_group_size", &Env::required_sub_group_size}};
constexpr KeyField<Payload, int64_t> kPayloadCounts[] = {
    {"offset", &Payload::offset},
    {"size", &Payload::size},
    {"source_offset", &Payload::source_offset},
    {"slm_alignment", &Payload::slm_alignment}};
constexpr KeyField<Payload, std::string> kPayloadTexts[] = {
    {"arg_type", &Payload::arg_type},
    {"addrmode", &Payload::addrmode},
    {"addrspace", &Payload::addrspace},
    {"access_type", &Payload::access_type}};
constexpr KeyField<ArgInfo, std::string> kArgInfoTexts[] = {
    {"name", &ArgInfo::name},
    {"address_qualifier", &ArgInfo::address_qualifier},
    {"access_qualifier", &ArgInfo::access_qualifier},
    {"type_name", &ArgInfo::type_name},
    {"type_qualifiers", &ArgInfo::type_qualifiers}};

} // namespace

int64_t* executionEnvCount(ExecutionEnv& env, std::string_view key) {
  return fieldFor(env, key, kExecutionEnvCounts);
}

int64_t* payloadCount(PayloadArgument& arg, std::string_view key) {
  return fieldFor(arg, key, kPayloadCounts);
}

std::string* payloadText(PayloadArgument& arg, std::string_view key) {
  return fieldFor(arg, key, kPayloadTexts);
}

std::string* argInfoText(ArgInfo& info, std::string_view key) {
  return fieldFor(info, key, kArgInfoTexts);
}

constexpr std::string_view kIgnoredTopLevelKeys[] = {
    "functions",
    "global_host_access_table",
    "kernels_cost_info"};

constexpr std::string_view kIgnoredKernelKeys[] = {
    "name",
    "per_thread_payload_arguments",
    "binding_table_indices",
    "debug_env",
    "experimental_properties",
    "inline_samplers",
    "user_attributes",
    "kernel_attributes"};

constexpr std::string_view kIgnoredExecutionEnvKeys[] = {
    "offset_to_skip_per_thread_data_load",
    "offset_to_skip_set_ffid_gp",
    "indirect_stateless_count",
    "inline_data_payload_size",
    "eu_thread_count",
    "actual_kernel_start_offset",
    "named_barrier_count",
    "thread_scheduling_mode",
    "required_work_group_size",
    "work_group_walk_order_dimensions",
    "has_global_atomics",
    "subgroup_independent_forward_progress"};

constexpr std::string_view kIgnoredPayloadKeys[] = {
    "is_pipe",
    "sampler_index",
    "sampler_type",
    "image_type",
    "image_transformable",
    "bti_value",
    "is_constant"};

bool isIgnoredKey(KeyScope scope, std::string_view key) {
  switch (scope) {
    case KeyScope::kTopLevel:
      return isOneOf(key, kIgnoredTopLevelKeys);
    case KeyScope::kKernel:
      return isOneOf(key, kIgnoredKernelKeys);
    case KeyScope::kExecutionEnv:
      return isOneOf(key, kIgnoredExecutionEnvKeys);
    case KeyScope::kPayloadArgument:
      return isOneOf(key, kIgnoredPayloadKeys);
  }
  return false;
}

// The .ze_info versions the GPU driver's own decoder takes (compute-runtime,
// zeinfo_decoder.h: zeInfoDecoderVersion 1.73 as of 2026-08): another major
// version is refused, a newer minor one decoded with a warning.
constexpr uint32_t kZeInfoMajor = 1;
constexpr uint32_t kNewestZeInfoMinor = 73;

Status checkVersion(ZeInfo& info) {
  if (info.version.major != kZeInfoMajor) {
    return Error(
        "zeinfo version '" + info.version_text + "': major version " +
        std::to_string(info.version.major) + " is not 1, the only one known " +
        "(the GPU driver refuses it too); compile the kernel with a " +
        "compiler of this driver's generation");
  }
  if (info.version.minor > kNewestZeInfoMinor) {
    info.warnings.push_back(
        "zeinfo version '" + info.version_text + "' is newer than 1." +
        std::to_string(kNewestZeInfoMinor) +
        ", the newest known; keys not known here are ignored");
  }
  return Status::success();
}

Status deriveKernels(ZeInfo& info, MiscInfos& misc) {
  if (Status version = checkVersion(info); !version) {
    return version;
  }
  std::vector<KernelInfo>& kernels = info.kernels;
  for (size_t i = 0; i < kernels.size(); ++i) {
    KernelInfo& kernel = kernels[i];
    for (auto& entry : misc) {
      if (entry.first == kernel.name) {
        // The last kernel of this name takes the list, earlier ones (only
        // in a malformed zebin) copy it.
        const bool again = std::any_of(
            kernels.begin() + static_cast<std::ptrdiff_t>(i) + 1,
            kernels.end(),
            [&kernel](const KernelInfo& other) {
              return other.name == kernel.name;
            });
        if (again) {
          kernel.arg_infos = entry.second;
        } else {
          kernel.arg_infos = std::move(entry.second);
        }
        break;
      }
    }
    Status derived = deriveKernel(kernel, info.version, info.warnings);
    if (!derived) {
      return derived.error().withContext("kernel '" + kernel.name + "'");
    }
  }
  return Status::success();
}

void leaveLaunchDetail(ZeInfo& info) {
  for (KernelInfo& kernel : info.kernels) {
    // Emptied with their memory: a loaded kernel keeps its metadata.
    std::vector<PayloadArgument>().swap(kernel.payload_arguments);
    std::vector<ArgInfo>().swap(kernel.arg_infos);
    kernel.execution_env.flags.clear();
  }
}

bool parseVersion(std::string_view text, ZeInfoVersion& version) {
  const size_t dot = text.find('.');
  Expected<int64_t> major = yaml::parseInt(text.substr(0, dot));
  Expected<int64_t> minor = yaml::parseInt(
      dot == std::string_view::npos ? std::string_view()
                                    : text.substr(dot + 1));
  if (!major || !minor || *major < 0 || *minor < 0 || *major > 0xffff ||
      *minor > 0xffff) {
    return false;
  }
  version.major = static_cast<uint32_t>(*major);
  version.minor = static_cast<uint32_t>(*minor);
  return true;
}

} // namespace schema
} // namespace zebin
} // namespace xsl
