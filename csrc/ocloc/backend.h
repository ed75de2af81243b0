#pragma once

// Two ways to run `ocloc compile`: in-process through the ocloc library
// (oclocInvoke, sources and outputs in memory: no temporary files) or the
// ocloc executable as a subprocess in a private temporary folder. Both take
// the same arguments and return the same thing, so the compiler logic above
// them (GRF retry, zebin format detection) is written once.

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/expected.h"
#include "ocloc/discovery.h"
#include "ocloc/exit_status.h"

namespace xsl {
namespace ocloc {

struct InvokeResult {
  ExitMeaning status;
  std::string log;    // ocloc's console output (stdout.log in-process)
  std::string binary; // the compiled output; empty when ocloc failed
};

class OclocBackend {
 public:
  virtual ~OclocBackend() = default;
  // "libocloc (/usr/lib/.../libocloc.so)" / "ocloc executable (/usr/bin/..)"
  virtual std::string description() const = 0;
  virtual bool inProcess() const = 0;

  // `ocloc compile -file <name> <args...> -output <name> -output_no_suffix`
  // with `source` as the input file. A failed build is a result with a
  // non-success status, not an Error; Error means ocloc could not be run.
  virtual Expected<InvokeResult> compile(
      std::string_view source,
      const std::vector<std::string>& args) = 0;

  // `ocloc query <what>` (e.g. OCL_DRIVER_VERSION): the output's content.
  virtual Expected<std::string> query(const std::string& what) = 0;
};

// Loads the ocloc library (libocloc.so / ocloc64.dll) at `library_path`.
// Loaded libraries are kept for the life of the process: IGC does not
// support being unloaded and reloaded.
Expected<std::unique_ptr<OclocBackend>> openLibraryBackend(
    const std::string& library_path);

Expected<std::unique_ptr<OclocBackend>> openExecutableBackend(
    const std::string& executable_path);

enum class BackendChoice {
  kAuto,       // library if it loads, else executable
  kLibrary,    // library only
  kExecutable, // subprocess only
};

// Opens the backend for a discovered install; with kAuto a library that
// fails to load falls back to the executable (the load error is kept in
// `fallback_reason`).
Expected<std::unique_ptr<OclocBackend>> openBackend(
    const OclocInstall& install,
    BackendChoice choice,
    std::string* fallback_reason = nullptr);

// "22.43.24595" from `ocloc query OCL_DRIVER_VERSION` (ocloc 22.43 has no
// --version), trimmed; an Error if the query fails.
Expected<std::string> queryOclocVersion(OclocBackend& backend);

} // namespace ocloc
} // namespace xsl
