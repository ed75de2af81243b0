// The ELF layer of the zebin reader. Every field is read through
// ByteReader, which checks the range first; offsets and sizes from the file
// are added with overflow checks (LLVM's llvm/Object/ELF.h discipline).

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "zebin/zebin.h"

namespace xsl {
namespace zebin {
namespace {

constexpr size_t kElfHeaderSize = 64;
constexpr size_t kSectionHeaderSize = 64;
constexpr size_t kSymbolSize = 24;
constexpr uint32_t kShtSymtab = 2;
constexpr uint32_t kShtStrtab = 3;
constexpr uint32_t kShtNote = 7;
constexpr uint32_t kShtNobits = 8;
constexpr uint16_t kShnXindex = 0xffff;

std::string hex(uint64_t value) {
  char buffer[24];
  std::snprintf(
      buffer, sizeof(buffer), "0x%llx", static_cast<unsigned long long>(value));
  return buffer;
}

// Little-endian reads from a buffer; callers check ranges with fits() first.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  size_t size() const {
    return bytes_.size();
  }
  // True if [offset, offset + length) lies inside the buffer, without
  // overflowing.
  bool fits(uint64_t offset, uint64_t length) const {
    return offset <= bytes_.size() && length <= bytes_.size() - offset;
  }
  uint8_t u8(size_t offset) const {
    return static_cast<uint8_t>(bytes_[offset]);
  }
  uint16_t u16(size_t offset) const {
    return static_cast<uint16_t>(u8(offset) | (u8(offset + 1) << 8));
  }
  uint32_t u32(size_t offset) const {
    return static_cast<uint32_t>(u16(offset)) |
        (static_cast<uint32_t>(u16(offset + 2)) << 16);
  }
  uint64_t u64(size_t offset) const {
    return static_cast<uint64_t>(u32(offset)) |
        (static_cast<uint64_t>(u32(offset + 4)) << 32);
  }
  std::string_view slice(uint64_t offset, uint64_t length) const {
    return bytes_.substr(
        static_cast<size_t>(offset), static_cast<size_t>(length));
  }

