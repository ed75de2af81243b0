#pragma once

// Builds synthetic zebins for tests: an ELF64 LE file with the sections,
// `.ze_info` text, e_type and e_machine you choose, laid out like ocloc's
// output (header, section data, section table at the end). Helpers patch
// header fields of the result to make malformed files. Header-only so any
// module's tests can use it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xsl {
namespace zebin {
namespace testing {

constexpr uint32_t kShtProgbits = 1;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtStrtab = 3;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kShtZeInfo = 0xff000011;
constexpr uint32_t kShtSpirv = 0xff000009;

// Offsets of fields inside an ELF64 header / section header.
constexpr size_t kElfShoff = 40;
constexpr size_t kElfShentsize = 58;
constexpr size_t kElfShnum = 60;
constexpr size_t kElfShstrndx = 62;
constexpr size_t kShName = 0;
constexpr size_t kShType = 4;
constexpr size_t kShOffset = 24;
constexpr size_t kShSize = 32;
constexpr size_t kShLink = 40;
constexpr size_t kShEntsize = 56;

inline void putLe(std::string& bytes, size_t at, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) {
    bytes[at + i] = static_cast<char>((value >> (8 * i)) & 0xff);
  }
}
inline void appendLe(std::string& bytes, uint64_t value, size_t width) {
  bytes.append(width, '\0');
  putLe(bytes, bytes.size() - width, value, width);
}
inline uint64_t getLe(const std::string& bytes, size_t at, size_t width) {
  uint64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    value |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[at + i]))
        << (8 * i);
  }
  return value;
}

// `.ze_info` for kernels that each have only the required keys.
inline std::string simpleZeInfo(
    const std::vector<std::string>& kernels,
    const std::string& version = "1.20",
    const std::string& extra_env = "") {
  std::string text = "version: '" + version + "'\nkernels:\n";
  for (const std::string& name : kernels) {
    text += "  - name: " + name +
        "\n    execution_env:\n      grf_count: 128\n      simd_size: 16\n" +
        extra_env;
  }
  return text;
}

class ZebinWriter {
 public:
  struct SectionSpec {
    std::string name;
    uint32_t type = kShtProgbits;
    std::string data;
    uint32_t link = 0;
    uint64_t entsize = 0;
  };

  ZebinWriter& elfType(uint16_t type) {
    elf_type_ = type;
    return *this;
  }
  ZebinWriter& machine(uint16_t machine) {
    machine_ = machine;
    return *this;
  }
  // Adds .text.<name> and a FUNC symbol for it.
  ZebinWriter& kernel(const std::string& name, size_t code_bytes = 64) {
    kernels_.push_back(name);
    sections_.push_back(SectionSpec{
        ".text." + name, kShtProgbits, std::string(code_bytes, '\x11'), 0, 0});
    return *this;
  }
  ZebinWriter& zeInfo(const std::string& text) {
    sections_.push_back(SectionSpec{".ze_info", kShtZeInfo, text, 0, 0});
    return *this;
  }
  ZebinWriter& section(SectionSpec spec) {
    sections_.push_back(std::move(spec));
    return *this;
  }
  ZebinWriter& symtab(bool with) {
    with_symtab_ = with;
    return *this;
  }
  // IntelGT notes: product family, GFX core, zebin version.
  ZebinWriter& notes(bool with) {
    with_notes_ = with;
    return *this;
  }

  // Index of the section named `name` in the built file (0 if none).
  size_t sectionIndex(const std::string& name) const {
    const std::vector<SectionSpec> all = allSections();
    for (size_t i = 0; i < all.size(); ++i) {
      if (all[i].name == name) {
        return i + 1;
      }
    }
    return 0;
  }

