// Level Zero through the real loader and the test driver (no GPU here):
// loading (binaries made into modules by launcher::KernelModule), errors,
// properties, argument checks, launches, pointer queries, concurrency.
// Scenario* tests run only in their own ctest entries, which set
// XSL_TEST_SCENARIO and the environment the scenario needs.

#include "level_zero/level_zero.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "file_io/file_io.h"
#include "launcher/kernel_module.h"
#include "standin_loader_environment.h"
#include "test_driver_client.h"
#include "test_paths.h"
#include "zebin/zebin.h"

#ifdef _WIN32
#include <windows.h>
#endif

namespace xsl {
namespace level_zero {
namespace {

using launcher::KernelModule;
using ModulePtr = std::shared_ptr<const KernelModule>;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string scenario() {
  const char* value = std::getenv("XSL_TEST_SCENARIO");
  return value == nullptr ? std::string() : std::string(value);
}

#define SKIP_UNLESS_SCENARIO(name)                                    \
  if (scenario() != (name)) {                                         \
    GTEST_SKIP() << "runs in the ctest entry with XSL_TEST_SCENARIO=" \
                 << (name);                                           \
  }

const char* missingLoaderName() {
#ifdef _WIN32
  return "xsl_no_such_loader.dll";
#else
  return "libxsl_no_such_loader.so.1";
#endif
}

// Reads a corpus zebin; the corpus needs python3 + ocloc at build time.
std::string corpusPath(const std::string& name) {
  return test_paths::corpusFile(name);
}

// A module from a file's bytes, named by its path (the launcher reads files;
// a module is made of bytes).
Expected<ModulePtr> moduleFromFile(
    std::shared_ptr<Context> context,
    const std::string& path) {
  Expected<std::string> bytes = file_io::readFileBytes(path);
  if (!bytes) {
    return bytes.error();
  }
  return KernelModule::create(std::move(context), *bytes, path);
}

#define REQUIRE_CORPUS_FILE(name)                                     \
  if (!file_io::readFileBytes(corpusPath(name)).ok()) {               \
    GTEST_SKIP() << "zebin corpus missing (" << corpusPath(name)      \
                 << "): build target xsl_zebin_corpus (needs ocloc)"; \
  }

// The main suite runs plainly and again under the validation layer.
bool mainSuiteRuns() {
  return scenario().empty() || scenario() == "validation";
}

class LevelZeroTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!mainSuiteRuns()) {
      GTEST_SKIP() << "scenario run " << scenario();
    }
    Expected<std::shared_ptr<Context>> context = sharedContext(0);
    ASSERT_TRUE(context.ok()) << context.error().message();
    context_ = *context;
  }

  ModulePtr loadModule(const std::string& file) {
    Expected<ModulePtr> module = moduleFromFile(context_, corpusPath(file));
    EXPECT_TRUE(module.ok()) << module.error().message();
    return module.ok() ? *module : nullptr;
  }

  // Kernel `name` of the corpus zebin `file` (the module fails the test if it
  // does not load; the kernel keeps the driver's module alive).
  Expected<Kernel> corpusKernel(
      const std::string& file,
      const std::string& name) {
    ModulePtr module = loadModule(file);
    if (module == nullptr) {
      return Error("cannot load " + file);
    }
    return module->createKernel(name);
  }

  std::shared_ptr<Context> context_;
};

// ------------------------------------------------------------- results

TEST(Result, EveryCodeOfTheInstalledHeaderHasNameAndDescription) {
  const std::string header =
      test_paths::binaryDir() + "/level_zero_headers/level_zero/ze_api.h";
  Expected<std::string> text = file_io::readFileBytes(header);
  ASSERT_TRUE(text.ok()) << text.error().message();
  const size_t begin = text->find("typedef enum _ze_result_t");
  const size_t end = text->find("} ze_result_t;", begin);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::string body = text->substr(begin, end - begin);
  const std::regex entry("(ZE_RESULT_[A-Z0-9_]+) = (0x[0-9a-fA-F]+|[0-9]+)");
  int checked = 0;
  for (std::sregex_iterator it(body.begin(), body.end(), entry), last;
       it != last;
       ++it) {
    const std::string name = (*it)[1];
    if (name == "ZE_RESULT_FORCE_UINT32") {
      continue;
    }
    const auto value =
        static_cast<ze_result_t>(std::stoul((*it)[2].str(), nullptr, 0));
    EXPECT_EQ(std::string(resultName(value)), name);
    EXPECT_FALSE(contains(resultDescription(value), "not in the Level Zero"))
        << name;
    ++checked;
  }
  EXPECT_GE(checked, 40);
}

TEST(Result, ErrorCarriesNameDescriptionAndContext) {
  const Error error = zeError(
      "zeModuleCreate", ZE_RESULT_ERROR_INVALID_NATIVE_BINARY, "k.zebin");
  EXPECT_EQ(
      error.message(),
      "k.zebin: zeModuleCreate failed: ZE_RESULT_ERROR_INVALID_NATIVE_BINARY "
      "(native binary is not supported by the device)");
  const Error unknown = zeError("zeInit", static_cast<ze_result_t>(0x12345678));
  EXPECT_EQ(unknown.message(), "zeInit failed: unknown ze_result_t 0x12345678");
}

