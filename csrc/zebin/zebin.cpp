#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>

#include "common/enum_names.h"
#include "zebin/zebin.h"

namespace xsl {
namespace zebin {

const char* userArgumentKindName(UserArgumentKind kind) {
  static constexpr const char* kNames[] = {
      "global_pointer",
      "constant_pointer",
      "local_pointer",
      "by_value",
      "image",
      "sampler",
      "other"};
  return enumName(kind, kNames, "other");
}

const KernelInfo* ZeInfo::findKernel(std::string_view name) const {
  for (const KernelInfo& kernel : kernels) {
    if (kernel.name == name) {
      return &kernel;
    }
  }
  return nullptr;
}

std::string ZeInfo::kernelNames() const {
  std::string names;
  for (const KernelInfo& kernel : kernels) {
    if (!names.empty()) {
      names += ", ";
    }
    names += kernel.name;
  }
  return names;
}

namespace {

// Whether the ELF has the section .text.<kernel> (without building the name).
bool hasTextSection(const ElfView& elf, std::string_view kernel) {
  constexpr std::string_view kPrefix = ".text.";
  for (const Section& section : elf.sections) {
    const std::string_view name = section.name;
    if (name.size() == kPrefix.size() + kernel.size() &&
        name.substr(0, kPrefix.size()) == kPrefix &&
        name.substr(kPrefix.size()) == kernel) {
      return true;
    }
  }
  return false;
}

} // namespace

Expected<Zebin> readZebin(std::string_view bytes, ZeInfoDetail detail) {
  Expected<ElfView> elf = readElf(bytes);
  if (!elf) {
    return elf.error();
  }
  const Section* ze_info = elf->findSectionByType(kSectionTypeZeInfo);
  if (ze_info == nullptr) {
    ze_info = elf->findSection(".ze_info");
  }
  bool has_text = false;
  for (const Section& section : elf->sections) {
    if (section.name.compare(0, 6, ".text.") == 0) {
      has_text = true;
      break;
    }
  }
  if (ze_info == nullptr) {
    return Error(
        std::string("no .ze_info section") +
        (has_text ? "" : " and no kernel code") +
        "; this is not a complete zebin (did the compiler fail? "
        "check the ocloc/IGC log)");
  }
  Expected<ZeInfo> info = parseZeInfo(ze_info->data, detail);
  if (!info) {
    char offset[32];
    std::snprintf(
        offset,
        sizeof(offset),
        "0x%llx",
        static_cast<unsigned long long>(ze_info->file_offset));
    return info.error().withContext(
        std::string(".ze_info (at file offset ") + offset + ")");
  }
  if (info->kernels.empty() || !has_text) {
    return Error(
        "the zebin has no kernels (" +
        std::string(has_text ? "" : "no .text.* sections, ") +
        std::to_string(info->kernels.size()) +
        " in .ze_info); the compiler probably failed: check the ocloc/IGC "
        "log and recompile");
  }
  if (elf->findSection(".symtab") == nullptr) {
    info->warnings.emplace_back("no .symtab section (kernel symbols missing)");
  }
  for (const KernelInfo& kernel : info->kernels) {
    if (!hasTextSection(*elf, kernel.name)) {
      return Error(
          "kernel '" + kernel.name +
          "' is described in .ze_info but has no .text." + kernel.name +
          " section; the zebin is incomplete");
    }
  }
  Zebin zebin;
  zebin.elf = std::move(*elf);
  zebin.ze_info = std::move(*info);
  return zebin;
}

Expected<BinaryFormat> binaryFormat(
    std::string_view bytes,
    const std::string& source_name) {
  if (bytes.size() >= 4 &&
      bytes.compare(
          0,
          4,
          "\x7f"
          "ELF") == 0) {
    return BinaryFormat::kZebin;
  }
  if (bytes.size() >= 4) {
    uint32_t word = 0;
    std::memcpy(&word, bytes.data(), sizeof(word));
    // SPIR-V may be stored in either byte order.
    if (word == kSpirvMagic || word == kSpirvMagicSwapped) {
      return BinaryFormat::kSpirv;
    }
  }
  std::string start;
  for (size_t i = 0; i < bytes.size() && i < 4; ++i) {
    char hex[4];
    std::snprintf(
        hex, sizeof(hex), "%02x", static_cast<unsigned char>(bytes[i]));
    start += hex;
  }
  return Error(
      source_name +
      ": the file is neither a zebin (ELF) nor SPIR-V: it starts with " +
      (start.empty() ? std::string("nothing") : "bytes " + start) + " (" +
      std::to_string(bytes.size()) +
      " bytes); pass the kernel's .zebin or .spv file from Triton's cache");
}

Status checkSpirv(std::string_view bytes, const std::string& source_name) {
  const auto invalid = [&source_name](const std::string& what) {
    return Error(
        source_name + ": not a valid SPIR-V module: " + what +
        "; pass the kernel's .spv file from Triton's cache, or delete it and "
        "compile the kernel again");
  };
  constexpr size_t kHeaderWords = 5;
  if (bytes.size() % 4 != 0 || bytes.size() < 4 * kHeaderWords) {
    return invalid(
        std::to_string(bytes.size()) +
        " bytes, not a whole number of 32-bit words after a 5-word header");
  }
  uint32_t magic = 0;
  std::memcpy(&magic, bytes.data(), sizeof(magic));
  const bool swapped = magic == kSpirvMagicSwapped;
  if (!swapped && magic != kSpirvMagic) {
    return invalid("no SPIR-V magic number");
  }
  const auto word = [&bytes, swapped](size_t index) {
    uint32_t value = 0;
    std::memcpy(&value, bytes.data() + 4 * index, sizeof(value));
    if (swapped) {
      value = (value >> 24) | ((value >> 8) & 0xff00u) |
          ((value << 8) & 0xff0000u) | (value << 24);
    }
    return value;
  };
  const uint32_t version = word(1);
  const uint32_t major = (version >> 16) & 0xffu;
  const uint32_t minor = (version >> 8) & 0xffu;
  if ((version & 0xff0000ffu) != 0 || major != 1 || minor > 6) {
    char text[16];
    std::snprintf(text, sizeof(text), "0x%08x", static_cast<unsigned>(version));
    return invalid(
        std::string("version word ") + text +
        " is not a SPIR-V version (1.0 to 1.6)");
  }
  if (word(4) != 0) {
    return invalid("schema word " + std::to_string(word(4)) + " is not 0");
  }
  const size_t words = bytes.size() / 4;
  if (words == kHeaderWords) {
    return invalid("the header is followed by no instruction");
  }
  constexpr uint32_t kOpCapability = 17;
  if ((word(kHeaderWords) & 0xffffu) != kOpCapability) {
    return invalid(
        "the first instruction has opcode " +
        std::to_string(word(kHeaderWords) & 0xffffu) +
        ", not OpCapability (17)");
  }
  for (size_t at = kHeaderWords; at < words;) {
    const uint32_t count = word(at) >> 16;
    if (count == 0 || count > words - at) {
      return invalid(
          "the instruction at word " + std::to_string(at) + " has word count " +
          std::to_string(count) + ", which " +
          (count == 0 ? std::string("is not allowed")
                      : "runs past the end of the file (" +
                   std::to_string(words) + " words)"));
    }
    at += count;
  }
  return Status::success();
}

} // namespace zebin
} // namespace xsl
