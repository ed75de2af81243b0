#include "common/platform.h"

#include "common/utf8_path.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#ifdef _WIN32
#include <windows.h>
#else
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cerrno>

extern char** environ;
#endif

namespace xsl {
namespace platform {
namespace fs = std::filesystem;

#ifdef _WIN32
std::optional<std::wstring> widen(std::string_view utf8) {
  if (utf8.empty()) {
    return std::wstring();
  }
  if (utf8.size() > static_cast<size_t>(INT32_MAX)) {
    return std::nullopt;
  }
  const int length = static_cast<int>(utf8.size());
  const int size = MultiByteToWideChar(
      CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), length, nullptr, 0);
  if (size <= 0) {
    return std::nullopt;
  }
  std::wstring wide(static_cast<size_t>(size), L'\0');
  MultiByteToWideChar(
      CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), length, &wide[0], size);
  return wide;
}

std::string narrow(std::wstring_view wide) {
  if (wide.empty()) {
    return std::string();
  }
  const int size = WideCharToMultiByte(
      CP_UTF8,
      0,
      wide.data(),
      static_cast<int>(wide.size()),
      nullptr,
      0,
      nullptr,
      nullptr);
  std::string text(static_cast<size_t>(size > 0 ? size : 0), '\0');
  if (size > 0) {
    WideCharToMultiByte(
        CP_UTF8,
        0,
        wide.data(),
        static_cast<int>(wide.size()),
        &text[0],
        size,
        nullptr,
        nullptr);
  }
  return text;
}

std::string lastErrorText() {
  const DWORD code = GetLastError();
  wchar_t* buffer = nullptr;
  const DWORD length = FormatMessageW(
      FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
          FORMAT_MESSAGE_IGNORE_INSERTS,
      nullptr,
      code,
      0,
      reinterpret_cast<wchar_t*>(&buffer),
      0,
      nullptr);
  std::string text = "Windows error " + std::to_string(code);
  if (length > 0 && buffer != nullptr) {
    std::wstring message(buffer, length);
    while (!message.empty() &&
           (message.back() == L'\n' || message.back() == L'\r' ||
            message.back() == L' ' || message.back() == L'.')) {
      message.pop_back();
    }
    text += " (" + narrow(message) + ")";
  }
  if (buffer != nullptr) {
    LocalFree(buffer);
  }
  return text;
}
#endif

namespace {

#ifdef _WIN32
std::wstring widenOrEmpty(std::string_view utf8) {
  return widen(utf8).value_or(std::wstring());
}

// One argument quoted the way CommandLineToArgvW / the MSVC CRT parse it.
void appendQuotedArgument(std::wstring& command_line, const std::wstring& arg) {
  if (!arg.empty() && arg.find_first_of(L" \t\n\v\"") == std::wstring::npos) {
    command_line += arg;
    return;
  }
  command_line += L'"';
  size_t backslashes = 0;
  for (const wchar_t c : arg) {
    if (c == L'\\') {
      ++backslashes;
      continue;
    }
    if (c == L'"') {
      command_line.append(backslashes * 2 + 1, L'\\');
    } else {
      command_line.append(backslashes, L'\\');
    }
    backslashes = 0;
    command_line += c;
  }
  command_line.append(backslashes * 2, L'\\');
  command_line += L'"';
}
#endif

} // namespace

std::optional<std::string> getEnvUtf8(const std::string& name) {
#ifdef _WIN32
  const std::wstring wide_name = widenOrEmpty(name);
  const DWORD size = GetEnvironmentVariableW(wide_name.c_str(), nullptr, 0);
  if (size == 0) {
    return std::nullopt;
  }
  std::wstring value(size, L'\0');
  const DWORD written =
      GetEnvironmentVariableW(wide_name.c_str(), &value[0], size);
  value.resize(written);
  return narrow(value);
#else
  const char* value = std::getenv(name.c_str());
  if (value == nullptr) {
    return std::nullopt;
  }
  return std::string(value);
#endif
}

