#pragma once

// Kept native binaries: the zebin the GPU driver compiled from a kernel's
// SPIR-V (zeModuleGetNativeBinary), so a later process loads it instead of
// compiling the SPIR-V again.
//
// An entry is found by a hash of its key and holds the key itself: a
// 128-bit hash and the size of the SPIR-V, the build flags, the device's IP
// version and the driver version. A lookup compares all of it, so another
// GPU, another driver, other flags or other SPIR-V never load a stale
// binary, and checks the binary's checksum, so a truncated or corrupt entry
// is ignored (one warning, the entry removed) and compiled again. Entries are
// written to a temporary file and moved into place in one step
// (file_io::replaceFile: Windows replace semantics), so concurrent compile and
// autotune processes never see a partial entry. File names are 16 hex digits
// and a suffix, to keep paths short.
//
// Settings, read from the environment once per process (docs/launcher.md):
//   XSL_KERNEL_CACHE=0             off
//   XSL_KERNEL_CACHE_DIR=<folder>  where entries go (default: Windows
//       %LOCALAPPDATA%\xpu_static_launcher, else
//       $XDG_CACHE_HOME/xpu_static_launcher or ~/.cache/xpu_static_launcher)
//   XSL_KERNEL_CACHE_MAX_MB=<n>    bound; oldest entries go first (default
//       1024; 0: no bound)
// `python -m xpu_static_launcher cache --clear` empties it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/content_hash.h"
#include "common/expected.h"

namespace xsl {
namespace launcher {

// What Triton-XPU's large-GRF retry of a build (triton_metadata.h) did,
// kept in that build's entry: a warm load then neither reads the retry's
// entry nor compiles again a retry that failed.
enum class RetryOutcome : uint8_t { kUnknown = 0, kBuilt = 1, kFailed = 2 };

struct NativeBinaryKey {
  std::string_view spirv;
  std::string_view build_flags;
  uint32_t ip_version = 0;
  uint32_t driver_version = 0;
};

class NativeBinaryCache {
 public:
  struct Settings {
    bool enabled = false;
    std::string folder;
    uint64_t max_bytes = 0;   // 0: no bound
    std::string disabled_why; // when not enabled
  };

  // The settings the environment gives (see above).
  static Settings settingsFromEnvironment();
  // The process-wide cache, with settingsFromEnvironment() at first use.
  static const NativeBinaryCache& process();

  explicit NativeBinaryCache(Settings settings)
      : settings_(std::move(settings)) {}

  const Settings& settings() const noexcept {
    return settings_;
  }
  bool enabled() const noexcept {
    return settings_.enabled;
  }

  // Where `key`'s entry is: its file and the SPIR-V's hash (given when
  // known: one pass over the SPIR-V per load).
  struct Lookup {
    std::string path;
    Hash128 spirv_hash;
  };
  Lookup locate(const NativeBinaryKey& key, const Hash128& spirv_hash) const;
  Lookup locate(const NativeBinaryKey& key) const {
    return locate(key, contentHash128(key.spirv));
  }
  std::string entryPath(const NativeBinaryKey& key) const {
    return locate(key).path;
  }

  // The kept native binary for `key`, read into `buffer`, or nullopt; the
  // retry outcome its entry records goes to `retry`. A bad entry is removed
  // and says why in `warning` (a missing one is a plain miss).
  std::optional<std::string_view> find(
      const NativeBinaryKey& key,
      const Lookup& lookup,
      std::string& buffer,
      std::string* warning,
      RetryOutcome* retry = nullptr) const;
  std::optional<std::string> find(
      const NativeBinaryKey& key,
      std::string* warning) const;

  // Keeps `native` for `key`, then trims the folder to max_bytes. A failure
  // is only a warning: keeping a binary must never fail a load.
  void keep(
      const NativeBinaryKey& key,
      const Lookup& lookup,
      std::string_view native,
      std::string* warning,
      RetryOutcome retry = RetryOutcome::kUnknown) const;
  void keep(
      const NativeBinaryKey& key,
      std::string_view native,
      std::string* warning) const {
    keep(key, locate(key), native, warning);
  }

  // An entry's bytes: the key, the native binary's checksum, the retry
  // outcome, then the native binary.
  static std::string entryBytes(
      const NativeBinaryKey& key,
      const Hash128& spirv_hash,
      std::string_view native,
      RetryOutcome retry = RetryOutcome::kUnknown);
  static std::string entryBytes(
      const NativeBinaryKey& key,
      std::string_view native,
      RetryOutcome retry = RetryOutcome::kUnknown) {
    return entryBytes(key, contentHash128(key.spirv), native, retry);
  }
  // The native binary an entry holds for `key` (and in `retry` its retry
  // outcome), or nullopt with why not in `problem` (another key, truncated,
  // corrupt, not an entry). Reads only inside `entry`, whatever it holds.
  static std::optional<std::string_view> entryBinary(
      std::string_view entry,
      const NativeBinaryKey& key,
      const Hash128& spirv_hash,
      std::string* problem,
      RetryOutcome* retry = nullptr);
  static std::optional<std::string_view> entryBinary(
      std::string_view entry,
      const NativeBinaryKey& key,
      std::string* problem) {
    return entryBinary(entry, key, contentHash128(key.spirv), problem);
  }

  struct Usage {
    uint64_t entries = 0;
    uint64_t bytes = 0;
  };
  Expected<Usage> usage() const;
  // Removes every entry (and stale temporary files); returns how many.
  Expected<uint64_t> clear() const;

 private:
  void trim() const;
  Settings settings_;
};

} // namespace launcher
} // namespace xsl
