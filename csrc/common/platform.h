#pragma once

// The project's one platform layer: UTF-8 <-> UTF-16 on Windows, environment
// variables as UTF-8, a private temporary folder, running a program with its
// output captured, and loading a shared library. Files are read and written
// by file_io (long paths, `\\?\`), which builds on this.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"

namespace xsl {
namespace platform {

#ifdef _WIN32
// UTF-8 -> UTF-16; nullopt for bytes that are not UTF-8. Empty stays empty.
std::optional<std::wstring> widen(std::string_view utf8);
// UTF-16 -> UTF-8 (unpaired surrogates become U+FFFD).
std::string narrow(std::wstring_view wide);
// GetLastError() as "Windows error <n> (<its message>)".
std::string lastErrorText();
#endif

// The variable's value as UTF-8 (wide API on Windows), or nullopt if unset.
std::optional<std::string> getEnvUtf8(const std::string& name);

// A fresh folder under the system temporary folder, removed with everything
// in it when the object dies.
class TempDir {
 public:
  static Expected<TempDir> create();
  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::string& path() const {
    return path_;
  }

 private:
  explicit TempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

struct ProcessResult {
  // Exited normally: exit_code is the status (on Windows the 32-bit exit
  // code reinterpreted as signed, so ocloc's -5152 reads as -5152).
  // Killed by a signal (POSIX): signal_number > 0.
  int64_t exit_code = 0;
  int signal_number = 0;
  std::string output; // stdout and stderr interleaved
};

// Runs `argv[0]` (a path, not searched) with `argv` in `working_dir`.
Expected<ProcessResult> runProcess(
    const std::vector<std::string>& argv,
    const std::string& working_dir);

// Where Windows looks for a library and its dependencies (dlopen(RTLD_NOW |
// RTLD_LOCAL) elsewhere, either way).
enum class LibrarySearch {
  // LOAD_WITH_ALTERED_SEARCH_PATH: the DLLs next to the library first (ocloc:
  // IGC and opencl-clang beside ocloc64.dll).
  kNextToIt,
  // A bare name from System32 only, never the working or application folder
  // or PATH (LOAD_LIBRARY_SEARCH_SYSTEM32); a path as kNextToIt.
  kSystemForBareNames,
};

// A shared library loaded at run time, unloaded with the object. An error
// says "cannot load <path>: <the system's reason>".
class DynamicLibrary {
 public:
  static Expected<std::unique_ptr<DynamicLibrary>> open(
      const std::string& path,
      LibrarySearch search = LibrarySearch::kNextToIt);
  ~DynamicLibrary();
  DynamicLibrary(const DynamicLibrary&) = delete;
  DynamicLibrary& operator=(const DynamicLibrary&) = delete;

  // nullptr if the library has no such export.
  void* symbol(const char* name) const;
  const std::string& path() const {
    return path_;
  }

 private:
  DynamicLibrary(void* handle, std::string path)
      : handle_(handle), path_(std::move(path)) {}
  void* handle_;
  std::string path_;
};

} // namespace platform
} // namespace xsl
