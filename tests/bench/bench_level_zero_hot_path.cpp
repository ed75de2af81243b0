// The launch hot path through the real Level Zero loader and the test driver:
// set 4 arguments + group size + zeCommandListAppendLaunchKernel, i.e. what
// the launcher does per launch after its own packing. Run with
//   ZE_ENABLE_ALT_DRIVERS=<build>/tests/ze_test_driver/libxsl_ze_test_driver.so
//   XSL_TEST_DRIVER_NO_RECORD=1 bench_level_zero_hot_path <add zebin>
// The last line is the headline figure (ns per launch).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "file_io/file_io.h"
#include "launcher/kernel_module.h"
#include "level_zero/level_zero.h"

using namespace xsl::level_zero;
using xsl::Expected;
namespace file_io = xsl::file_io;

namespace {

int fail(const std::string& message) {
  std::fprintf(stderr, "bench_level_zero_hot_path: %s\n", message.c_str());
  return 1;
}

} // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    return fail("usage: bench_level_zero_hot_path ADD_ZEBIN [ITERATIONS]");
  }
  const long iterations = argc > 2 ? std::atol(argv[2]) : 200000;
  auto context = sharedContext(0);
  if (!context) {
    return fail(context.error().message());
  }
  Expected<std::string> bytes = file_io::readFileBytes(argv[1]);
  if (!bytes) {
    return fail(bytes.error().message());
  }
  auto module = xsl::launcher::KernelModule::create(*context, *bytes, argv[1]);
  if (!module) {
    return fail(module.error().message());
  }
  auto kernel = (*module)->createKernel("add");
  auto list = CommandList::createImmediate(*context);
  if (!kernel || !list) {
    return fail(kernel ? list.error().message() : kernel.error().message());
  }
  std::vector<Allocation> buffers;
  for (int i = 0; i < 3; ++i) {
    auto buffer = Allocation::allocate(*context, MemoryKind::kDevice, 4096);
    if (!buffer) {
      return fail(buffer.error().message());
    }
    buffers.push_back(std::move(*buffer));
  }
  ze_group_count_t count;
  count.groupCountX = 64;
  count.groupCountY = 1;
  count.groupCountZ = 1;
  auto run = [&](long n) -> bool {
    for (long i = 0; i < n; ++i) {
      for (uint32_t a = 0; a < 3; ++a) {
        void* pointer = buffers[a].data();
        if (!kernel->setArgumentValue(a, sizeof(pointer), &pointer).ok()) {
          return false;
        }
      }
      const int32_t elements = static_cast<int32_t>(i);
      if (!kernel->setArgumentValue(3, sizeof(elements), &elements).ok() ||
          !kernel->setGroupSize(32, 1, 1).ok() ||
          !list->appendLaunch(*kernel, count).ok()) {
        return false;
      }
    }
    return true;
  };
  if (!run(1000)) {
    return fail("warm-up launch failed");
  }
  const auto start = std::chrono::steady_clock::now();
  if (!run(iterations)) {
    return fail("launch failed");
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf("iterations: %ld\n", iterations);
  std::printf(
      "hot path (4 args + group size + append launch, loader + test "
      "driver): %.1f ns per launch\n",
      seconds * 1e9 / static_cast<double>(iterations));
  return 0;
}