 private:
  std::string_view bytes_;
};

// The fields of an Elf64_Shdr the reader uses (sh_addr, sh_info and
// sh_addralign are not).
struct RawSection {
  uint32_t name;
  uint32_t type;
  uint64_t flags;
  uint64_t offset;
  uint64_t size;
  uint32_t link;
  uint64_t entsize;
};

RawSection readSectionHeader(const ByteReader& in, size_t at) {
  return RawSection{
      in.u32(at),
      in.u32(at + 4),
      in.u64(at + 8),
      in.u64(at + 24),
      in.u64(at + 32),
      in.u32(at + 40),
      in.u64(at + 56)};
}

// NUL-terminated string at `offset` of a string table.
Expected<std::string_view> stringAt(std::string_view table, uint64_t offset) {
  if (offset >= table.size()) {
    return Error(
        "name offset " + hex(offset) + " is outside the string table (" +
        std::to_string(table.size()) + " bytes)");
  }
  const size_t end = table.find('\0', static_cast<size_t>(offset));
  if (end == std::string_view::npos) {
    return Error(
        "name at offset " + hex(offset) +
        " is not NUL-terminated inside the string table");
  }
  return table.substr(
      static_cast<size_t>(offset), end - static_cast<size_t>(offset));
}

std::string sectionLabel(size_t index, std::string_view name) {
  return "section " + std::to_string(index) +
      (name.empty() ? std::string() : " '" + std::string(name) + "'");
}

Status readSymbols(
    const std::vector<RawSection>& raw,
    ElfView& elf,
    size_t symtab_index) {
  const Section& symtab = elf.sections[symtab_index];
  const RawSection& header = raw[symtab_index];
  // Made only for an error: every zebin read passes here.
  const auto where = [&symtab, symtab_index] {
    return sectionLabel(symtab_index, symtab.name);
  };
  if (header.entsize != kSymbolSize) {
    return Error(
        where() + ": symbol entry size is " + std::to_string(header.entsize) +
        ", expected 24");
  }
  if (header.link == 0 || header.link >= elf.sections.size() ||
      elf.sections[header.link].type != kShtStrtab) {
    return Error(
        where() + ": sh_link " + std::to_string(header.link) +
        " does not name a string table");
  }
  const std::string_view names = elf.sections[header.link].data;
  const ByteReader in(symtab.data);
  const size_t count = symtab.data.size() / kSymbolSize;
  elf.symbols.reserve(count);
  for (size_t i = 1; i < count; ++i) { // entry 0 is the null symbol
    const size_t at = i * kSymbolSize;
    Symbol symbol;
    Expected<std::string_view> name = stringAt(names, in.u32(at));
    if (!name) {
      return name.error().withContext(
          where() + ": symbol " + std::to_string(i));
    }
    symbol.name = *name;
    const uint8_t info = in.u8(at + 4);
    symbol.binding = static_cast<uint8_t>(info >> 4);
    symbol.type = static_cast<uint8_t>(info & 0xf);
    symbol.section_index = in.u16(at + 6);
    symbol.value = in.u64(at + 8);
    symbol.size = in.u64(at + 16);
    elf.symbols.push_back(symbol);
  }
  return Status::success();
}

// ELF notes: namesz, descsz, type, name (padded to 4), desc (padded to 4).
Status readNotes(const Section& section, size_t index, ElfView& elf) {
  const ByteReader in(section.data);
  const auto where = [&section, index] {
    return sectionLabel(index, section.name);
  };
  // Each note takes 12 bytes at least: one allocation for all of them.
  elf.intelgt_notes.reserve(elf.intelgt_notes.size() + in.size() / 12);
  uint64_t at = 0;
  while (at < in.size()) {
    if (!in.fits(at, 12)) {
      return Error(where() + ": truncated note header at offset " + hex(at));
    }
    const uint64_t name_size = in.u32(static_cast<size_t>(at));
    const uint64_t desc_size = in.u32(static_cast<size_t>(at + 4));
    Note note;
    note.type = in.u32(static_cast<size_t>(at + 8));
    const uint64_t name_at = at + 12;
    const uint64_t desc_at = name_at + ((name_size + 3) & ~uint64_t{3});
    const uint64_t next = desc_at + ((desc_size + 3) & ~uint64_t{3});
    if (!in.fits(name_at, name_size) || !in.fits(desc_at, desc_size)) {
      return Error(
          where() + ": note at offset " + hex(at) +
          " runs past the end of the section");
    }
    std::string_view owner = in.slice(name_at, name_size);
    while (!owner.empty() && owner.back() == '\0') {
      owner.remove_suffix(1);
    }
    note.owner = owner;
    note.desc = in.slice(desc_at, desc_size);
    elf.intelgt_notes.push_back(note);
    at = next;
  }
  return Status::success();
}

} // namespace

const Section* ElfView::findSection(std::string_view name) const {
  for (const Section& section : sections) {
    if (section.name == name) {
      return &section;
    }
  }
  return nullptr;
}

const Section* ElfView::findSectionByType(uint32_t type) const {
  for (const Section& section : sections) {
    if (section.type == type) {
      return &section;
    }
  }
  return nullptr;
}

uint32_t ElfView::noteValue(uint32_t type) const {
  for (const Note& note : intelgt_notes) {
    if (note.owner == "IntelGT" && note.type == type && note.desc.size() >= 4) {
      uint32_t value = 0;
      for (size_t i = 4; i-- > 0;) {
        value = (value << 8) | static_cast<unsigned char>(note.desc[i]);
      }
      return value;
    }
  }
  return 0;
}

