// The Windows SYCL runtime (sycl<N>.dll, the Unified Runtime and its Level
// Zero adapter from the intel-sycl-rt wheels) over the test driver's stand-in
// ze_loader.dll, under wine: the SYCL interop calls the glue makes
// (csrc/sycl_launch), each checked on what the driver recorded. Built by
// MSVC; no GPU: the launch is the test driver's record of it.

#include <gtest/gtest.h>

#include <windows.h>

#include <sycl/sycl.hpp>

#include <level_zero/ze_api.h>
#include <sycl/ext/oneapi/backend/level_zero.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "file_io/file_io.h"
#include "test_driver_client.h"
#include "test_paths.h"

namespace {

namespace ze_interop = sycl::ext::oneapi::level_zero;
constexpr sycl::backend kLevelZero = sycl::backend::ext_oneapi_level_zero;

// A Level Zero function of the ze_loader.dll the runtime's adapter loaded
// (the stand-in in System32): the same instance, so the same driver state.
template <typename Function>
Function loaderFunction(const char* name) {
  HMODULE loader = GetModuleHandleW(L"ze_loader.dll");
  if (loader == nullptr) {
    ADD_FAILURE() << "the SYCL runtime has not loaded ze_loader.dll";
    return nullptr;
  }
  return reinterpret_cast<Function>(
      reinterpret_cast<void*>(GetProcAddress(loader, name)));
}

// The test driver's device, on the runtime's Level Zero platform.
sycl::device testDevice() {
  for (const sycl::platform& platform : sycl::platform::get_platforms()) {
    if (platform.get_backend() != kLevelZero) {
      continue;
    }
    for (const sycl::device& device : platform.get_devices()) {
      if (device.get_info<sycl::info::device::name>() == "XSL test device") {
        return device;
      }
    }
  }
  ADD_FAILURE() << "no Level Zero platform lists the test driver's device";
  return sycl::device();
}

TEST(WindowsSyclRuntime, ListsTheTestDriverDeviceOnLevelZero) {
  sycl::device device = testDevice();
  EXPECT_EQ(device.get_backend(), kLevelZero);
  EXPECT_TRUE(device.is_gpu());
}

// A sycl::kernel over a Level Zero module and kernel made in the context's
// native handles from a corpus zebin, as the glue makes it; nullopt after
// reporting a failure.
std::optional<sycl::kernel> levelZeroKernel(
    const sycl::device& device,
    const sycl::context& context,
    const std::string& zebin_name,
    const char* kernel_name) {
  auto ze_device = sycl::get_native<kLevelZero>(device);
  auto ze_context = sycl::get_native<kLevelZero>(context);
  auto zebin = xsl::file_io::readFileBytes(
      xsl::test_paths::binaryDir() + "/corpus/" + zebin_name);
  auto module_create =
      loaderFunction<decltype(&zeModuleCreate)>("zeModuleCreate");
  auto kernel_create =
      loaderFunction<decltype(&zeKernelCreate)>("zeKernelCreate");
  if (ze_device == nullptr || ze_context == nullptr || !zebin.ok() ||
      module_create == nullptr || kernel_create == nullptr) {
    ADD_FAILURE() << "no native device, context, zebin " << zebin_name
                  << " or Level Zero entry point";
    return std::nullopt;
  }
  const std::string& bytes = *zebin;
  ze_module_desc_t module_desc = {};
  module_desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  module_desc.format = ZE_MODULE_FORMAT_NATIVE;
  module_desc.inputSize = bytes.size();
  module_desc.pInputModule = reinterpret_cast<const uint8_t*>(bytes.data());
  module_desc.pBuildFlags = "";
  ze_module_handle_t module = nullptr;
  ze_kernel_desc_t kernel_desc = {};
  kernel_desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  kernel_desc.pKernelName = kernel_name;
  ze_kernel_handle_t kernel = nullptr;
  if (module_create(ze_context, ze_device, &module_desc, &module, nullptr) !=
          ZE_RESULT_SUCCESS ||
      kernel_create(module, &kernel_desc, &kernel) != ZE_RESULT_SUCCESS) {
    ADD_FAILURE() << "the test driver refused " << zebin_name;
    return std::nullopt;
  }
  // The runtime takes the module and kernel over (ownership::transfer).
  auto bundle =
      sycl::make_kernel_bundle<kLevelZero, sycl::bundle_state::executable>(
          {module, ze_interop::ownership::transfer}, context);
  return sycl::make_kernel<kLevelZero>(
      {bundle, kernel, ze_interop::ownership::transfer}, context);
}

uint32_t compileSubGroupSize(
    const sycl::kernel& kernel,
    const sycl::device& device) {
  return kernel
      .get_info<sycl::info::kernel_device_specific::compile_sub_group_size>(
          device);
}

// torch's context: the platform's default one.
sycl::context torchContext(const sycl::device& device) {
  return device.get_platform().khr_get_default_context();
}

// The glue takes threads per warp from the kernel's required sub-group size,
// and 32 where the kernel requires none (the runtime answers 0).
TEST(WindowsSyclRuntime, ReadsTheCompileSubGroupSize) {
  sycl::device device = testDevice();
  sycl::context context = torchContext(device);
  auto required = levelZeroKernel(
      device, context, "subgroup16_pvc_grf128.zebin", "subgroup16");
  auto unrequired = levelZeroKernel(
      device, context, "slm_reduce_pvc_grf128.zebin", "slm_reduce");
  ASSERT_TRUE(required && unrequired);
  EXPECT_EQ(compileSubGroupSize(*required, device), 16u);
  EXPECT_EQ(compileSubGroupSize(*unrequired, device), 0u);
}

// A submit with set_arg, a local_accessor and parallel_for, as the glue
// launches: what the driver recorded.
TEST(WindowsSyclRuntime, LaunchesALevelZeroKernelAsTheGlueDoes) {
  sycl::device device = testDevice();
  sycl::context context = torchContext(device);
  auto made = levelZeroKernel(
      device, context, "slm_reduce_pvc_grf128.zebin", "slm_reduce");
  ASSERT_TRUE(made);
  const sycl::kernel& kernel = *made;

  sycl::queue queue(context, device, sycl::property::queue::in_order());
  constexpr size_t kLocal = 64;
  constexpr size_t kGroups = 3;
  constexpr size_t kSharedBytes = kLocal * sizeof(float);
  float* in = sycl::malloc_device<float>(kLocal * kGroups, queue);
  float* out = sycl::malloc_device<float>(kGroups, queue);
  ASSERT_NE(in, nullptr);
  ASSERT_NE(out, nullptr);

  auto opened = xsl::test_driver::Client::open();
  ASSERT_TRUE(opened.ok()) << opened.error().message();
  const xsl::test_driver::Client& client = *opened;
  client.clear();
  queue
      .submit([&](sycl::handler& cgh) {
        cgh.set_arg(0, in);
        cgh.set_arg(1, out);
        sycl::local_accessor<int8_t, 1> scratch(
            sycl::range<1>(kSharedBytes), cgh);
        cgh.set_arg(2, scratch);
        cgh.parallel_for(
            sycl::nd_range<1>(
                sycl::range<1>(kLocal * kGroups), sycl::range<1>(kLocal)),
            kernel);
      })
      .wait();

  ASSERT_EQ(client.launchCount(), 1u);
  XslTestLaunchRecord launch;
  ASSERT_TRUE(client.launch(0, &launch));
  EXPECT_STREQ(launch.kernel_name, "slm_reduce");
  EXPECT_EQ(launch.group_size[0], kLocal);
  EXPECT_EQ(launch.group_size[1], 1u);
  EXPECT_EQ(launch.group_count[0], kGroups);
  EXPECT_EQ(launch.group_count[1], 1u);
  XslTestArgRecord arg;
  ASSERT_TRUE(client.arg(0, 0, &arg));
  ASSERT_EQ(arg.size, sizeof(void*));
  EXPECT_EQ(std::memcmp(arg.bytes, &in, sizeof(void*)), 0);
  ASSERT_TRUE(client.arg(0, 1, &arg));
  EXPECT_EQ(std::memcmp(arg.bytes, &out, sizeof(void*)), 0);
  ASSERT_TRUE(client.arg(0, 2, &arg));
  EXPECT_TRUE(arg.is_set);
  EXPECT_TRUE(arg.is_null); // local memory: a size, no value
  EXPECT_EQ(arg.size, kSharedBytes);

  sycl::free(in, queue);
  sycl::free(out, queue);
}

} // namespace
