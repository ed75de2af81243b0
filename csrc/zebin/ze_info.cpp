// `.ze_info` YAML -> typed model, plus the derived values the launcher needs:
// yaml.h's node tree, then the model (parseZeInfo, zebin.h). Like
// compute-runtime's decoder: every known key is type-checked, unknown keys
// become warnings, and each message names the kernel, key and line.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "zebin/yaml.h"
#include "zebin/ze_info_schema.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace {

using schema::deriveKernels;
using schema::KeyScope;
using schema::kMaxArgIndex;
using schema::MiscInfos;
using yaml::Document;
using yaml::kNoNode;
using yaml::Node;
using yaml::NodeKind;

constexpr size_t kNoIndex = static_cast<size_t>(-1);

// Where a value sits ("payload_arguments[3].size"), composed only when an
// error or warning needs the text: building it for every key would cost
// more than parsing.
struct KeyPath {
  KeyPath(const char* parent_) : parent(parent_) {}
  KeyPath(std::string_view parent_) : parent(parent_) {}
  KeyPath(const std::string& parent_) : parent(parent_) {}
  KeyPath(std::string_view parent_, size_t index_, std::string_view key_ = {})
      : parent(parent_), index(index_), key(key_) {}

  std::string str() const {
    std::string text(parent);
    if (index != kNoIndex) {
      text += "[" + std::to_string(index) + "]";
    }
    if (!key.empty()) {
      text += ".";
      text += key;
    }
    return text;
  }

  std::string_view parent;
  size_t index = kNoIndex;
  std::string_view key;
};

class ZeInfoBuilder {
 public:
  explicit ZeInfoBuilder(const Document& doc) : doc_(doc) {}

  Expected<ZeInfo> build() {
    const Node& root = doc_.root();
    if (root.kind != NodeKind::kMap) {
      return Error("the document is not a YAML map");
    }
    for (size_t c = doc_.firstChild(0); c != kNoNode; c = doc_.nextSibling(c)) {
      const Node& entry = doc_.node(c);
      Status status = Status::success();
      if (entry.key == "version") {
        status = readVersion(entry);
      } else if (entry.key == "kernels") {
        info_.kernels.reserve(entry.child_count);
        status = forEachItem(c, "kernels", [&](size_t item, size_t i) {
          return readKernel(item, i);
        });
      } else if (entry.key == "kernels_misc_info") {
        status = forEachItem(c, "kernels_misc_info", [&](size_t item, size_t) {
          return readMiscInfo(item);
        });
      } else if (!schema::isIgnoredKey(KeyScope::kTopLevel, entry.key)) {
        warnUnknown("", entry);
      }
      if (!status) {
        return status.error();
      }
    }
    if (info_.version_text.empty()) {
      return Error("missing the 'version' key; is this a .ze_info section?");
    }
    Status derived = deriveKernels(info_, misc_infos_);
    if (!derived) {
      return derived.error();
    }
    return std::move(info_);
  }

 private:
  static std::string where(const KeyPath& path, const Node& node) {
    return path.str() + " (line " + std::to_string(node.line) + ")";
  }

  void warnUnknown(std::string_view context, const Node& node) {
    std::string path(context);
    if (!path.empty()) {
      path += ".";
    }
    path += node.key;
    info_.warnings.push_back(
        "unknown key '" + path + "' (line " + std::to_string(node.line) +
        ") ignored");
  }

  template <typename Fn>
  Status forEachItem(size_t seq, const KeyPath& path, Fn&& fn) {
    const Node& node = doc_.node(seq);
    if (node.kind == NodeKind::kScalar && node.text.empty() && !node.quoted) {
      return Status::success(); // "key:" with no value: an empty list
    }
    if (node.kind != NodeKind::kSequence) {
      return Error(where(path, node) + ": expected a list");
    }
    size_t i = 0;
    for (size_t c = doc_.firstChild(seq); c != kNoNode;
         c = doc_.nextSibling(c), ++i) {
      Status status = fn(c, i);
      if (!status) {
        return status;
      }
    }
    return Status::success();
  }

