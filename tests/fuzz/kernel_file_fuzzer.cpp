// libFuzzer target for what a load reads before the driver sees a byte: the
// format check (zebin, SPIR-V, or one error), the SPIR-V module check and the
// kept native binary's entries. Any bytes must give an answer, never a crash or
// an out-of-bounds read (ASan) or UB (UBSan); an entry made for a key must give
// back exactly its binary for that key, and nothing for any other key or after
// any change of one byte.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "launcher/native_binary_cache.h"
#include "zebin/zebin.h"

namespace {

using xsl::launcher::NativeBinaryCache;
using xsl::launcher::NativeBinaryKey;

void check(bool holds) {
  if (!holds) {
    __builtin_trap();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto format = xsl::zebin::binaryFormat(bytes, "input");
  check(format.ok() || format.error().message().rfind("input: ", 0) == 0);
  if (format.ok() && *format == xsl::zebin::BinaryFormat::kSpirv) {
    check(size >= 4);
    // What reaches the driver: checked word by word, never read past.
    xsl::Status spirv = xsl::zebin::checkSpirv(bytes, "input");
    check(spirv.ok() || spirv.error().message().rfind("input: ", 0) == 0);
    check(!spirv.ok() || (size % 4 == 0 && size >= 24));
  }

  // The input as an entry, for a key made from its own bytes.
  NativeBinaryKey key;
  key.spirv = bytes.substr(0, size / 2);
  key.build_flags = bytes.substr(size / 2, size / 4);
  key.ip_version = size >= 4 ? static_cast<uint32_t>(data[0]) << 22 : 0;
  key.driver_version = static_cast<uint32_t>(size);
  std::string problem;
  auto found = NativeBinaryCache::entryBinary(bytes, key, &problem);
  check(found.has_value() || !problem.empty());
  if (found) {
    check(found->size() <= size);
  }

  // An entry made for that key: exactly its binary back, for that key only.
  std::string native =
      "\x7f"
      "ELF";
  native.append(bytes.substr(size / 2 + size / 4));
  const std::string entry = NativeBinaryCache::entryBytes(key, native);
  auto back = NativeBinaryCache::entryBinary(entry, key, nullptr);
  check(back.has_value() && *back == native);
  NativeBinaryKey other = key;
  other.driver_version ^= 1;
  check(!NativeBinaryCache::entryBinary(entry, other, nullptr).has_value());
  if (size > 0) {
    std::string changed = entry;
    const size_t at = static_cast<size_t>(data[0]) * 131 % changed.size();
    changed[at] = static_cast<char>(changed[at] ^ 0x5a);
    auto mutated = NativeBinaryCache::entryBinary(changed, key, nullptr);
    // A changed byte never yields another binary for the same key (a change
    // in the SPIR-V or flags makes it another key's entry; in the binary, a
    // checksum mismatch).
    check(!mutated.has_value() || *mutated == native);
  }
  return 0;
}
