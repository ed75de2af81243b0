// zebin-info [--json] [--kernel NAME] [--load [--device N]] [--] FILE...
// Prints per-kernel metadata of Intel GPU native binaries (zebin); with
// --load, also what the Level Zero driver reports for them. Exit codes are
// in kUsage (and docs/zebin.md).

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#ifdef _WIN32
#include <windows.h>

#include <shellapi.h>
#endif

#include "common/expected.h"
#include "file_io/file_io.h"
#include "tools/zebin_info/load_check.h"
#include "tools/zebin_info/report.h"
#include "zebin/zebin.h"

#ifndef XSL_VERSION
#define XSL_VERSION "unknown"
#endif

namespace {

// Exit codes (documented in kUsage and docs/zebin.md).
constexpr int kExitOk = 0;
constexpr int kExitBadInput = 1; // a bad file, a failed load, a disagreement
constexpr int kExitUsage = 2;
constexpr int kExitNoLevelZero = 3; // no loader/driver, or no Intel GPU
constexpr int kExitBadDevice = 4;   // --device N missing or not an Intel GPU

constexpr const char* kUsage =
    "usage: zebin-info [--json] [--kernel NAME] [--load [--device N]] [--] "
    "FILE...\n"
    "  --json         one JSON object per file (schema: docs/zebin.md)\n"
    "  --kernel NAME  only this kernel; a file without it is an error\n"
    "  --load         after the metadata, load each kernel through Level "
    "Zero\n"
    "                 and compare driver properties with .ze_info\n"
    "                 (docs/level_zero.md)\n"
    "  --device N     device index for --load (default 0)\n"
    "  --version      print the version and exit\n"
    "  --             end of options: every later argument is a file\n"
    "exit codes: 0 all good; 1 a bad file, a failed load or a driver that\n"
    "  disagrees with .ze_info; 2 usage error; 3 --load without Level Zero\n"
    "  (no loader, no driver, or no Intel GPU); 4 --load with a --device that\n"
    "  does not exist or is not an Intel GPU\n";

struct Options {
  bool json = false;
  std::string kernel;
  std::vector<std::string> files;
  bool load = false;
  uint32_t device = 0;
};

// The command line as UTF-8: on Windows from the wide command line (argv is
// in the ANSI code page there, which cannot hold every file name).
std::vector<std::string> utf8Arguments(int argc, char** argv) {
  std::vector<std::string> args;
#ifdef _WIN32
  int count = 0;
  LPWSTR* wide = CommandLineToArgvW(GetCommandLineW(), &count);
  if (wide != nullptr) {
    for (int i = 0; i < count; ++i) {
      const int size = WideCharToMultiByte(
          CP_UTF8, 0, wide[i], -1, nullptr, 0, nullptr, nullptr);
      std::string arg(size > 0 ? static_cast<size_t>(size) : 1u, '\0');
      WideCharToMultiByte(
          CP_UTF8, 0, wide[i], -1, &arg[0], size, nullptr, nullptr);
      arg.resize(arg.size() - 1); // drop the terminating NUL
      args.push_back(arg);
    }
    LocalFree(wide);
    return args;
  }
#endif
  args.reserve(static_cast<size_t>(argc));
  for (int i = 0; i < argc; ++i) {
    args.emplace_back(argv[i]);
  }
  return args;
}

// Returns false on a usage error (message already printed).
bool parseArguments(const std::vector<std::string>& argv, Options& options) {
  const size_t argc = argv.size();
  bool options_ended = false;
  for (size_t i = 1; i < argc; ++i) {
    const std::string& arg = argv[i];
    if (arg == "-") {
      std::cerr << "zebin-info: reading stdin is not supported ('-'): pass "
                   "the zebin's file name (./- for a file named '-')\n"
                << kUsage;
      return false;
    }
    if (options_ended || arg.empty() || arg[0] != '-') {
      options.files.push_back(arg);
    } else if (arg == "--") {
      options_ended = true;
    } else if (arg == "--json") {
      options.json = true;
    } else if (arg == "--kernel") {
      if (i + 1 >= argc) {
        std::cerr << "zebin-info: --kernel needs a kernel name\n" << kUsage;
        return false;
      }
      options.kernel = argv[++i];
    } else if (arg == "--load") {
      options.load = true;
    } else if (arg == "--device") {
      char* end = nullptr;
      const char* text = i + 1 < argc ? argv[++i].c_str() : "";
      const unsigned long value = std::strtoul(text, &end, 10);
      if (*text == '\0' || *end != '\0' || value > 0xffffu) {
        std::cerr << "zebin-info: --device needs a device index\n" << kUsage;
        return false;
      }
      options.device = static_cast<uint32_t>(value);
    } else if (arg == "-h" || arg == "--help") {
      std::cout << kUsage;
      std::exit(kExitOk);
    } else if (arg == "--version") {
      std::cout << "zebin-info " << XSL_VERSION << "\n";
      std::exit(kExitOk);
    } else {
      std::cerr << "zebin-info: unknown option " << arg
                << " (use -- before a file name that starts with '-')\n"
                << kUsage;
      return false;
    }
  }
  if (options.files.empty()) {
    std::cerr << "zebin-info: no input files\n" << kUsage;
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parseArguments(utf8Arguments(argc, argv), options)) {
    return kExitUsage;
  }
  // Opened before the files are read; a problem is reported after the
  // metadata, which needs no driver.
  xsl::level_zero::DeviceAccess device;
  if (options.load) {
    device = xsl::level_zero::openDevice(options.device);
  }
  int exit_code = kExitOk;
  for (const std::string& file : options.files) {
    // UTF-8 and long paths on Windows; the message names the file.
    xsl::Expected<std::string> bytes = xsl::file_io::readFileBytes(file);
    if (!bytes) {
      std::cerr << bytes.error().message() << "\n";
      exit_code = kExitBadInput;
      continue;
    }
    xsl::Expected<xsl::zebin::Zebin> zebin = xsl::zebin::readZebin(*bytes);
    if (!zebin) {
      std::cerr << file << ": " << zebin.error().message() << "\n";
      exit_code = kExitBadInput;
      continue;
    }
    if (!options.kernel.empty() && !zebin->findKernel(options.kernel)) {
      std::cerr << file << ": kernel '" << options.kernel
                << "' not found; the zebin has: "
                << zebin->ze_info.kernelNames() << "\n";
      exit_code = kExitBadInput;
      continue;
    }
    const xsl::tools::Report report{
        std::cout, file, options.kernel, options.json};
    xsl::tools::printZebin(report, *zebin);
    if (device.context &&
        !xsl::tools::runLoadCheck(report, *bytes, device.context)) {
      exit_code = kExitBadInput;
    }
  }
  if (device.problem != xsl::level_zero::DeviceProblem::kNone) {
    std::cout.flush();
    std::cerr << "zebin-info: --load: " << device.message << "\n";
    return device.problem == xsl::level_zero::DeviceProblem::kBadDevice
        ? kExitBadDevice
        : kExitNoLevelZero;
  }
  return exit_code;
}