Expected<TempDir> TempDir::create() {
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  const fs::path base = fs::temp_directory_path(ec);
  if (ec) {
    return Error(
        "cannot find the temporary folder (" + ec.message() +
        "); set TMP/TMPDIR to a writable folder.");
  }
  const auto stamp = static_cast<unsigned long long>(
      std::chrono::steady_clock::now().time_since_epoch().count());
#ifdef _WIN32
  const unsigned long long pid = GetCurrentProcessId();
#else
  const unsigned long long pid = static_cast<unsigned long long>(getpid());
#endif
  for (int attempt = 0; attempt < 100; ++attempt) {
    // Short names keep Windows paths well under MAX_PATH.
    std::ostringstream name;
    name << "xocl" << std::hex << pid << "_" << (stamp % 0xffffff) << "_"
         << counter.fetch_add(1);
    const fs::path candidate = base / name.str();
    if (fs::create_directory(candidate, ec)) {
      return TempDir(xsl::utf8FromPath(candidate));
    }
  }
  return Error(
      "cannot create a folder under the temporary folder " +
      xsl::utf8FromPath(base) + "; check that it is writable.");
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) {
  other.path_.clear();
}

TempDir::~TempDir() {
  if (!path_.empty()) {
    std::error_code ec;
    fs::remove_all(xsl::pathFromUtf8(path_), ec);
  }
}

#ifdef _WIN32

Expected<ProcessResult> runProcess(
    const std::vector<std::string>& argv,
    const std::string& working_dir) {
  if (argv.empty()) {
    return Error("runProcess: no program given.");
  }
  std::wstring command_line;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (i > 0) {
      command_line += L' ';
    }
    appendQuotedArgument(command_line, widenOrEmpty(argv[i]));
  }
  SECURITY_ATTRIBUTES security = {};
  security.nLength = sizeof(security);
  security.bInheritHandle = TRUE;
  HANDLE read_end = nullptr;
  HANDLE write_end = nullptr;
  if (!CreatePipe(&read_end, &write_end, &security, 0)) {
    return Error(
        "cannot create a pipe for " + argv[0] + ": " + lastErrorText());
  }
  SetHandleInformation(read_end, HANDLE_FLAG_INHERIT, 0);
  STARTUPINFOW startup = {};
  startup.cb = sizeof(startup);
  startup.dwFlags = STARTF_USESTDHANDLES;
  startup.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
  startup.hStdOutput = write_end;
  startup.hStdError = write_end;
  PROCESS_INFORMATION process = {};
  const std::wstring program = widenOrEmpty(argv[0]);
  const std::wstring directory = widenOrEmpty(working_dir);
  const BOOL started = CreateProcessW(
      program.c_str(),
      &command_line[0],
      nullptr,
      nullptr,
      TRUE,
      CREATE_NO_WINDOW,
      nullptr,
      directory.empty() ? nullptr : directory.c_str(),
      &startup,
      &process);
  const std::string start_error = started ? std::string() : lastErrorText();
  CloseHandle(write_end);
  if (!started) {
    CloseHandle(read_end);
    return Error("cannot start " + argv[0] + ": " + start_error);
  }
  ProcessResult result;
  char buffer[4096];
  DWORD got = 0;
  while (ReadFile(read_end, buffer, sizeof(buffer), &got, nullptr) && got > 0) {
    result.output.append(buffer, got);
  }
  CloseHandle(read_end);
  WaitForSingleObject(process.hProcess, INFINITE);
  DWORD code = 0;
  GetExitCodeProcess(process.hProcess, &code);
  CloseHandle(process.hThread);
  CloseHandle(process.hProcess);
  result.exit_code = static_cast<int32_t>(code);
  return result;
}

