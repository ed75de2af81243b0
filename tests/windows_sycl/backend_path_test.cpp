// The package backend's SYCL path (csrc/sycl_launch: torchXpuDevices(),
// SyclKernel::load and SyclKernel::launch with the launcher core's plan,
// storage and geometry, as python/abi/sycl_launcher_abi.h drives them) on the
// Windows SYCL runtime over the test driver's stand-in ze_loader.dll, under
// wine. Built by MSVC; no GPU: the launch is the test driver's record of it.
//
// One Unified Runtime adapter per process: ctest runs these cases once per
// adapter, choosing it by the test driver's device IP version and naming the
// expected one in XSL_TEST_EXPECT_ADAPTER (v1 or v2).

#include <gtest/gtest.h>

#include <sycl/sycl.hpp>

#include <level_zero/ze_api.h>
#include <sycl/ext/oneapi/backend/level_zero.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "launcher/arg_plan.h"
#include "launcher/geometry.h"
#include "launcher/loaded_kernel.h"
#include "launcher/native_binary_cache.h"
#include "sycl_launch/sycl_kernel.h"
#include "sycl_launch/torch_devices.h"
#include "test_driver_client.h"
#include "test_paths.h"

namespace xsl {
namespace sycl_launch {
namespace {

constexpr sycl::backend kLevelZero = sycl::backend::ext_oneapi_level_zero;

std::string expectedAdapter() {
  const char* adapter = std::getenv("XSL_TEST_EXPECT_ADAPTER");
  return adapter != nullptr ? adapter : "";
}

// Adapter v2 appends to an in-order queue's immediate list directly unless
// the process forces batched submission (sycl_kernel.h).
bool expectedDirectAppend() {
  return expectedAdapter() == "v2" &&
      std::getenv("UR_L0_V2_FORCE_BATCHED") == nullptr;
}

uint32_t expectedDeviceCount() {
  const char* devices = std::getenv("XSL_TEST_DRIVER_DEVICES");
  return devices != nullptr ? static_cast<uint32_t>(std::atoi(devices)) : 1u;
}

// The backend's devices and context, or a test failure.
const TorchXpuDevices& backendDevices() {
  const TorchXpuDevices& found = torchXpuDevices();
  EXPECT_EQ(found.error, "");
  EXPECT_FALSE(found.devices.empty());
  EXPECT_TRUE(found.context.has_value());
  return found;
}

// SYCL 2026.2.0 has the default context on Windows too (torch's rule since
// 2025.0), so the backend does not wait for a queue torch passes.
TEST(WindowsSyclBackendPath, ContextIsNotTakenFromTorchsQueue) {
  static_assert(__SYCL_COMPILER_VERSION >= 20250000);
  EXPECT_FALSE(contextFromTorchQueue());
}

// torch's numbering: the test driver's devices, in the platform's order, and
// the platform's default context.
TEST(WindowsSyclBackendPath, DevicesAndContextAreTorchs) {
  const TorchXpuDevices& found = backendDevices();
  ASSERT_FALSE(found.devices.empty());
  ASSERT_TRUE(found.context);
  ASSERT_EQ(found.devices.size(), expectedDeviceCount());
  const sycl::platform platform = found.devices.front().get_platform();
  EXPECT_EQ(platform.get_backend(), kLevelZero);
  const std::vector<sycl::device> listed = platform.get_devices();
  ASSERT_EQ(listed.size(), found.devices.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(found.devices[i], listed[i]) << "device " << i;
    EXPECT_EQ(
        found.devices[i].get_info<sycl::info::device::name>(),
        "XSL test device");
    EXPECT_TRUE(found.devices[i].is_gpu());
  }

  const sycl::context default_context = platform.khr_get_default_context();
  EXPECT_EQ(*found.context, default_context);
  EXPECT_EQ(
      sycl::get_native<kLevelZero>(*found.context),
      sycl::get_native<kLevelZero>(default_context));
  EXPECT_NE(sycl::get_native<kLevelZero>(*found.context), nullptr);
  EXPECT_EQ(found.context->get_devices().size(), found.devices.size());
  EXPECT_EQ(&found, &torchXpuDevices()); // found once per process
}

// The adapter this run expects, and whether the backend appends to the
// queue's immediate list directly (v2, not batched) or submits (v1, and v2
// with UR_L0_V2_FORCE_BATCHED).
TEST(WindowsSyclBackendPath, AdapterIsTheExpectedOne) {
  const std::string expected = expectedAdapter();
  ASSERT_TRUE(expected == "v1" || expected == "v2")
      << "XSL_TEST_EXPECT_ADAPTER must be v1 or v2 (set by ctest)";
  const TorchXpuDevices& found = backendDevices();
  ASSERT_FALSE(found.devices.empty());
  const std::string platform = found.devices.front()
                                   .get_platform()
                                   .get_info<sycl::info::platform::name>();
  const std::string v2_suffix = "Level-Zero V2";
  const bool v2 = platform.size() >= v2_suffix.size() &&
      platform.compare(
          platform.size() - v2_suffix.size(), v2_suffix.size(), v2_suffix) == 0;
  EXPECT_EQ(v2, expected == "v2") << "platform: " << platform;
  EXPECT_EQ(
      adapterAppendsInOrder(found.devices.front()), expectedDirectAppend());
}

std::unique_ptr<SyclKernel> loadKernel(
    const TorchXpuDevices& found,
    const std::string& zebin,
    const char* name,
    uint64_t shared_bytes) {
  launcher::LoadOptions options;
  options.shared_bytes = shared_bytes;
  auto loaded = SyclKernel::load(
      found.devices.front(),
      *found.context,
      0,
      test_paths::corpusFile(zebin),
      name,
      options);
  EXPECT_TRUE(loaded.ok()) << loaded.error().message();
  return loaded.ok() ? std::move(*loaded) : nullptr;
}

// Slot i holds `pointer` as python/abi/sycl_launcher_abi.h packs a tensor's
// data_ptr(), checked in the kernel's context as it checks it.
void packPointer(
    launcher::LoadedKernel& kernel,
    launcher::ArgStorage& storage,
    size_t index,
    const void* pointer) {
  const uint64_t address =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(pointer));
  std::memcpy(storage.slot(index), &address, sizeof(address));
  Status checked = kernel.checkPointer(index, address);
  EXPECT_TRUE(checked.ok()) << checked.error().message();
}

ze_command_list_handle_t immediateList(sycl::queue& queue) {
  auto native = sycl::get_native<kLevelZero>(queue);
  ze_command_list_handle_t* list =
      std::get_if<ze_command_list_handle_t>(&native);
  return list != nullptr ? *list : nullptr;
}

class WindowsSyclBackendLaunch : public ::testing::Test {
 protected:
  void SetUp() override {
    const TorchXpuDevices& found = backendDevices();
    ASSERT_FALSE(found.devices.empty());
    ASSERT_TRUE(found.context);
    found_ = &found;
    // torch's queues are in order.
    queue_ = std::make_unique<sycl::queue>(
        *found.context,
        found.devices.front(),
        sycl::property::queue::in_order());
    auto opened = test_driver::Client::open();
    ASSERT_TRUE(opened.ok()) << opened.error().message();
    client_ = std::make_unique<test_driver::Client>(*opened);
  }