  // fn(entry_index, entry) for each entry of the map at `index`, `label` in
  // its errors; stops at the first error.
  template <typename Fn>
  Status forEachEntry(size_t index, const KeyPath& label, Fn&& fn) {
    const Node& node = doc_.node(index);
    if (node.kind != NodeKind::kMap) {
      return Error(where(label, node) + ": expected a map");
    }
    for (size_t c = doc_.firstChild(index); c != kNoNode;
         c = doc_.nextSibling(c)) {
      Status status = fn(c, doc_.node(c));
      if (!status) {
        return status;
      }
    }
    return Status::success();
  }

  // A read value into its field, or the read's error.
  template <typename T, typename Field>
  static Status assign(Expected<T> value, Field& field) {
    if (!value) {
      return std::move(value).error();
    }
    field = std::move(*value);
    return Status::success();
  }

  Expected<int64_t> integer(const Node& node, const KeyPath& path) {
    Expected<int64_t> value = yaml::toInt(node);
    if (!value) {
      return value.error().withContext(where(path, node));
    }
    return value;
  }

  // Sizes, counts and offsets: integers that cannot be negative.
  Expected<int64_t> count(const Node& node, const KeyPath& path) {
    Expected<int64_t> value = integer(node, path);
    if (value && *value < 0) {
      return Error(
          where(path, node) + ": must not be negative, got " +
          std::to_string(*value));
    }
    return value;
  }

  Expected<bool> boolean(const Node& node, const KeyPath& path) {
    Expected<bool> value = yaml::toBool(node);
    if (!value) {
      return value.error().withContext(where(path, node));
    }
    return value;
  }

  Expected<std::string> text(const Node& node, const KeyPath& path) {
    if (node.kind != NodeKind::kScalar) {
      return Error(
          where(path, node) + ": expected a string, got a " +
          (node.kind == NodeKind::kMap ? "map" : "list"));
    }
    return std::string(node.text);
  }

  Status readVersion(const Node& node) {
    Expected<std::string> version = text(node, "version");
    if (!version) {
      return version.error();
    }
    const std::string& v = *version;
    if (!schema::parseVersion(v, info_.version)) {
      return Error(
          where("version", node) + ": expected 'MAJOR.MINOR', got '" +
          v.substr(0, 40) + "'");
    }
    info_.version_text = v;
    return Status::success();
  }

  Status readKernel(size_t index, size_t position) {
    const Node& node = doc_.node(index);
    std::string label = "kernels[" + std::to_string(position) + "]";
    if (node.kind != NodeKind::kMap) {
      return Error(where(label, node) + ": expected a map");
    }
    KernelInfo kernel;
    const size_t name = doc_.find(index, "name");
    if (name == kNoNode) {
      return Error(where(label, node) + ": missing 'name'");
    }
    Expected<std::string> name_text = text(doc_.node(name), "name");
    if (!name_text || name_text->empty()) {
      return Error(where(label, node) + ": 'name' must be a non-empty string");
    }
    kernel.name = std::move(*name_text);
    const std::string context = "kernel '" + kernel.name + "'";
    bool has_env = false;
    int64_t attribute_sub_group_size = 0;
    for (size_t c = doc_.firstChild(index); c != kNoNode;
         c = doc_.nextSibling(c)) {
      const Node& entry = doc_.node(c);
      Status status = Status::success();
      if (entry.key == "execution_env") {
        has_env = true;
        status = readExecutionEnv(c, kernel.execution_env);
      } else if (entry.key == "payload_arguments") {
        kernel.payload_arguments.reserve(entry.child_count);
        status = forEachItem(c, entry.key, [&](size_t item, size_t) {
          return readPayloadArgument(item, kernel);
        });
      } else if (entry.key == "per_thread_memory_buffers") {
        kernel.per_thread_memory_buffers.reserve(entry.child_count);
        status = forEachItem(c, entry.key, [&](size_t item, size_t) {
          return readMemoryBuffer(item, kernel);
        });
      } else if (entry.key == "user_attributes") {
        status = readUserAttributes(c, attribute_sub_group_size);
      } else if (!schema::isIgnoredKey(KeyScope::kKernel, entry.key)) {
        warnUnknown(context, entry);
      }
      if (!status) {
        return status.error().withContext(context);
      }
    }
    if (!has_env) {
      return Error(context + ": missing 'execution_env'");
    }
    if (kernel.execution_env.required_sub_group_size == 0) {
      kernel.execution_env.required_sub_group_size = attribute_sub_group_size;
    }
    info_.kernels.push_back(std::move(kernel));
    return Status::success();
  }

