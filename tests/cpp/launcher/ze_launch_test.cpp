// LoadedKernel + launchOnCommandList through Level Zero and the test driver
// (real loader on Linux, the stand-in ze_loader.dll under wine): what reaches
// the driver for corpus kernels, shared memory binding, the unchanged-argument
// cache, pointer checks and the n_regs/n_spills metadata.

#include "launcher/ze_launch.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "file_io/file_io.h"
#include "launcher/arg_plan.h"
#include "launcher/geometry.h"
#include "launcher/loaded_kernel.h"
#include "level_zero/level_zero.h"
#include "test_driver_client.h"
#include "test_paths.h"

namespace xsl {
namespace launcher {
namespace {

#if defined(XSL_TEST_INSTALL_STANDIN_LOADER)
// Windows: the stand-in ze_loader.dll must be in System32 of the wine prefix
// before the first Level Zero use (see tests/cpp/level_zero).
class StandinLoaderEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const char* standin = std::getenv("XSL_TEST_STANDIN_LOADER");
    ASSERT_NE(standin, nullptr);
    Status installed = test_driver::installStandinLoader(standin);
    ASSERT_TRUE(installed.ok()) << installed.error().message();
  }
};
::testing::Environment* const standin_environment =
    ::testing::AddGlobalTestEnvironment(new StandinLoaderEnvironment());
#endif

std::string corpus(const std::string& name) {
  return test_paths::corpusFile(name);
}

#define SKIP_WITHOUT_CORPUS(name)                                     \
  if (!file_io::readFileBytes(corpus(name)).ok()) {                   \
    GTEST_SKIP() << "zebin corpus missing (" << corpus(name)          \
                 << "): build target xsl_zebin_corpus (needs ocloc)"; \
  }

class ZeLaunchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto context = level_zero::sharedContext(0);
    ASSERT_TRUE(context.ok()) << context.error().message();
    context_ = *context;
    auto list = level_zero::CommandList::createImmediate(context_, true);
    ASSERT_TRUE(list.ok()) << list.error().message();
    list_ = std::make_unique<level_zero::CommandList>(std::move(*list));
    auto client = test_driver::Client::open();
    ASSERT_TRUE(client.ok()) << client.error().message();
    client_ = std::make_unique<test_driver::Client>(*client);
    client_->clear();
  }

  std::unique_ptr<LoadedKernel> load(
      const std::string& file,
      const char* name) {
    auto kernel = LoadedKernel::load(context_, corpus(file), name);
    EXPECT_TRUE(kernel.ok()) << kernel.error().message();
    return kernel.ok() ? std::move(*kernel) : nullptr;
  }

  // The corpus's `add` kernel into kernel_, with its plan for
  // (x, y, out, n) into plan_.
  void loadAdd() {
    kernel_ = load("add_pvc_grf128.zebin", "add");
    ASSERT_NE(kernel_, nullptr);
    auto plan = kernel_->planFor("OOOi");
    ASSERT_TRUE(plan.ok()) << plan.error().message();
    plan_ = *plan;
  }

  void* deviceMemory(size_t size) {
    auto allocation = level_zero::Allocation::allocate(
        context_, level_zero::MemoryKind::kDevice, size);
    EXPECT_TRUE(allocation.ok());
    void* data = allocation->data();
    allocations_.push_back(std::move(*allocation));
    return data;
  }

  static void packPointer(ArgStorage& storage, size_t index, const void* ptr) {
    const uint64_t address =
        static_cast<uint64_t>(reinterpret_cast<uintptr_t>(ptr));
    std::memcpy(storage.slot(index), &address, sizeof(address));
  }

  XslTestArgRecord recordedArg(size_t launch, uint32_t index) {
    XslTestArgRecord record;
    EXPECT_TRUE(client_->arg(launch, index, &record));
    return record;
  }

  std::shared_ptr<level_zero::Context> context_;
  std::unique_ptr<level_zero::CommandList> list_;
  std::unique_ptr<test_driver::Client> client_;
  std::vector<level_zero::Allocation> allocations_;
  std::unique_ptr<LoadedKernel> kernel_;
  const ArgPlan* plan_ = nullptr;
};