  void TearDown() override {
    for (void* allocation : allocations_) {
      sycl::free(allocation, *queue_);
    }
  }

  void* deviceMemory(size_t bytes) {
    void* allocation = sycl::malloc_device(bytes, *queue_);
    EXPECT_NE(allocation, nullptr);
    allocations_.push_back(allocation);
    return allocation;
  }

  // Launches once on the test queue over a grid of `num_warps`-warp groups,
  // waits, and checks that the driver recorded that one launch, of this
  // kernel with that geometry.
  void launchOnce(
      SyclKernel& kernel,
      const launcher::ArgPlan& plan,
      const launcher::ArgStorage& storage,
      std::array<uint32_t, 3> grid,
      uint32_t num_warps,
      uint32_t shared_bytes,
      XslTestLaunchRecord* record) {
    const uint32_t warp = kernel.loaded().threadsPerWarp();
    auto geometry = launcher::computeLaunchGeometry(
        grid[0], grid[1], grid[2], num_warps, warp);
    ASSERT_TRUE(geometry.ok()) << geometry.error().message();
    client_->clear();
    Status launched =
        kernel.launch(*queue_, {plan, storage, *geometry, shared_bytes});
    ASSERT_TRUE(launched.ok()) << launched.error().message();
    queue_->wait();
    ASSERT_EQ(client_->launchCount(), 1u);
    ASSERT_TRUE(client_->launch(0, record));
    EXPECT_EQ(
        test_driver::shapeOf(*record),
        (test_driver::LaunchShape{
            kernel.loaded().name(), grid, {num_warps * warp, 1, 1}}));
  }