// -------------------------------------------------------------- loader

TEST(Loader, MissingLoaderLibraryIsNamed) {
  Expected<std::unique_ptr<LoadedApi>> loaded = loadApi(missingLoaderName());
  ASSERT_FALSE(loaded.ok());
  const std::string message = loaded.error().message();
  EXPECT_EQ(
      message.rfind(
          std::string("Level Zero loader not found (") + missingLoaderName() +
              "): install ",
          0),
      0u)
      << message;
#ifdef _WIN32
  EXPECT_TRUE(contains(message, "install the Intel GPU driver")) << message;
#endif
}

TEST(Loader, LibraryWithoutEntryPointsIsTooOld) {
#ifdef _WIN32
  const char* not_a_loader = "kernel32.dll"; // in System32
#else
  const char* not_a_loader = "libm.so.6";
#endif
  Expected<std::unique_ptr<LoadedApi>> loaded = loadApi(not_a_loader);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(
      loaded.error().message().rfind(
          std::string("entry point zeInit missing from ") + not_a_loader +
              ": loader too old",
          0),
      0u)
      << loaded.error().message();
}

TEST(Loader, ProcessTableIsResolvedOnce) {
  if (!mainSuiteRuns()) {
    GTEST_SKIP() << "scenario run";
  }
  Expected<const Api*> first = api();
  Expected<const Api*> second = api();
  ASSERT_TRUE(first.ok()) << first.error().message();
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*first, *second);
#define XSL_EXPECT_RESOLVED(name) EXPECT_NE((*first)->name, nullptr) << #name;
  XSL_ZE_ENTRY_POINTS(XSL_EXPECT_RESOLVED)
#undef XSL_EXPECT_RESOLVED
}

#ifdef _WIN32
// The stand-in loader in the working directory only, under a name that is
// not in System32: a plain LoadLibraryW finds it there, loadApi must not.
TEST(LoaderWindows, LoaderInWorkingDirectoryIsNotLoaded) {
  const std::string standin =
      test_paths::fromEnvironment("XSL_TEST_STANDIN_LOADER");
  ASSERT_FALSE(standin.empty());
  Expected<std::string> bytes = file_io::readFileBytes(standin);
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  const std::string dir = test_paths::scratchDir("cwd_loader");
  ASSERT_TRUE(
      file_io::writeFileBytes(dir + "/xsl_cwd_only_loader.dll", *bytes).ok());
  wchar_t previous[MAX_PATH];
  ASSERT_GT(GetCurrentDirectoryW(MAX_PATH, previous), 0u);
  Expected<std::wstring> wide_dir = file_io::toWindowsPath(dir);
  ASSERT_TRUE(wide_dir.ok());
  ASSERT_TRUE(SetCurrentDirectoryW(wide_dir->c_str()));

  // loadApi first: once a module is loaded, any later load of the same bare
  // name returns it whatever the search flags.
  Expected<std::unique_ptr<LoadedApi>> loaded =
      loadApi("xsl_cwd_only_loader.dll", false);
  HMODULE found_by_default_search = LoadLibraryW(L"xsl_cwd_only_loader.dll");
  if (found_by_default_search != nullptr) {
    FreeLibrary(found_by_default_search);
  }
  SetCurrentDirectoryW(previous);

  EXPECT_NE(found_by_default_search, nullptr)
      << "test setup: the DLL should be loadable from the working directory";
  ASSERT_FALSE(loaded.ok());
  EXPECT_TRUE(contains(
      loaded.error().message(),
      "Level Zero loader not found (xsl_cwd_only_loader.dll)"))
      << loaded.error().message();
}
#endif

// ------------------------------------------------------------- devices

TEST_F(LevelZeroTest, DevicesComeFromTheTestDriver) {
  Expected<const Api*> table = api();
  ASSERT_TRUE(table.ok());
  Expected<uint32_t> count = Device::count(**table);
  ASSERT_TRUE(count.ok()) << count.error().message();
  EXPECT_EQ(*count, 2u); // XSL_TEST_DRIVER_DEVICES=2 in the ctest entry
  Expected<Device> device = Device::byIndex(1);
  ASSERT_TRUE(device.ok()) << device.error().message();
  Expected<DeviceProperties> props = device->properties();
  ASSERT_TRUE(props.ok()) << props.error().message();
  EXPECT_EQ(props->name, "XSL test device");
  EXPECT_EQ(props->vendor_id, 0x8086u);
  EXPECT_EQ(props->type, ZE_DEVICE_TYPE_GPU);
  EXPECT_EQ(props->max_total_group_size, 1024u);
  EXPECT_EQ(props->sub_group_sizes, (std::vector<uint32_t>{16, 32}));
}

TEST_F(LevelZeroTest, OutOfRangeDeviceSaysHowManyExist) {
  Expected<Device> device = Device::byIndex(7);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(
      device.error().message(),
      "XPU device 7 not found: the Level Zero driver has 2 device(s); pass a "
      "device index below 2");
  Expected<Device> driver = Device::byIndex(0, 3);
  ASSERT_FALSE(driver.ok());
  EXPECT_TRUE(contains(driver.error().message(), "Level Zero driver 3 not"));
}

