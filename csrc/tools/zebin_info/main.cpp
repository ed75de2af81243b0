// zebin-info [--json] [--kernel NAME] FILE...
// Prints per-kernel metadata of Intel GPU native binaries (zebin). Exit 0 on
// success, 1 if any file is bad (one line on stderr naming file and problem),
// 2 on a usage error.

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "common/expected.h"
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

// Returns false on a usage error (message already printed).
bool parseArguments(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
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
      const char* text = i + 1 < argc ? argv[++i] : "";
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

xsl::Expected<std::string> readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return xsl::Error("cannot open the file (check the path)");
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) {
    return xsl::Error("read error");
  }
  return buffer.str();
}

} // namespace

int main(int argc, char** argv) {
  Options options;
  if (!parseArguments(argc, argv, options)) {
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
    xsl::Expected<std::string> bytes = readFile(file);
    if (!bytes) {
      std::cerr << file << ": " << bytes.error().message() << "\n";
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
