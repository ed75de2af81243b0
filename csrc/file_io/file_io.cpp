#include "file_io/file_io.h"

#include "common/platform.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

namespace xsl {
namespace file_io {
namespace {

std::string quoted(const std::string& path) {
  return "'" + path + "'";
}

// "kernel binary '<path>' <problem>": one shape for every file the reads
// refuse; each problem names the fix.
Error refusedFile(const std::string& path, const std::string& problem) {
  return Error("kernel binary " + quoted(path) + " " + problem);
}

Error folderNotCreated(const std::string& path, const std::string& why) {
  return Error("cannot create the folder " + quoted(path) + ": " + why);
}

// The problems, each with its fix.
constexpr const char* kMissing =
    "not found: check the path; for a file in an Inductor or Triton cache, "
    "that the cache folder was not cleaned since the kernel was compiled";
constexpr const char* kDirectory =
    "is a directory: pass the .zebin or .spv file inside it";
constexpr const char* kEmpty =
    "is empty (0 bytes): the compile that wrote it probably failed; delete "
    "it and compile again";
constexpr const char* kNotRegular =
    "is not a regular file (a device, pipe or socket): pass the kernel "
    "binary file itself";

Error tooLarge(const std::string& path) {
  return refusedFile(
      path,
      "is larger than " + std::to_string(kMaxKernelBinaryBytes >> 20) +
          " MiB, more than any kernel binary: check that the path names a "
          ".zebin or .spv file");
}

Error unreadableFile(const std::string& path, const std::string& reason) {
  return Error(
      "cannot read kernel binary " + quoted(path) + ": " + reason +
      "; check its permissions and that no other process locks it");
}

Status checkPathText(const std::string& utf8_path) {
  if (utf8_path.empty()) {
    return Error("empty path: pass the kernel binary's file name");
  }
  const size_t nul = utf8_path.find('\0');
  if (nul != std::string::npos) {
    return Error(
        "path " + quoted(utf8_path.substr(0, nul)) +
        "... contains a NUL character at byte " + std::to_string(nul) +
        ": pass the file name without it");
  }
  return Status::success();
}

// readFileInto once the path's text is checked (one definition per
// platform below).
Status readCheckedPath(
    const std::string& utf8_path,
    std::string& bytes,
    size_t at_most);

// Closes an open file handle (HANDLE, or a POSIX fd) at scope exit.
template <typename Handle, auto close>
class Closer {
 public:
  explicit Closer(Handle handle) : handle_(handle) {}
  Closer(const Closer&) = delete;
  Closer& operator=(const Closer&) = delete;
  ~Closer() {
    close(handle_);
  }