// ------------------------------------------------------------- modules

TEST_F(LevelZeroTest, KernelPropertiesMatchZeInfo) {
  const char* files[] = {
      "add_pvc_grf128.zebin",
      "spill_pvc_grf128.zebin",
      "spill_pvc_grf256.zebin",
      "private_array_pvc_grf128.zebin",
      "many_args_pvc_grf128.zebin",
      "slm_reduce_pvc_grf128.zebin",
      "subgroup16_pvc_grf128.zebin",
      "no_args_pvc_grf128.zebin",
      "add_pvc_grf128_spirv.zebin"};
  for (const char* file : files) {
    REQUIRE_CORPUS_FILE(file);
    ModulePtr module = loadModule(file);
    ASSERT_NE(module, nullptr) << file;
    ASSERT_FALSE(module->zeInfo().kernels.empty());
    for (const zebin::KernelInfo& info : module->zeInfo().kernels) {
      const zebin::KernelInfo* found = nullptr;
      Expected<Kernel> kernel = module->createKernel(info.name, &found);
      ASSERT_TRUE(kernel.ok()) << kernel.error().message();
      const KernelProperties& props = kernel->properties();
      EXPECT_EQ(props.num_kernel_args, info.user_arguments.size()) << file;
      EXPECT_EQ(props.spill_mem_size, info.spill_bytes) << file;
      EXPECT_EQ(props.private_mem_size, info.private_bytes) << file;
      EXPECT_EQ(
          props.local_mem_size,
          static_cast<uint64_t>(info.execution_env.slm_size))
          << file;
      EXPECT_EQ(
          props.max_sub_group_size,
          static_cast<uint64_t>(info.execution_env.simd_size))
          << file;
      EXPECT_EQ(found, &info);
    }
    Expected<std::vector<std::string>> names =
        module->module().driverKernelNames();
    ASSERT_TRUE(names.ok()) << names.error().message();
    ASSERT_EQ(names->size(), module->zeInfo().kernels.size());
    EXPECT_EQ((*names)[0], module->zeInfo().kernels[0].name);
  }
}

TEST_F(LevelZeroTest, ModuleKeepsWhatALaunchReadsOfZeInfo) {
  REQUIRE_CORPUS_FILE("many_args_pvc_grf128.zebin");
  ModulePtr module = loadModule("many_args_pvc_grf128.zebin");
  ASSERT_NE(module, nullptr);
  Expected<std::string> bytes =
      file_io::readFileBytes(corpusPath("many_args_pvc_grf128.zebin"));
  ASSERT_TRUE(bytes.ok()) << bytes.error().message();
  Expected<zebin::Zebin> read = zebin::readZebin(*bytes);
  ASSERT_TRUE(read.ok()) << read.error().message();
  const zebin::ZeInfo& kept = module->zeInfo();
  ASSERT_EQ(kept.kernels.size(), read->ze_info.kernels.size());
  for (size_t k = 0; k < kept.kernels.size(); ++k) {
    const zebin::KernelInfo& mine = kept.kernels[k];
    const zebin::KernelInfo& full = read->ze_info.kernels[k];
    SCOPED_TRACE(full.name);
    ASSERT_FALSE(full.payload_arguments.empty());
    ASSERT_FALSE(full.arg_infos.empty());
    EXPECT_TRUE(mine.payload_arguments.empty());
    EXPECT_TRUE(mine.arg_infos.empty());
    EXPECT_TRUE(mine.execution_env.flags.empty());
    EXPECT_EQ(mine.name, full.name);
    EXPECT_EQ(mine.threads_per_warp, full.threads_per_warp);
    EXPECT_EQ(mine.spill_bytes, full.spill_bytes);
    ASSERT_EQ(mine.user_arguments.size(), full.user_arguments.size());
    for (size_t i = 0; i < full.user_arguments.size(); ++i) {
      const zebin::UserArgument& a = mine.user_arguments[i];
      const zebin::UserArgument& b = full.user_arguments[i];
      EXPECT_EQ(a.kind, b.kind) << i;
      EXPECT_EQ(a.size, b.size) << i;
      EXPECT_EQ(a.type_size, b.type_size) << i;
      EXPECT_EQ(a.name, b.name) << i;
      EXPECT_EQ(a.type_name, b.type_name) << i;
    }
  }
}

TEST_F(LevelZeroTest, SpillingKernelReportsSpill) {
  REQUIRE_CORPUS_FILE("spill_pvc_grf128.zebin");
  Expected<Kernel> kernel = corpusKernel("spill_pvc_grf128.zebin", "spill");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  EXPECT_GT(kernel->properties().spill_mem_size, 0u);
  EXPECT_EQ(kernel->properties().required_sub_group_size, 32u);
}

