// libFuzzer target for the zebin reader: any bytes must give a Zebin or an
// Error, never a crash, an out-of-bounds read (ASan) or UB (UBSan). ELF
// inputs go through readZebin; anything else straight to the .ze_info
// parser (the seeds include each corpus file's .ze_info text), because
// mutations of a whole ELF rarely reach deep into the YAML.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ze_info_equal.h"
#include "zebin/zebin.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (bytes.substr(0, 4) !=
      std::string_view(
          "\x7f"
          "ELF",
          4)) {
    xsl::Expected<xsl::zebin::ZeInfo> full = xsl::zebin::parseZeInfo(bytes);
    // kLaunch: the same read without the per-entry lists, or the same error.
    if (!xsl::zebin::testing::launchDifference(
             full,
             xsl::zebin::parseZeInfo(bytes, xsl::zebin::ZeInfoDetail::kLaunch))
             .empty()) {
      __builtin_trap();
    }
    xsl::Expected<xsl::zebin::ZeInfo> fast = xsl::zebin::parseZeInfo(
        bytes, xsl::zebin::ZeInfoDetail::kExecutionOnly);
    if (!full) {
      return 0;
    }
    // The fast path reads a subset: whatever the full read accepts, it must
    // accept too, with the same execution values.
    if (!fast || fast->kernels.size() != full->kernels.size()) {
      __builtin_trap();
    }
    for (size_t i = 0; i < full->kernels.size(); ++i) {
      const xsl::zebin::KernelInfo& a = full->kernels[i];
      const xsl::zebin::KernelInfo& b = fast->kernels[i];
      if (a.user_arguments.size() > 4096 || a.name != b.name ||
          a.spill_bytes != b.spill_bytes ||
          a.execution_env.grf_count != b.execution_env.grf_count ||
          a.threads_per_warp != b.threads_per_warp) {
        __builtin_trap();
      }
    }
    return 0;
  }
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
  return 0;
}
