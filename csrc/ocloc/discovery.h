#pragma once

// Finding ocloc (the Intel offline compiler) and its library.
//
// Order (first hit wins; scripts/ocloc_discovery.py implements the same):
//   1. XSL_OCLOC: the ocloc executable, its library, or a folder holding them.
//   2. An installed ocloc wheel (scripts/ocloc_wheel.py builds one): the
//      `intel_ocloc/bin` folder inside a site-packages folder. C++ cannot ask
//      Python, so the site-packages folders are taken from
//      DiscoveryEnvironment::python_paths (the Python binding passes
//      sys.path), else from PYTHONPATH, VIRTUAL_ENV and CONDA_PREFIX.
//   3. PATH (`ocloc.exe` on Windows, `;`-separated; `ocloc` elsewhere).
//   4. Windows: oneAPI (%ONEAPI_ROOT%\ocloc\latest\bin, the default
//      C:\Program Files (x86)\Intel\oneAPI\ocloc\latest\bin, then the
//      compiler's bin folders, which older oneAPI releases used).
//   5. Linux: the distribution and oneAPI locations (/usr/bin, ...).
// The library (`ocloc64.dll` / `libocloc.so`) is looked for next to the
// executable (and in ../lib* on Linux); a missing library only disables
// in-process compilation.
//
// Every file-system and environment access goes through
// DiscoveryEnvironment, so tests can run the Windows order on Linux.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/expected.h"

namespace xsl {
namespace ocloc {

constexpr const char* kOclocEnvVar = "XSL_OCLOC";

enum class OclocSource {
  kEnvironment, // XSL_OCLOC
  kWheel,       // intel_ocloc wheel in a site-packages folder
  kPath,        // PATH
  kOneApi,      // Windows oneAPI install
  kSystem,      // Linux distribution / oneAPI folders
};

const char* oclocSourceName(OclocSource source);

struct DiscoveryEnvironment {
  bool windows = false;
  std::function<std::optional<std::string>(const std::string&)> get_env;
  std::function<bool(const std::string&)> is_file;
  std::function<bool(const std::string&)> is_directory;
  // Names (not paths) of the entries of a folder; empty if unreadable.
  std::function<std::vector<std::string>(const std::string&)> list_directory;
  // Folders searched for the wheel before the environment-derived ones.
  std::vector<std::string> python_paths;

  // The real process environment and file system of this machine.
  static DiscoveryEnvironment host();
};

struct OclocInstall {
  std::string executable; // empty if only the library was found (XSL_OCLOC)
  std::string library;    // empty if no library next to the executable
  OclocSource source = OclocSource::kPath;
  std::string origin; // "XSL_OCLOC=...", "PATH entry /usr/bin", ...
  // Every place looked at, in order, up to and including the hit.
  std::vector<std::string> tried;
  std::string version; // filled by queryOclocVersion; empty if unknown
};

// `env` with XSL_OCLOC reading `explicit_path` (an explicit setting that
// behaves exactly like the variable).
DiscoveryEnvironment withExplicitOcloc(
    DiscoveryEnvironment env,
    const std::string& explicit_path);

// Finds ocloc; the error lists every place tried and how to install ocloc.
Expected<OclocInstall> findOcloc(const DiscoveryEnvironment& env);

// The candidates in search order, as (source, description, path) triples;
// exposed so tests can check the order without creating files.
struct OclocCandidate {
  OclocSource source;
  std::string origin;
  std::string path; // an executable (or, for XSL_OCLOC, whatever it names)
};
std::vector<OclocCandidate> oclocCandidates(const DiscoveryEnvironment& env);

// Path helpers that follow `env.windows` rather than the host.
std::string joinPath(
    const std::string& dir,
    const std::string& name,
    bool windows);
std::vector<std::string> splitPathList(const std::string& list, bool windows);

} // namespace ocloc
} // namespace xsl