  std::string build() const {
    std::vector<SectionSpec> all = allSections();
    // .strtab holds section and symbol names; it is the last section.
    std::string strtab(1, '\0');
    std::vector<uint32_t> name_offsets;
    for (const SectionSpec& spec : all) {
      name_offsets.push_back(static_cast<uint32_t>(strtab.size()));
      strtab += spec.name;
      strtab += '\0';
    }
    const size_t strtab_index = all.size(); // 1-based index of .strtab
    std::vector<uint32_t> symbol_names;
    for (const std::string& name : kernels_) {
      symbol_names.push_back(static_cast<uint32_t>(strtab.size()));
      strtab += name;
      strtab += '\0';
    }
    // Fill the symbol table now that names have offsets.
    for (size_t s = 0; s < all.size(); ++s) {
      if (all[s].name != ".symtab") {
        continue;
      }
      std::string data(24, '\0');
      for (size_t k = 0; k < kernels_.size(); ++k) {
        std::string symbol(24, '\0');
        putLe(symbol, 0, symbol_names[k], 4);
        symbol[4] = static_cast<char>((0 << 4) | 2); // LOCAL FUNC
        putLe(symbol, 6, sectionIndex(".text." + kernels_[k]), 2);
        putLe(symbol, 16, 64, 8);
        data += symbol;
      }
      all[s].data = data;
      all[s].link = static_cast<uint32_t>(strtab_index + 1);
      all[s].entsize = 24;
    }
    name_offsets.push_back(static_cast<uint32_t>(
        strtab.size())); // placeholder for .strtab's own name below
    strtab += ".strtab";
    strtab += '\0';
    all.push_back(SectionSpec{".strtab", kShtStrtab, strtab, 0, 0});

    std::string bytes(64, '\0');
    bytes[0] = '\x7f';
    bytes[1] = 'E';
    bytes[2] = 'L';
    bytes[3] = 'F';
    bytes[4] = 2; // ELFCLASS64
    bytes[5] = 1; // little-endian
    bytes[6] = 1; // EV_CURRENT
    putLe(bytes, 16, elf_type_, 2);
    putLe(bytes, 18, machine_, 2);
    putLe(bytes, 20, 1, 4);
    putLe(bytes, 52, 64, 2); // e_ehsize
    std::vector<uint64_t> offsets;
    for (const SectionSpec& spec : all) {
      while (bytes.size() % 8 != 0) {
        bytes += '\0';
      }
      offsets.push_back(bytes.size());
      bytes += spec.data;
    }
    while (bytes.size() % 8 != 0) {
      bytes += '\0';
    }
    const uint64_t shoff = bytes.size();
    bytes.append(64, '\0'); // null section
    for (size_t i = 0; i < all.size(); ++i) {
      std::string header(64, '\0');
      putLe(header, kShName, name_offsets[i], 4);
      putLe(header, kShType, all[i].type, 4);
      putLe(header, kShOffset, offsets[i], 8);
      putLe(header, kShSize, all[i].data.size(), 8);
      putLe(header, kShLink, all[i].link, 4);
      putLe(header, kShEntsize, all[i].entsize, 8);
      bytes += header;
    }
    putLe(bytes, kElfShoff, shoff, 8);
    putLe(bytes, kElfShentsize, 64, 2);
    putLe(bytes, kElfShnum, all.size() + 1, 2);
    putLe(bytes, kElfShstrndx, all.size(), 2);
    return bytes;
  }

 private:
  static std::string note(uint32_t type, const std::string& desc) {
    std::string out;
    appendLe(out, 8, 4); // "IntelGT\0"
    appendLe(out, desc.size(), 4);
    appendLe(out, type, 4);
    out += std::string("IntelGT\0", 8);
    out += desc;
    while (out.size() % 4 != 0) {
      out += '\0';
    }
    return out;
  }

  std::vector<SectionSpec> allSections() const {
    std::vector<SectionSpec> all = sections_;
    if (with_symtab_) {
      all.push_back(SectionSpec{".symtab", kShtSymtab, std::string(), 0, 24});
    }
    if (with_notes_) {
      std::string family;
      appendLe(family, 0x4f7, 4);
      std::string core;
      appendLe(core, 0x0c, 4);
      all.push_back(SectionSpec{
          ".note.intelgt.compat",
          kShtNote,
          note(1, family) + note(2, core) + note(4, std::string("1.20\0", 5)),
          0,
          0});
    }
    return all;
  }

  uint16_t elf_type_ = 1;
  uint16_t machine_ = 205;
  bool with_symtab_ = true;
  bool with_notes_ = true;
  std::vector<std::string> kernels_;
  std::vector<SectionSpec> sections_;
};

// Offset of section header `index` in a file built by ZebinWriter.
inline size_t sectionHeaderAt(const std::string& bytes, size_t index) {
  return static_cast<size_t>(getLe(bytes, kElfShoff, 8)) + 64 * index;
}

} // namespace testing
} // namespace zebin
} // namespace xsl
