#pragma once

// A stand-in for ocloc, built as an executable (fake_ocloc_main.cpp) and as
// a library exporting oclocInvoke/oclocFreeOutput (fake_libocloc.cpp), so
// both backends run on every platform, Windows under wine included, where
// there is no real ocloc. The device name picks the behaviour:
//   fake          zebin; kernel "k" spills 1024 bytes with 128 GRF, 0 with
//                 -cl-intel-256-GRF-per-thread
//   fake-legacy   legacy 0xff04 ELF unless -internal_options -ze-allow-zebin
//   fake-crash    the process crashes (executable) / OCLOC_COMPILATION_CRASH
//   fake-5152     returns OCLOC_COMPILATION_CRASH (-5152)
//   anything else "Cannot get HW Info", OCLOC_INVALID_DEVICE (-33)
// Input that is not SPIR-V gets OCLOC_BUILD_PROGRAM_FAILURE (-11) and a log.

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "zebin_writer.h"

namespace xsl {
namespace ocloc {
namespace fake {

struct Outcome {
  int code = 0;
  bool crash = false;
  std::string log;
  std::map<std::string, std::string> files; // name -> content
};

inline std::string argAfter(
    const std::vector<std::string>& args,
    const std::string& flag) {
  for (size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] == flag) {
      return args[i + 1];
    }
  }
  return std::string();
}

inline bool hasArg(const std::vector<std::string>& args, const std::string& v) {
  for (const auto& arg : args) {
    if (arg == v) {
      return true;
    }
  }
  return false;
}

inline std::string fakeZebin(uint64_t spill) {
  const std::string ze_info =
      "version: '1.40'\nkernels:\n  - name: k\n    execution_env:\n"
      "      grf_count: 128\n      simd_size: 16\n      spill_size: " +
      std::to_string(spill) + "\n";
  return zebin::testing::ZebinWriter().kernel("k").zeInfo(ze_info).build();
}

// `args` without the program name; `read_source` returns the named input.
template <typename ReadSource>
Outcome run(const std::vector<std::string>& args, ReadSource read_source) {
  Outcome out;
  if (!args.empty() && args[0] == "query") {
    const std::string what = args.size() > 1 ? args[1] : "";
    if (what != "OCL_DRIVER_VERSION") {
      out.code = -5150;
      out.log = "Invalid query: " + what + "\n";
      return out;
    }
    out.files[what] = std::string("99.1.0\0", 7);
    return out;
  }
  const std::string device = argAfter(args, "-device");
  const std::string output = argAfter(args, "-output");
  const std::string source = read_source(argAfter(args, "-file"));
  if (device == "fake-crash") {
    out.crash = true;
    out.code = -5152;
    return out;
  }
  if (device == "fake-5152") {
    out.code = -5152;
    out.log = "Compilation crashed\n";
    return out;
  }
  if (device != "fake" && device != "fake-legacy") {
    out.code = -33;
    out.log = "Error: Cannot get HW Info for device " + device + ".\n";
    return out;
  }
  uint32_t magic = 0;
  if (source.size() >= 4) {
    std::memcpy(&magic, source.data(), 4);
  }
  if (magic != 0x07230203u) {
    out.code = -11;
    out.log = "Warning : file does not look like spirv bitcode\n";
    return out;
  }
  const bool large =
      argAfter(args, "-options").find("-cl-intel-256-GRF-per-thread") !=
      std::string::npos;
  if (device == "fake-legacy" && !hasArg(args, "-ze-allow-zebin")) {
    out.files[output] =
        zebin::testing::ZebinWriter().elfType(0xff04).machine(0).build();
  } else {
    out.files[output] = fakeZebin(large ? 0 : 1024);
  }
  // Echoed so tests can check arguments survive process quoting intact.
  out.log = "options: [" + argAfter(args, "-options") + "]\nBuild succeeded.\n";
  return out;
}

} // namespace fake
} // namespace ocloc
} // namespace xsl
