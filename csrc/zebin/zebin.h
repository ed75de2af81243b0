#pragma once

// Reader for Intel GPU native binaries ("zebin"): an ELF64 container whose
// `.ze_info` section holds kernel metadata as YAML. Everything is read from a
// byte buffer the caller owns; every offset and size is checked before use,
// and bad input yields an Error naming the section/kernel/key, never a crash.
//
// Lifetime: the names and data of ElfView's sections, symbols and notes point
// into the buffer passed to readElf()/readZebin(); keep it alive as long as
// the ElfView is used. ZeInfo owns what it holds.

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace xsl {
namespace zebin {

// ELF e_machine for Intel GPU binaries.
constexpr uint16_t kMachineIntelGT = 205;
// e_type values: a zebin is ET_REL (1); compute-runtime also accepts 0xff12.
constexpr uint16_t kElfTypeRelocatable = 1;
constexpr uint16_t kElfTypeZebinExe = 0xff12;
// The legacy patch-token OpenCL binary is an ELF too, but not a zebin.
constexpr uint16_t kElfTypeLegacyPatchTokens = 0xff04;

constexpr uint32_t kSectionTypeSpirv = 0xff000009;
constexpr uint32_t kSectionTypeZeInfo = 0xff000011;

// `.note.intelgt.compat` note types (owner "IntelGT").
constexpr uint32_t kNoteProductFamily = 1;
constexpr uint32_t kNoteGfxCore = 2;
constexpr uint32_t kNoteTargetMetadata = 3;
constexpr uint32_t kNoteZebinVersion = 4;

struct Section {
  std::string_view name;
  uint32_t type = 0;
  uint64_t flags = 0;
  uint64_t file_offset = 0;
  std::string_view data; // empty for SHT_NOBITS
};

struct Symbol {
  std::string_view name;
  uint64_t value = 0;
  uint64_t size = 0;
  uint16_t section_index = 0;
  uint8_t binding = 0; // ELF64_ST_BIND
  uint8_t type = 0;    // ELF64_ST_TYPE
};

struct Note {
  std::string_view owner;
  uint32_t type = 0;
  std::string_view desc;
};

// The ELF layer: header, sections, symbols, IntelGT notes.
struct ElfView {
  uint16_t elf_type = 0;
  uint16_t machine = 0;
  uint32_t flags = 0;
  std::vector<Section> sections;   // index 0 is the null section
  std::vector<Symbol> symbols;     // from .symtab, null symbol dropped
  std::vector<Note> intelgt_notes; // from .note.intelgt.compat

  const Section* findSection(std::string_view name) const;
  const Section* findSectionByType(uint32_t type) const;
  // The 4-byte little-endian value of the IntelGT note `type` (kNote*), 0
  // when there is none.
  uint32_t noteValue(uint32_t type) const;
};

// Parses the ELF container. Rejects anything that is not an Intel GT zebin;
// the legacy patch-token format gets its own message.
Expected<ElfView> readElf(std::string_view bytes);

struct ZeInfoVersion {
  uint32_t major = 0;
  uint32_t minor = 0;
  bool atLeast(uint32_t major_, uint32_t minor_) const {
    return major > major_ || (major == major_ && minor >= minor_);
  }
};

struct PayloadArgument {
  std::string arg_type; // arg_bypointer, arg_byvalue, local_size, ...
  int64_t offset = 0;
  int64_t size = 0;
  std::optional<int64_t> arg_index;
  std::string addrmode;      // stateless, stateful, bindless, slm
  std::string addrspace;     // global, local, constant, image, sampler
  std::string access_type;   // readonly, writeonly, readwrite
  int64_t source_offset = 0; // byvalue pieces of a struct argument
  int64_t slm_alignment = 0;
  bool is_ptr = false; // arg_byvalue that carries a pointer (newer IGC)
};

struct PerThreadMemoryBuffer {
  std::string type;  // scratch, global, slm
  std::string usage; // private_space, spill_fill_space, single_space
  int64_t size = 0;
  int64_t slot = 0;
  bool is_simt_thread = false;
};

struct ExecutionEnv {
  int64_t grf_count = 0;
  int64_t simd_size = 0;
  std::optional<int64_t> spill_size; // present from zeinfo 1.39 on
  int64_t private_size = 0;
  int64_t slm_size = 0;
  int64_t barrier_count = 0;
  int64_t required_sub_group_size = 0;
  // Every boolean key (has_*, disable_mid_thread_preemption, ...).
  std::map<std::string, bool> flags;
};

// kernels_misc_info args_info entry: the source-level view of an argument.
struct ArgInfo {
  int64_t index = 0;
  std::string name;
  std::string address_qualifier;
  std::string access_qualifier;
  std::string type_name;
  std::string type_qualifiers;
};

// What the host passes for argument `index` through
// zeKernelSetArgumentValue: derived from payload_arguments.
enum class UserArgumentKind {
  kGlobalPointer,
  kConstantPointer,
  kLocalPointer, // SLM: the host passes a size and a null value
  kByValue,
  kImage,
  kSampler,
  kOther,
};

struct UserArgument {
  uint32_t index = 0;
  UserArgumentKind kind = UserArgumentKind::kOther;
  // Bytes zeKernelSetArgumentValue expects: 8 for pointers, the summed
  // by-value size for values, the SLM size chosen at launch for local args
  // (reported here as 0).
  uint64_t size = 0;
  // Size of the source-level type from kernels_misc_info ('char;1' -> 1),
  // 0 if absent. By-value payload pieces can be wider (a char arrives in 4
  // bytes); the host may pass either size.
  uint64_t type_size = 0;
  std::string name;      // from kernels_misc_info, empty if absent
  std::string type_name; // from kernels_misc_info, empty if absent
};

const char* userArgumentKindName(UserArgumentKind kind);

struct KernelInfo {
  std::string name;
  ExecutionEnv execution_env;
  std::vector<PayloadArgument> payload_arguments;
  std::vector<PerThreadMemoryBuffer> per_thread_memory_buffers;
  std::vector<ArgInfo> arg_infos;

  // Derived when parsing (see docs in zebin.cpp / README):
  // Spill bytes per thread: execution_env.spill_size for zeinfo >= 1.39,
  // else the size of the scratch buffer in slot 0 (0 if none). This is what
  // compute-runtime reports as ze_kernel_properties_t::spillMemSize.
  uint64_t spill_bytes = 0;
  // Private memory bytes per thread (execution_env.private_size, or the
  // private_space buffer for old versions).
  uint64_t private_bytes = 0;
  // Sub-group size the kernel runs with: required_sub_group_size if set,
  // else simd_size, else 32 (what the launcher calls threads per warp).
  uint32_t threads_per_warp = 32;
  // User arguments ordered by index, 0..n-1 without gaps.
  std::vector<UserArgument> user_arguments;
};

struct ZeInfo {
  std::string version_text;
  ZeInfoVersion version;
  std::vector<KernelInfo> kernels;
  // Unknown keys and other oddities that are not fatal.
  std::vector<std::string> warnings;

  const KernelInfo* findKernel(std::string_view name) const;
  // "add, mul, priv": for "kernel X not found; the zebin has: ..." errors.
  std::string kernelNames() const;
};

// How much of `.ze_info` to read.
enum class ZeInfoDetail {
  kFull,
  // What a launch reads: kFull, read and checked the same way, but each
  // kernel's payload_arguments, arg_infos and execution_env.flags are left
  // empty (its user_arguments hold what a launch needs of the lists). The
  // lists' memory is kept (emptied) for the next such read: a loader
  // reading zebin after zebin allocates them once, not tens of KiB per
  // kernel.
  kLaunch,
  // Kernel names, execution_env, user_attributes and memory buffers only:
  // payload_arguments, kernels_misc_info and other per-argument lists are
  // skipped unparsed (so not validated) and user_arguments stay empty.
  // Enough for spill/GRF/SIMD/threads-per-warp at a fraction of the cost.
  kExecutionOnly,
};

// Parses `.ze_info` YAML text (the subset IGC writes, yaml.h).
Expected<ZeInfo> parseZeInfo(
    std::string_view yaml,
    ZeInfoDetail detail = ZeInfoDetail::kFull);

struct Zebin {
  ElfView elf;
  ZeInfo ze_info;

  const KernelInfo* findKernel(std::string_view name) const {
    return ze_info.findKernel(name);
  }
};

// readElf + parseZeInfo + consistency checks (each kernel has .text.<name>).
Expected<Zebin> readZebin(
    std::string_view bytes,
    ZeInfoDetail detail = ZeInfoDetail::kFull);

// SPIR-V's magic number, as the first 32-bit word in the file's byte order
// and swapped.
constexpr uint32_t kSpirvMagic = 0x07230203u;
constexpr uint32_t kSpirvMagicSwapped = 0x03022307u;

// What a kernel binary holds, told by its first bytes, never its file name.
enum class BinaryFormat {
  kZebin, // an ELF file (Intel's native GPU binary)
  kSpirv, // SPIR-V, either byte order
};

// The format of `bytes`; anything else is one error naming `source_name` and
// the bytes it starts with.
Expected<BinaryFormat> binaryFormat(
    std::string_view bytes,
    const std::string& source_name);

// Checks that SPIR-V `bytes` are a module a driver may be handed: whole
// 32-bit words, the five-word header (a SPIR-V version 1.0-1.6, schema 0),
// then instructions whose word counts stay inside the file, the first being
// OpCapability as the specification requires. A driver's SPIR-V reader may
// end the process on a malformed header (IGC calls exit(1) for an unknown
// version word), so nothing malformed reaches zeModuleCreate. One error
// naming `source_name` and what is wrong.
Status checkSpirv(std::string_view bytes, const std::string& source_name);

} // namespace zebin
} // namespace xsl
