// The fake ocloc executable (see fake_ocloc.h): files in the working folder.

#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "fake_ocloc.h"

#ifdef _WIN32
#include <windows.h>
#endif

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "compile") {
    args.erase(args.begin());
  }
  auto read = [](const std::string& name) {
    std::ifstream in(name, std::ios::binary);
    return std::string(
        (std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const xsl::ocloc::fake::Outcome outcome = xsl::ocloc::fake::run(args, read);
  if (outcome.crash) {
#ifdef _WIN32
    // The exit code a crashed Windows process has, without a crash dialog.
    TerminateProcess(GetCurrentProcess(), 0xC0000005u);
#else
    std::signal(SIGSEGV, SIG_DFL); // past any sanitizer handler
    std::raise(SIGSEGV);
#endif
  }
  for (const auto& file : outcome.files) {
    std::ofstream out(file.first, std::ios::binary);
    out.write(
        file.second.data(), static_cast<std::streamsize>(file.second.size()));
  }
  std::cout << outcome.log;
  return outcome.code;
}