TEST_F(LevelZeroTest, WrongKernelNameListsTheKernelsThatExist) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  ModulePtr module = loadModule("add_pvc_grf128.zebin");
  ASSERT_NE(module, nullptr);
  Expected<Kernel> kernel = module->createKernel("triton_add_0");
  ASSERT_FALSE(kernel.ok());
  EXPECT_EQ(
      kernel.error().message(),
      "kernel 'triton_add_0' not found in " +
          corpusPath("add_pvc_grf128.zebin") +
          "; the zebin has: add (pass one of these names)");
}

// The driver layer on its own: a module of native bytes, and a kernel name
// the module does not have, which only the driver can refuse here.
TEST_F(LevelZeroTest, DriverModuleOfNativeBytesAndAnUnknownKernel) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<std::string> bytes =
      file_io::readFileBytes(corpusPath("add_pvc_grf128.zebin"));
  ASSERT_TRUE(bytes.ok());
  Expected<std::shared_ptr<Module>> module =
      Module::create(context_, *bytes, ModuleFormat::kNative, "add.zebin");
  ASSERT_TRUE(module.ok()) << module.error().message();
  EXPECT_EQ((*module)->sourceName(), "add.zebin");
  Expected<std::string> native = (*module)->nativeBinary();
  ASSERT_TRUE(native.ok()) << native.error().message();
  EXPECT_FALSE(native->empty());
  Expected<Kernel> add = Kernel::create(*module, "add");
  ASSERT_TRUE(add.ok()) << add.error().message();
  EXPECT_EQ(add->name(), "add");
  Expected<Kernel> missing = Kernel::create(*module, "triton_add_0");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(contains(
      missing.error().message(),
      "zeKernelCreate failed: ZE_RESULT_ERROR_INVALID_KERNEL_NAME"))
      << missing.error().message();
  EXPECT_TRUE(
      contains(missing.error().message(), "kernel 'triton_add_0' in add.zebin"))
      << missing.error().message();
}

TEST_F(LevelZeroTest, LegacyBinaryIsRejectedWithTheReadersMessage) {
  // A real legacy patch-token binary when the build made one, else a zebin
  // relabelled with the legacy e_type.
  std::string legacy_path = test_paths::binaryDir() + "/legacy/legacy_add";
  Expected<std::string> bytes = file_io::readFileBytes(legacy_path);
  const bool is_legacy = bytes.ok() && bytes->size() > 17 &&
      (*bytes)[16] == '\x04' && (*bytes)[17] == '\xff';
  if (!is_legacy) { // no ocloc, or one that writes zebin by default
    REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
    bytes = file_io::readFileBytes(corpusPath("add_pvc_grf128.zebin"));
    ASSERT_TRUE(bytes.ok());
    (*bytes)[16] = '\x04';
    (*bytes)[17] = '\xff';
    legacy_path = "relabelled.zebin";
  }
  Expected<ModulePtr> module =
      KernelModule::create(context_, *bytes, legacy_path);
  ASSERT_FALSE(module.ok());
  const std::string message = module.error().message();
  EXPECT_EQ(message.rfind(legacy_path + ": is a legacy patch-token", 0), 0u)
      << message;
  EXPECT_FALSE(contains(message, "zeModuleCreate")) << message;
}

TEST_F(LevelZeroTest, CorruptBinariesAreRejectedBeforeTheDriver) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<std::string> good =
      file_io::readFileBytes(corpusPath("add_pvc_grf128.zebin"));
  ASSERT_TRUE(good.ok());
  std::vector<std::string> corrupt;
  corrupt.push_back(std::string("not a zebin at all"));
  corrupt.push_back(good->substr(0, 40));               // truncated header
  corrupt.push_back(good->substr(0, good->size() / 2)); // truncated body
  std::string bad_offsets = *good;
  for (size_t i = 40; i < 48; ++i) {
    bad_offsets[i] = '\x7f'; // e_shoff far past the end
  }
  corrupt.push_back(bad_offsets);
  std::string bad_machine = *good;
  bad_machine[18] = '\x3e'; // x86-64
  corrupt.push_back(bad_machine);
  for (size_t i = 0; i < corrupt.size(); ++i) {
    const std::string name = "corrupt" + std::to_string(i) + ".zebin";
    Expected<ModulePtr> module =
        KernelModule::create(context_, corrupt[i], name);
    ASSERT_FALSE(module.ok()) << name;
    EXPECT_EQ(module.error().message().rfind(name + ": ", 0), 0u)
        << module.error().message();
    EXPECT_FALSE(contains(module.error().message(), "zeModuleCreate"))
        << module.error().message();
  }
}

TEST_F(LevelZeroTest, ZebinForAnotherDeviceFailsWithBuildLog) {
  REQUIRE_CORPUS_FILE("add_dg2_grf128.zebin");
  for (const char* file : {"add_dg2_grf128.zebin", "add_tgllp_grf128.zebin"}) {
    Expected<ModulePtr> module = moduleFromFile(context_, corpusPath(file));
    ASSERT_FALSE(module.ok()) << file;
    const std::string message = module.error().message();
    EXPECT_TRUE(contains(
        message,
        "zeModuleCreate failed: ZE_RESULT_ERROR_INVALID_NATIVE_BINARY "
        "(native binary is not supported by the device); build log: "))
        << message;
    EXPECT_TRUE(contains(message, "device 0 is product family 1271"))
        << message;
    EXPECT_TRUE(contains(message, corpusPath(file))) << message;
  }
}

