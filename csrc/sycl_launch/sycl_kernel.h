#pragma once

// The SYCL half of a static launch, shared by the PyTorch glue
// (csrc/pytorch/xpu.cpp, which gets device, context and queue from
// c10::xpu) and the package's torch-free backend (csrc/python/
// sycl_launcher_module.cpp, which finds them as torch does,
// torch_devices.h):
//   - a zebin or SPIR-V loaded into the Level Zero context under a
//   sycl::context,
//     and a sycl::kernel over it (Level Zero handles kept by us);
//   - the launch on a sycl::queue: appended to the queue's own immediate
//     command list where that is ordered exactly like a submit (adapter v2,
//     in-order, not batched), else one queue.submit.
// No Python, no torch: SYCL, Level Zero and the launcher core only.

#include <sycl/sycl.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "launcher/loaded_kernel.h"
#include "launcher/ze_launch.h"

namespace xsl {
namespace sycl_launch {

// Members are destroyed in reverse order: the sycl::kernel (which only
// borrows the Level Zero handles) goes before the handles themselves.
class SyclKernel {
 public:
  // Loads `kernel_name` of the zebin or SPIR-V at `utf8_path`
  // (LoadedKernel::load with `options`) into the Level Zero context of
  // `context` on `device` (torch's numbering: `device_index`) and makes the
  // sycl::kernel. SYCL failures come back as errors, not exceptions.
  static Expected<std::unique_ptr<SyclKernel>> load(
      const sycl::device& device,
      const sycl::context& context,
      uint32_t device_index,
      const std::string& utf8_path,
      std::string_view kernel_name,
      const launcher::LoadOptions& options = launcher::LoadOptions());

  launcher::LoadedKernel& loaded() noexcept {
    return *loaded_;
  }

  // One launch on `queue` (a queue of the kernel's context and device).
  // The caller serializes launches of one kernel (Level Zero argument state
  // lives on the kernel handle): the bindings hold the GIL. Both paths set
  // arguments on the same handle; a submit makes the next direct append set
  // all of them again (LoadedKernel::SetArgCache::forget).
  Status launch(sycl::queue& queue, const launcher::LaunchRequest& launch);

 private:
  SyclKernel() = default;

  std::unique_ptr<launcher::LoadedKernel> loaded_;
  std::unique_ptr<sycl::kernel> kernel_;
  // The device's queues take launches on their command lists directly
  // (directCommandList says when that is ordered like a submit).
  bool appends_directly_ = false;
};

// Whether the Unified Runtime adapter of `device` appends a direct launch in
// the queue's order: adapter v2 (platform name "... Level-Zero V2") and
// UR_L0_V2_FORCE_BATCHED not set (read once per process, as the adapter
// reads it).
bool adapterAppendsInOrder(const sycl::device& device);

} // namespace sycl_launch
} // namespace xsl
