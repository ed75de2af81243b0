// Synthetic zebins: zeinfo versions the local ocloc cannot write, and every
// malformed case. Each bad input must give an Error with a useful message.

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "zebin/zebin.h"
#include "zebin_writer.h"

namespace xsl {
namespace zebin {
namespace {

using testing::getLe;
using testing::putLe;
using testing::sectionHeaderAt;
using testing::simpleZeInfo;
using testing::ZebinWriter;

std::string goodZebin() {
  return ZebinWriter().kernel("add").zeInfo(simpleZeInfo({"add"})).build();
}

// The error message of readZebin(bytes); fails the test if it succeeded.
std::string errorOf(const std::string& bytes) {
  Expected<Zebin> zebin = readZebin(bytes);
  EXPECT_FALSE(zebin.ok());
  return zebin.ok() ? std::string() : zebin.error().message();
}

#define EXPECT_ERROR_HAS(bytes, text) \
  EXPECT_NE(errorOf(bytes).find(text), std::string::npos) << errorOf(bytes)

TEST(ZebinReader, ReadsAMinimalSyntheticZebin) {
  const std::string bytes = goodZebin(); // views into it must stay valid
  Expected<Zebin> zebin = readZebin(bytes);
  ASSERT_TRUE(zebin.ok()) << zebin.error().message();
  EXPECT_EQ(zebin->ze_info.version_text, "1.20");
  ASSERT_EQ(zebin->ze_info.kernels.size(), 1u);
  const KernelInfo& add = zebin->ze_info.kernels[0];
  EXPECT_EQ(add.name, "add");
  EXPECT_EQ(add.execution_env.simd_size, 16);
  EXPECT_EQ(add.threads_per_warp, 16u);
  EXPECT_EQ(add.spill_bytes, 0u);
  ASSERT_EQ(zebin->elf.symbols.size(), 1u);
  EXPECT_EQ(zebin->elf.symbols[0].name, "add");
  EXPECT_EQ(zebin->elf.symbols[0].type, 2); // STT_FUNC
  ASSERT_EQ(zebin->elf.intelgt_notes.size(), 3u);
  EXPECT_EQ(zebin->elf.intelgt_notes[0].type, kNoteProductFamily);
  EXPECT_EQ(zebin->elf.intelgt_notes[2].desc, std::string("1.20\0", 5));
  EXPECT_EQ(zebin->elf.noteValue(kNoteProductFamily), 0x4f7u); // 1271, pvc
  EXPECT_EQ(zebin->elf.noteValue(kNoteGfxCore), 0x0cu);
  EXPECT_EQ(zebin->elf.noteValue(kNoteTargetMetadata), 0u); // absent
  EXPECT_EQ(zebin->findKernel("add"), &zebin->ze_info.kernels[0]);
  EXPECT_EQ(zebin->findKernel("mul"), nullptr);
}

TEST(ZebinReader, AcceptsZebinExeType) {
  Expected<Zebin> zebin = readZebin(ZebinWriter()
                                        .elfType(kElfTypeZebinExe)
                                        .kernel("k")
                                        .zeInfo(simpleZeInfo({"k"}))
                                        .build());
  EXPECT_TRUE(zebin.ok());
}

TEST(ZebinReader, SpillSizeFromExecutionEnvFromZeInfo139) {
  const std::string env = "      spill_size: 4096\n      private_size: 256\n";
  const std::string buffers =
      "    per_thread_memory_buffers:\n"
      "      - type: scratch\n        usage: spill_fill_space\n"
      "        size: 8192\n        slot: 0\n";
  for (const char* version : {"1.39", "1.40", "1.52", "1.74"}) {
    SCOPED_TRACE(version);
    Expected<Zebin> zebin =
        readZebin(ZebinWriter()
                      .kernel("k")
                      .zeInfo(simpleZeInfo({"k"}, version, env) + buffers)
                      .build());
    ASSERT_TRUE(zebin.ok()) << zebin.error().message();
    const KernelInfo& k = zebin->ze_info.kernels[0];
    ASSERT_TRUE(k.execution_env.spill_size.has_value());
    EXPECT_EQ(k.spill_bytes, 4096u);
    EXPECT_EQ(k.private_bytes, 256u);
  }
  // Before 1.39 the scratch buffer in slot 0 is the spill space.
  Expected<Zebin> old =
      readZebin(ZebinWriter()
                    .kernel("k")
                    .zeInfo(simpleZeInfo({"k"}, "1.38", env) + buffers)
                    .build());
  ASSERT_TRUE(old.ok()) << old.error().message();
  EXPECT_EQ(old->ze_info.kernels[0].spill_bytes, 8192u);
}

TEST(ZebinReader, SpillSizeOmittedMeansZeroFromZeInfo139) {
  Expected<Zebin> zebin = readZebin(
      ZebinWriter().kernel("k").zeInfo(simpleZeInfo({"k"}, "1.40")).build());
  ASSERT_TRUE(zebin.ok());
  EXPECT_EQ(zebin->ze_info.kernels[0].spill_bytes, 0u);
}

TEST(ZebinReader, ScratchSlotOneIsNotSpill) {
  const std::string buffers =
      "    per_thread_memory_buffers:\n"
      "      - type: scratch\n        usage: private_space\n"
      "        size: 512\n        slot: 1\n"
      "      - type: global\n        usage: private_space\n"
      "        size: 64\n        is_simt_thread: true\n";
  Expected<Zebin> zebin = readZebin(
      ZebinWriter().kernel("k").zeInfo(simpleZeInfo({"k"}) + buffers).build());
  ASSERT_TRUE(zebin.ok()) << zebin.error().message();
  const KernelInfo& k = zebin->ze_info.kernels[0];
  EXPECT_EQ(k.spill_bytes, 0u);
  EXPECT_EQ(k.private_bytes, 512u + 64u * 16u); // SIMT buffer: per lane
}

TEST(ZebinReader, UserArgumentsFromPayload) {
  const std::string text = R"(version: '1.40'
kernels:
  - name: k
    execution_env:
      grf_count: 256
      simd_size: 32
      required_sub_group_size: 16
      has_barriers: true
    payload_arguments:
      - arg_type: global_id_offset
        offset: 0
        size: 12
      - arg_type: arg_bypointer
        offset: 0
        size: 0
        arg_index: 0
        addrmode: stateful
        addrspace: global
        access_type: readwrite
      - arg_type: arg_bypointer
        offset: 32
        size: 8
        arg_index: 0
        addrmode: stateless
        addrspace: global
        access_type: readwrite
      - arg_type: arg_byvalue
        offset: 40
        size: 4
        arg_index: 1
        source_offset: 0
      - arg_type: arg_byvalue
        offset: 48
        size: 8
        arg_index: 1
        source_offset: 8
      - arg_type: arg_bypointer
        offset: 0
        size: 4
        arg_index: 2
        addrmode: slm
        addrspace: local
        slm_alignment: 16
      - arg_type: arg_byvalue
        offset: 56
        size: 8
        arg_index: 3
        is_ptr: true
      - arg_type: arg_bypointer
        offset: 64
        size: 8
        arg_index: 4
        addrmode: stateless
        addrspace: constant
kernels_misc_info:
  - name: k
    args_info:
      - index: 0
        name: out
        address_qualifier: __global
        type_name: 'float*;8'
      - index: 5
        name: unused
        address_qualifier: __private
        type_name: 'short;2'
)";
  Expected<ZeInfo> info = parseZeInfo(text);
  ASSERT_TRUE(info.ok()) << info.error().message();
  const KernelInfo& k = info->kernels.at(0);
  EXPECT_EQ(k.execution_env.grf_count, 256);
  EXPECT_EQ(k.threads_per_warp, 16u);
  EXPECT_TRUE(k.execution_env.flags.at("has_barriers"));
  ASSERT_EQ(k.user_arguments.size(), 6u);
  EXPECT_EQ(k.user_arguments[0].kind, UserArgumentKind::kGlobalPointer);
  EXPECT_EQ(k.user_arguments[0].size, 8u);
  EXPECT_EQ(k.user_arguments[0].name, "out");
  EXPECT_EQ(k.user_arguments[1].kind, UserArgumentKind::kByValue);
  EXPECT_EQ(k.user_arguments[1].size, 16u); // struct: pieces end at 8 + 8
  EXPECT_EQ(k.user_arguments[2].kind, UserArgumentKind::kLocalPointer);
  EXPECT_EQ(k.user_arguments[2].size, 0u);
  EXPECT_EQ(k.user_arguments[3].kind, UserArgumentKind::kGlobalPointer);
  EXPECT_EQ(k.user_arguments[4].kind, UserArgumentKind::kConstantPointer);
  // Not in the payload: shape from kernels_misc_info.
  EXPECT_EQ(k.user_arguments[5].kind, UserArgumentKind::kByValue);
  EXPECT_EQ(k.user_arguments[5].size, 2u);
  EXPECT_EQ(k.payload_arguments.at(5).slm_alignment, 16);
  EXPECT_EQ(k.payload_arguments.at(2).access_type, "readwrite");
  EXPECT_TRUE(info->warnings.empty());
}

// Found by the fuzzer: an implicit argument (buffer_size) naming an index
// past every user argument was used to index the user argument table.
TEST(ZebinReader, ImplicitArgumentWithOutOfRangeIndexIsIgnored) {
  const std::string text = R"(version: '1.20'
kernels:
  - name: k
    execution_env:
      grf_count: 128
      simd_size: 16
    payload_arguments:
      - arg_type: arg_bypointer
        offset: 0
        size: 8
        arg_index: 0
        addrmode: stateless
        addrspace: global
      - arg_type: buffer_size
        offset: 8
        size: 8
        arg_index: 9
)";
  Expected<ZeInfo> info = parseZeInfo(text);
  ASSERT_TRUE(info.ok()) << info.error().message();
  const KernelInfo& k = info->kernels.at(0);
  ASSERT_EQ(k.user_arguments.size(), 1u);
  EXPECT_EQ(k.user_arguments[0].kind, UserArgumentKind::kGlobalPointer);
}

TEST(ZebinReader, UnknownKeysAreWarningsNotErrors) {
  const std::string text =
      simpleZeInfo({"k"}, "1.99", "      future_knob: 7\n") +
      "    future_section:\n      - a: 1\nnew_top_level: [1, 2]\n";
  Expected<ZeInfo> info = parseZeInfo(text);
  ASSERT_TRUE(info.ok()) << info.error().message();
  ASSERT_EQ(info->warnings.size(), 4u);
  EXPECT_NE(
      info->warnings[0].find("execution_env.future_knob"), std::string::npos);
  EXPECT_NE(info->warnings[1].find("future_section"), std::string::npos);
  EXPECT_NE(info->warnings[2].find("new_top_level"), std::string::npos);
  EXPECT_NE(
      info->warnings[3].find("zeinfo version '1.99' is newer than 1.73"),
      std::string::npos);
}

TEST(ZebinReader, VersionsAreTakenAsTheDriversDecoderTakesThem) {
  // Up to 1.73 silently, a newer minor version with one warning, another
  // major version refused (compute-runtime's zeinfo decoder does the same).
  Expected<ZeInfo> known = parseZeInfo(simpleZeInfo({"k"}, "1.73"));
  ASSERT_TRUE(known.ok()) << known.error().message();
  EXPECT_TRUE(known->warnings.empty());
  Expected<ZeInfo> newer = parseZeInfo(simpleZeInfo({"k"}, "1.74"));
  ASSERT_TRUE(newer.ok()) << newer.error().message();
  ASSERT_EQ(newer->warnings.size(), 1u);
  EXPECT_NE(
      newer->warnings[0].find("zeinfo version '1.74' is newer than 1.73"),
      std::string::npos);
  for (const char* version : {"2.0", "0.9"}) {
    Expected<ZeInfo> other = parseZeInfo(simpleZeInfo({"k"}, version));
    ASSERT_FALSE(other.ok()) << version;
    EXPECT_NE(
        other.error().message().find(
            std::string("zeinfo version '") + version + "': major version"),
        std::string::npos)
        << other.error().message();
  }
}

TEST(ZebinReader, OptionalContainerSectionsAreKnown) {
  // Sections of the zeinfo spec the model does not use: no warnings, and
  // the fast path skips them.
  const std::string text = simpleZeInfo({"k"}, "1.52") +
      "functions:\n  - name: f\n    execution_env:\n      grf_count: 128\n"
      "      simd_size: 16\n"
      "global_host_access_table:\n  - device_name: d\n    host_name: h\n"
      "kernels_cost_info:\n  - name: k\n    kcm_loop_count_exps:\n"
      "      - factor: 1.5\n        argsym_index: 0\n        C: 0.5\n";
  for (ZeInfoDetail detail :
       {ZeInfoDetail::kFull, ZeInfoDetail::kExecutionOnly}) {
    Expected<ZeInfo> info = parseZeInfo(text, detail);
    ASSERT_TRUE(info.ok()) << info.error().message();
    EXPECT_TRUE(info->warnings.empty()) << info->warnings.front();
    ASSERT_EQ(info->kernels.size(), 1u);
    EXPECT_EQ(info->kernels[0].name, "k");
  }
}

TEST(ZebinReader, LegacyPatchTokenBinaryHasItsOwnMessage) {
  std::string bytes = goodZebin();
  putLe(bytes, 16, kElfTypeLegacyPatchTokens, 2);
  putLe(bytes, 18, 0, 2); // ocloc 22.43 writes e_machine 0 there
  const std::string message = errorOf(bytes);
  EXPECT_NE(message.find("legacy patch-token binary"), std::string::npos);
  EXPECT_NE(message.find("-ze-allow-zebin"), std::string::npos);
}

TEST(ZebinReader, RejectsBadHeaders) {
  const std::string good = goodZebin();
  EXPECT_ERROR_HAS(std::string(), "not an ELF");
  EXPECT_ERROR_HAS(good.substr(0, 3), "not an ELF");
  EXPECT_ERROR_HAS(good.substr(0, 40), "truncated ELF header");
  std::string bytes = good;
  bytes[1] = 'X';
  EXPECT_ERROR_HAS(bytes, "not an ELF");
  bytes = good;
  bytes[4] = 1;
  EXPECT_ERROR_HAS(bytes, "ELFCLASS64");
  bytes = good;
  bytes[5] = 2;
  EXPECT_ERROR_HAS(bytes, "little-endian");
  bytes = good;
  putLe(bytes, 18, 62, 2); // x86-64
  EXPECT_ERROR_HAS(bytes, "e_machine is 62");
  bytes = good;
  putLe(bytes, 16, 2, 2); // ET_EXEC
  EXPECT_ERROR_HAS(bytes, "not a zebin type");
  bytes = good;
  putLe(bytes, testing::kElfShentsize, 40, 2);
  EXPECT_ERROR_HAS(bytes, "e_shentsize");
  bytes = good;
  putLe(bytes, testing::kElfShoff, 0, 8);
  EXPECT_ERROR_HAS(bytes, "no section table");
}

TEST(ZebinReader, RejectsTruncatedOrOversizedSectionTables) {
  const std::string good = goodZebin();
  EXPECT_ERROR_HAS(good.substr(0, good.size() - 10), "does not fit");
  std::string bytes = good;
  putLe(bytes, testing::kElfShoff, good.size() - 8, 8);
  EXPECT_ERROR_HAS(bytes, "past the end");
  bytes = good;
  putLe(bytes, testing::kElfShoff, std::numeric_limits<uint64_t>::max() - 8, 8);
  EXPECT_ERROR_HAS(bytes, "past the end");
  bytes = good;
  putLe(bytes, testing::kElfShnum, 0xfff0, 2);
  EXPECT_ERROR_HAS(bytes, "does not fit");
  // Extended numbering: e_shnum 0 and a huge count in section 0.
  bytes = good;
  putLe(bytes, testing::kElfShnum, 0, 2);
  putLe(
      bytes,
      sectionHeaderAt(bytes, 0) + testing::kShSize,
      std::numeric_limits<uint64_t>::max(),
      8);
  EXPECT_ERROR_HAS(bytes, "does not fit");
}

TEST(ZebinReader, RejectsSectionDataOutsideTheFile) {
  const std::string good = goodZebin();
  const size_t ze_info =
      ZebinWriter().kernel("add").zeInfo("x").sectionIndex(".ze_info");
  ASSERT_EQ(ze_info, 2u);
  std::string bytes = good;
  putLe(
      bytes,
      sectionHeaderAt(bytes, ze_info) + testing::kShSize,
      good.size(),
      8);
  EXPECT_ERROR_HAS(bytes, "lies outside the file");
  bytes = good;
  putLe(
      bytes,
      sectionHeaderAt(bytes, ze_info) + testing::kShOffset,
      std::numeric_limits<uint64_t>::max() - 4,
      8);
  EXPECT_ERROR_HAS(bytes, "lies outside the file");
  bytes = good;
  // offset + size overflows to a small number.
  putLe(bytes, sectionHeaderAt(bytes, ze_info) + testing::kShOffset, 64, 8);
  putLe(
      bytes,
      sectionHeaderAt(bytes, ze_info) + testing::kShSize,
      std::numeric_limits<uint64_t>::max() - 10,
      8);
  EXPECT_ERROR_HAS(bytes, "lies outside the file");
}

TEST(ZebinReader, RejectsBadNameTables) {
  const std::string good = goodZebin();
  const uint64_t count = getLe(good, testing::kElfShnum, 2);
  std::string bytes = good;
  putLe(bytes, testing::kElfShstrndx, count, 2);
  EXPECT_ERROR_HAS(bytes, "e_shstrndx");
  bytes = good;
  putLe(bytes, testing::kElfShstrndx, 0, 2);
  EXPECT_ERROR_HAS(bytes, "e_shstrndx");
  bytes = good;
  putLe(bytes, testing::kElfShstrndx, 1, 2); // .text.add: not a string table
  EXPECT_ERROR_HAS(bytes, "not a string table");
  // Cut the final NUL off the string table: its last name is unterminated.
  bytes = good;
  const size_t strtab = sectionHeaderAt(bytes, count - 1);
  putLe(
      bytes,
      strtab + testing::kShSize,
      getLe(bytes, strtab + testing::kShSize, 8) - 1,
      8);
  EXPECT_ERROR_HAS(bytes, "not NUL-terminated");
  bytes = good;
  putLe(bytes, sectionHeaderAt(bytes, 1) + testing::kShName, 0x7fffffff, 4);
  EXPECT_ERROR_HAS(bytes, "outside the string table");
}

TEST(ZebinReader, RejectsBadSymbolTablesAndNotes) {
  ZebinWriter writer;
  writer.kernel("add").zeInfo(simpleZeInfo({"add"}));
  const std::string good = writer.build();
  const size_t symtab = sectionHeaderAt(good, writer.sectionIndex(".symtab"));
  std::string bytes = good;
  putLe(bytes, symtab + testing::kShEntsize, 16, 8);
  EXPECT_ERROR_HAS(bytes, "symbol entry size");
  bytes = good;
  putLe(bytes, symtab + testing::kShLink, 1, 4);
  EXPECT_ERROR_HAS(bytes, "string table");
  const size_t notes =
      sectionHeaderAt(good, writer.sectionIndex(".note.intelgt.compat"));
  bytes = good;
  putLe(bytes, notes + testing::kShSize, 7, 8);
  EXPECT_ERROR_HAS(bytes, "truncated note");
  bytes = good;
  // First note claims a huge description.
  putLe(
      bytes,
      static_cast<size_t>(getLe(bytes, notes + testing::kShOffset, 8)) + 4,
      0xfffffff0u,
      4);
  EXPECT_ERROR_HAS(bytes, "runs past the end");
}

TEST(ZebinReader, RejectsIncompleteZebins) {
  EXPECT_ERROR_HAS(ZebinWriter().kernel("add").build(), "no .ze_info");
  // What an IGC crash leaves: .ze_info without kernels, no .text/.symtab.
  EXPECT_ERROR_HAS(
      ZebinWriter().symtab(false).zeInfo("version: '1.20'\nkernels:\n").build(),
      "no kernels");
  EXPECT_ERROR_HAS(
      ZebinWriter().symtab(false).notes(false).build(),
      "no .ze_info section and no kernel code");
  EXPECT_ERROR_HAS(
      ZebinWriter().kernel("add").zeInfo(simpleZeInfo({"add", "mul"})).build(),
      "no .text.mul");
  Expected<Zebin> no_symtab = readZebin(ZebinWriter()
                                            .symtab(false)
                                            .kernel("add")
                                            .zeInfo(simpleZeInfo({"add"}))
                                            .build());
  ASSERT_TRUE(no_symtab.ok());
  EXPECT_EQ(no_symtab->ze_info.warnings.size(), 1u);
}

TEST(ZebinReader, YamlErrorsNameSectionOffsetAndLine) {
  const std::string message = errorOf(
      ZebinWriter()
          .kernel("add")
          .zeInfo(simpleZeInfo({"add"}, "1.20", "      slm_size: lots\n"))
          .build());
  EXPECT_NE(message.find(".ze_info (at file offset 0x"), std::string::npos)
      << message;
  EXPECT_NE(message.find("kernel 'add'"), std::string::npos) << message;
  EXPECT_NE(message.find("execution_env.slm_size (line 7)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("'lots'"), std::string::npos) << message;
}

TEST(ZebinReader, ZeInfoFoundByNameWhenTypeIsOdd) {
  Expected<Zebin> zebin = readZebin(
      ZebinWriter()
          .kernel("k")
          .section(
              {".ze_info", testing::kShtProgbits, simpleZeInfo({"k"}), 0, 0})
          .build());
  EXPECT_TRUE(zebin.ok());
}

} // namespace
} // namespace zebin
} // namespace xsl
