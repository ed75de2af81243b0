// Puts the stand-in ze_loader.dll (argument 1) into System32 of the wine
// prefix, as a step of its own before the SYCL runtime test starts: loading
// sycl<N>.dll loads the Unified Runtime's adapters at once
// (ur_win_proxy_loader), and the Level Zero adapter maps System32's
// ze_loader.dll, which a running process then cannot replace.

#include <cstdio>

#include "test_driver_client.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: install_standin_loader <ze_loader.dll>\n");
    return 2;
  }
  xsl::Status installed = xsl::test_driver::installStandinLoader(argv[1]);
  if (!installed.ok()) {
    std::fprintf(stderr, "%s\n", installed.error().message().c_str());
    return 1;
  }
  return 0;
}
