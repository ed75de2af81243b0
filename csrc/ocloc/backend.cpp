#include "ocloc/backend.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/platform.h"
#include "file_io/file_io.h"

namespace xsl {
namespace ocloc {
namespace {

using platform::DynamicLibrary;
using platform::runProcess;
using platform::TempDir;

// The ocloc C API (NEO shared/offline_compiler/source/ocloc_api.h), declared
// here because Windows installs do not ship the header. __cdecl is the only
// convention on x64.
using OclocInvokeFn = int (*)(
    unsigned int num_args,
    const char* argv[],
    uint32_t num_sources,
    const uint8_t** data_sources,
    const uint64_t* len_sources,
    const char** name_sources,
    uint32_t num_input_headers,
    const uint8_t** data_input_headers,
    const uint64_t* len_input_headers,
    const char** name_input_headers,
    uint32_t* num_outputs,
    uint8_t*** data_outputs,
    uint64_t** len_outputs,
    char*** name_outputs);
using OclocFreeOutputFn = int (*)(
    uint32_t* num_outputs,
    uint8_t*** data_outputs,
    uint64_t** len_outputs,
    char*** name_outputs);

constexpr const char* kSourceName = "kernel.spv";
constexpr const char* kOutputName = "kernel";
constexpr const char* kLogName = "stdout.log";

struct LoadedOcloc {
  std::unique_ptr<DynamicLibrary> library;
  OclocInvokeFn invoke = nullptr;
  OclocFreeOutputFn free_output = nullptr;
  // IGC keeps global state; one call at a time per process.
  std::mutex mutex;
};

// Every library ever loaded, by path; never unloaded (see backend.h).
Expected<LoadedOcloc*> loadOcloc(const std::string& path) {
  static std::mutex registry_mutex;
  static std::map<std::string, std::unique_ptr<LoadedOcloc>>* registry =
      new std::map<std::string, std::unique_ptr<LoadedOcloc>>();
  std::lock_guard<std::mutex> lock(registry_mutex);
  auto found = registry->find(path);
  if (found != registry->end()) {
    return found->second.get();
  }
  auto library = DynamicLibrary::open(path);
  if (!library) {
#ifdef _WIN32
    return Error(
        library.error().message() +
        "; check that the IGC and opencl-clang DLLs are next to it.");
#else
    return Error(
        library.error().message() +
        "; check that IGC (libigc, libigdfcl) is installed.");
#endif
  }
  auto loaded = std::make_unique<LoadedOcloc>();
  loaded->invoke =
      reinterpret_cast<OclocInvokeFn>((*library)->symbol("oclocInvoke"));
  loaded->free_output = reinterpret_cast<OclocFreeOutputFn>(
      (*library)->symbol("oclocFreeOutput"));
  if (loaded->invoke == nullptr || loaded->free_output == nullptr) {
    return Error(
        path +
        " does not export oclocInvoke/oclocFreeOutput; it is not the ocloc "
        "library (point XSL_OCLOC at libocloc.so / ocloc64.dll).");
  }
  loaded->library = std::move(*library);
  LoadedOcloc* raw = loaded.get();
  registry->emplace(path, std::move(loaded));
  return raw;
}

struct LibraryOutputs {
  int status = 0;
  std::map<std::string, std::string> files;
};

class LibraryBackend final : public OclocBackend {
 public:
  explicit LibraryBackend(LoadedOcloc* ocloc) : ocloc_(ocloc) {}

  std::string description() const override {
    return "ocloc library " + ocloc_->library->path();
  }
  bool inProcess() const override {
    return true;
  }

  Expected<InvokeResult> compile(
      std::string_view source,
      const std::vector<std::string>& args) override {
    std::vector<std::string> argv = {"ocloc", "compile", "-file", kSourceName};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* arg : {"-output", kOutputName, "-output_no_suffix"}) {
      argv.emplace_back(arg);
    }
    LibraryOutputs outputs = invoke(argv, source);
    InvokeResult result;
    result.status = describeExitCode(outputs.status, true);
    result.log = std::move(outputs.files[kLogName]);
    auto binary = outputs.files.find(kOutputName);
    if (binary != outputs.files.end()) {
      result.binary = std::move(binary->second);
    }
    return result;
  }

  Expected<std::string> query(const std::string& what) override {
    LibraryOutputs outputs = invoke({"ocloc", "query", what}, {});
    auto found = outputs.files.find(what);
    if (outputs.status != 0 || found == outputs.files.end()) {
      return Error(
          "`ocloc query " + what + "` through " + description() + " failed (" +
          describeExitCode(outputs.status, true).text +
          "): " + outputs.files[kLogName]);
    }
    return found->second;
  }

 private:
  LibraryOutputs invoke(
      const std::vector<std::string>& argv,
      std::string_view source) {
    std::vector<const char*> arg_pointers;
    arg_pointers.reserve(argv.size());
    for (const auto& arg : argv) {
      arg_pointers.push_back(arg.c_str());
    }
    const uint8_t* source_data =
        reinterpret_cast<const uint8_t*>(source.data());
    const uint64_t source_size = source.size();
    const char* source_name = kSourceName;
    const uint32_t num_sources = source.empty() ? 0u : 1u;

    uint32_t num_outputs = 0;
    uint8_t** data_outputs = nullptr;
    uint64_t* len_outputs = nullptr;
    char** name_outputs = nullptr;
    LibraryOutputs result;
    std::lock_guard<std::mutex> lock(ocloc_->mutex);
    result.status = ocloc_->invoke(
        static_cast<unsigned int>(arg_pointers.size()),
        arg_pointers.data(),
        num_sources,
        num_sources ? &source_data : nullptr,
        num_sources ? &source_size : nullptr,
        num_sources ? &source_name : nullptr,
        0,
        nullptr,
        nullptr,
        nullptr,
        &num_outputs,
        &data_outputs,
        &len_outputs,
        &name_outputs);
    for (uint32_t i = 0; i < num_outputs; ++i) {
      if (name_outputs == nullptr || name_outputs[i] == nullptr) {
        continue;
      }
      std::string content;
      if (data_outputs != nullptr && len_outputs != nullptr &&
          data_outputs[i] != nullptr) {
        content.assign(
            reinterpret_cast<const char*>(data_outputs[i]),
            static_cast<size_t>(len_outputs[i]));
      }
      result.files[name_outputs[i]] = std::move(content);
    }
    ocloc_->free_output(
        &num_outputs, &data_outputs, &len_outputs, &name_outputs);
    return result;
  }

