// The fake ocloc library (see fake_ocloc.h): the oclocInvoke C API with
// in-memory sources and outputs, like libocloc.so / ocloc64.dll.

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fake_ocloc.h"

#ifdef _WIN32
#define FAKE_OCLOC_EXPORT extern "C" __declspec(dllexport)
#else
#define FAKE_OCLOC_EXPORT extern "C" __attribute__((visibility("default")))
#endif

namespace {

char* copyBytes(const std::string& bytes) {
  char* copy = static_cast<char*>(std::malloc(bytes.size() + 1));
  std::memcpy(copy, bytes.data(), bytes.size());
  copy[bytes.size()] = '\0';
  return copy;
}

} // namespace

FAKE_OCLOC_EXPORT int oclocInvoke(
    unsigned int num_args,
    const char* argv[],
    uint32_t num_sources,
    const uint8_t** data_sources,
    const uint64_t* len_sources,
    const char** name_sources,
    uint32_t,
    const uint8_t**,
    const uint64_t*,
    const char**,
    uint32_t* num_outputs,
    uint8_t*** data_outputs,
    uint64_t** len_outputs,
    char*** name_outputs) {
  std::vector<std::string> args;
  for (unsigned int i = 1; i < num_args; ++i) {
    args.emplace_back(argv[i]);
  }
  if (!args.empty() && args[0] == "compile") {
    args.erase(args.begin());
  }
  auto read = [&](const std::string& name) {
    for (uint32_t i = 0; i < num_sources; ++i) {
      if (name == name_sources[i]) {
        return std::string(
            reinterpret_cast<const char*>(data_sources[i]),
            static_cast<size_t>(len_sources[i]));
      }
    }
    return std::string();
  };
  xsl::ocloc::fake::Outcome outcome = xsl::ocloc::fake::run(args, read);
  outcome.files["stdout.log"] = outcome.log;
  const uint32_t count = static_cast<uint32_t>(outcome.files.size());
  *num_outputs = count;
  *data_outputs = static_cast<uint8_t**>(std::calloc(count, sizeof(uint8_t*)));
  *len_outputs = static_cast<uint64_t*>(std::calloc(count, sizeof(uint64_t)));
  *name_outputs = static_cast<char**>(std::calloc(count, sizeof(char*)));
  uint32_t i = 0;
  for (const auto& file : outcome.files) {
    (*data_outputs)[i] = reinterpret_cast<uint8_t*>(copyBytes(file.second));
    (*len_outputs)[i] = file.second.size();
    (*name_outputs)[i] = copyBytes(file.first);
    ++i;
  }
  return outcome.code;
}

FAKE_OCLOC_EXPORT int oclocFreeOutput(
    uint32_t* num_outputs,
    uint8_t*** data_outputs,
    uint64_t** len_outputs,
    char*** name_outputs) {
  for (uint32_t i = 0; i < *num_outputs; ++i) {
    std::free((*data_outputs)[i]);
    std::free((*name_outputs)[i]);
  }
  std::free(*data_outputs);
  std::free(*len_outputs);
  std::free(*name_outputs);
  *num_outputs = 0;
  *data_outputs = nullptr;
  *len_outputs = nullptr;
  *name_outputs = nullptr;
  return 0;
}