  // IGC before zeinfo 1.2x states a required sub-group size only as the
  // source attribute; execution_env.required_sub_group_size wins if present.
  Status readUserAttributes(size_t index, int64_t& sub_group_size) {
    const size_t sub_group = doc_.find(index, "intel_reqd_sub_group_size");
    if (sub_group == kNoNode) {
      return Status::success();
    }
    Expected<int64_t> value = count(
        doc_.node(sub_group), "user_attributes.intel_reqd_sub_group_size");
    if (!value) {
      return value.error();
    }
    sub_group_size = *value;
    return Status::success();
  }

  Status readExecutionEnv(size_t index, ExecutionEnv& env) {
    bool has_grf = false;
    bool has_simd = false;
    Status read =
        forEachEntry(index, "execution_env", [&](size_t, const Node& entry) {
          const KeyPath path("execution_env", kNoIndex, entry.key);
          has_grf |= entry.key == "grf_count";
          has_simd |= entry.key == "simd_size";
          if (int64_t* target = schema::executionEnvCount(env, entry.key)) {
            return assign(count(entry, path), *target);
          }
          if (entry.key == "spill_size") {
            return assign(count(entry, path), env.spill_size);
          }
          // Boolean keys (has_*, disable_mid_thread_preemption, ...) are
          // kept by name; other known keys are checked for shape only.
          if (entry.kind == NodeKind::kScalar && !entry.quoted &&
              (entry.text == "true" || entry.text == "false")) {
            env.flags[std::string(entry.key)] = entry.text == "true";
            return Status::success();
          }
          if (schema::isIgnoredKey(KeyScope::kExecutionEnv, entry.key)) {
            return Status::success();
          }
          if (entry.key.substr(0, 4) == "has_" ||
              entry.key.substr(0, 8) == "disable_") {
            if (Expected<bool> flag = boolean(entry, path); !flag) {
              return Status(std::move(flag).error());
            }
          }
          warnUnknown("execution_env", entry);
          return Status::success();
        });
    if (!read) {
      return read;
    }
    const Node& node = doc_.node(index);
    if (!has_grf) {
      return Error(where("execution_env", node) + ": missing 'grf_count'");
    }
    if (!has_simd) {
      return Error(where("execution_env", node) + ": missing 'simd_size'");
    }
    if (env.simd_size != 1 && env.simd_size != 8 && env.simd_size != 16 &&
        env.simd_size != 32) {
      return Error(
          where("execution_env.simd_size", node) + ": " +
          std::to_string(env.simd_size) + " is not 1, 8, 16 or 32");
    }
    if (env.grf_count <= 0 || env.grf_count > 4096) {
      return Error(
          where("execution_env.grf_count", node) + ": " +
          std::to_string(env.grf_count) + " is not a register count");
    }
    return Status::success();
  }

  Status readPayloadArgument(size_t index, KernelInfo& kernel) {
    const KeyPath label("payload_arguments", kernel.payload_arguments.size());
    PayloadArgument arg;
    Status read = forEachEntry(index, label, [&](size_t, const Node& entry) {
      const KeyPath path(label.parent, label.index, entry.key);
      if (std::string* target = schema::payloadText(arg, entry.key)) {
        return assign(text(entry, path), *target);
      }
      if (int64_t* target = schema::payloadCount(arg, entry.key)) {
        return assign(count(entry, path), *target);
      }
      if (entry.key == "arg_index") {
        Expected<int64_t> value = count(entry, path);
        if (value && *value > kMaxArgIndex) {
          return Status(Error(
              where(path, entry) + ": " + std::to_string(*value) +
              " is larger than " + std::to_string(kMaxArgIndex)));
        }
        return assign(std::move(value), arg.arg_index);
      }
      if (entry.key == "is_ptr") {
        return assign(boolean(entry, path), arg.is_ptr);
      }
      if (!schema::isIgnoredKey(KeyScope::kPayloadArgument, entry.key)) {
        warnUnknown("kernel '" + kernel.name + "'." + label.str(), entry);
      }
      return Status::success();
    });
    if (!read) {
      return read;
    }
    if (arg.arg_type.empty()) {
      return Error(where(label, doc_.node(index)) + ": missing 'arg_type'");
    }
    kernel.payload_arguments.push_back(std::move(arg));
    return Status::success();
  }

