#include "ocloc/discovery.h"

#include "common/enum_names.h"
#include "common/platform.h"
#include "common/utf8_path.h"

#include <filesystem>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace xsl {
namespace ocloc {
namespace {

constexpr const char* kWheelPackage = "intel_ocloc";
constexpr const char* kOneApiDefaultRoot =
    "C:\\Program Files (x86)\\Intel\\oneAPI";

std::string executableName(bool windows) {
  return windows ? "ocloc.exe" : "ocloc";
}

bool endsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
      text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string parentOf(const std::string& path, bool windows) {
  const size_t cut = windows ? path.find_last_of("\\/") : path.rfind('/');
  if (cut == std::string::npos) {
    return ".";
  }
  return cut == 0 ? path.substr(0, 1) : path.substr(0, cut);
}

std::string baseName(const std::string& path, bool windows) {
  const size_t cut = windows ? path.find_last_of("\\/") : path.rfind('/');
  return cut == std::string::npos ? path : path.substr(cut + 1);
}

bool isLibraryName(const std::string& name, bool windows) {
  if (windows) {
    return endsWith(name, ".dll") || endsWith(name, ".DLL");
  }
  return name.rfind("libocloc", 0) == 0;
}

// Library candidates for an executable in `dir`.
std::vector<std::string> libraryCandidates(
    const std::string& dir,
    bool windows) {
  if (windows) {
    return {joinPath(dir, "ocloc64.dll", true)};
  }
  std::vector<std::string> result;
  result.push_back(joinPath(dir, "libocloc.so", false));
  const std::string prefix = parentOf(dir, false);
  for (const char* lib_dir : {"lib", "lib64", "lib/x86_64-linux-gnu"}) {
    result.push_back(
        joinPath(joinPath(prefix, lib_dir, false), "libocloc.so", false));
  }
  return result;
}

// Site-packages folders that may hold the intel_ocloc wheel.
std::vector<std::string> pythonSearchPaths(const DiscoveryEnvironment& env) {
  std::vector<std::string> result;
  for (const auto& entry : env.python_paths) {
    if (!entry.empty()) { // sys.path's "" (the current folder) is no wheel
      result.push_back(entry);
    }
  }
  if (auto python_path = env.get_env("PYTHONPATH")) {
    for (auto& entry : splitPathList(*python_path, env.windows)) {
      result.push_back(entry);
    }
  }
  for (const char* prefix_var : {"VIRTUAL_ENV", "CONDA_PREFIX"}) {
    auto prefix = env.get_env(prefix_var);
    if (!prefix || prefix->empty()) {
      continue;
    }
    if (env.windows) {
      result.push_back(
          joinPath(joinPath(*prefix, "Lib", true), "site-packages", true));
      continue;
    }
    // lib/pythonX.Y/site-packages: the version is not known from C++.
    const std::string lib = joinPath(*prefix, "lib", false);
    for (const auto& name : env.list_directory(lib)) {
      if (name.rfind("python3", 0) == 0) {
        result.push_back(
            joinPath(joinPath(lib, name, false), "site-packages", false));
      }
    }
  }
  return result;
}

std::optional<std::string> nonEmptyEnv(
    const DiscoveryEnvironment& env,
    const char* name) {
  auto value = env.get_env(name);
  if (!value || value->empty()) {
    return std::nullopt;
  }
  return value;
}

} // namespace

const char* oclocSourceName(OclocSource source) {
  static constexpr const char* kNames[] = {
      "environment", "wheel", "PATH", "oneAPI", "system"};
  return enumName(source, kNames, "unknown");
}

std::string joinPath(
    const std::string& dir,
    const std::string& name,
    bool windows) {
  if (dir.empty()) {
    return name;
  }
  const char separator = windows ? '\\' : '/';
  const char last = dir.back();
  if (last == separator || (windows && last == '/')) {
    return dir + name;
  }
  return dir + separator + name;
}

std::vector<std::string> splitPathList(const std::string& list, bool windows) {
  const char separator = windows ? ';' : ':';
  std::vector<std::string> result;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(separator, start);
    if (end == std::string::npos) {
      end = list.size();
    }
    std::string entry = list.substr(start, end - start);
    // Windows PATH entries may be quoted ("C:\Program Files\x").
    if (windows && entry.size() >= 2 && entry.front() == '"' &&
        entry.back() == '"') {
      entry = entry.substr(1, entry.size() - 2);
    }
    if (!entry.empty()) {
      result.push_back(std::move(entry));
    }
    start = end + 1;
  }
  return result;
}