Expected<ElfView> readElf(std::string_view bytes) {
  const ByteReader in(bytes);
  if (in.size() < 4 ||
      bytes.substr(0, 4) !=
          std::string_view(
              "\x7f"
              "ELF",
              4)) {
    return Error(
        "not an ELF file (no \\x7fELF magic); a zebin is an ELF "
        "written by ocloc or the GPU driver");
  }
  if (in.size() < kElfHeaderSize) {
    return Error(
        "truncated ELF header: the file has " + std::to_string(in.size()) +
        " bytes, the header needs 64");
  }
  if (in.u8(4) != 2) {
    return Error(
        "ELF class " + std::to_string(in.u8(4)) +
        " is not ELFCLASS64; a zebin is a 64-bit ELF");
  }
  if (in.u8(5) != 1) {
    return Error(
        "ELF data encoding " + std::to_string(in.u8(5)) +
        " is not little-endian; a zebin is little-endian");
  }
  ElfView elf;
  elf.elf_type = in.u16(16);
  elf.machine = in.u16(18);
  elf.flags = in.u32(48);
  if (elf.elf_type == kElfTypeLegacyPatchTokens) {
    return Error(
        "is a legacy patch-token binary (e_type 0xff04), not a zebin; "
        "rebuild with `ocloc ... -internal_options -ze-allow-zebin` "
        "(ocloc 22.x) or a newer ocloc, which writes zebin by default");
  }
  if (elf.machine != kMachineIntelGT) {
    return Error(
        "e_machine is " + std::to_string(elf.machine) +
        ", not Intel GT (205): this ELF is not an Intel GPU binary");
  }
  if (elf.elf_type != kElfTypeRelocatable && elf.elf_type != kElfTypeZebinExe) {
    return Error(
        "e_type " + hex(elf.elf_type) +
        " is not a zebin type (ET_REL or 0xff12)");
  }
  const uint64_t section_table = in.u64(40);
  const uint16_t entry_size = in.u16(58);
  uint64_t count = in.u16(60);
  uint64_t names_index = in.u16(62);
  if (section_table == 0) {
    return Error("the ELF has no section table (e_shoff is 0)");
  }
  if (entry_size != kSectionHeaderSize) {
    return Error(
        "section header size e_shentsize is " + std::to_string(entry_size) +
        ", expected 64");
  }
  if (!in.fits(section_table, kSectionHeaderSize)) {
    return Error(
        "section table offset " + hex(section_table) +
        " is past the end of the file (" + std::to_string(in.size()) +
        " bytes); the file is truncated");
  }
  // Extended numbering: counts too large for the header live in section 0.
  const RawSection first =
      readSectionHeader(in, static_cast<size_t>(section_table));
  if (count == 0) {
    count = first.size;
  }
  if (names_index == kShnXindex) {
    names_index = first.link;
  }
  if (count == 0 || count > (in.size() - section_table) / kSectionHeaderSize) {
    return Error(
        "section table (" + std::to_string(count) + " entries at offset " +
        hex(section_table) + ") does not fit in the file (" +
        std::to_string(in.size()) +
        " bytes); the file is truncated or corrupt");
  }
  if (names_index == 0 || names_index >= count) {
    return Error(
        "e_shstrndx " + std::to_string(names_index) +
        " is not a valid section index (the file has " + std::to_string(count) +
        " sections)");
  }

  std::vector<RawSection> raw;
  raw.reserve(static_cast<size_t>(count));
  for (uint64_t i = 0; i < count; ++i) {
    raw.push_back(readSectionHeader(
        in, static_cast<size_t>(section_table + i * kSectionHeaderSize)));
    const RawSection& s = raw.back();
    if (s.type != kShtNobits && !in.fits(s.offset, s.size)) {
      return Error(
          "section " + std::to_string(i) + ": data (offset " + hex(s.offset) +
          ", size " + hex(s.size) + ") lies outside the file (" +
          std::to_string(in.size()) + " bytes)");
    }
  }
  const RawSection& names = raw[static_cast<size_t>(names_index)];
  if (names.type != kShtStrtab) {
    return Error(
        "e_shstrndx " + std::to_string(names_index) +
        " points at a section that is not a string table");
  }
  const std::string_view name_table = in.slice(names.offset, names.size);

  elf.sections.reserve(raw.size());
  for (size_t i = 0; i < raw.size(); ++i) {
    Section section;
    section.type = raw[i].type;
    section.flags = raw[i].flags;
    section.file_offset = raw[i].offset;
    if (i != 0) {
      Expected<std::string_view> name = stringAt(name_table, raw[i].name);
      if (!name) {
        return name.error().withContext("section " + std::to_string(i));
      }
      section.name = *name;
    }
    if (raw[i].type != kShtNobits && i != 0) {
      section.data = in.slice(raw[i].offset, raw[i].size);
    }
    elf.sections.push_back(section);
  }
  for (size_t i = 1; i < elf.sections.size(); ++i) {
    const Section& section = elf.sections[i];
    if (section.type == kShtSymtab) {
      Status symbols = readSymbols(raw, elf, i);
      if (!symbols) {
        return symbols.error();
      }
    } else if (
        section.type == kShtNote && section.name == ".note.intelgt.compat") {
      Status notes = readNotes(section, i, elf);
      if (!notes) {
        return notes.error();
      }
    }
  }
  return elf;
}

} // namespace zebin
} // namespace xsl