  Status readMemoryBuffer(size_t index, KernelInfo& kernel) {
    const KeyPath label(
        "per_thread_memory_buffers", kernel.per_thread_memory_buffers.size());
    PerThreadMemoryBuffer buffer;
    Status read = forEachEntry(index, label, [&](size_t, const Node& entry) {
      const KeyPath path(label.parent, label.index, entry.key);
      if (entry.key == "type" || entry.key == "usage") {
        return assign(
            text(entry, path),
            entry.key == "type" ? buffer.type : buffer.usage);
      }
      if (entry.key == "size" || entry.key == "slot") {
        return assign(
            count(entry, path),
            entry.key == "size" ? buffer.size : buffer.slot);
      }
      if (entry.key == "is_simt_thread") {
        return assign(boolean(entry, path), buffer.is_simt_thread);
      }
      warnUnknown("kernel '" + kernel.name + "'." + label.str(), entry);
      return Status::success();
    });
    if (!read) {
      return read;
    }
    kernel.per_thread_memory_buffers.push_back(std::move(buffer));
    return Status::success();
  }

  Status readMiscInfo(size_t index) {
    const Node& node = doc_.node(index);
    if (node.kind != NodeKind::kMap) {
      return Error(where("kernels_misc_info", node) + ": expected a map");
    }
    const size_t name = doc_.find(index, "name");
    if (name == kNoNode) {
      return Error(where("kernels_misc_info", node) + ": missing 'name'");
    }
    Expected<std::string> kernel_name =
        text(doc_.node(name), "kernels_misc_info.name");
    if (!kernel_name) {
      return kernel_name.error();
    }
    std::vector<ArgInfo> infos;
    const size_t args = doc_.find(index, "args_info");
    if (args != kNoNode) {
      infos.reserve(doc_.node(args).child_count);
      Status status = forEachItem(args, "args_info", [&](size_t item, size_t) {
        return readArgInfo(item, infos);
      });
      if (!status) {
        return status.error().withContext(
            "kernels_misc_info '" + *kernel_name + "'");
      }
    }
    misc_infos_.emplace_back(std::move(*kernel_name), std::move(infos));
    return Status::success();
  }

  Status readArgInfo(size_t index, std::vector<ArgInfo>& infos) {
    ArgInfo info;
    Status read =
        forEachEntry(index, "args_info", [&](size_t, const Node& entry) {
          const KeyPath path("args_info", kNoIndex, entry.key);
          if (entry.key == "index") {
            return assign(count(entry, path), info.index);
          }
          if (std::string* target = schema::argInfoText(info, entry.key)) {
            return assign(text(entry, path), *target);
          }
          warnUnknown("kernels_misc_info.args_info", entry);
          return Status::success();
        });
    if (!read) {
      return read;
    }
    infos.push_back(std::move(info));
    return Status::success();
  }

  const Document& doc_;
  ZeInfo info_;
  MiscInfos misc_infos_;
};

} // namespace

Expected<ZeInfo> parseZeInfo(std::string_view text, ZeInfoDetail detail) {
  static const std::vector<std::string_view> kArgumentKeys = {
      "payload_arguments",
      "per_thread_payload_arguments",
      "binding_table_indices",
      "kernels_misc_info",
      "inline_samplers",
      "functions",
      "global_host_access_table",
      "kernels_cost_info"};
  static const std::vector<std::string_view> kNoKeys;
  Expected<yaml::Document> doc = yaml::parse(
      text, detail == ZeInfoDetail::kExecutionOnly ? kArgumentKeys : kNoKeys);
  if (!doc) {
    return doc.error();
  }
  Expected<ZeInfo> info = ZeInfoBuilder(*doc).build();
  if (info && detail == ZeInfoDetail::kLaunch) {
    // Read in full, then trimmed.
    schema::leaveLaunchDetail(*info);
  }
  return info;
}

} // namespace zebin
} // namespace xsl