TEST_F(LevelZeroTest, ZebinFromLongNonAsciiPath) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<std::string> bytes =
      file_io::readFileBytes(corpusPath("add_pvc_grf128.zebin"));
  ASSERT_TRUE(bytes.ok());
  std::string dir = test_paths::scratchDir("l0_long") +
      "/\xc3\xbc"
      "ser-\xe6\x97\xa5\xe6\x9c\xac";
  ASSERT_TRUE(test_paths::makeDirectory(dir));
  for (int i = 0; i < 4; ++i) {
    dir += "/" + std::string(70, static_cast<char>('a' + i));
    ASSERT_TRUE(test_paths::makeDirectory(dir));
  }
  const std::string path = dir + "/k\xc3\xa9rnel.zebin";
  ASSERT_GT(path.size(), 300u);
  ASSERT_TRUE(file_io::writeFileBytes(path, *bytes).ok());
  Expected<ModulePtr> module = moduleFromFile(context_, path);
  ASSERT_TRUE(module.ok()) << module.error().message();
  Expected<Kernel> kernel = (*module)->createKernel("add");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
}

// ------------------------------------------------------------ launches

class LaunchTest : public LevelZeroTest {
 protected:
  void SetUp() override {
    LevelZeroTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
      return;
    }
    Expected<test_driver::Client> client = test_driver::Client::open();
    ASSERT_TRUE(client.ok()) << client.error().message();
    client_.reset(new test_driver::Client(*client));
  }
  std::unique_ptr<test_driver::Client> client_;
};

TEST_F(LaunchTest, RecordsGroupSizeGroupCountAndArguments) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<Kernel> kernel = corpusKernel("add_pvc_grf128.zebin", "add");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  std::vector<Allocation> buffers;
  for (int i = 0; i < 3; ++i) {
    Expected<Allocation> buffer =
        Allocation::allocate(context_, MemoryKind::kDevice, 4096);
    ASSERT_TRUE(buffer.ok()) << buffer.error().message();
    buffers.push_back(std::move(*buffer));
  }
  Expected<CommandList> list = CommandList::createImmediate(context_);
  ASSERT_TRUE(list.ok()) << list.error().message();

  const size_t before = client_->launchCount();
  for (uint32_t i = 0; i < 3; ++i) {
    void* pointer = buffers[i].data();
    ASSERT_TRUE(kernel->setArgumentValue(i, sizeof(pointer), &pointer).ok());
  }
  const int32_t n = 1000;
  ASSERT_TRUE(kernel->setArgumentValue(3, sizeof(n), &n).ok());
  ASSERT_TRUE(kernel->setGroupSize(32, 1, 1).ok());
  ze_group_count_t count;
  count.groupCountX = 32;
  count.groupCountY = 2;
  count.groupCountZ = 1;
  Status launched = list->appendLaunch(*kernel, count);
  ASSERT_TRUE(launched.ok()) << launched.error().message();

  // Other tests may launch concurrently only in other processes.
  ASSERT_EQ(client_->launchCount(), before + 1);
  XslTestLaunchRecord record;
  ASSERT_TRUE(client_->launch(before, &record));
  EXPECT_EQ(
      test_driver::shapeOf(record),
      (test_driver::LaunchShape{"add", {32, 2, 1}, {32, 1, 1}}));
  ASSERT_EQ(record.num_args, 4u);
  for (uint32_t i = 0; i < 3; ++i) {
    XslTestArgRecord arg;
    ASSERT_TRUE(client_->arg(before, i, &arg));
    ASSERT_EQ(arg.size, sizeof(void*));
    void* recorded = nullptr;
    std::memcpy(&recorded, arg.bytes, sizeof(recorded));
    EXPECT_EQ(recorded, buffers[i].data());
  }
  XslTestArgRecord value;
  ASSERT_TRUE(client_->arg(before, 3, &value));
  EXPECT_EQ(value.size, 4u);
  int32_t recorded_n = 0;
  std::memcpy(&recorded_n, value.bytes, sizeof(recorded_n));
  EXPECT_EQ(recorded_n, 1000);
  XslTestArgRecord past_end;
  EXPECT_FALSE(client_->arg(before, 4, &past_end));
}