Expected<std::unique_ptr<DynamicLibrary>> DynamicLibrary::open(
    const std::string& path,
    LibrarySearch search) {
  const std::optional<std::wstring> wide = widen(path);
  if (!wide || wide->empty()) {
    return Error("cannot load " + path + ": not a UTF-8 file name");
  }
  const bool bare = path.find_first_of("/\\:") == std::string::npos;
  const DWORD flags = search == LibrarySearch::kSystemForBareNames && bare
      ? LOAD_LIBRARY_SEARCH_SYSTEM32
      : LOAD_WITH_ALTERED_SEARCH_PATH;
  HMODULE handle = LoadLibraryExW(wide->c_str(), nullptr, flags);
  if (handle == nullptr) {
    return Error("cannot load " + path + ": " + lastErrorText());
  }
  return std::unique_ptr<DynamicLibrary>(
      new DynamicLibrary(reinterpret_cast<void*>(handle), path));
}

DynamicLibrary::~DynamicLibrary() {
  FreeLibrary(reinterpret_cast<HMODULE>(handle_));
}

void* DynamicLibrary::symbol(const char* name) const {
  return reinterpret_cast<void*>(
      GetProcAddress(reinterpret_cast<HMODULE>(handle_), name));
}

#else

namespace {

ProcessResult collectOutput(int read_fd) {
  ProcessResult result;
  char buffer[4096];
  for (;;) {
    const ssize_t got = read(read_fd, buffer, sizeof(buffer));
    if (got > 0) {
      result.output.append(buffer, static_cast<size_t>(got));
    } else if (got == 0 || errno != EINTR) {
      break;
    }
  }
  close(read_fd);
  return result;
}

Status waitFor(pid_t pid, const std::string& program, ProcessResult& result) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return Error("cannot wait for " + program + ": " + std::strerror(errno));
    }
  }
  if (WIFSIGNALED(status)) {
    result.signal_number = WTERMSIG(status);
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  }
  return Status::success();
}

} // namespace

Expected<ProcessResult> runProcess(
    const std::vector<std::string>& argv,
    const std::string& working_dir) {
  if (argv.empty()) {
    return Error("runProcess: no program given.");
  }
#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
  const std::vector<std::string>& command = argv;
  const bool spawn_chdir = true;
#else
  // No posix_spawn_file_actions_addchdir_np: let a shell change folder, the
  // arguments still travel as argv (no quoting).
  std::vector<std::string> command = argv;
  if (!working_dir.empty()) {
    command = {"/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", working_dir};
    command.insert(command.end(), argv.begin(), argv.end());
  }
  const bool spawn_chdir = false;
#endif
  std::vector<char*> args;
  args.reserve(command.size() + 1);
  for (const auto& arg : command) {
    args.push_back(const_cast<char*>(arg.c_str()));
  }
  args.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) {
    return Error(
        "cannot create a pipe for " + argv[0] + ": " + std::strerror(errno));
  }
  fcntl(pipe_fds[0], F_SETFD, FD_CLOEXEC);
  // posix_spawn (vfork-style in glibc): a process that holds IGC in memory
  // is not copied page table by page table, and keeps no copy-on-write
  // penalty afterwards, as it would with fork().
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  if (spawn_chdir && !working_dir.empty()) {
#if defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 29))
    posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
#endif
  }
  pid_t pid = 0;
  const int spawned =
      posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  if (spawned != 0) {
    close(pipe_fds[0]);
    return Error(
        "cannot run " + argv[0] + " in " + working_dir + ": " +
        std::strerror(spawned));
  }
  ProcessResult result = collectOutput(pipe_fds[0]);
  auto waited = waitFor(pid, argv[0], result);
  if (!waited) {
    return waited.error();
  }
  return result;
}

Expected<std::unique_ptr<DynamicLibrary>> DynamicLibrary::open(
    const std::string& path,
    LibrarySearch /*search*/) {
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    return Error(
        "cannot load " + path + ": " +
        (reason != nullptr ? reason : "unknown dlopen error"));
  }
  return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(handle, path));
}

DynamicLibrary::~DynamicLibrary() {
  dlclose(handle_);
}

void* DynamicLibrary::symbol(const char* name) const {
  return dlsym(handle_, name);
}

#endif

} // namespace platform
} // namespace xsl