TEST_F(ZeLaunchTest, AddKernelReachesTheDriverAsPlanned) {
  SKIP_WITHOUT_CORPUS("add_pvc_grf128.zebin");
  ASSERT_NO_FATAL_FAILURE(loadAdd());
  // Built without GRF options: Triton-XPU reports 0, though IGC used 128.
  EXPECT_EQ(kernel_->registerCount(), 0);
  EXPECT_EQ(kernel_->info().execution_env.grf_count, 128);
  EXPECT_EQ(
      static_cast<uint64_t>(kernel_->spillCount()),
      kernel_->info().spill_bytes);

  void* a = deviceMemory(256);
  void* b = deviceMemory(256);
  void* out = deviceMemory(256);
  ArgStorage storage(plan_->args.size());
  packPointer(storage, 0, a);
  packPointer(storage, 1, b);
  packPointer(storage, 2, out);
  ASSERT_TRUE(packSignedValue(plan_->args[3], 3, 64, storage.slot(3)).ok());
  for (size_t i = 0; i < 3; ++i) {
    uint64_t address = 0;
    std::memcpy(&address, storage.slot(i), 8);
    ASSERT_TRUE(kernel_->checkPointer(i, address).ok());
  }
  auto geometry = computeLaunchGeometry(3, 2, 1, 2, kernel_->threadsPerWarp());
  ASSERT_TRUE(geometry.ok());
  Status launched = launchOnCommandList(
      *kernel_, {*plan_, storage, *geometry, 0}, list_->handle());
  ASSERT_TRUE(launched.ok()) << launched.error().message();

  ASSERT_EQ(client_->launchCount(), 1u);
  XslTestLaunchRecord record;
  ASSERT_TRUE(client_->launch(0, &record));
  const uint32_t group_size = 2 * kernel_->threadsPerWarp();
  EXPECT_EQ(
      test_driver::shapeOf(record),
      (test_driver::LaunchShape{"add", {3, 2, 1}, {group_size, 1, 1}}));
  ASSERT_EQ(record.num_args, 4u);
  const XslTestArgRecord n = recordedArg(0, 3);
  EXPECT_EQ(n.size, 4u);
  int32_t value = 0;
  std::memcpy(&value, n.bytes, 4);
  EXPECT_EQ(value, 64);
  const XslTestArgRecord first = recordedArg(0, 0);
  EXPECT_EQ(std::memcmp(first.bytes, storage.slot(0), 8), 0);
}

TEST_F(ZeLaunchTest, UnchangedArgumentsAreKeptChangedOnesSet) {
  SKIP_WITHOUT_CORPUS("add_pvc_grf128.zebin");
  ASSERT_NO_FATAL_FAILURE(loadAdd());
  void* x = deviceMemory(64);
  void* y = deviceMemory(64);
  auto geometry = computeLaunchGeometry(1, 1, 1, 1, kernel_->threadsPerWarp());
  ASSERT_TRUE(geometry.ok());
  for (int round = 0; round < 3; ++round) {
    ArgStorage storage(4);
    packPointer(storage, 0, x);
    packPointer(storage, 1, x);
    packPointer(storage, 2, round == 2 ? y : x);
    ASSERT_TRUE(
        packSignedValue(plan_->args[3], 3, round, storage.slot(3)).ok());
    ASSERT_TRUE(launchOnCommandList(
                    *kernel_, {*plan_, storage, *geometry, 0}, list_->handle())
                    .ok());
  }
  ASSERT_EQ(client_->launchCount(), 3u);
  for (uint32_t round = 0; round < 3; ++round) {
    int32_t value = -1;
    std::memcpy(&value, recordedArg(round, 3).bytes, 4);
    EXPECT_EQ(value, static_cast<int32_t>(round));
  }
  void* recorded = nullptr;
  std::memcpy(&recorded, recordedArg(2, 2).bytes, 8);
  EXPECT_EQ(recorded, y);
  std::memcpy(&recorded, recordedArg(1, 2).bytes, 8);
  EXPECT_EQ(recorded, x);
}

// What SYCL's submit does to a kernel handle the launcher shares with it:
// the Unified Runtime sets other arguments and group size on it. After
// forget(), a launch repeating the last one's values sets them all again.
TEST_F(ZeLaunchTest, ForgottenValuesAreSetAgainAfterAnotherSetter) {
  SKIP_WITHOUT_CORPUS("add_pvc_grf128.zebin");
  ASSERT_NO_FATAL_FAILURE(loadAdd());
  void* x = deviceMemory(64);
  void* y = deviceMemory(64);
  const uint32_t warp = kernel_->threadsPerWarp();
  auto geometry = computeLaunchGeometry(1, 1, 1, 1, warp);
  ASSERT_TRUE(geometry.ok());
  ArgStorage storage(4);
  for (size_t i = 0; i < 3; ++i) {
    packPointer(storage, i, x);
  }
  ASSERT_TRUE(packSignedValue(plan_->args[3], 3, 7, storage.slot(3)).ok());
  const auto launch = [&] {
    return launchOnCommandList(
        *kernel_, {*plan_, storage, *geometry, 0}, list_->handle());
  };
  ASSERT_TRUE(launch().ok());

  const level_zero::Kernel& handle = kernel_->kernel();
  for (uint32_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(handle.setArgumentValue(i, sizeof(y), &y).ok());
  }
  const int32_t other = 99;
  ASSERT_TRUE(handle.setArgumentValue(3, sizeof(other), &other).ok());
  ASSERT_TRUE(handle.setGroupSize(2 * warp, 1, 1).ok());
  kernel_->setArgCache().forget();
  ASSERT_TRUE(launch().ok());

  ASSERT_EQ(client_->launchCount(), 2u);
  XslTestLaunchRecord record;
  ASSERT_TRUE(client_->launch(1, &record));
  EXPECT_EQ(record.group_size[0], warp);
  for (uint32_t i = 0; i < 3; ++i) {
    void* recorded = nullptr;
    std::memcpy(&recorded, recordedArg(1, i).bytes, sizeof(recorded));
    EXPECT_EQ(recorded, x) << "argument " << i;
  }
  int32_t value = 0;
  std::memcpy(&value, recordedArg(1, 3).bytes, sizeof(value));
  EXPECT_EQ(value, 7);
}

