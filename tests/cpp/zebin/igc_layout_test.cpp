// parseZeInfo's two readers held to each other (ze_info_readers.h): the IGC
// layout reader accepts IGC's own layout and reads it to exactly what the
// tree reader reads; everything else it declines, and parseZeInfo then
// gives the tree reader's result, error or warning unchanged.

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ze_info_equal.h"
#include "zebin/ze_info_readers.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace {

using testing::firstDifference;

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

// parseZeInfo (both readers) against the tree reader alone: the same
// ZeInfo, or the same error; and a kLaunch read, twice (the second takes
// its lists from the pool), the same without the lists.
void expectSameAsTree(const std::string& text) {
  Expected<ZeInfo> combined = parseZeInfo(text);
  Expected<ZeInfo> tree = readers::parseTree(text, ZeInfoDetail::kFull);
  ASSERT_EQ(combined.ok(), tree.ok())
      << (tree.ok() ? combined.error().message() : tree.error().message());
  if (tree.ok()) {
    EXPECT_EQ(firstDifference(*combined, *tree), "");
  } else {
    EXPECT_EQ(combined.error().message(), tree.error().message());
  }
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(
        testing::launchDifference(
            tree, parseZeInfo(text, ZeInfoDetail::kLaunch)),
        "")
        << "round " << round;
  }
}

TEST(IgcLayoutReader, ReadsIgcsLayoutAsTheTreeReaderDoes) {
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
    std::optional<ZeInfo> igc = readers::parseIgcLayout(variant.second);
    ASSERT_TRUE(igc.has_value()) << "the IGC layout reader declined";
    Expected<ZeInfo> tree =
        readers::parseTree(variant.second, ZeInfoDetail::kFull);
    ASSERT_TRUE(tree.ok()) << tree.error().message();
    EXPECT_EQ(firstDifference(*igc, *tree), "");
    expectSameAsTree(variant.second);
  }
}

TEST(IgcLayoutReader, ReadsTheFieldsTheLauncherUses) {
  std::optional<ZeInfo> info = readers::parseIgcLayout(kIgcDocument);
  ASSERT_TRUE(info.has_value());
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

TEST(IgcLayoutReader, DeclinesWhatIsNotIgcsLayoutAndTheTreeReaderDecides) {
  const std::string base = kIgcDocument;
  const std::vector<std::pair<const char*, std::string>> variants = {
      {"a comment", replaced(base, "kernels:\n", "kernels: # all\n")},
      {"a tab in the indentation",
       replaced(base, "      grf_count:", "\tgrf_count:")},
      {"CRLF line ends", replaced(base, "kernels:\n", "kernels:\r\n")},
      {"an unknown root key", replaced(base, "...\n", "debug_info: 1\n")},
      {"a root key the tree reader ignores",
       replaced(base, "...\n", "functions:\n  - name: f\n")},
      {"an unknown kernel key",
       replaced(
           base, "    user_attributes:", "    odd: 1\n    user_attributes:")},
      {"an unknown execution_env key",
       replaced(
           base, "      grf_count:", "      odd_key: 3\n      grf_count:")},
      {"an unknown payload key",
       replaced(base, "        is_ptr:", "        odd: 1\n        is_ptr:")},
      {"an extra misc info key",
       replaced(base, "    args_info:", "    odd: 1\n    args_info:")},
      // Lines are split at their first colon; a key outside [A-Za-z0-9_]+
      // must still be declined, where names are compared and where any
      // key is taken.
      {"a space in a known key",
       replaced(base, "        offset:          40", "        off set: 40")},
      {"a dash in a flag's key",
       replaced(
           base, "      grf_count:", "      has-odd: true\n      grf_count:")},
      {"a space in an attribute's key",
       replaced(
           base,
           "      intel_reqd_sub_group_size: 16",
           "      intel_reqd_sub_group_size: 16\n      odd attr: 1")},
      {"a dot in an ignored map's key",
       replaced(base, "      - bti_value:       0", "      - bti.value: 0")},
      {"an escape in double quotes",
       replaced(base, "type_name:       'int;4'", "type_name: \"in\\tt;4\"")},
      {"an escaped single quote", replaced(base, "'int;4'", "'int''s;4'")},
      // Plain values YAML does not allow, where any string is taken.
      {"': ' in a plain value",
       replaced(base, "name:            out", "name: o: ut")},
      {"a plain value ending with ':'",
       replaced(base, "name:            out", "name: out:")},
      {"a plain value starting with ','",
       replaced(base, "name:            out", "name: ,out")},
      {"a lone '-' as a value",
       replaced(base, "name:            out", "name: -")},
      {"text after a closing quote", replaced(base, "'int;4'", "'int;4' x")},
      {"an empty flow entry", replaced(base, "[ 64, 1, 1 ]", "[ 64, , 1 ]")},
      {"a flow entry starting with '@'",
       replaced(base, "[ 64, 1, 1 ]", "[ 64, @1, 1 ]")},
      {"a ':' in a value",
       replaced(base, "name:            out", "name: o:ut")},
      {"a flow map", replaced(base, "slm_size:        512", "slm_size: {}")},
      {"an anchor", replaced(base, "slm_size:        512", "slm_size: &a 512")},
      {"a negative offset",
       replaced(base, "offset:          40", "offset: -8")},
      {"an arg_index too large",
       replaced(base, "arg_index:       2", "arg_index: 99999")},
      {"not a boolean", replaced(base, "is_ptr:          true", "is_ptr: yes")},
      {"a quoted boolean",
       replaced(base, "is_ptr:          true", "is_ptr: 'true'")},
      {"no arg_type",
       replaced(
           base,
           "      - arg_type:        global_id_offset\n",
           "      - addrmode:        stateless\n")},
      {"a bad SIMD size",
       replaced(base, "simd_size:       16", "simd_size: 12")},
      {"no execution_env",
       "version: '1.40'\nkernels:\n  - name: k\n    payload_arguments:\n"},
      {"an empty kernel name", replaced(base, "softmax\n", "''\n")},
      {"a list at its key's column",
       replaced(
           base,
           "    binding_table_indices:\n      - bti_value:       0\n"
           "        arg_index:       0\n",
           "    binding_table_indices:\n    - bti_value: 0\n"
           "      arg_index: 0\n")},
      {"a root list at its key's column",
       replaced(
           base,
           "kernels_misc_info:\n  - name:",
           "kernels_misc_info:\n- name:")},
      {"a second document", replaced(base, "...\n", "---\nversion: '1.2'\n")},
      {"a bad version", replaced(base, "'1.40'", "'one'")},
      {"deeper than its map",
       replaced(base, "      slm_size:", "        slm_size:")},
      {"a value and a block",
       replaced(
           base,
           "      grf_count:       256\n",
           "      grf_count:       256\n        more: 1\n")},
  };
  for (const auto& variant : variants) {
    SCOPED_TRACE(variant.first);
    EXPECT_FALSE(readers::parseIgcLayout(variant.second).has_value())
        << "the IGC layout reader accepted it";
    expectSameAsTree(variant.second);
  }
}

} // namespace
} // namespace zebin
} // namespace xsl
