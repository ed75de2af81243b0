// libFuzzer target for the zebin reader: any bytes must give a Zebin or an
// Error, never a crash, an out-of-bounds read (ASan) or UB (UBSan). The
// same input also goes straight to the .ze_info parser, because mutations
// of a whole ELF rarely reach deep into the YAML.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "zebin/zebin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  xsl::Expected<xsl::zebin::Zebin> zebin = xsl::zebin::readZebin(bytes);
  if (zebin) {
    // Touch what callers use, so lifetime bugs surface here.
    size_t total = zebin->ze_info.kernelNames().size();
    for (const xsl::zebin::Section& section : zebin->elf.sections) {
      total += section.data.empty()
          ? 0
          : static_cast<unsigned char>(section.data[0]);
    }
    for (const xsl::zebin::Note& note : zebin->elf.intelgt_notes) {
      total += note.desc.size();
    }
    (void)total;
  } else if (zebin.error().message().empty()) {
    __builtin_trap(); // every error must say something
  }
  xsl::Expected<xsl::zebin::ZeInfo> info = xsl::zebin::parseZeInfo(bytes);
  if (info) {
    for (const xsl::zebin::KernelInfo& kernel : info->kernels) {
      if (kernel.user_arguments.size() > 4096) {
        __builtin_trap(); // kMaxArgIndex bounds the argument list
      }
    }
  }
  return 0;
}