TEST_F(ZeLaunchTest, DynamicSharedMemoryIsTheTrailingLocalArgument) {
  SKIP_WITHOUT_CORPUS("slm_reduce_pvc_grf128.zebin");
  auto kernel = load("slm_reduce_pvc_grf128.zebin", "slm_reduce");
  ASSERT_NE(kernel, nullptr);
  // Not a Triton kernel: two pointers, no scratch, then the __local buffer.
  auto plan = kernel->planFor("OO");
  ASSERT_TRUE(plan.ok()) << plan.error().message();
  EXPECT_TRUE((*plan)->binds_shared_memory);
  void* in = deviceMemory(4096);
  void* out = deviceMemory(4096);
  ArgStorage storage(2);
  packPointer(storage, 0, in);
  packPointer(storage, 1, out);
  auto geometry = computeLaunchGeometry(4, 1, 1, 8, kernel->threadsPerWarp());
  ASSERT_TRUE(geometry.ok());
  Status no_shared = launchOnCommandList(
      *kernel, {**plan, storage, *geometry, 0}, list_->handle());
  ASSERT_FALSE(no_shared.ok());
  EXPECT_NE(no_shared.error().message().find("shared is 0"), std::string::npos);
  ASSERT_TRUE(launchOnCommandList(
                  *kernel, {**plan, storage, *geometry, 1024}, list_->handle())
                  .ok());
  ASSERT_EQ(client_->launchCount(), 1u);
  const XslTestArgRecord shared = recordedArg(0, 2);
  EXPECT_TRUE(shared.is_null);
  EXPECT_EQ(shared.size, 1024u);
}

TEST_F(ZeLaunchTest, HostMemoryIsRejectedNamingTheArgument) {
  SKIP_WITHOUT_CORPUS("add_pvc_grf128.zebin");
  auto kernel = load("add_pvc_grf128.zebin", "add");
  ASSERT_NE(kernel, nullptr);
  std::vector<float> host(16);
  const uint64_t address =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(host.data()));
  Status status = kernel->checkPointer(2, address);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message().find("argument 2"), std::string::npos);
  EXPECT_TRUE(kernel->checkPointer(2, 0).ok()); // null is allowed
}

TEST_F(ZeLaunchTest, RegistersFollowTheGrfBuildOption) {
  SKIP_WITHOUT_CORPUS("add_pvc_grf256.zebin");
  auto kernel = load("add_pvc_grf256.zebin", "add");
  ASSERT_NE(kernel, nullptr);
  // Built with -cl-intel-256-GRF-per-thread, recorded in .misc.buildOptions.
  EXPECT_EQ(kernel->registerCount(), 256);
}

TEST_F(ZeLaunchTest, SpillsAreTheDriversBytes) {
  SKIP_WITHOUT_CORPUS("spill_pvc_grf128.zebin");
  auto kernel = load("spill_pvc_grf128.zebin", "spill");
  ASSERT_NE(kernel, nullptr);
  EXPECT_GT(kernel->spillCount(), 0);
  EXPECT_EQ(
      kernel->spillCount(),
      static_cast<int64_t>(kernel->kernel().properties().spill_mem_size));
  EXPECT_EQ(
      static_cast<uint64_t>(kernel->spillCount()), kernel->info().spill_bytes);
}

TEST_F(ZeLaunchTest, LoadErrorsNameTheInput) {
  auto missing = LoadedKernel::load(context_, corpus("no_such.zebin"), "add");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message().find("no_such.zebin"), std::string::npos);
  if (file_io::readFileBytes(corpus("add_pvc_grf128.zebin")).ok()) {
    auto wrong =
        LoadedKernel::load(context_, corpus("add_pvc_grf128.zebin"), "mul");
    ASSERT_FALSE(wrong.ok());
    EXPECT_NE(wrong.error().message().find("add"), std::string::npos);
  }
}

} // namespace
} // namespace launcher
} // namespace xsl
