// parseZeInfo on the layout IGC writes, and on the variations of it other
// writers make: read, and a kLaunch read is the full one without the lists.

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ze_info_equal.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace {

// The layout IGC writes: aligned values, two spaces per level, lists of
// maps, a misc section; every key the launcher reads.
const char* const kIgcDocument = R"(---
version:         '1.40'
kernels:
  - name:            softmax
    user_attributes:
      intel_reqd_sub_group_size: 16
    execution_env:
      barrier_count:   1
      disable_mid_thread_preemption: true
      grf_count:       256
      has_no_stateless_write: false
      offset_to_skip_per_thread_data_load: 128
      required_work_group_size: [ 64, 1, 1 ]
      simd_size:       16
      slm_size:        512
      spill_size:      4096
      subgroup_independent_forward_progress: true
    payload_arguments:
      - arg_type:        global_id_offset
        offset:          0
        size:            12
      - arg_type:        arg_bypointer
        offset:          32
        size:            8
        arg_index:       0
        addrmode:        stateless
        addrspace:       global
        access_type:     readwrite
      - arg_type:        arg_byvalue
        offset:          40
        size:            8
        arg_index:       1
        is_ptr:          true
      - arg_type:        arg_byvalue
        offset:          48
        size:            4
        arg_index:       2
        source_offset:   0
      - arg_type:        arg_bypointer
        offset:          0
        size:            0
        arg_index:       3
        addrmode:        slm
        addrspace:       local
        access_type:     readwrite
        slm_alignment:   8
    per_thread_payload_arguments:
      - arg_type:        local_id
        offset:          0
        size:            192
    binding_table_indices:
      - bti_value:       0
        arg_index:       0
    per_thread_memory_buffers:
      - type:            scratch
        usage:           spill_fill_space
        size:            4096
        slot:            0
      - type:            global
        usage:           private_space
        size:            64
        is_simt_thread:  true
kernels_misc_info:
  - name:            softmax
    args_info:
      - index:           0
        name:            out
        address_qualifier: __global
        access_qualifier: NONE
        type_name:       'float*;8'
        type_qualifiers: NONE
      - index:           1
        name:            in
        address_qualifier: __private
        access_qualifier: NONE
        type_name:       'float*;8'
        type_qualifiers: NONE
      - index:           2
        name:            n
        address_qualifier: __private
        access_qualifier: NONE
        type_name:       'int;4'
        type_qualifiers: NONE
      - index:           3
        name:            scratch
        address_qualifier: __local
        access_qualifier: NONE
        type_name:       'float*;8'
        type_qualifiers: NONE
      - index:           4
        name:            unused
        address_qualifier: __private
        access_qualifier: NONE
        type_name:       'char;1'
        type_qualifiers: NONE
...
)";

std::string replaced(
    std::string text,
    const std::string& from,
    const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the document";
  if (at != std::string::npos) {
    text.replace(at, from.size(), to);
  }
  return text;
}

TEST(IgcLayout, ReadsIgcsLayoutAndItsVariations) {
  const std::string base = kIgcDocument;
  const std::vector<std::pair<const char*, std::string>> variants = {
      {"as IGC writes it", base},
      {"no document markers",
       replaced(replaced(base, "---\n", ""), "...\n", "")},
      {"text after the end marker is not read", base + "garbage: [\n  - -\n"},
      {"blank lines and trailing spaces",
       replaced(
           replaced(base, "kernels:\n", "kernels:   \n\n   \n"),
           "slot:            0\n",
           "slot:            0  \n\n")},
      {"double-quoted values",
       replaced(base, "type_name:       'int;4'", "type_name: \"int;4\"")},
      {"an empty list before a sibling",
       replaced(
           base,
           "    binding_table_indices:\n      - bti_value:       0\n"
           "        arg_index:       0\n",
           "    binding_table_indices:\n")},
      {"misc info before the kernels",
       "version: '1.40'\n"
       "kernels_misc_info:\n  - name: k\n    args_info:\n"
       "      - index: 0\n        address_qualifier: __global\n"
       "        type_name: 'int*;8'\n"
       "kernels:\n  - name: k\n    execution_env:\n"
       "      grf_count: 128\n      simd_size: 32\n"},
      {"two kernels, spill from the scratch buffer before 1.39",
       replaced(
           replaced(base, "'1.40'", "'1.38'"),
           "kernels_misc_info:\n",
           "  - name: second\n    execution_env:\n      grf_count: 128\n"
           "      simd_size: 32\n"
           "kernels_misc_info:\n")},
      {"an argument the payload does not name",
       replaced(base, "      - index:           4\n", "      - index:  6\n")},
  };
  for (const auto& variant : variants) {
    SCOPED_TRACE(variant.first);
    Expected<ZeInfo> full = parseZeInfo(variant.second);
    ASSERT_TRUE(full.ok()) << full.error().message();
    EXPECT_EQ(
        testing::launchDifference(
            full, parseZeInfo(variant.second, ZeInfoDetail::kLaunch)),
        "");
  }
}

TEST(IgcLayout, ReadsTheFieldsTheLauncherUses) {
  Expected<ZeInfo> info = parseZeInfo(kIgcDocument);
  ASSERT_TRUE(info.ok()) << info.error().message();
  ASSERT_EQ(info->kernels.size(), 1u);
  const KernelInfo& k = info->kernels[0];
  EXPECT_EQ(k.name, "softmax");
  EXPECT_EQ(k.execution_env.grf_count, 256);
  EXPECT_EQ(k.spill_bytes, 4096u);
  EXPECT_EQ(k.threads_per_warp, 16u);
  EXPECT_EQ(k.execution_env.flags.at("disable_mid_thread_preemption"), true);
  EXPECT_EQ(k.execution_env.flags.at("has_no_stateless_write"), false);
  ASSERT_EQ(k.user_arguments.size(), 5u);
  EXPECT_EQ(k.user_arguments[1].kind, UserArgumentKind::kGlobalPointer);
  EXPECT_EQ(k.user_arguments[2].size, 4u);
  EXPECT_EQ(k.user_arguments[3].kind, UserArgumentKind::kLocalPointer);
  EXPECT_EQ(k.user_arguments[4].kind, UserArgumentKind::kByValue);
  EXPECT_EQ(k.user_arguments[4].size, 1u);
  EXPECT_EQ(k.arg_infos[4].name, "unused");
}

} // namespace
} // namespace zebin
} // namespace xsl