  LoadedOcloc* ocloc_;
};

class ExecutableBackend final : public OclocBackend {
 public:
  explicit ExecutableBackend(std::string executable)
      : executable_(std::move(executable)) {}

  std::string description() const override {
    return "ocloc executable " + executable_;
  }
  bool inProcess() const override {
    return false;
  }

  Expected<InvokeResult> compile(
      std::string_view source,
      const std::vector<std::string>& args) override {
    auto dir = TempDir::create();
    if (!dir) {
      return dir.error();
    }
    // Relative names inside the private folder: short paths, no MAX_PATH.
    auto written = file_io::writeFileBytes(
        joinPath(dir->path(), kSourceName, isWindows()), source);
    if (!written) {
      return written.error();
    }
    std::vector<std::string> argv = {
        executable_, "compile", "-file", kSourceName};
    argv.insert(argv.end(), args.begin(), args.end());
    for (const char* arg : {"-output", kOutputName, "-output_no_suffix"}) {
      argv.emplace_back(arg);
    }
    auto process = runProcess(argv, dir->path());
    if (!process) {
      return process.error();
    }
    InvokeResult result;
    result.status = process->signal_number > 0
        ? describeSignal(process->signal_number)
        : describeExitCode(process->exit_code, isWindows());
    result.log = std::move(process->output);
    if (result.status.kind == ExitKind::kSuccess) {
      auto binary = file_io::readFileBytes(
          joinPath(dir->path(), kOutputName, isWindows()));
      if (binary) {
        result.binary = std::move(*binary);
      }
    }
    return result;
  }

  Expected<std::string> query(const std::string& what) override {
    auto dir = TempDir::create();
    if (!dir) {
      return dir.error();
    }
    auto process = runProcess({executable_, "query", what}, dir->path());
    if (!process) {
      return process.error();
    }
    const ExitMeaning status = process->signal_number > 0
        ? describeSignal(process->signal_number)
        : describeExitCode(process->exit_code, isWindows());
    auto content =
        file_io::readFileBytes(joinPath(dir->path(), what, isWindows()));
    if (status.kind != ExitKind::kSuccess || !content) {
      return Error(
          "`" + executable_ + " query " + what + "` failed (" + status.text +
          "): " + process->output);
    }
    return std::move(*content);
  }

 private:
  static bool isWindows() {
#ifdef _WIN32
    return true;
#else
    return false;
#endif
  }

  std::string executable_;
};

std::string trim(const std::string& text) {
  // ocloc writes the version NUL-terminated.
  const std::string space(" \t\r\n\0", 5);
  const size_t first = text.find_first_not_of(space);
  if (first == std::string::npos) {
    return std::string();
  }
  const size_t last = text.find_last_not_of(space);
  return text.substr(first, last - first + 1);
}

} // namespace

Expected<std::unique_ptr<OclocBackend>> openLibraryBackend(
    const std::string& library_path) {
  auto loaded = loadOcloc(library_path);
  if (!loaded) {
    return loaded.error();
  }
  return std::unique_ptr<OclocBackend>(new LibraryBackend(*loaded));
}

Expected<std::unique_ptr<OclocBackend>> openExecutableBackend(
    const std::string& executable_path) {
  if (executable_path.empty()) {
    return Error(
        "no ocloc executable was found next to the ocloc library; set "
        "XSL_OCLOC to the executable to compile in a subprocess.");
  }
  return std::unique_ptr<OclocBackend>(new ExecutableBackend(executable_path));
}

Expected<std::unique_ptr<OclocBackend>> openBackend(
    const OclocInstall& install,
    BackendChoice choice,
    std::string* fallback_reason) {
  if (choice == BackendChoice::kExecutable) {
    return openExecutableBackend(install.executable);
  }
  if (install.library.empty()) {
    const std::string reason = "no ocloc library next to " +
        install.executable +
        " (ocloc64.dll / libocloc.so); in-process compilation needs it.";
    if (choice == BackendChoice::kLibrary) {
      return Error(reason);
    }
    if (fallback_reason != nullptr) {
      *fallback_reason = reason;
    }
    return openExecutableBackend(install.executable);
  }
  auto library = openLibraryBackend(install.library);
  if (library || choice == BackendChoice::kLibrary ||
      install.executable.empty()) {
    return library;
  }
  if (fallback_reason != nullptr) {
    *fallback_reason = library.error().message();
  }
  return openExecutableBackend(install.executable);
}

Expected<std::string> queryOclocVersion(OclocBackend& backend) {
  auto version = backend.query("OCL_DRIVER_VERSION");
  if (!version) {
    return version.error();
  }
  std::string trimmed = trim(*version);
  if (trimmed.empty()) {
    return Error(
        backend.description() +
        " answered `query OCL_DRIVER_VERSION` with nothing.");
  }
  return trimmed;
}

} // namespace ocloc
} // namespace xsl
