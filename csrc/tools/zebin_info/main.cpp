// zebin-info [--json] [--kernel NAME] FILE...
// Prints per-kernel metadata of Intel GPU native binaries (zebin). Exit 0 on
// success, 1 if any file is bad (one line on stderr naming file and problem),
// 2 on a usage error.

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

namespace {

constexpr const char* kUsage =
    "usage: zebin-info [--json] [--kernel NAME] FILE...\n"
    "  --json         one JSON object per file (schema: docs/zebin.md)\n"
    "  --kernel NAME  only this kernel; a file without it is an error\n"
    "  --load         also load each kernel through Level Zero and compare\n"
    "                 driver properties with .ze_info (exit 1 on disagreement,\n"
    "                 2 without a Level Zero driver; docs/level_zero.md)\n"
    "  --device N     device index for --load (default 0)\n";

struct Options {
  bool json = false;
  std::string kernel;
  std::vector<std::string> files;
  bool load = false;
  uint32_t device = 0;
  // Extra options (e.g. --load/--device) add fields here and a branch in
  // parseArguments(); per-file work goes into the hook in main().
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
  for (int i = 0; i < argc; ++i) {
    args.emplace_back(argv[i]);
  }
  return args;
}

// Returns false on a usage error (message already printed).
bool parseArguments(const std::vector<std::string>& argv, Options& options) {
  const size_t argc = argv.size();
  for (size_t i = 1; i < argc; ++i) {
    const std::string& arg = argv[i];
    if (arg == "--json") {
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
      std::exit(0);
    } else if (arg.size() > 1 && arg[0] == '-' && arg != "--") {
      std::cerr << "zebin-info: unknown option " << arg << "\n" << kUsage;
      return false;
    } else {
      options.files.push_back(arg);
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
    return 2;
  }
  std::shared_ptr<xsl::level_zero::Context> context;
  if (options.load) {
    auto opened = xsl::tools::openLoadCheckDevice(options.device);
    if (!opened) {
      std::cerr << "zebin-info: --load: " << opened.error().message() << "\n";
      return 2;
    }
    context = *opened;
  }
  int exit_code = 0;
  for (const std::string& file : options.files) {
    // UTF-8 and long paths on Windows; the message names the file.
    xsl::Expected<std::string> bytes = xsl::file_io::readFileBytes(file);
    if (!bytes) {
      std::cerr << bytes.error().message() << "\n";
      exit_code = 1;
      continue;
    }
    xsl::Expected<xsl::zebin::Zebin> zebin = xsl::zebin::readZebin(*bytes);
    if (!zebin) {
      std::cerr << file << ": " << zebin.error().message() << "\n";
      exit_code = 1;
      continue;
    }
    if (!options.kernel.empty() && !zebin->findKernel(options.kernel)) {
      std::cerr << file << ": kernel '" << options.kernel
                << "' not found; the zebin has: "
                << zebin->ze_info.kernelNames() << "\n";
      exit_code = 1;
      continue;
    }
    if (options.json) {
      xsl::tools::printZebinJson(std::cout, file, *zebin, options.kernel);
    } else {
      xsl::tools::printZebinText(std::cout, file, *zebin, options.kernel);
    }
    // Hook: per-file actions of extra options (e.g. --load) go here.
    if (context &&
        !xsl::tools::runLoadCheck(
            std::cout, file, *bytes, context, options.kernel, options.json)) {
      exit_code = 1;
    }
  }
  return exit_code;
}
