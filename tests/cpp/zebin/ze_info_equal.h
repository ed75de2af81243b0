#pragma once

// Field-by-field comparison of two ZeInfo, for the tests and the fuzzer
// that hold parseZeInfo's detail levels to each other.

#include <cstddef>
#include <string>
#include <vector>

#include "common/expected.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace testing {

namespace detail {

inline void note(std::string& out, const std::string& where, bool same) {
  if (!same && out.empty()) {
    out = where;
  }
}

template <typename T, typename Compare>
void compareLists(
    std::string& out,
    const std::string& where,
    const std::vector<T>& a,
    const std::vector<T>& b,
    Compare compare) {
  note(out, where + ".size", a.size() == b.size());
  for (size_t i = 0; out.empty() && i < a.size() && i < b.size(); ++i) {
    compare(where + "[" + std::to_string(i) + "]", a[i], b[i]);
  }
}

} // namespace detail

// "" when equal, else the first field that differs ("kernels[0].name").
inline std::string firstDifference(const ZeInfo& a, const ZeInfo& b) {
  using detail::compareLists;
  std::string out;
  const auto note = [&out](const std::string& where, bool same) {
    detail::note(out, where, same);
  };
  note("version_text", a.version_text == b.version_text);
  note("version.major", a.version.major == b.version.major);
  note("version.minor", a.version.minor == b.version.minor);
  note("warnings", a.warnings == b.warnings);
  compareLists(
      out,
      "kernels",
      a.kernels,
      b.kernels,
      [&](const std::string& k, const KernelInfo& x, const KernelInfo& y) {
        note(k + ".name", x.name == y.name);
        const ExecutionEnv& e = x.execution_env;
        const ExecutionEnv& f = y.execution_env;
        note(k + ".grf_count", e.grf_count == f.grf_count);
        note(k + ".simd_size", e.simd_size == f.simd_size);
        note(k + ".spill_size", e.spill_size == f.spill_size);
        note(k + ".private_size", e.private_size == f.private_size);
        note(k + ".slm_size", e.slm_size == f.slm_size);
        note(k + ".barrier_count", e.barrier_count == f.barrier_count);
        note(
            k + ".required_sub_group_size",
            e.required_sub_group_size == f.required_sub_group_size);
        note(k + ".flags", e.flags == f.flags);
        note(k + ".spill_bytes", x.spill_bytes == y.spill_bytes);
        note(k + ".private_bytes", x.private_bytes == y.private_bytes);
        note(k + ".threads_per_warp", x.threads_per_warp == y.threads_per_warp);
        compareLists(
            out,
            k + ".payload_arguments",
            x.payload_arguments,
            y.payload_arguments,
            [&](const std::string& p,
                const PayloadArgument& u,
                const PayloadArgument& v) {
              note(
                  p,
                  u.arg_type == v.arg_type && u.offset == v.offset &&
                      u.size == v.size && u.arg_index == v.arg_index &&
                      u.addrmode == v.addrmode && u.addrspace == v.addrspace &&
                      u.access_type == v.access_type &&
                      u.source_offset == v.source_offset &&
                      u.slm_alignment == v.slm_alignment &&
                      u.is_ptr == v.is_ptr);
            });
        compareLists(
            out,
            k + ".per_thread_memory_buffers",
            x.per_thread_memory_buffers,
            y.per_thread_memory_buffers,
            [&](const std::string& p,
                const PerThreadMemoryBuffer& u,
                const PerThreadMemoryBuffer& v) {
              note(
                  p,
                  u.type == v.type && u.usage == v.usage && u.size == v.size &&
                      u.slot == v.slot && u.is_simt_thread == v.is_simt_thread);
            });
        compareLists(
            out,
            k + ".arg_infos",
            x.arg_infos,
            y.arg_infos,
            [&](const std::string& p, const ArgInfo& u, const ArgInfo& v) {
              note(
                  p,
                  u.index == v.index && u.name == v.name &&
                      u.address_qualifier == v.address_qualifier &&
                      u.access_qualifier == v.access_qualifier &&
                      u.type_name == v.type_name &&
                      u.type_qualifiers == v.type_qualifiers);
            });
        compareLists(
            out,
            k + ".user_arguments",
            x.user_arguments,
            y.user_arguments,
            [&](const std::string& p,
                const UserArgument& u,
                const UserArgument& v) {
              note(
                  p,
                  u.index == v.index && u.kind == v.kind && u.size == v.size &&
                      u.type_size == v.type_size && u.name == v.name &&
                      u.type_name == v.type_name);
            });
      });
  return out;
}

// `info` as a ZeInfoDetail::kLaunch read gives it: without each kernel's
// payload_arguments, arg_infos and execution_env.flags.
inline ZeInfo withoutLists(ZeInfo info) {
  for (KernelInfo& kernel : info.kernels) {
    kernel.payload_arguments.clear();
    kernel.arg_infos.clear();
    kernel.execution_env.flags.clear();
  }
  return info;
}

// "" when a kLaunch read (`launch`) is what the kFull read (`full`) of the
// same text says it must be: the same without the lists, or the same error.
inline std::string launchDifference(
    const Expected<ZeInfo>& full,
    const Expected<ZeInfo>& launch) {
  if (full.ok() != launch.ok()) {
    return full.ok() ? "kLaunch failed: " + launch.error().message()
                     : "kLaunch read what kFull rejects";
  }
  if (!full.ok()) {
    return full.error().message() == launch.error().message()
        ? ""
        : "error: " + launch.error().message();
  }
  for (const KernelInfo& kernel : launch->kernels) {
    if (!kernel.payload_arguments.empty() || !kernel.arg_infos.empty() ||
        !kernel.execution_env.flags.empty()) {
      return "kernel '" + kernel.name + "' kept its lists or flags";
    }
  }
  return firstDifference(withoutLists(*full), *launch);
}

} // namespace testing
} // namespace zebin
} // namespace xsl
