#include "launcher/native_binary_cache.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "common/content_hash.h"
#include "common/platform.h"
#include "file_io/file_io.h"

namespace xsl {
namespace launcher {
namespace {

// An environment variable as UTF-8 (the wide environment on Windows, so a
// non-ASCII user profile survives any code page); empty when unset.
std::string environmentVariable(const char* name) {
  return platform::getEnvUtf8(name).value_or(std::string());
}

// Entry layout (little-endian): magic; ip_version, driver_version (u32);
// the sizes of the flags, the SPIR-V and the native binary, the SPIR-V's
// contentHash128 (low, high), the native binary's contentChecksum and the
// RetryOutcome (u64 each); then the flags and the native binary. No single
// flipped bit turns one known outcome into another (0, 1, 2; 3 is corrupt).
constexpr char kMagic[8] = {'X', 'S', 'L', 'N', 'B', 'I', 'N', '3'};
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 7 * 8;
constexpr const char* kEntrySuffix = ".xslnb";
constexpr const char* kTemporarySuffix = ".tmp";
constexpr uint64_t kDefaultMaxBytes = uint64_t{1024} << 20;

void put32(std::string& out, uint32_t value) {
  for (int i = 0; i < 4; ++i) {
    out += static_cast<char>((value >> (8 * i)) & 0xffu);
  }
}

void put64(std::string& out, uint64_t value) {
  for (int i = 0; i < 8; ++i) {
    out += static_cast<char>((value >> (8 * i)) & 0xffu);
  }
}

uint64_t get(std::string_view bytes, size_t offset, int width) {
  uint64_t value = 0;
  for (int i = width - 1; i >= 0; --i) {
    value = (value << 8) |
        static_cast<unsigned char>(bytes[offset + static_cast<size_t>(i)]);
  }
  return value;
}

// Whether `entry` (its header and flags at least) is `key`'s.
bool isEntryOf(
    std::string_view entry,
    const NativeBinaryKey& key,
    const Hash128& spirv_hash) {
  return entry.size() >= kHeaderBytes &&
      std::memcmp(entry.data(), kMagic, sizeof(kMagic)) == 0 &&
      get(entry, 8, 4) == key.ip_version &&
      get(entry, 12, 4) == key.driver_version &&
      get(entry, 24, 8) == key.spirv.size() &&
      get(entry, 40, 8) == spirv_hash.low &&
      get(entry, 48, 8) == spirv_hash.high &&
      entry.substr(kHeaderBytes, get(entry, 16, 8)) == key.build_flags;
}

bool endsWith(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string joinPath(const std::string& folder, const std::string& name) {
#ifdef _WIN32
  const char separator = '\\';
#else
  const char separator = '/';
#endif
  if (!folder.empty() && (folder.back() == '/' || folder.back() == '\\')) {
    return folder + name;
  }
  return folder + separator + name;
}

} // namespace

NativeBinaryCache::Settings NativeBinaryCache::settingsFromEnvironment() {
  Settings settings;
  std::string switch_value = environmentVariable("XSL_KERNEL_CACHE");
  for (char& c : switch_value) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (switch_value == "0" || switch_value == "off" || switch_value == "false" ||
      switch_value == "no") {
    settings.disabled_why = "XSL_KERNEL_CACHE=" + switch_value;
    return settings;
  }
  settings.folder = environmentVariable("XSL_KERNEL_CACHE_DIR");
  if (settings.folder.empty()) {
#ifdef _WIN32
    const std::string base = environmentVariable("LOCALAPPDATA");
    if (!base.empty()) {
      settings.folder = joinPath(base, "xpu_static_launcher");
    }
#else
    std::string base = environmentVariable("XDG_CACHE_HOME");
    if (base.empty()) {
      const std::string home = environmentVariable("HOME");
      if (!home.empty()) {
        base = joinPath(home, ".cache");
      }
    }
    if (!base.empty()) {
      settings.folder = joinPath(base, "xpu_static_launcher");
    }
#endif
  }
  if (settings.folder.empty()) {
    settings.disabled_why =
        "no folder: set XSL_KERNEL_CACHE_DIR (no LOCALAPPDATA, "
        "XDG_CACHE_HOME or HOME)";
    return settings;
  }
  settings.max_bytes = kDefaultMaxBytes;
  const std::string max_mb = environmentVariable("XSL_KERNEL_CACHE_MAX_MB");
  if (!max_mb.empty()) {
    uint64_t value = 0;
    bool digits = max_mb.size() <= 12;
    for (char c : max_mb) {
      digits = digits && std::isdigit(static_cast<unsigned char>(c)) != 0;
      value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    if (digits) {
      settings.max_bytes = value << 20;
    }
  }
  settings.enabled = true;
  return settings;
}

std::string NativeBinaryCache::entryBytes(
    const NativeBinaryKey& key,
    const Hash128& spirv_hash,
    std::string_view native,
    RetryOutcome retry) {
  std::string entry;
  entry.reserve(kHeaderBytes + key.build_flags.size() + native.size());
  entry.append(kMagic, sizeof(kMagic));
  put32(entry, key.ip_version);
  put32(entry, key.driver_version);
  put64(entry, key.build_flags.size());
  put64(entry, key.spirv.size());
  put64(entry, native.size());
  put64(entry, spirv_hash.low);
  put64(entry, spirv_hash.high);
  put64(entry, contentChecksum(native));
  put64(entry, static_cast<uint64_t>(retry));
  entry.append(key.build_flags.data(), key.build_flags.size());
  entry.append(native.data(), native.size());
  return entry;
}

std::optional<std::string_view> NativeBinaryCache::entryBinary(
    std::string_view entry,
    const NativeBinaryKey& key,
    const Hash128& spirv_hash,
    std::string* problem,
    RetryOutcome* retry) {
  const auto refuse = [problem](std::string why) {
    if (problem != nullptr) {
      *problem = std::move(why);
    }
    return std::optional<std::string_view>();
  };
  if (entry.size() < kHeaderBytes ||
      std::memcmp(entry.data(), kMagic, sizeof(kMagic)) != 0) {
    return refuse(
        "not an entry of this cache (" + std::to_string(entry.size()) +
        " bytes)");
  }
  const uint64_t flags_size = get(entry, 16, 8);
  const uint64_t native_size = get(entry, 32, 8);
  const uint64_t body = entry.size() - kHeaderBytes;
  if (flags_size > body || native_size != body - flags_size) {
    return refuse(
        "truncated or padded (" + std::to_string(entry.size()) + " bytes)");
  }
  if (!isEntryOf(entry, key, spirv_hash)) {
    return refuse("kept for another kernel, device, driver or build flags");
  }
  const std::string_view native = entry.substr(kHeaderBytes + flags_size);
  if (contentChecksum(native) != get(entry, 56, 8) || native.size() < 4 ||
      native.compare(
          0,
          4,
          "\x7f"
          "ELF") != 0) {
    return refuse("corrupt (its native binary does not match its checksum)");
  }
  const uint64_t outcome = get(entry, 64, 8);
  if (outcome > static_cast<uint64_t>(RetryOutcome::kFailed)) {
    return refuse("corrupt (retry outcome " + std::to_string(outcome) + ")");
  }
  if (retry != nullptr) {
    *retry = static_cast<RetryOutcome>(outcome);
  }
  return native;
}

const NativeBinaryCache& NativeBinaryCache::process() {
  // Never destroyed: loads may run while the process exits.
  static const NativeBinaryCache* const cache =
      new NativeBinaryCache(settingsFromEnvironment());
  return *cache;
}

NativeBinaryCache::Lookup NativeBinaryCache::locate(
    const NativeBinaryKey& key,
    const Hash128& spirv_hash) const {
  Lookup lookup;
  lookup.spirv_hash = spirv_hash;
  // On every warm load, so no formatting (0.35 -> 0.23 us a call).
  char ids[24];
  const uint64_t words[] = {
      spirv_hash.low,
      spirv_hash.high,
      key.ip_version | (uint64_t{key.driver_version} << 32)};
  for (size_t i = 0; i < sizeof(ids); ++i) {
    ids[i] = static_cast<char>((words[i / 8] >> (8 * (i % 8))) & 0xffu);
  }
  const uint64_t hash = contentHash(
      key.build_flags, contentHash(std::string_view(ids, sizeof(ids))));
  std::string name(16, '0');
  for (size_t i = 0; i < 16; ++i) {
    name[i] = "0123456789abcdef"[(hash >> (60 - 4 * i)) & 0xfu];
  }
  lookup.path = joinPath(settings_.folder, name + kEntrySuffix);
  return lookup;
}

std::optional<std::string_view> NativeBinaryCache::find(
    const NativeBinaryKey& key,
    const Lookup& lookup,
    std::string& buffer,
    std::string* warning,
    RetryOutcome* retry) const {
  if (!enabled()) {
    return std::nullopt;
  }
  Status read = file_io::readFileInto(lookup.path, buffer);
  if (!read) {
    // A miss is the usual case; anything else is worth a word.
    if (read.error().message().find("not found") == std::string::npos &&
        warning != nullptr) {
      *warning = "ignored the kept native binary: " + read.error().message();
    }
    return std::nullopt;
  }
  std::string problem;
  if (std::optional<std::string_view> native =
          entryBinary(buffer, key, lookup.spirv_hash, &problem, retry)) {
    return native;
  }
  if (warning != nullptr) {
    *warning = "ignored the kept native binary '" + lookup.path +
        "': " + problem +
        "; the SPIR-V is compiled again and the entry replaced";
  }
  static_cast<void>(file_io::removeFile(lookup.path));
  return std::nullopt;
}

std::optional<std::string> NativeBinaryCache::find(
    const NativeBinaryKey& key,
    std::string* warning) const {
  std::string buffer;
  std::optional<std::string_view> native =
      find(key, locate(key), buffer, warning);
  if (!native) {
    return std::nullopt;
  }
  return std::string(*native);
}

void NativeBinaryCache::keep(
    const NativeBinaryKey& key,
    const Lookup& lookup,
    std::string_view native,
    std::string* warning,
    RetryOutcome retry) const {
  if (!enabled()) {
    return;
  }
  const std::string entry = entryBytes(key, lookup.spirv_hash, native, retry);
  Status made = file_io::makeDirectories(settings_.folder);
  if (made) {
    made = file_io::replaceFile(lookup.path, entry);
  }
  if (!made) {
    if (warning != nullptr) {
      *warning =
          "could not keep the native binary (it is compiled again in "
          "the next process): " +
          made.error().message() +
          "; set XSL_KERNEL_CACHE_DIR to a writable folder, or "
          "XSL_KERNEL_CACHE=0";
    }
    return;
  }
  trim();
}

Expected<NativeBinaryCache::Usage> NativeBinaryCache::usage() const {
  Usage usage;
  auto files = file_io::listFiles(settings_.folder);
  if (!files) {
    return files.error();
  }
  for (const file_io::DirectoryEntry& file : *files) {
    if (endsWith(file.name, kEntrySuffix)) {
      ++usage.entries;
      usage.bytes += file.size;
    }
  }
  return usage;
}

Expected<uint64_t> NativeBinaryCache::clear() const {
  auto files = file_io::listFiles(settings_.folder);
  if (!files) {
    return files.error();
  }
  uint64_t removed = 0;
  for (const file_io::DirectoryEntry& file : *files) {
    if (endsWith(file.name, kEntrySuffix) ||
        endsWith(file.name, kTemporarySuffix)) {
      Status gone = file_io::removeFile(joinPath(settings_.folder, file.name));
      if (!gone) {
        return gone.error();
      }
      removed += endsWith(file.name, kEntrySuffix) ? 1 : 0;
    }
  }
  return removed;
}

void NativeBinaryCache::trim() const {
  if (settings_.max_bytes == 0) {
    return;
  }
  auto files = file_io::listFiles(settings_.folder);
  if (!files) {
    return;
  }
  std::vector<file_io::DirectoryEntry> entries;
  uint64_t total = 0;
  for (file_io::DirectoryEntry& file : *files) {
    if (endsWith(file.name, kEntrySuffix)) {
      total += file.size;
      entries.push_back(std::move(file));
    }
  }
  if (total <= settings_.max_bytes) {
    return;
  }
  std::sort(
      entries.begin(),
      entries.end(),
      [](const file_io::DirectoryEntry& a, const file_io::DirectoryEntry& b) {
        return a.modified < b.modified;
      });
  // Down to 90% of the bound, so the next entries do not trim again at once.
  const uint64_t target = settings_.max_bytes - settings_.max_bytes / 10;
  for (const file_io::DirectoryEntry& entry : entries) {
    if (total <= target) {
      break;
    }
    if (file_io::removeFile(joinPath(settings_.folder, entry.name))) {
      total -= entry.size;
    }
  }
}

} // namespace launcher
} // namespace xsl