  // The launch record's list: appending directly, the backend appends to the
  // queue's own immediate list.
  void expectListOfTheQueue(const XslTestLaunchRecord& record) {
    if (expectedDirectAppend()) {
      EXPECT_EQ(
          record.command_list,
          static_cast<uint64_t>(
              reinterpret_cast<uintptr_t>(immediateList(*queue_))));
    }
  }

  const TorchXpuDevices* found_ = nullptr;
  std::unique_ptr<sycl::queue> queue_;
  std::unique_ptr<test_driver::Client> client_;
  std::vector<void*> allocations_;
};

// slm_reduce(in, out, __local scratch): two pointers, then the dynamic shared
// memory bound from `shared`.
TEST_F(WindowsSyclBackendLaunch, LaunchesWithPointersAndSharedMemory) {
  constexpr uint32_t kShared = 1024;
  auto kernel =
      loadKernel(*found_, "slm_reduce_pvc_grf128.zebin", "slm_reduce", kShared);
  ASSERT_NE(kernel, nullptr);
  launcher::LoadedKernel& loaded = kernel->loaded();
  EXPECT_EQ(loaded.name(), "slm_reduce");
  auto plan = loaded.planFor("OO");
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  ASSERT_TRUE((*plan)->binds_shared_memory);
  ASSERT_EQ((*plan)->kernelArgCount(), 3u);

  void* in = deviceMemory(4096);
  void* out = deviceMemory(4096);
  launcher::ArgStorage storage((*plan)->args.size());
  packPointer(loaded, storage, 0, in);
  packPointer(loaded, storage, 1, out);
  XslTestLaunchRecord record;
  ASSERT_NO_FATAL_FAILURE(
      launchOnce(*kernel, **plan, storage, {3, 2, 1}, 2, kShared, &record));
  expectListOfTheQueue(record);
  XslTestArgRecord arg;
  ASSERT_TRUE(client_->arg(0, 0, &arg));
  ASSERT_EQ(arg.size, sizeof(void*));
  EXPECT_EQ(std::memcmp(arg.bytes, &in, sizeof(void*)), 0);
  ASSERT_TRUE(client_->arg(0, 1, &arg));
  ASSERT_EQ(arg.size, sizeof(void*));
  EXPECT_EQ(std::memcmp(arg.bytes, &out, sizeof(void*)), 0);
  ASSERT_TRUE(client_->arg(0, 2, &arg));
  EXPECT_TRUE(arg.is_set);
  EXPECT_TRUE(arg.is_null); // local memory: a size, no value
  EXPECT_EQ(arg.size, kShared);
}

// add(a, b, out, n): a 32-bit scalar after the pointers, and a second launch
// on the same kernel with one pointer and the scalar changed.
TEST_F(WindowsSyclBackendLaunch, LaunchesScalarsAndRepeats) {
  auto kernel = loadKernel(*found_, "add_pvc_grf128.zebin", "add", 0);
  ASSERT_NE(kernel, nullptr);
  launcher::LoadedKernel& loaded = kernel->loaded();
  auto plan = loaded.planFor("OOOi");
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_FALSE((*plan)->binds_shared_memory);
  void* a = deviceMemory(256);
  void* b = deviceMemory(256);
  void* out = deviceMemory(256);
  auto geometry =
      launcher::computeLaunchGeometry(4, 1, 1, 1, loaded.threadsPerWarp());
  ASSERT_TRUE(geometry.ok()) << geometry.error().message();

  client_->clear();
  for (int32_t round = 0; round < 2; ++round) {
    launcher::ArgStorage storage((*plan)->args.size());
    packPointer(loaded, storage, 0, a);
    packPointer(loaded, storage, 1, b);
    packPointer(loaded, storage, 2, round == 0 ? out : a);
    auto packed = launcher::packSignedValue(
        (*plan)->args[3], 3, 64 + round, storage.slot(3));
    ASSERT_TRUE(packed.ok()) << packed.error().message();
    Status launched = kernel->launch(*queue_, {**plan, storage, *geometry, 0});
    ASSERT_TRUE(launched.ok()) << launched.error().message();
  }
  queue_->wait();

  ASSERT_EQ(client_->launchCount(), 2u);
  for (uint32_t round = 0; round < 2; ++round) {
    XslTestLaunchRecord record;
    ASSERT_TRUE(client_->launch(round, &record));
    EXPECT_EQ(
        test_driver::shapeOf(record),
        (test_driver::LaunchShape{
            "add", {4, 1, 1}, {loaded.threadsPerWarp(), 1, 1}}));
    expectListOfTheQueue(record);
    XslTestArgRecord arg;
    ASSERT_TRUE(client_->arg(round, 3, &arg));
    EXPECT_EQ(arg.size, 4u);
    int32_t n = 0;
    std::memcpy(&n, arg.bytes, sizeof(n));
    EXPECT_EQ(n, 64 + static_cast<int32_t>(round));
    ASSERT_TRUE(client_->arg(round, 2, &arg));
    void* third = nullptr;
    std::memcpy(&third, arg.bytes, sizeof(third));
    EXPECT_EQ(third, round == 0 ? out : a);
  }
}

// Triton's SPIR-V (vector_add, as triton-xpu compiled it) through the
// backend on the Windows SYCL runtime: the stand-in driver builds it (from
// the corpus, XSL_TEST_DRIVER_SPIRV_BUILDS, having no ocloc library under
// wine), the native binary is kept with Windows replace semantics in a
// folder of a long, non-ASCII path, the next load takes the kept binary,
// and the launch reaches the driver. Adapter v1 only: ocloc 22.43 makes no
// Xe2 binaries, so nothing is prebuilt for adapter v2's device.
TEST_F(WindowsSyclBackendLaunch, LoadsTritonSpirvAndKeepsItsNativeBinary) {
  const char* adapter = std::getenv("XSL_TEST_EXPECT_ADAPTER");
  if (adapter == nullptr || std::string(adapter) != "v1") {
    GTEST_SKIP() << "SPIR-V builds exist for adapter v1's device only";
  }
  const std::string spirv = test_paths::corpusFile("triton_vector_add.spv");
  std::string folder = test_paths::scratchDir("kept-native-binaries") +
      "/\xc3\xa9t\xc3\xa9"; // "ete" with accents: a non-ASCII user folder
  while (folder.size() < 280) {
    folder += "/a-long-cache-folder-name";
  }
  launcher::NativeBinaryCache::Settings settings;
  settings.enabled = true;
  settings.folder = folder;
  const launcher::NativeBinaryCache cache(settings);
  static_cast<void>(cache.clear());
  launcher::LoadOptions options;
  options.build_flags = "";
  options.cache = &cache;
  auto first = SyclKernel::load(
      found_->devices.front(),
      *found_->context,
      0,
      spirv,
      "vector_add",
      options);
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_FALSE((*first)->loaded().fromKeptBinary());
  EXPECT_TRUE((*first)->loaded().loadWarnings().empty());
  auto usage = cache.usage();
  ASSERT_TRUE(usage.ok()) << usage.error().message();
  EXPECT_EQ(usage->entries, 1u);
  auto second = SyclKernel::load(
      found_->devices.front(),
      *found_->context,
      0,
      spirv,
      "vector_add",
      options);
  ASSERT_TRUE(second.ok()) << second.error().message();
  launcher::LoadedKernel& loaded = (*second)->loaded();
  EXPECT_TRUE(loaded.fromKeptBinary());
  EXPECT_EQ(loaded.spillCount(), (*first)->loaded().spillCount());
  EXPECT_EQ(loaded.registerCount(), 0); // no GRF flag (Triton-XPU < 3.9)

  auto plan = loaded.planFor("OOOi");
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  void* x = deviceMemory(8192);
  void* y = deviceMemory(8192);
  launcher::ArgStorage storage((*plan)->args.size());
  packPointer(loaded, storage, 0, x);
  packPointer(loaded, storage, 1, y);
  packPointer(loaded, storage, 2, x);
  auto packed =
      launcher::packSignedValue((*plan)->args[3], 3, 2048, storage.slot(3));
  ASSERT_TRUE(packed.ok()) << packed.error().message();
  XslTestLaunchRecord record;
  ASSERT_NO_FATAL_FAILURE(
      launchOnce(**second, **plan, storage, {2, 1, 1}, 4, 0, &record));
  XslTestArgRecord arg;
  ASSERT_TRUE(client_->arg(0, 3, &arg));
  int32_t n = 0;
  std::memcpy(&n, arg.bytes, sizeof(n));
  EXPECT_EQ(n, 2048);
  static_cast<void>(cache.clear());
}

// Bad input to the load comes back as an error naming it, not an exception.
TEST(WindowsSyclBackendPath, LoadErrorsNameTheFileAndKernel) {
  const TorchXpuDevices& found = backendDevices();
  ASSERT_FALSE(found.devices.empty());
  ASSERT_TRUE(found.context);
  const sycl::device& device = found.devices.front();

  const std::string missing = test_paths::corpusFile("no_such_file.zebin");
  auto no_file = SyclKernel::load(device, *found.context, 0, missing, "add");
  ASSERT_FALSE(no_file.ok());
  EXPECT_NE(
      no_file.error().message().find("no_such_file.zebin"), std::string::npos)
      << no_file.error().message();

  auto no_kernel = SyclKernel::load(
      device,
      *found.context,
      0,
      test_paths::corpusFile("add_pvc_grf128.zebin"),
      "no_such_kernel");
  ASSERT_FALSE(no_kernel.ok());
  EXPECT_NE(
      no_kernel.error().message().find("no_such_kernel"), std::string::npos)
      << no_kernel.error().message();
  // An unknown name lists the kernels the zebin has.
  const std::string& listed = no_kernel.error().message();
  const size_t has = listed.find("the zebin has:");
  ASSERT_NE(has, std::string::npos) << listed;
  EXPECT_NE(listed.find("add", has), std::string::npos) << listed;

  // More dynamic shared memory than the device has.
  launcher::LoadOptions too_much_shared;
  too_much_shared.shared_bytes = uint64_t{1} << 40;
  auto too_much = SyclKernel::load(
      device,
      *found.context,
      0,
      test_paths::corpusFile("slm_reduce_pvc_grf128.zebin"),
      "slm_reduce",
      too_much_shared);
  ASSERT_FALSE(too_much.ok());
  EXPECT_NE(too_much.error().message().find("slm_reduce"), std::string::npos)
      << too_much.error().message();
}

} // namespace
} // namespace sycl_launch
} // namespace xsl