std::vector<OclocCandidate> oclocCandidates(const DiscoveryEnvironment& env) {
  const bool win = env.windows;
  const std::string exe = executableName(win);
  std::vector<OclocCandidate> result;

  if (auto explicit_path = nonEmptyEnv(env, kOclocEnvVar)) {
    result.push_back(
        {OclocSource::kEnvironment,
         std::string(kOclocEnvVar) + "=" + *explicit_path,
         *explicit_path});
  }
  for (const auto& site : pythonSearchPaths(env)) {
    const std::string bin =
        joinPath(joinPath(site, kWheelPackage, win), "bin", win);
    result.push_back(
        {OclocSource::kWheel,
         "intel_ocloc wheel in " + site,
         joinPath(bin, exe, win)});
  }
  if (auto path = nonEmptyEnv(env, "PATH")) {
    for (const auto& dir : splitPathList(*path, win)) {
      result.push_back(
          {OclocSource::kPath, "PATH entry " + dir, joinPath(dir, exe, win)});
    }
  }
  if (win) {
    std::vector<std::pair<std::string, std::string>> roots;
    if (auto root = nonEmptyEnv(env, "ONEAPI_ROOT")) {
      roots.emplace_back("%ONEAPI_ROOT%", *root);
    }
    roots.emplace_back("default oneAPI folder", kOneApiDefaultRoot);
    // <root>\<component>\latest\bin\ocloc.exe under each oneAPI root.
    const auto add_latest_bins = [&](const char* component, const char* what) {
      for (const auto& root : roots) {
        const std::string bin = joinPath(
            joinPath(joinPath(root.second, component, true), "latest", true),
            "bin",
            true);
        result.push_back(
            {OclocSource::kOneApi,
             root.first + what,
             joinPath(bin, exe, true)});
      }
    };
    add_latest_bins("ocloc", " ocloc");
    if (auto compiler_root = nonEmptyEnv(env, "CMPLR_ROOT")) {
      result.push_back(
          {OclocSource::kOneApi,
           "%CMPLR_ROOT% compiler bin",
           joinPath(joinPath(*compiler_root, "bin", true), exe, true)});
    }
    add_latest_bins("compiler", " compiler bin");
  } else {
    for (const char* dir :
         {"/usr/bin",
          "/usr/local/bin",
          "/opt/intel/oneapi/ocloc/latest/bin",
          "/opt/intel/oneapi/compiler/latest/bin"}) {
      result.push_back(
          {OclocSource::kSystem,
           std::string("standard folder ") + dir,
           joinPath(dir, exe, false)});
    }
  }
  return result;
}

DiscoveryEnvironment withExplicitOcloc(
    DiscoveryEnvironment env,
    const std::string& explicit_path) {
  auto host_get_env = env.get_env;
  env.get_env = [explicit_path, host_get_env](const std::string& name) {
    if (name == kOclocEnvVar) {
      return std::optional<std::string>(explicit_path);
    }
    return host_get_env(name);
  };
  return env;
}

Expected<OclocInstall> findOcloc(const DiscoveryEnvironment& env) {
  const bool win = env.windows;
  OclocInstall install;
  for (const auto& candidate : oclocCandidates(env)) {
    install.tried.push_back(candidate.origin + ": " + candidate.path);
    std::string executable = candidate.path;
    std::string library;
    if (candidate.source == OclocSource::kEnvironment) {
      // XSL_OCLOC may name the executable, the library, or their folder.
      if (env.is_directory(candidate.path)) {
        executable = joinPath(candidate.path, executableName(win), win);
        if (!env.is_file(executable)) {
          executable.clear();
        }
        for (const auto& lib : libraryCandidates(candidate.path, win)) {
          if (env.is_file(lib)) {
            library = lib;
            break;
          }
        }
        if (executable.empty() && library.empty()) {
          return Error(
              std::string(kOclocEnvVar) + "=" + candidate.path +
              " is a folder without " + executableName(win) +
              " or the ocloc library; point it at the ocloc "
              "executable or unset it.");
        }
      } else if (!env.is_file(candidate.path)) {
        return Error(
            std::string(kOclocEnvVar) + "=" + candidate.path +
            " does not exist; point it at the ocloc executable or "
            "unset it.");
      } else if (isLibraryName(baseName(candidate.path, win), win)) {
        library = candidate.path;
        executable =
            joinPath(parentOf(candidate.path, win), executableName(win), win);
        if (!env.is_file(executable)) {
          executable.clear();
        }
      }
    } else if (!env.is_file(candidate.path)) {
      continue;
    }
    if (library.empty() && !executable.empty()) {
      for (const auto& lib :
           libraryCandidates(parentOf(executable, win), win)) {
        if (env.is_file(lib)) {
          library = lib;
          break;
        }
      }
    }
    install.executable = std::move(executable);
    install.library = std::move(library);
    install.source = candidate.source;
    install.origin = candidate.origin;
    return install;
  }
  std::string message =
      "ocloc (the Intel GPU offline compiler) was not found; install oneAPI "
      "(ocloc component) or the intel_ocloc wheel (scripts/ocloc_wheel.py), "
      "or set " +
      std::string(kOclocEnvVar) + " to the ocloc executable. Looked in:";
  for (const auto& place : install.tried) {
    message += "\n  " + place;
  }
  if (install.tried.empty()) {
    message += " nowhere (PATH is empty)";
  }
  return Error(std::move(message));
}

DiscoveryEnvironment DiscoveryEnvironment::host() {
  namespace fs = std::filesystem;
  DiscoveryEnvironment env;
#ifdef _WIN32
  env.windows = true;
#endif
  env.get_env = [](const std::string& name) {
    return platform::getEnvUtf8(name);
  };
  env.is_file = [](const std::string& path) {
    std::error_code ec;
    return fs::is_regular_file(xsl::pathFromUtf8(path), ec);
  };
  env.is_directory = [](const std::string& path) {
    std::error_code ec;
    return fs::is_directory(xsl::pathFromUtf8(path), ec);
  };
  env.list_directory = [](const std::string& path) {
    std::vector<std::string> names;
    std::error_code ec;
    fs::directory_iterator it(xsl::pathFromUtf8(path), ec);
    if (ec) {
      return names;
    }
    for (const auto& entry : it) {
      names.push_back(xsl::utf8FromPath(entry.path().filename()));
    }
    return names;
  };
  return env;
}

} // namespace ocloc
} // namespace xsl
