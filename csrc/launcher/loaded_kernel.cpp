#include "launcher/loaded_kernel.h"

#include <string>
#include <string_view>
#include <utility>

#include "launcher/pointer_check.h"

namespace xsl {
namespace launcher {

Expected<std::unique_ptr<LoadedKernel>> LoadedKernel::load(
    std::shared_ptr<level_zero::Context> context,
    const std::string& utf8_path,
    std::string_view kernel_name) {
  auto module = level_zero::Module::fromFile(std::move(context), utf8_path);
  if (!module) {
    return std::move(module).error();
  }
  auto kernel = level_zero::Kernel::create(std::move(*module), kernel_name);
  if (!kernel) {
    return std::move(kernel).error();
  }
  return std::unique_ptr<LoadedKernel>(new LoadedKernel(std::move(*kernel)));
}

int64_t tritonRegisterCount(std::string_view build_options) noexcept {
  if (build_options.find("-cl-intel-256-GRF-per-thread") !=
      std::string_view::npos) {
    return 256;
  }
  if (build_options.find("-cl-intel-128-GRF-per-thread") !=
      std::string_view::npos) {
    return 128;
  }
  return 0;
}

int64_t LoadedKernel::registerCount() const noexcept {
  return tritonRegisterCount(kernel_.module().buildOptions());
}

int64_t LoadedKernel::spillCount() const noexcept {
  return kernel_.properties().spill_mem_size;
}

Status LoadedKernel::checkSharedMemory(uint64_t dynamic_bytes) const {
  Expected<level_zero::DeviceProperties> device =
      context().device().properties();
  if (!device) {
    return std::move(device).error();
  }
  const uint64_t static_bytes = kernel_.properties().local_mem_size;
  const uint64_t limit = device->max_shared_local_memory;
  if (dynamic_bytes + static_bytes <= limit) {
    return Status();
  }
  return Error(
      "kernel '" + name() + "' needs " +
      std::to_string(dynamic_bytes + static_bytes) +
      " bytes of shared local memory (" + std::to_string(dynamic_bytes) +
      " dynamic + " + std::to_string(static_bytes) + " static), but device '" +
      device->name + "' has " + std::to_string(limit) +
      " (Triton raises OutOfResources here): compile it with fewer stages or "
      "smaller blocks");
}

Expected<const ArgPlan*> LoadedKernel::planFor(std::string_view type_codes) {
  if (plan_ && plan_->type_codes == type_codes) {
    return plan_.get();
  }
  auto plan = compileArgPlan(type_codes, name(), kernel_.info().user_arguments);
  if (!plan) {
    return std::move(plan).error();
  }
  // A new plan may reuse the old one's address: forget that the handle's
  // arguments match it.
  set_arg_cache_.all_set_for = nullptr;
  plan_ = std::make_unique<ArgPlan>(std::move(*plan));
  return plan_.get();
}

Status LoadedKernel::queryPointer(size_t index, uint64_t address) const {
  const level_zero::Context& ctx = context();
  ze_memory_allocation_properties_t properties = {};
  properties.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ze_device_handle_t allocation_device = nullptr;
  // NOLINTNEXTLINE(performance-no-int-to-ptr): the address came from Python.
  const void* pointer =
      reinterpret_cast<const void*>(static_cast<uintptr_t>(address));
  const ze_result_t result = ctx.api().zeMemGetAllocProperties(
      ctx.handle(), pointer, &properties, &allocation_device);
  return checkPointerArgument(
      index,
      address,
      result,
      properties.type,
      allocation_device,
      ctx.device().handle());
}

} // namespace launcher
} // namespace xsl
