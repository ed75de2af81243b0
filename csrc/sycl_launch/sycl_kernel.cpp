#include "sycl_launch/sycl_kernel.h"

#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <utility>
#include <variant>

#include "launcher/ze_launch.h"
#include "level_zero/level_zero.h"
#include "level_zero/loader.h"

namespace xsl {
namespace sycl_launch {
namespace {

using launcher::ArgPlan;
using launcher::ArgStorage;

// Our Level Zero context is SYCL's, not owned.
Expected<std::shared_ptr<level_zero::Context>> levelZeroContext(
    const sycl::device& device,
    const sycl::context& context,
    uint32_t device_index) {
  auto api = level_zero::api();
  if (!api) {
    return std::move(api).error();
  }
  auto ze_driver = sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
      device.get_platform());
  auto ze_device =
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(device);
  auto ze_context =
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(context);
  level_zero::Device ze(**api, ze_driver, ze_device, device_index);
  return level_zero::Context::wrap(ze, ze_context, /*owned=*/false);
}

std::unique_ptr<sycl::kernel> makeSyclKernel(
    const launcher::LoadedKernel& loaded,
    const sycl::context& context) {
  namespace ze_interop = sycl::ext::oneapi::level_zero;
  auto bundle = sycl::make_kernel_bundle<
      sycl::backend::ext_oneapi_level_zero,
      sycl::bundle_state::executable>(
      {loaded.kernel().module().handle(), ze_interop::ownership::keep},
      context);
  return std::make_unique<sycl::kernel>(
      sycl::make_kernel<sycl::backend::ext_oneapi_level_zero>(
          {bundle, loaded.kernel().handle(), ze_interop::ownership::keep},
          context));
}

// Adapter v2 batches a queue's commands in regular lists that it submits
// later when the queue has no_immediate_command_list or the process sets
// UR_L0_V2_FORCE_BATCHED (read as the adapter reads it); get_native still
// gives the immediate list, where a direct append would run before them.
// The variable is process-wide, so it is read once (at kernel load); the
// property is the queue's, checked at each launch.
bool forcedBatchedSubmission() {
  static const bool forced = [] {
    const char* value = std::getenv("UR_L0_V2_FORCE_BATCHED");
    if (value == nullptr) {
      return false;
    }
    std::string lowered(value);
    for (char& c : lowered) {
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return lowered == "1" || lowered == "y" || lowered == "yes" ||
        lowered == "t" || lowered == "true";
  }();
  return forced;
}

ze_command_list_handle_t directCommandList(sycl::queue& queue) {
  if (!queue.is_in_order() ||
      queue.has_property<
          sycl::ext::intel::property::queue::no_immediate_command_list>()) {
    return nullptr;
  }
  auto native = sycl::get_native<sycl::backend::ext_oneapi_level_zero>(queue);
  ze_command_list_handle_t* list =
      std::get_if<ze_command_list_handle_t>(&native);
  return list != nullptr ? *list : nullptr;
}

template <typename T>
void setSlotArg(sycl::handler& cgh, uint32_t index, const void* slot) {
  T value{};
  std::memcpy(&value, slot, sizeof(value));
  cgh.set_arg(static_cast<int>(index), value);
}

void submitOnQueue(
    sycl::queue& queue,
    sycl::kernel& kernel,
    const launcher::LaunchRequest& launch) {
  const ArgPlan& plan = launch.plan;
  const ArgStorage& storage = launch.storage;
  const launcher::LaunchGeometry& geometry = launch.geometry;
  const uint32_t shared_bytes = launch.shared_bytes;
  const sycl::range<3> global(
      static_cast<size_t>(geometry.global_size_z),
      static_cast<size_t>(geometry.global_size_y),
      static_cast<size_t>(geometry.global_size_x));
  const sycl::range<3> local(1, 1, static_cast<size_t>(geometry.group_size_x));
  const sycl::nd_range<3> work(global, local);
  // The event is dropped: nothing reads an event of a launch (torch records
  // its own on the queue). Not the event-less experimental::submit: on
  // adapter v1, the one that takes this path, it measured 5-7% slower
  // (tests/bench/bench_glue_launch.py, intel-sycl-rt 2025.3.3 and 2026.2.0):
  // the adapter makes a new internal event for it, where a returned event
  // goes back to the adapter's cache.
  queue.submit([&plan, &storage, &kernel, &work, shared_bytes](
                   sycl::handler& cgh) {
    const uint32_t passed = static_cast<uint32_t>(plan.args.size());
    for (uint32_t i = 0; i < passed; ++i) {
      const void* slot = storage.slot(i);
      if (plan.args[i].type == launcher::ArgType::kPointer) {
        setSlotArg<void*>(cgh, i, slot);
        continue;
      }
      switch (plan.args[i].size) { // the kernel's payload size
        case 1:
          setSlotArg<uint8_t>(cgh, i, slot);
          break;
        case 2:
          setSlotArg<uint16_t>(cgh, i, slot);
          break;
        case 4:
          setSlotArg<uint32_t>(cgh, i, slot);
          break;
        default:
          setSlotArg<uint64_t>(cgh, i, slot);
          break;
      }
    }
    for (uint32_t i = 0; i < plan.null_pointer_args; ++i) {
      cgh.set_arg(static_cast<int>(passed + i), static_cast<void*>(nullptr));
    }
    if (plan.binds_shared_memory) {
      sycl::local_accessor<int8_t, 1> shared(
          sycl::range<1>(static_cast<size_t>(shared_bytes)), cgh);
      cgh.set_arg(static_cast<int>(plan.sharedMemoryArgIndex()), shared);
    }
    cgh.parallel_for(work, kernel);
  });
}

} // namespace

// Appending to the list directly is ordered like a submit when the queue is
// in order, not batched (above), and the Unified Runtime's Level Zero adapter
// is v2: v2 puts every command of such a queue on that one immediate list
// when it is submitted, queue.wait() synchronizes the whole list
// (zeCommandListHostSynchronize), and the events torch records are barriers
// appended to it. Adapter v1 is excluded: its queue.wait() waits for the
// last event SYCL made, which a direct append comes after.
bool adapterAppendsInOrder(const sycl::device& device) {
  const std::string platform =
      device.get_platform().get_info<sycl::info::platform::name>();
  const std::string_view v2_suffix = "Level-Zero V2";
  return !forcedBatchedSubmission() && platform.size() >= v2_suffix.size() &&
      platform.compare(
          platform.size() - v2_suffix.size(), v2_suffix.size(), v2_suffix) == 0;
}

Expected<std::unique_ptr<SyclKernel>> SyclKernel::load(
    const sycl::device& device,
    const sycl::context& context,
    uint32_t device_index,
    const std::string& utf8_path,
    std::string_view kernel_name,
    const launcher::LoadOptions& options) {
  auto ze_context = levelZeroContext(device, context, device_index);
  if (!ze_context) {
    return ze_context.error();
  }
  auto loaded = launcher::LoadedKernel::load(
      std::move(*ze_context), utf8_path, kernel_name, options);
  if (!loaded) {
    return loaded.error();
  }
  std::unique_ptr<SyclKernel> made(new SyclKernel());
  made->loaded_ = std::move(*loaded);
  try {
    made->kernel_ = makeSyclKernel(*made->loaded_, context);
    made->appends_directly_ = adapterAppendsInOrder(device);
  } catch (const std::exception& e) {
    return Error(
        "kernel '" + made->loaded_->name() +
        "': SYCL refused its Level Zero kernel: " + e.what());
  }
  return made;
}

Status SyclKernel::launch(
    sycl::queue& queue,
    const launcher::LaunchRequest& launch) {
  try {
    if (appends_directly_) {
      if (ze_command_list_handle_t list = directCommandList(queue)) {
        return launcher::launchOnCommandList(*loaded_, launch, list);
      }
      // The submit has the Unified Runtime set its arguments and group size
      // on our Level Zero kernel: a later direct append must set its own.
      loaded_->setArgCache().forget();
    }
    submitOnQueue(queue, *kernel_, launch);
  } catch (const std::exception& e) {
    return Error(
        "kernel '" + loaded_->name() + "': SYCL launch failed: " + e.what());
  }
  return Status::success();
}

} // namespace sycl_launch
} // namespace xsl