TEST_F(LaunchTest, ScalarShorterThanItsPayloadFillsThePayloadStart) {
  // compute-runtime copies the bytes given into the start of the payload and
  // keeps the rest; Triton-XPU's launcher relies on it for int8/int16/fp16.
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<Kernel> kernel = corpusKernel("add_pvc_grf128.zebin", "add");
  ASSERT_TRUE(kernel.ok()) << kernel.error().message();
  Expected<Allocation> buffer =
      Allocation::allocate(context_, MemoryKind::kDevice, 4096);
  ASSERT_TRUE(buffer.ok()) << buffer.error().message();
  Expected<CommandList> list = CommandList::createImmediate(context_);
  ASSERT_TRUE(list.ok()) << list.error().message();
  for (uint32_t i = 0; i < 3; ++i) {
    void* pointer = buffer->data();
    ASSERT_TRUE(kernel->setArgumentValue(i, sizeof(pointer), &pointer).ok());
  }
  ASSERT_TRUE(kernel->setGroupSize(32, 1, 1).ok());
  ze_group_count_t count;
  count.groupCountX = 1;
  count.groupCountY = 1;
  count.groupCountZ = 1;

  const uint32_t full = 0x11223344;
  const uint16_t half_width = 0xaabb;
  const uint8_t low = 0xcc;
  const size_t before = client_->launchCount();
  ASSERT_TRUE(kernel->setArgumentValue(3, sizeof(full), &full).ok());
  ASSERT_TRUE(list->appendLaunch(*kernel, count).ok());
  ASSERT_TRUE(
      kernel->setArgumentValue(3, sizeof(half_width), &half_width).ok());
  ASSERT_TRUE(list->appendLaunch(*kernel, count).ok());
  ASSERT_TRUE(kernel->setArgumentValue(3, sizeof(low), &low).ok());
  ASSERT_TRUE(list->appendLaunch(*kernel, count).ok());
  const uint32_t expected[] = {0x11223344u, 0x1122aabbu, 0x1122aaccu};
  for (size_t i = 0; i < 3; ++i) {
    XslTestArgRecord value;
    ASSERT_TRUE(client_->arg(before + i, 3, &value));
    EXPECT_EQ(value.size, 4u); // the payload, whatever size was passed
    uint32_t recorded = 0;
    std::memcpy(&recorded, value.bytes, sizeof(recorded));
    EXPECT_EQ(recorded, expected[i]) << "launch " << i;
  }
}

TEST_F(LaunchTest, ArgumentIndexAndSizeAreChecked) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<Kernel> kernel = corpusKernel("add_pvc_grf128.zebin", "add");
  ASSERT_TRUE(kernel.ok());
  const int32_t n = 5;
  Status bad_index = kernel->setArgumentValue(4, sizeof(n), &n);
  ASSERT_FALSE(bad_index.ok());
  EXPECT_EQ(
      bad_index.error().message(),
      "kernel 'add' argument 4 (4 bytes): zeKernelSetArgumentValue failed: "
      "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX (kernel argument index "
      "is not valid for kernel)");
  const int64_t wide = 5;
  Status bad_size = kernel->setArgumentValue(3, sizeof(wide), &wide);
  ASSERT_FALSE(bad_size.ok());
  EXPECT_TRUE(contains(
      bad_size.error().message(),
      "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE"));
  Status pointer_size = kernel->setArgumentValue(0, sizeof(n), &n);
  ASSERT_FALSE(pointer_size.ok());
  EXPECT_TRUE(contains(
      pointer_size.error().message(),
      "ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE"));
  // A pointer the driver did not allocate (host stack) is refused.
  const void* host_pointer = &n;
  Status host =
      kernel->setArgumentValue(0, sizeof(host_pointer), &host_pointer);
  ASSERT_FALSE(host.ok());
  EXPECT_TRUE(
      contains(host.error().message(), "ZE_RESULT_ERROR_INVALID_ARGUMENT"));
  // Null pointers are legal arguments.
  const void* null_pointer = nullptr;
  EXPECT_TRUE(
      kernel->setArgumentValue(0, sizeof(null_pointer), &null_pointer).ok());
}

TEST_F(LaunchTest, LaunchWithUnsetArgumentOrGroupSizeFails) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  Expected<Kernel> kernel = corpusKernel("add_pvc_grf128.zebin", "add");
  ASSERT_TRUE(kernel.ok());
  Expected<CommandList> list = CommandList::createImmediate(context_);
  ASSERT_TRUE(list.ok());
  ze_group_count_t count;
  count.groupCountX = 1;
  count.groupCountY = 1;
  count.groupCountZ = 1;
  Status no_group = list->appendLaunch(*kernel, count);
  ASSERT_FALSE(no_group.ok());
  EXPECT_TRUE(contains(
      no_group.error().message(),
      "kernel 'add' grid (1, 1, 1): zeCommandListAppendLaunchKernel failed: "
      "ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION"))
      << no_group.error().message();
  ASSERT_TRUE(kernel->setGroupSize(16, 1, 1).ok());
  Status no_args = list->appendLaunch(*kernel, count);
  ASSERT_FALSE(no_args.ok());
  EXPECT_TRUE(contains(no_args.error().message(), "INVALID_ARGUMENT"));
  Status too_big = kernel->setGroupSize(2048, 1, 1);
  ASSERT_FALSE(too_big.ok());
  EXPECT_TRUE(contains(
      too_big.error().message(),
      "kernel 'add' group size (2048, 1, 1): zeKernelSetGroupSize failed"));
}

