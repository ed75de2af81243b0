#pragma once

// The few OS services the ocloc module needs, behind one small interface:
// environment variables as UTF-8, a private temporary folder, running a
// program with its output captured, and loading a shared library.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"

namespace xsl {
namespace ocloc {

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

// A shared library loaded at run time: dlopen(RTLD_NOW | RTLD_LOCAL) or
// LoadLibraryExW with LOAD_WITH_ALTERED_SEARCH_PATH, so the IGC and
// opencl-clang DLLs next to ocloc64.dll are the ones found.
class DynamicLibrary {
 public:
  static Expected<std::unique_ptr<DynamicLibrary>> open(
      const std::string& path);
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

Status writeFile(const std::string& path, const std::string& bytes);
Expected<std::string> readFile(const std::string& path);

} // namespace ocloc
} // namespace xsl