 private:
  Handle handle_;
};

} // namespace

#ifdef _WIN32

namespace {

std::string windowsErrorText(DWORD code) {
  return "Windows error " + std::to_string(static_cast<unsigned long>(code));
}

bool isMissingError(DWORD code) {
  return code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND ||
      code == ERROR_INVALID_NAME || code == ERROR_BAD_NETPATH ||
      code == ERROR_INVALID_DRIVE;
}

// Paths this long need `\\?\` unless LongPathsEnabled is set; directories
// already fail at MAX_PATH - 12, so prefix from there on.
constexpr size_t kLongPathThreshold = MAX_PATH - 12;

bool isSlash(wchar_t c) {
  return c == L'\\' || c == L'/';
}

// "C:\..." or "\\server\..." (a drive-relative "C:x" or a rooted "\x"
// still depends on process state, so it does not count).
bool isAbsolute(const std::wstring& path) {
  if (path.size() >= 3 && path[1] == L':' && isSlash(path[2])) {
    return true;
  }
  return path.size() >= 2 && isSlash(path[0]) && isSlash(path[1]);
}

using HandleCloser = Closer<HANDLE, CloseHandle>;

} // namespace

Expected<std::wstring> toWindowsPath(const std::string& utf8_path) {
  if (utf8_path.empty()) {
    return Error("empty path: pass the kernel binary's file name");
  }
  if (utf8_path.size() > static_cast<size_t>(INT32_MAX)) {
    return Error("path too long");
  }
  std::optional<std::wstring> converted = platform::widen(utf8_path);
  if (!converted) {
    return Error(
        "path " + quoted(utf8_path) +
        " is not valid UTF-8: pass paths as UTF-8 (Python str does this)");
  }
  std::wstring wide = std::move(*converted);
  if (wide.find(L'\0') != std::wstring::npos) {
    return Error("path " + quoted(utf8_path) + " contains a NUL character");
  }
  if (wide.rfind(L"\\\\?\\", 0) == 0 || wide.rfind(L"\\\\.\\", 0) == 0) {
    return wide; // already a device or extended-length path
  }
  if (isAbsolute(wide) && wide.size() < kLongPathThreshold) {
    return wide;
  }
  // A relative path can be long once the working directory is put in front,
  // so it is measured as a full path. `\\?\` turns off all normalisation,
  // so the path is made absolute and canonical (slashes, "." and "..")
  // first. GetFullPathNameW is a string operation and handles long paths.
  const DWORD needed = GetFullPathNameW(wide.c_str(), 0, nullptr, nullptr);
  std::wstring full(needed, L'\0');
  const DWORD written = needed == 0
      ? 0
      : GetFullPathNameW(wide.c_str(), needed, &full[0], nullptr);
  if (written == 0 || written >= needed) {
    return Error(
        "cannot make " + quoted(utf8_path) +
        " absolute: " + windowsErrorText(GetLastError()));
  }
  full.resize(written);
  if (full.size() < kLongPathThreshold) {
    return wide; // short enough as it is
  }
  if (full.rfind(L"\\\\", 0) == 0) {
    return L"\\\\?\\UNC\\" + full.substr(2); // \\server\share\...
  }
  return L"\\\\?\\" + full;
}

namespace {

// ReadFile and WriteFile take a DWORD count: at most 1 GiB a call.
DWORD chunkOf(size_t left) {
  return left > 0x40000000u ? 0x40000000u : static_cast<DWORD>(left);
}

// CreateFileW of a UTF-8 path, long paths included: INVALID_HANDLE_VALUE,
// with GetLastError() set, when the open fails.
Expected<HANDLE> createFile(
    const std::string& utf8_path,
    DWORD access,
    DWORD share,
    DWORD disposition,
    DWORD flags) {
  Expected<std::wstring> wide = toWindowsPath(utf8_path);
  if (!wide) {
    return wide.error();
  }
  return CreateFileW(
      wide->c_str(), access, share, nullptr, disposition, flags, nullptr);
}

// Asked only after an open failed with ERROR_ACCESS_DENIED, which is also
// what opening a directory gives.
bool isDirectory(const std::string& utf8_path) {
  Expected<std::wstring> wide = toWindowsPath(utf8_path);
  if (!wide) {
    return false;
  }
  const DWORD attributes = GetFileAttributesW(wide->c_str());
  return attributes != INVALID_FILE_ATTRIBUTES &&
      (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
}

Status readCheckedPath(
    const std::string& utf8_path,
    std::string& bytes,
    size_t at_most) {
  // One open, no attribute query first: every lookup of a path costs a walk
  // of it. Opening a directory without FILE_FLAG_BACKUP_SEMANTICS fails
  // with ERROR_ACCESS_DENIED; only then is the path asked what it is.
  Expected<HANDLE> opened = createFile(
      utf8_path,
      GENERIC_READ,
      FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
      OPEN_EXISTING,
      FILE_ATTRIBUTE_NORMAL | FILE_FLAG_SEQUENTIAL_SCAN);
  if (!opened) {
    return opened.error();
  }
  HANDLE file = *opened;
  if (file == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    if (isMissingError(code)) {
      return refusedFile(utf8_path, kMissing);
    }
    if (code == ERROR_ACCESS_DENIED && isDirectory(utf8_path)) {
      return refusedFile(utf8_path, kDirectory);
    }
    return unreadableFile(utf8_path, windowsErrorText(code));
  }
  HandleCloser closer(file);
  if (GetFileType(file) != FILE_TYPE_DISK) {
    return refusedFile(utf8_path, kNotRegular);
  }
  LARGE_INTEGER size;
  if (!GetFileSizeEx(file, &size)) {
    return unreadableFile(utf8_path, windowsErrorText(GetLastError()));
  }
  if (size.QuadPart == 0) {
    return refusedFile(utf8_path, kEmpty);
  }
  if (static_cast<unsigned long long>(size.QuadPart) > kMaxKernelBinaryBytes) {
    return tooLarge(utf8_path);
  }
  // Only bytes the buffer never had are zeroed: ReadFile overwrites the rest.
  const size_t expected = std::min(static_cast<size_t>(size.QuadPart), at_most);
  if (bytes.size() < expected) {
    bytes.resize(expected);
  }
  size_t done = 0;
  while (done < expected) {
    DWORD read = 0;
    if (!ReadFile(
            file, &bytes[done], chunkOf(expected - done), &read, nullptr)) {
      return unreadableFile(utf8_path, windowsErrorText(GetLastError()));
    }
    if (read == 0) {
      break; // shrank while reading
    }
    done += read;
  }
  bytes.resize(done);
  return Status::success();
}

} // namespace

Status writeFileBytes(const std::string& utf8_path, std::string_view bytes) {
  Expected<HANDLE> opened = createFile(
      utf8_path, GENERIC_WRITE, 0, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL);
  if (!opened) {
    return opened.error();
  }
  HANDLE file = *opened;
  if (file == INVALID_HANDLE_VALUE) {
    return Error(
        "cannot create " + quoted(utf8_path) + ": " +
        windowsErrorText(GetLastError()));
  }
  HandleCloser closer(file);
  size_t done = 0;
  while (done < bytes.size()) {
    DWORD written = 0;
    if (!WriteFile(
            file,
            bytes.data() + done,
            chunkOf(bytes.size() - done),
            &written,
            nullptr) ||
        written == 0) {
      return Error(
          "cannot write " + quoted(utf8_path) + ": " +
          windowsErrorText(GetLastError()));
    }
    done += written;
  }
  return Status::success();
}

#else // POSIX

namespace {

using FdCloser = Closer<int, ::close>;

Status readCheckedPath(
    const std::string& utf8_path,
    std::string& bytes,
    size_t at_most) {
  int fd = -1;
  do {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it has no effect
    // on regular files.
    fd = ::open(utf8_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    const int code = errno;
    if (code == ENOENT || code == ENOTDIR) {
      return refusedFile(utf8_path, kMissing);
    }
    return unreadableFile(utf8_path, std::strerror(code));
  }
  FdCloser closer(fd);
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    return unreadableFile(utf8_path, std::strerror(errno));
  }
  if (S_ISDIR(info.st_mode)) {
    return refusedFile(utf8_path, kDirectory);
  }
  if (!S_ISREG(info.st_mode)) {
    return refusedFile(utf8_path, kNotRegular);
  }
  if (static_cast<unsigned long long>(info.st_size) > kMaxKernelBinaryBytes) {
    return tooLarge(utf8_path);
  }
  // Read straight into a buffer of the file's size, plus one byte that
  // shows whether the file grew; a file that did (or that reports size 0,
  // as /proc files do) grows the buffer until end of file. Only bytes the
  // buffer never had are zeroed: read() overwrites the rest.
  // A head read (`at_most`) stops there.
  const size_t expected = std::min(static_cast<size_t>(info.st_size), at_most);
  if (bytes.size() < expected + 1) {
    bytes.resize(expected + 1);
  }
  size_t done = 0;
  for (;;) {
    if (done == at_most) {
      break;
    }
    if (done == bytes.size()) {
      if (bytes.size() > kMaxKernelBinaryBytes) {
        return tooLarge(utf8_path); // grew while being read
      }
      const size_t grown = bytes.size() + std::max<size_t>(bytes.size(), 65536);
      bytes.resize(std::min<size_t>(grown, kMaxKernelBinaryBytes + 1));
    }
    const size_t room = std::min(bytes.size(), at_most) - done;
    const ssize_t got = ::read(fd, &bytes[done], room);
    if (got < 0) {
      if (errno == EINTR) {
        continue;
      }
      return unreadableFile(utf8_path, std::strerror(errno));
    }
    if (got == 0) {
      break;
    }
    done += static_cast<size_t>(got);
    if (done == expected) {
      break; // the size fstat gave, from reads asked for more: end of file
    }
  }
  if (done > kMaxKernelBinaryBytes) {
    return tooLarge(utf8_path); // grew while being read
  }
  bytes.resize(done);
  return Status::success();
}

} // namespace

Status writeFileBytes(const std::string& utf8_path, std::string_view bytes) {
  int fd =
      ::open(utf8_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Error(
        "cannot create " + quoted(utf8_path) + ": " + std::strerror(errno));
  }
  FdCloser closer(fd);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t put = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (put < 0) {
      if (errno == EINTR) {
        continue;
      }
      return Error(
          "cannot write " + quoted(utf8_path) + ": " + std::strerror(errno));
    }
    done += static_cast<size_t>(put);
  }
  return Status::success();
}

#endif

Status readFileInto(
    const std::string& utf8_path,
    std::string& bytes,
    size_t at_most) {
  if (Status valid = checkPathText(utf8_path); !valid) {
    return valid;
  }
  if (Status read = readCheckedPath(utf8_path, bytes, at_most); !read) {
    return read;
  }
  if (bytes.empty()) {
    return refusedFile(
        utf8_path, kEmpty); // nothing was read, whatever the size said
  }
  return Status::success();
}

Expected<std::string> readFileBytes(const std::string& utf8_path) {
  std::string bytes;
  if (Status read = readFileInto(utf8_path, bytes); !read) {
    return read.error();
  }
  return bytes;
}

// ----------------------------------------- writing, listing, removing

namespace {

// A name no other writer uses at the same time: process id, a counter of
// this process, and the clock.
std::string temporaryName(const std::string& utf8_path) {
  static std::atomic<uint64_t> counter{0};
#ifdef _WIN32
  const uint64_t pid = GetCurrentProcessId();
#else
  const uint64_t pid = static_cast<uint64_t>(::getpid());
#endif
  const uint64_t ticks = static_cast<uint64_t>(
      std::chrono::steady_clock::now().time_since_epoch().count());
  return utf8_path + "." + std::to_string(pid) + "-" +
      std::to_string(counter.fetch_add(1)) + "-" +
      std::to_string(ticks % 1000000007u) + ".tmp";
}

} // namespace

#ifdef _WIN32

Status replaceFile(const std::string& utf8_path, std::string_view bytes) {
  const std::string temporary = temporaryName(utf8_path);
  if (Status written = writeFileBytes(temporary, bytes); !written) {
    return written;
  }
  Expected<std::wstring> from = toWindowsPath(temporary);
  Expected<std::wstring> to = toWindowsPath(utf8_path);
  if (!from || !to) {
    static_cast<void>(removeFile(temporary)); // best effort
    return !from ? from.error() : to.error();
  }
  // Replace semantics: the destination is swapped in one step, and readers
  // that opened the old file with FILE_SHARE_DELETE (readFileInto does)
  // keep reading it.
  if (!MoveFileExW(
          from->c_str(),
          to->c_str(),
          MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
    const DWORD code = GetLastError();
    static_cast<void>(removeFile(temporary)); // best effort
    return Error(
        "cannot replace " + quoted(utf8_path) + ": " + windowsErrorText(code) +
        " (another process may hold it open without sharing)");
  }
  return Status::success();
}

Status makeDirectories(const std::string& utf8_path) {
  Expected<std::wstring> wide = toWindowsPath(utf8_path);
  if (!wide) {
    return wide.error();
  }
  // Each prefix that ends before a separator, then the whole path; the
  // `\\?\` and drive prefixes already exist.
  const std::wstring& path = *wide;
  for (size_t i = 1; i <= path.size(); ++i) {
    if (i != path.size() && path[i] != L'\\' && path[i] != L'/') {
      continue;
    }
    const std::wstring prefix = path.substr(0, i);
    if (prefix.size() <= 3 || prefix.back() == L':' || prefix.back() == L'?' ||
        prefix == L"\\\\?\\UNC") {
      continue;
    }
    if (!CreateDirectoryW(prefix.c_str(), nullptr)) {
      const DWORD code = GetLastError();
      if (code != ERROR_ALREADY_EXISTS && code != ERROR_ACCESS_DENIED) {
        return folderNotCreated(utf8_path, windowsErrorText(code));
      }
    }
  }
  const DWORD attributes = GetFileAttributesW(path.c_str());
  if (attributes == INVALID_FILE_ATTRIBUTES ||
      (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0) {
    return folderNotCreated(
        utf8_path, "a file is in the way, or access is denied");
  }
  return Status::success();
}

Expected<std::vector<DirectoryEntry>> listFiles(const std::string& utf8_dir) {
  std::vector<DirectoryEntry> out;
  Expected<std::wstring> wide = toWindowsPath(utf8_dir + "\\*");
  if (!wide) {
    return wide.error();
  }
  WIN32_FIND_DATAW data;
  HANDLE find = FindFirstFileW(wide->c_str(), &data);
  if (find == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    if (code == ERROR_FILE_NOT_FOUND || code == ERROR_PATH_NOT_FOUND) {
      return out;
    }
    return Error(
        "cannot list " + quoted(utf8_dir) + ": " + windowsErrorText(code));
  }
  do {
    if ((data.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) != 0) {
      continue;
    }
    std::string name = platform::narrow(data.cFileName);
    if (name.empty()) {
      continue;
    }
    DirectoryEntry entry;
    entry.name = std::move(name);
    entry.size =
        (static_cast<uint64_t>(data.nFileSizeHigh) << 32) | data.nFileSizeLow;
    entry.modified = static_cast<int64_t>(
        (static_cast<uint64_t>(data.ftLastWriteTime.dwHighDateTime) << 32) |
        data.ftLastWriteTime.dwLowDateTime);
    out.push_back(std::move(entry));
  } while (FindNextFileW(find, &data));
  FindClose(find);
  return out;
}

Status removeFile(const std::string& utf8_path) {
  Expected<std::wstring> wide = toWindowsPath(utf8_path);
  if (!wide) {
    return wide.error();
  }
  if (!DeleteFileW(wide->c_str())) {
    const DWORD code = GetLastError();
    if (code != ERROR_FILE_NOT_FOUND && code != ERROR_PATH_NOT_FOUND) {
      return Error(
          "cannot remove " + quoted(utf8_path) + ": " + windowsErrorText(code));
    }
  }
  return Status::success();
}

#else // POSIX

Status replaceFile(const std::string& utf8_path, std::string_view bytes) {
  const std::string temporary = temporaryName(utf8_path);
  if (Status written = writeFileBytes(temporary, bytes); !written) {
    return written;
  }
  if (::rename(temporary.c_str(), utf8_path.c_str()) != 0) {
    const int code = errno;
    static_cast<void>(removeFile(temporary)); // best effort
    return Error(
        "cannot replace " + quoted(utf8_path) + ": " + std::strerror(code));
  }
  return Status::success();
}

Status makeDirectories(const std::string& utf8_path) {
  if (utf8_path.empty()) {
    return Error("empty folder name");
  }
  for (size_t i = 1; i <= utf8_path.size(); ++i) {
    if (i != utf8_path.size() && utf8_path[i] != '/') {
      continue;
    }
    const std::string prefix = utf8_path.substr(0, i);
    if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST) {
      return folderNotCreated(utf8_path, std::strerror(errno));
    }
  }
  struct stat info;
  if (::stat(utf8_path.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
    return folderNotCreated(utf8_path, "a file is in the way");
  }
  return Status::success();
}

Expected<std::vector<DirectoryEntry>> listFiles(const std::string& utf8_dir) {
  std::vector<DirectoryEntry> out;
  DIR* dir = ::opendir(utf8_dir.c_str());
  if (dir == nullptr) {
    if (errno == ENOENT) {
      return out;
    }
    return Error(
        "cannot list " + quoted(utf8_dir) + ": " + std::strerror(errno));
  }
  while (const dirent* item = ::readdir(dir)) {
    struct stat info;
    const std::string path = utf8_dir + "/" + item->d_name;
    if (::stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
      continue;
    }
    DirectoryEntry entry;
    entry.name = item->d_name;
    entry.size = static_cast<uint64_t>(info.st_size);
    entry.modified = static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 +
        static_cast<int64_t>(info.st_mtim.tv_nsec);
    out.push_back(std::move(entry));
  }
  ::closedir(dir);
  return out;
}

Status removeFile(const std::string& utf8_path) {
  if (::unlink(utf8_path.c_str()) != 0 && errno != ENOENT) {
    return Error(
        "cannot remove " + quoted(utf8_path) + ": " + std::strerror(errno));
  }
  return Status::success();
}

#endif

} // namespace file_io
} // namespace xsl