TEST_F(LaunchTest, PointerQueriesTellMemoryKinds) {
  struct Case {
    MemoryKind kind;
    ze_memory_type_t type;
    bool has_device;
  };
  const Case cases[] = {
      {MemoryKind::kDevice, ZE_MEMORY_TYPE_DEVICE, true},
      {MemoryKind::kHost, ZE_MEMORY_TYPE_HOST, false},
      {MemoryKind::kShared, ZE_MEMORY_TYPE_SHARED, true},
  };
  for (const Case& c : cases) {
    Expected<Allocation> allocation =
        Allocation::allocate(context_, c.kind, 1000);
    ASSERT_TRUE(allocation.ok()) << allocation.error().message();
    // Interior pointers belong to the allocation too (tensor views).
    const char* inside = static_cast<const char*>(allocation->data()) + 999;
    const PointerInfo info = queryPointer(*context_, inside);
    ASSERT_EQ(info.result, ZE_RESULT_SUCCESS);
    EXPECT_EQ(info.type, c.type) << memoryTypeName(c.type);
    EXPECT_EQ(info.device != nullptr, c.has_device);
    if (c.has_device) {
      EXPECT_EQ(info.device, context_->device().handle());
    }
  }
  int on_stack = 0;
  const PointerInfo host = queryPointer(*context_, &on_stack);
  ASSERT_EQ(host.result, ZE_RESULT_SUCCESS);
  EXPECT_EQ(host.type, ZE_MEMORY_TYPE_UNKNOWN);
  EXPECT_STREQ(memoryTypeName(host.type), "unknown");
}

