#pragma once

// What tests need beyond c10::xpu (c10_xpu_shim.cpp): queues as torch hands
// them to Inductor (a sycl::queue* as an integer) and device memory.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace xsl {
namespace torch_glue_test {

// The SYCL platform the shim took its devices from.
std::string platformName();

// &getCurrentXPUStream(device).queue(): what torch._C._xpu_getCurrentRawStream
// returns.
uintptr_t currentQueue(int device);
// A further in-order queue on the device (a non-default stream); batched:
// with no_immediate_command_list, whose commands adapter v2 batches in
// regular lists and runs when the queue is flushed.
uintptr_t newQueue(int device, bool batched);
// queue.wait() on every queue above (batched queues run their commands then).
void waitAll();
// The Level Zero immediate command list under a queue (0 if it has none).
uintptr_t nativeCommandList(uintptr_t queue);
// The Level Zero handles under c10::xpu's context and devices (driver,
// device), to compare with what another module finds.
uintptr_t nativeContext();
std::vector<std::pair<uintptr_t, uintptr_t>> nativeDevices();
// sycl::malloc_device in the shared context.
uintptr_t mallocDevice(size_t bytes, int device);

} // namespace torch_glue_test
} // namespace xsl
