#pragma once

// Reading kernel binaries from UTF-8 paths on every platform.
//
// Windows: the path is converted with MultiByteToWideChar(CP_UTF8) and opened
// with the wide API, so non-ASCII user names work whatever the ANSI code page
// is; absolute paths of 260 characters or more get the `\\?\` prefix (after
// turning `/` into `\`), so long Inductor/Triton cache paths open without
// LongPathsEnabled. Elsewhere the bytes of the path are used as they are.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace xsl {
namespace file_io {

// Larger files are refused before reading: no kernel binary comes close, and
// a wrong path (a disk image, /dev/zero) must fail with a message, not by
// exhausting memory.
constexpr unsigned long long kMaxKernelBinaryBytes = 1ull << 30; // 1 GiB
constexpr size_t kWholeFile = static_cast<size_t>(-1);

// The whole file as bytes. Only regular files are read (a FIFO or device
// path fails at once instead of blocking or reading forever). Missing,
// unreadable, directory, non-regular, oversized and empty paths, and paths
// with a NUL character, each get their own message naming the path.
Expected<std::string> readFileBytes(const std::string& utf8_path);

// readFileBytes into `bytes`, replacing its content but reusing its memory:
// a caller that reads many files in turn into one buffer allocates (and
// faults in fresh pages) only when a file is larger than any before it.
// On error the content of `bytes` is unspecified.
// With `at_most`, only the file's first `at_most` bytes (all of a shorter
// file): a header read without the rest.
Status readFileInto(
    const std::string& utf8_path,
    std::string& bytes,
    size_t at_most = kWholeFile);

// Writes (creates or truncates) a file; used by tests and tools that must
// create files under the same path rules.
Status writeFileBytes(const std::string& utf8_path, std::string_view bytes);

// Writes `bytes` to a new file beside `utf8_path` and moves it over
// `utf8_path` in one step (Windows: MoveFileExW with
// MOVEFILE_REPLACE_EXISTING; elsewhere rename): a reader opens either the
// old file or the new one whole, never a part, however many processes write
// the same path at once.
Status replaceFile(const std::string& utf8_path, std::string_view bytes);

// Creates the folder and every missing parent; an existing folder is fine.
Status makeDirectories(const std::string& utf8_path);

// A regular file in a folder: its name, size, and last write time (in the
// platform's own units: only its order means anything).
struct DirectoryEntry {
  std::string name;
  uint64_t size = 0;
  int64_t modified = 0;
};

// The regular files of `utf8_dir`; none when the folder does not exist.
Expected<std::vector<DirectoryEntry>> listFiles(const std::string& utf8_dir);

// Removes a file; one that does not exist is not an error.
Status removeFile(const std::string& utf8_path);

#ifdef _WIN32
// The wide path readFileBytes opens: UTF-8 decoded, and for absolute paths of
// MAX_PATH (260) characters or more, slashes normalised and `\\?\` (or
// `\\?\UNC\` for `\\server\share`) prepended. Invalid UTF-8 is an error.
Expected<std::wstring> toWindowsPath(const std::string& utf8_path);
#endif

} // namespace file_io
} // namespace xsl