TEST_F(LaunchTest, EightThreadsLoadAndLaunchConcurrently) {
  REQUIRE_CORPUS_FILE("add_pvc_grf128.zebin");
  const size_t before = client_->launchCount();
  constexpr int kThreads = 8;
  constexpr int kRounds = 5;
  std::atomic<int> failures(0);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &failures, &errors] {
      for (int round = 0; round < kRounds; ++round) {
        Expected<std::shared_ptr<Context>> context =
            sharedContext(static_cast<uint32_t>(t % 2));
        if (!context.ok()) {
          errors[t] = context.error().message();
          ++failures;
          return;
        }
        const char* file =
            t % 2 == 0 ? "add_pvc_grf128.zebin" : "many_args_pvc_grf128.zebin";
        Expected<ModulePtr> module = moduleFromFile(*context, corpusPath(file));
        if (!module.ok()) {
          errors[t] = module.error().message();
          ++failures;
          return;
        }
        const zebin::KernelInfo& info = (*module)->zeInfo().kernels[0];
        Expected<Kernel> kernel = (*module)->createKernel(info.name);
        Expected<CommandList> list = CommandList::createImmediate(*context);
        if (!kernel.ok() || !list.ok()) {
          errors[t] =
              kernel.ok() ? list.error().message() : kernel.error().message();
          ++failures;
          return;
        }
        // Every argument null/zero of the right size.
        const uint8_t zeros[64] = {};
        for (const zebin::UserArgument& arg : info.user_arguments) {
          const bool local = arg.kind == zebin::UserArgumentKind::kLocalPointer;
          const size_t size = local ? 64 : static_cast<size_t>(arg.size);
          Status set = kernel->setArgumentValue(
              arg.index, size, local ? nullptr : zeros);
          if (!set.ok()) {
            errors[t] = set.error().message();
            ++failures;
            return;
          }
        }
        ze_group_count_t count;
        count.groupCountX = static_cast<uint32_t>(t + 1);
        count.groupCountY = 1;
        count.groupCountZ = 1;
        Status launched = kernel->setGroupSize(16, 1, 1);
        if (launched.ok()) {
          launched = list->appendLaunch(*kernel, count);
        }
        if (!launched.ok()) {
          errors[t] = launched.error().message();
          ++failures;
          return;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const std::string& error : errors) {
    EXPECT_TRUE(error.empty()) << error;
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(client_->launchCount(), before + kThreads * kRounds);
}

// ----------------------------------------------------------- scenarios

TEST(ScenarioLoaderAbsent, ApiNamesTheMissingLoader) {
  SKIP_UNLESS_SCENARIO("loader_absent");
  Expected<const Api*> table = api();
  ASSERT_FALSE(table.ok());
  EXPECT_EQ(
      table.error().message().rfind(
          std::string("Level Zero loader not found (") + missingLoaderName() +
              ")",
          0),
      0u)
      << table.error().message();
  Expected<std::shared_ptr<Context>> context = sharedContext(0);
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(context.error().message(), table.error().message());
}

TEST(ScenarioNoDriver, ZeInitFailureIsReported) {
  SKIP_UNLESS_SCENARIO("no_driver");
  Expected<const Api*> table = api();
  ASSERT_FALSE(table.ok());
  const std::string message = table.error().message();
  EXPECT_TRUE(contains(
      message,
      "zeInit failed: ZE_RESULT_ERROR_UNINITIALIZED (driver is not "
      "initialized): no driver named in ZE_ENABLE_ALT_DRIVERS="))
      << message;
  EXPECT_TRUE(contains(message, "libze_nothing.so initialized")) << message;
}

TEST(ScenarioNoDevices, DriverWithoutDevicesSaysNoIntelGpu) {
  SKIP_UNLESS_SCENARIO("no_devices");
  ASSERT_TRUE(api().ok()) << api().error().message();
  Expected<std::shared_ptr<Context>> context = sharedContext(0);
  ASSERT_FALSE(context.ok());
  EXPECT_EQ(
      context.error().message(),
      "XPU device 0 not found: no Intel GPU; the Level Zero driver is "
      "installed but reports no devices (check that the GPU is present and "
      "enabled)");
}

TEST(ScenarioNpuDevice, DeviceThatIsNotAnIntelGpuIsRefused) {
  SKIP_UNLESS_SCENARIO("npu");
  Expected<Device> device = Device::byIndex(0);
  ASSERT_TRUE(device.ok()) << device.error().message();
  EXPECT_EQ(
      checkIntelGpu(*device).error().message(),
      "XPU device 0 is 'Intel(R) AI Boost' (NPU/VPU, vendor 0x8086), not an "
      "Intel GPU: it cannot run zebins; pass the index of an Intel GPU");
  Expected<std::shared_ptr<Context>> context = sharedContext(1);
  ASSERT_FALSE(context.ok());
  EXPECT_TRUE(contains(context.error().message(), "XPU device 1 is 'Intel"))
      << context.error().message();
}

TEST(ScenarioNpuDriverFirst, DevicesAreTheGpuDriversDevices) {
  // ZE_ENABLE_ALT_DRIVERS lists the NPU stand-in first, then the GPU
  // driver, as the loader may order them on Core Ultra machines.
  SKIP_UNLESS_SCENARIO("npu_driver_first");
  Expected<const Api*> table = api();
  ASSERT_TRUE(table.ok()) << table.error().message();
  Expected<uint32_t> gpu_driver = Device::gpuDriverIndex(**table);
  ASSERT_TRUE(gpu_driver.ok()) << gpu_driver.error().message();
  EXPECT_EQ(*gpu_driver, 1u);
  Expected<Device> npu = Device::byIndex(0, 0);
  ASSERT_TRUE(npu.ok()) << npu.error().message();
  EXPECT_EQ(npu->properties()->name, "Intel(R) AI Boost");
  // Device indices (sharedContext's) count the GPU driver's devices, both
  // of them. No process-lifetime context here: with two drivers the loader
  // wraps their handles and frees the wrappers at exit, which LeakSanitizer
  // would then report.
  for (uint32_t index : {0u, 1u}) {
    Expected<Device> device = Device::gpuByIndex(index);
    ASSERT_TRUE(device.ok()) << device.error().message();
    EXPECT_TRUE(checkIntelGpu(*device).ok());
    EXPECT_EQ(device->index(), index);
  }
  Expected<Device> third = Device::gpuByIndex(2);
  ASSERT_FALSE(third.ok());
  EXPECT_TRUE(contains(
      third.error().message(),
      "XPU device 2 not found: Level Zero driver 1 has 2 device(s)"))
      << third.error().message();
}

TEST(ScenarioDg2Device, Dg2ZebinLoadsAndPvcZebinDoesNot) {
  SKIP_UNLESS_SCENARIO("dg2");
  REQUIRE_CORPUS_FILE("add_dg2_grf128.zebin");
  Expected<std::shared_ptr<Context>> context = sharedContext(0);
  ASSERT_TRUE(context.ok()) << context.error().message();
  Expected<ModulePtr> dg2 =
      moduleFromFile(*context, corpusPath("add_dg2_grf128.zebin"));
  ASSERT_TRUE(dg2.ok()) << dg2.error().message();
  Expected<ModulePtr> pvc =
      moduleFromFile(*context, corpusPath("add_pvc_grf128.zebin"));
  ASSERT_FALSE(pvc.ok());
  EXPECT_TRUE(contains(
      pvc.error().message(),
      "zebin is for product family 1271, device 0 is product family 1270"))
      << pvc.error().message();
  EXPECT_TRUE(contains(
      pvc.error().message(),
      "; the zebin is for another GPU architecture (product family 1271 in "
      "its .note.intelgt.compat) than XPU device 0 ('XSL test device', PCI "
      "device id 0x56a0): compile the kernel for this device"))
      << pvc.error().message();
}

TEST(ScenarioValidation, ValidationLayerIsActive) {
  SKIP_UNLESS_SCENARIO("validation");
  // An invalid queue mode: the test driver accepts it, the parameter
  // validation layer must refuse it, which proves the layer is in the path.
  Expected<std::shared_ptr<Context>> context = sharedContext(0);
  ASSERT_TRUE(context.ok()) << context.error().message();
  ze_command_queue_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  desc.mode = static_cast<ze_command_queue_mode_t>(0x7f);
  ze_command_list_handle_t list = nullptr;
  const ze_result_t result = (*context)->api().zeCommandListCreateImmediate(
      (*context)->handle(), (*context)->device().handle(), &desc, &list);
  EXPECT_EQ(result, ZE_RESULT_ERROR_INVALID_ENUMERATION) << resultName(result);
  if (result == ZE_RESULT_SUCCESS) {
    (*context)->api().zeCommandListDestroy(list);
  }
}

} // namespace
} // namespace level_zero
} // namespace xsl
