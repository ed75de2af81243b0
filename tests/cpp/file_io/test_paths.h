#pragma once

// Paths for tests that run on Linux and, cross-built, under wine: ctest hands
// Linux paths (XSL_BINARY_DIR, ...) to both, and wine sees the Linux root as
// drive Z:.

#include <cerrno>
#include <cstdlib>
#include <string>

#ifdef _WIN32
#include <windows.h>
#else
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#endif

#include "file_io/file_io.h"

namespace xsl {
namespace test_paths {

// A path from the environment, as this process must spell it; empty if the
// variable is not set.
inline std::string fromEnvironment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr) {
    return std::string();
  }
  std::string path(value);
#ifdef _WIN32
  if (!path.empty() && path[0] == '/') {
    path = "Z:" + path;
  }
#endif
  return path;
}

inline std::string binaryDir() {
  return fromEnvironment("XSL_BINARY_DIR");
}

// A zebin of the generated corpus (tests/kernels/make_corpus.py).
inline std::string corpusFile(const std::string& name) {
  return binaryDir() + "/corpus/" + name;
}

inline int processId() {
#ifdef _WIN32
  return static_cast<int>(GetCurrentProcessId());
#else
  return static_cast<int>(getpid());
#endif
}

// Creates one directory level (UTF-8, long paths allowed); true if it exists
// afterwards.
inline bool makeDirectory(const std::string& utf8_path) {
#ifdef _WIN32
  Expected<std::wstring> wide = file_io::toWindowsPath(utf8_path);
  if (!wide) {
    return false;
  }
  if (CreateDirectoryW(wide->c_str(), nullptr)) {
    return true;
  }
  return GetLastError() == ERROR_ALREADY_EXISTS;
#else
  return mkdir(utf8_path.c_str(), 0755) == 0 || errno == EEXIST;
#endif
}

// A fresh directory for one test: <binary dir>/test_scratch/<name>-<pid>.
inline std::string scratchDir(const std::string& name) {
  const std::string root = binaryDir() + "/test_scratch";
  makeDirectory(root);
  const std::string dir = root + "/" + name + "-" + std::to_string(processId());
  makeDirectory(dir);
  return dir;
}

} // namespace test_paths
} // namespace xsl
