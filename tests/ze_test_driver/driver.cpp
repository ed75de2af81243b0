// A Level Zero driver without hardware, for tests. The real loader loads it
// through ZE_ENABLE_ALT_DRIVERS; it understands zebins through the project's
// zebin reader and records launches instead of running them (see
// test_driver.h for the inspection API and the environment it reads).

#include "driver.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include "test_driver.h"
#include "zebin/zebin.h"

#if defined(_MSC_VER)
#define XSL_DRIVER_NOINLINE __declspec(noinline)
#else
#define XSL_DRIVER_NOINLINE __attribute__((noinline))
#endif

namespace xsl {
namespace test_driver {
namespace {

// Every object starts with a tag, so a handle of the wrong kind (or a stale
// one, whose tag is cleared on destruction) is refused instead of used.
enum class Tag : uint32_t {
  kDead = 0,
  kDriver = 0x44525652,
  kDevice = 0x44455643,
  kContext = 0x43545854,
  kModule = 0x4d4f4455,
  kBuildLog = 0x424c4f47,
  kKernel = 0x4b524e4c,
  kCommandList = 0x434d444c,
};

struct DriverObject {
  Tag tag = Tag::kDriver;
};

struct DeviceObject {
  Tag tag = Tag::kDevice;
  uint32_t index = 0;
  std::string name;
  uint32_t product_family = 0;
  uint32_t gfx_core = 0;
  uint32_t device_id = 0;
  uint32_t vendor_id = 0x8086;
  ze_device_type_t type = ZE_DEVICE_TYPE_GPU;
  std::vector<uint32_t> sub_group_sizes;
};

struct ContextObject {
  Tag tag = Tag::kContext;
};

struct ModuleObject {
  Tag tag = Tag::kModule;
  DeviceObject* device = nullptr;
  std::string bytes; // zebin views point into it
  zebin::Zebin zebin;
};

struct BuildLogObject {
  Tag tag = Tag::kBuildLog;
  std::string text;
};

struct ArgState {
  bool is_set = false;
  bool is_null = false;
  uint64_t size = 0;
  uint8_t bytes[XSL_TEST_DRIVER_MAX_ARG_BYTES] = {};
};

struct KernelObject {
  Tag tag = Tag::kKernel;
  ModuleObject* module = nullptr;
  const zebin::KernelInfo* info = nullptr;
  uint32_t group_size[3] = {0, 0, 0};
  std::vector<ArgState> args;
  // Arguments never set, so a launch checks "all set" in O(1).
  size_t unset_args = 0;
};

struct CommandListObject {
  Tag tag = Tag::kCommandList;
  DeviceObject* device = nullptr;
};

struct Allocation {
  size_t size = 0;
  ze_memory_type_t type = ZE_MEMORY_TYPE_UNKNOWN;
  DeviceObject* device = nullptr;
  void* block = nullptr; // what operator new returned
  uint64_t id = 0;
};

struct LaunchRecord {
  XslTestLaunchRecord header;
  std::vector<ArgState> args;
};

constexpr uint32_t kMaxDevices = 8;
constexpr uint32_t kMaxTotalGroupSize = 1024;

struct Product {
  const char* name;
  uint32_t family;
  uint32_t device_id;
  uint32_t sub_group_sizes[3];
};

// PRODUCT_FAMILY values as ocloc writes them into .note.intelgt.compat.
constexpr Product kProducts[] = {
    {"pvc", 1271, 0x0bd5, {16, 32, 0}},
    {"dg2", 1270, 0x56a0, {8, 16, 32}},
    {"acm-g10", 1270, 0x56a0, {8, 16, 32}},
    {"tgllp", 29, 0x9a49, {8, 16, 32}},
};

struct DriverState {
  std::once_flag init_once;
  DriverObject driver;
  std::vector<std::unique_ptr<DeviceObject>> devices;
  bool record_launches = true;

  std::mutex mutex;                            // guards everything below
  std::map<uintptr_t, Allocation> allocations; // by base address
  uint64_t next_allocation_id = 1;
  std::vector<LaunchRecord> launches;
};

DriverState& state() {
  // Never destroyed: the loader may call in while the process exits.
  static DriverState* instance = new DriverState();
  return *instance;
}

const char* envOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : fallback;
}

// XSL_TEST_DRIVER_DEVICE_TYPE: gpu (default), cpu, fpga, mca or vpu.
ze_device_type_t deviceType() {
  const char* text = envOr("XSL_TEST_DRIVER_DEVICE_TYPE", "gpu");
  const char* const names[] = {"gpu", "cpu", "fpga", "mca", "vpu"};
  const ze_device_type_t types[] = {
      ZE_DEVICE_TYPE_GPU,
      ZE_DEVICE_TYPE_CPU,
      ZE_DEVICE_TYPE_FPGA,
      ZE_DEVICE_TYPE_MCA,
      ZE_DEVICE_TYPE_VPU};
  for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); ++i) {
    if (std::strcmp(text, names[i]) == 0) {
      return types[i];
    }
  }
  return ZE_DEVICE_TYPE_GPU;
}

void initializeDevices(DriverState& s) {
  const char* product_text = envOr("XSL_TEST_DRIVER_PRODUCT", "pvc");
  const Product* product = &kProducts[0];
  uint32_t family = product->family;
  bool named = false;
  for (const Product& candidate : kProducts) {
    if (std::strcmp(candidate.name, product_text) == 0) {
      product = &candidate;
      family = candidate.family;
      named = true;
    }
  }
  if (!named) {
    family = static_cast<uint32_t>(std::strtoul(product_text, nullptr, 10));
  }
  const uint32_t gfx_core = static_cast<uint32_t>(
      std::strtoul(envOr("XSL_TEST_DRIVER_GFX_CORE", "0"), nullptr, 10));
  unsigned long count =
      std::strtoul(envOr("XSL_TEST_DRIVER_DEVICES", "1"), nullptr, 10);
  count = std::min<unsigned long>(count, kMaxDevices);
  const std::string name =
      envOr("XSL_TEST_DRIVER_DEVICE_NAME", "XSL test device");
  const uint32_t vendor_id = static_cast<uint32_t>(
      std::strtoul(envOr("XSL_TEST_DRIVER_VENDOR", "0x8086"), nullptr, 0));
  const ze_device_type_t type = deviceType();
  for (uint32_t i = 0; i < static_cast<uint32_t>(count); ++i) {
    std::unique_ptr<DeviceObject> device(new DeviceObject());
    device->index = i;
    device->name = name;
    device->product_family = family;
    device->gfx_core = gfx_core;
    device->device_id = product->device_id;
    device->vendor_id = vendor_id;
    device->type = type;
    for (uint32_t size : product->sub_group_sizes) {
      if (size != 0) {
        device->sub_group_sizes.push_back(size);
      }
    }
    s.devices.push_back(std::move(device));
  }
  s.record_launches =
      std::strcmp(envOr("XSL_TEST_DRIVER_NO_RECORD", "0"), "1") != 0;
}

template <typename Object>
Object* as(void* handle, Tag tag) {
  Object* object = static_cast<Object*>(handle);
  if (object == nullptr || object->tag != tag) {
    return nullptr;
  }
  return object;
}

DeviceObject* asDevice(ze_device_handle_t handle) {
  return as<DeviceObject>(handle, Tag::kDevice);
}
ContextObject* asContext(ze_context_handle_t handle) {
  return as<ContextObject>(handle, Tag::kContext);
}
ModuleObject* asModule(ze_module_handle_t handle) {
  return as<ModuleObject>(handle, Tag::kModule);
}
BuildLogObject* asBuildLog(ze_module_build_log_handle_t handle) {
  return as<BuildLogObject>(handle, Tag::kBuildLog);
}
KernelObject* asKernel(ze_kernel_handle_t handle) {
  return as<KernelObject>(handle, Tag::kKernel);
}
CommandListObject* asCommandList(ze_command_list_handle_t handle) {
  return as<CommandListObject>(handle, Tag::kCommandList);
}

void copyName(char* out, size_t capacity, const std::string& name) {
  const size_t length = std::min(name.size(), capacity - 1);
  std::memcpy(out, name.data(), length);
  out[length] = '\0';
}

uint32_t noteValue(const zebin::ElfView& elf, uint32_t type) {
  for (const zebin::Note& note : elf.intelgt_notes) {
    if (note.owner == "IntelGT" && note.type == type && note.desc.size() >= 4) {
      uint32_t value = 0;
      for (int i = 3; i >= 0; --i) {
        value = (value << 8) |
            static_cast<uint8_t>(note.desc[static_cast<size_t>(i)]);
      }
      return value;
    }
  }
  return 0;
}

// The allocation that contains [ptr, ptr + 1), if any. Caller holds mutex.
const Allocation* findAllocation(DriverState& s, const void* ptr) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  auto next = s.allocations.upper_bound(address);
  if (next == s.allocations.begin()) {
    return nullptr;
  }
  --next;
  if (address - next->first < std::max<size_t>(next->second.size, 1)) {
    return &next->second;
  }
  return nullptr;
}

ze_result_t allocate(
    size_t size,
    size_t alignment,
    ze_memory_type_t type,
    DeviceObject* device,
    void** pptr) {
  if (pptr == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (size == 0) {
    return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
  }
  if (alignment == 0) {
    alignment = 64;
  }
  if ((alignment & (alignment - 1)) != 0) {
    return ZE_RESULT_ERROR_UNSUPPORTED_ALIGNMENT;
  }
  if (size > (size_t(1) << 32) || alignment > 65536) {
    return ZE_RESULT_ERROR_UNSUPPORTED_SIZE;
  }
  // Host memory backs every kind, so tests can read and write it.
  void* block = ::operator new(size + alignment, std::nothrow);
  if (block == nullptr) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  std::memset(block, 0, size + alignment);
  const uintptr_t raw = reinterpret_cast<uintptr_t>(block);
  const uintptr_t aligned = (raw + alignment - 1) & ~(uintptr_t(alignment) - 1);
  DriverState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  Allocation& entry = s.allocations[aligned];
  entry.size = size;
  entry.type = type;
  entry.device = device;
  entry.block = block;
  entry.id = s.next_allocation_id++;
  *pptr = reinterpret_cast<void*>(aligned);
  return ZE_RESULT_SUCCESS;
}

} // namespace

namespace impl {

ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
  if ((flags & ~(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY)) != 0) {
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  }
  DriverState& s = state();
  std::call_once(s.init_once, [&s] { initializeDevices(s); });
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeDriverGet(uint32_t* pCount, ze_driver_handle_t* phDrivers) {
  if (pCount == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  DriverState& s = state();
  std::call_once(s.init_once, [&s] { initializeDevices(s); });
  if (*pCount == 0 || phDrivers == nullptr) {
    *pCount = 1;
    return ZE_RESULT_SUCCESS;
  }
  phDrivers[0] = reinterpret_cast<ze_driver_handle_t>(&s.driver);
  *pCount = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeDriverGetApiVersion(ze_driver_handle_t hDriver, ze_api_version_t* version) {
  if (as<DriverObject>(hDriver, Tag::kDriver) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (version == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  *version = ZE_API_VERSION_CURRENT;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeDriverGetProperties(ze_driver_handle_t hDriver, ze_driver_properties_t* p) {
  if (as<DriverObject>(hDriver, Tag::kDriver) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (p == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  std::memset(&p->uuid, 0, sizeof(p->uuid));
  std::memcpy(p->uuid.id, "xsl-test-driver", 15);
  p->driverVersion = 1;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeDeviceGet(
    ze_driver_handle_t hDriver,
    uint32_t* pCount,
    ze_device_handle_t* phDevices) {
  if (as<DriverObject>(hDriver, Tag::kDriver) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (pCount == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  DriverState& s = state();
  const uint32_t available = static_cast<uint32_t>(s.devices.size());
  if (*pCount == 0 || phDevices == nullptr) {
    *pCount = available;
    return ZE_RESULT_SUCCESS;
  }
  const uint32_t count = std::min(*pCount, available);
  for (uint32_t i = 0; i < count; ++i) {
    phDevices[i] = reinterpret_cast<ze_device_handle_t>(s.devices[i].get());
  }
  *pCount = count;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeDeviceGetProperties(ze_device_handle_t hDevice, ze_device_properties_t* p) {
  DeviceObject* device = asDevice(hDevice);
  if (device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (p == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  p->type = device->type;
  p->vendorId = device->vendor_id;
  p->deviceId = device->device_id;
  p->flags = 0;
  p->subdeviceId = 0;
  p->coreClockRate = 1000;
  p->maxMemAllocSize = uint64_t(1) << 32;
  p->maxHardwareContexts = 64;
  p->maxCommandQueuePriority = 0;
  p->numThreadsPerEU = 8;
  p->physicalEUSimdWidth = 16;
  p->numEUsPerSubslice = 8;
  p->numSubslicesPerSlice = 8;
  p->numSlices = 1;
  p->timerResolution = 1;
  p->timestampValidBits = 64;
  p->kernelTimestampValidBits = 32;
  std::memset(&p->uuid, 0, sizeof(p->uuid));
  p->uuid.id[0] = static_cast<uint8_t>(device->index);
  copyName(p->name, sizeof(p->name), device->name);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeDeviceGetComputeProperties(
    ze_device_handle_t hDevice,
    ze_device_compute_properties_t* p) {
  DeviceObject* device = asDevice(hDevice);
  if (device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (p == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  p->maxTotalGroupSize = kMaxTotalGroupSize;
  p->maxGroupSizeX = kMaxTotalGroupSize;
  p->maxGroupSizeY = kMaxTotalGroupSize;
  p->maxGroupSizeZ = 64;
  p->maxGroupCountX = 0xffffffffu;
  p->maxGroupCountY = 0xffffffffu;
  p->maxGroupCountZ = 0xffffffffu;
  p->maxSharedLocalMemory = 128 * 1024;
  p->numSubGroupSizes = static_cast<uint32_t>(device->sub_group_sizes.size());
  for (size_t i = 0; i < ZE_SUBGROUPSIZE_COUNT; ++i) {
    p->subGroupSizes[i] =
        i < device->sub_group_sizes.size() ? device->sub_group_sizes[i] : 0;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeContextCreate(
    ze_driver_handle_t hDriver,
    const ze_context_desc_t* desc,
    ze_context_handle_t* phContext) {
  if (as<DriverObject>(hDriver, Tag::kDriver) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr || phContext == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  ContextObject* context = new (std::nothrow) ContextObject();
  if (context == nullptr) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  *phContext = reinterpret_cast<ze_context_handle_t>(context);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeContextDestroy(ze_context_handle_t hContext) {
  ContextObject* context = asContext(hContext);
  if (context == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  context->tag = Tag::kDead;
  delete context;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeModuleCreate(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    const ze_module_desc_t* desc,
    ze_module_handle_t* phModule,
    ze_module_build_log_handle_t* phBuildLog) {
  DeviceObject* device = asDevice(hDevice);
  if (asContext(hContext) == nullptr || device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr || phModule == nullptr ||
      (desc->inputSize > 0 && desc->pInputModule == nullptr)) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  std::unique_ptr<BuildLogObject> log(new BuildLogObject());
  ze_result_t result = ZE_RESULT_SUCCESS;
  std::unique_ptr<ModuleObject> module(new ModuleObject());
  module->device = device;
  if (desc->format != ZE_MODULE_FORMAT_NATIVE) {
    log->text =
        "xsl test driver: only ZE_MODULE_FORMAT_NATIVE (zebin) "
        "modules are supported";
    result = ZE_RESULT_ERROR_UNSUPPORTED_FEATURE;
  } else {
    module->bytes.assign(
        reinterpret_cast<const char*>(desc->pInputModule), desc->inputSize);
    Expected<zebin::Zebin> parsed = zebin::readZebin(module->bytes);
    if (!parsed) {
      log->text = "xsl test driver: not a zebin: " + parsed.error().message();
      result = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    } else {
      module->zebin = std::move(parsed).value();
      const uint32_t family =
          noteValue(module->zebin.elf, zebin::kNoteProductFamily);
      const uint32_t core = noteValue(module->zebin.elf, zebin::kNoteGfxCore);
      if (family != 0 && device->product_family != 0 &&
          family != device->product_family) {
        log->text = "xsl test driver: zebin is for product family " +
            std::to_string(family) + ", device " +
            std::to_string(device->index) + " is product family " +
            std::to_string(device->product_family);
        result = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
      } else if (
          core != 0 && device->gfx_core != 0 && core != device->gfx_core) {
        log->text = "xsl test driver: zebin is for gfx core " +
            std::to_string(core) + ", device " + std::to_string(device->index) +
            " is gfx core " + std::to_string(device->gfx_core);
        result = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
      }
    }
  }
  if (phBuildLog != nullptr) {
    *phBuildLog = reinterpret_cast<ze_module_build_log_handle_t>(log.release());
  }
  if (result != ZE_RESULT_SUCCESS) {
    return result;
  }
  *phModule = reinterpret_cast<ze_module_handle_t>(module.release());
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeModuleDestroy(ze_module_handle_t hModule) {
  ModuleObject* module = asModule(hModule);
  if (module == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  module->tag = Tag::kDead;
  delete module;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeModuleBuildLogGetString(
    ze_module_build_log_handle_t hLog,
    size_t* pSize,
    char* pBuildLog) {
  BuildLogObject* log = asBuildLog(hLog);
  if (log == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (pSize == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (pBuildLog == nullptr) {
    *pSize = log->text.size() + 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*pSize == 0) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  const size_t length = std::min(*pSize - 1, log->text.size());
  std::memcpy(pBuildLog, log->text.data(), length);
  pBuildLog[length] = '\0';
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeModuleBuildLogDestroy(ze_module_build_log_handle_t hLog) {
  BuildLogObject* log = asBuildLog(hLog);
  if (log == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  log->tag = Tag::kDead;
  delete log;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeModuleGetKernelNames(
    ze_module_handle_t hModule,
    uint32_t* pCount,
    const char** pNames) {
  ModuleObject* module = asModule(hModule);
  if (module == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (pCount == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  const std::vector<zebin::KernelInfo>& kernels = module->zebin.ze_info.kernels;
  const uint32_t available = static_cast<uint32_t>(kernels.size());
  if (*pCount == 0 || pNames == nullptr) {
    *pCount = available;
    return ZE_RESULT_SUCCESS;
  }
  const uint32_t count = std::min(*pCount, available);
  for (uint32_t i = 0; i < count; ++i) {
    pNames[i] = kernels[i].name.c_str();
  }
  *pCount = count;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeKernelCreate(
    ze_module_handle_t hModule,
    const ze_kernel_desc_t* desc,
    ze_kernel_handle_t* phKernel) {
  ModuleObject* module = asModule(hModule);
  if (module == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr || desc->pKernelName == nullptr || phKernel == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  const zebin::KernelInfo* info = module->zebin.findKernel(desc->pKernelName);
  if (info == nullptr) {
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  }
  KernelObject* kernel = new (std::nothrow) KernelObject();
  if (kernel == nullptr) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  kernel->module = module;
  kernel->info = info;
  kernel->args.resize(info->user_arguments.size());
  kernel->unset_args = kernel->args.size();
  *phKernel = reinterpret_cast<ze_kernel_handle_t>(kernel);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeKernelDestroy(ze_kernel_handle_t hKernel) {
  KernelObject* kernel = asKernel(hKernel);
  if (kernel == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  kernel->tag = Tag::kDead;
  delete kernel;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t* p) {
  KernelObject* kernel = asKernel(hKernel);
  if (kernel == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (p == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  // What compute-runtime derives from the same .ze_info keys.
  const zebin::KernelInfo& info = *kernel->info;
  const uint32_t simd = info.execution_env.simd_size > 0
      ? static_cast<uint32_t>(info.execution_env.simd_size)
      : 1u;
  p->numKernelArgs = static_cast<uint32_t>(info.user_arguments.size());
  p->requiredGroupSizeX = 0;
  p->requiredGroupSizeY = 0;
  p->requiredGroupSizeZ = 0;
  p->requiredNumSubGroups = 0;
  p->requiredSubgroupSize =
      static_cast<uint32_t>(info.execution_env.required_sub_group_size);
  p->maxSubgroupSize = simd;
  p->maxNumSubgroups = kMaxTotalGroupSize / simd;
  p->localMemSize = static_cast<uint32_t>(info.execution_env.slm_size);
  p->privateMemSize = static_cast<uint32_t>(info.private_bytes);
  p->spillMemSize = static_cast<uint32_t>(info.spill_bytes);
  std::memset(&p->uuid, 0, sizeof(p->uuid));
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeKernelSetGroupSize(
    ze_kernel_handle_t hKernel,
    uint32_t x,
    uint32_t y,
    uint32_t z) {
  KernelObject* kernel = asKernel(hKernel);
  if (kernel == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  const uint64_t total = uint64_t(x) * y * z;
  if (x == 0 || y == 0 || z == 0 || total > kMaxTotalGroupSize) {
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  }
  kernel->group_size[0] = x;
  kernel->group_size[1] = y;
  kernel->group_size[2] = z;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeKernelSetArgumentValue(
    ze_kernel_handle_t hKernel,
    uint32_t index,
    size_t size,
    const void* value) {
  KernelObject* kernel = asKernel(hKernel);
  if (kernel == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  const std::vector<zebin::UserArgument>& args = kernel->info->user_arguments;
  if (index >= args.size()) {
    return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX;
  }
  const zebin::UserArgument& arg = args[index];
  switch (arg.kind) {
    case zebin::UserArgumentKind::kGlobalPointer:
    case zebin::UserArgumentKind::kConstantPointer: {
      if (size != sizeof(void*)) {
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
      }
      // A null value (or a null pointer) is a legal null argument; anything
      // else must be memory this driver allocated.
      void* pointer = nullptr;
      if (value != nullptr) {
        std::memcpy(&pointer, value, sizeof(pointer));
      }
      if (pointer != nullptr) {
        DriverState& s = state();
        std::lock_guard<std::mutex> lock(s.mutex);
        if (findAllocation(s, pointer) == nullptr) {
          return ZE_RESULT_ERROR_INVALID_ARGUMENT;
        }
      }
      break;
    }
    case zebin::UserArgumentKind::kLocalPointer:
      if (size == 0 || value != nullptr) {
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
      }
      break;
    case zebin::UserArgumentKind::kByValue:
      if (size != arg.size) {
        return ZE_RESULT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE;
      }
      if (value == nullptr) {
        return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
      }
      break;
    default:
      break;
  }
  ArgState& slot = kernel->args[index];
  if (!slot.is_set) {
    --kernel->unset_args;
  }
  slot.is_set = true;
  slot.is_null = value == nullptr;
  slot.size = size;
  if (value != nullptr) {
    std::memcpy(
        slot.bytes,
        value,
        std::min<size_t>(size, XSL_TEST_DRIVER_MAX_ARG_BYTES));
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeCommandListCreateImmediate(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    const ze_command_queue_desc_t* desc,
    ze_command_list_handle_t* phList) {
  DeviceObject* device = asDevice(hDevice);
  if (asContext(hContext) == nullptr || device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr || phList == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  CommandListObject* list = new (std::nothrow) CommandListObject();
  if (list == nullptr) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  list->device = device;
  *phList = reinterpret_cast<ze_command_list_handle_t>(list);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeCommandListDestroy(ze_command_list_handle_t hList) {
  CommandListObject* list = asCommandList(hList);
  if (list == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  list->tag = Tag::kDead;
  delete list;
  return ZE_RESULT_SUCCESS;
}

namespace {

// Out of line so the no-record launch path stays a few compares.
XSL_DRIVER_NOINLINE void recordLaunch(
    DriverState& s,
    const KernelObject& kernel,
    const ze_group_count_t& count) {
  LaunchRecord record;
  std::memset(&record.header, 0, sizeof(record.header));
  copyName(
      record.header.kernel_name,
      sizeof(record.header.kernel_name),
      kernel.info->name);
  for (int i = 0; i < 3; ++i) {
    record.header.group_size[i] = kernel.group_size[i];
  }
  record.header.group_count[0] = count.groupCountX;
  record.header.group_count[1] = count.groupCountY;
  record.header.group_count[2] = count.groupCountZ;
  record.header.num_args = static_cast<uint32_t>(kernel.args.size());
  record.args = kernel.args;
  std::lock_guard<std::mutex> lock(s.mutex);
  s.launches.push_back(std::move(record));
}

} // namespace

ze_result_t ZE_APICALL zeCommandListAppendLaunchKernel(
    ze_command_list_handle_t hList,
    ze_kernel_handle_t hKernel,
    const ze_group_count_t* count,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  CommandListObject* list = asCommandList(hList);
  KernelObject* kernel = asKernel(hKernel);
  if (list == nullptr || kernel == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (count == nullptr || (numWait > 0 && phWait == nullptr)) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (hSignal != nullptr || numWait > 0) {
    return ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; // no events in this driver
  }
  if (kernel->module->device != list->device) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  // Stricter than a real driver on purpose: a launch without a group size
  // or with an argument never set is a launcher bug worth failing on.
  if (kernel->group_size[0] == 0) {
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  }
  if (kernel->unset_args != 0) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  DriverState& s = state();
  if (s.record_launches) {
    recordLaunch(s, *kernel, *count);
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeMemAllocDevice(
    ze_context_handle_t hContext,
    const ze_device_mem_alloc_desc_t* desc,
    size_t size,
    size_t alignment,
    ze_device_handle_t hDevice,
    void** pptr) {
  DeviceObject* device = asDevice(hDevice);
  if (asContext(hContext) == nullptr || device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  return allocate(size, alignment, ZE_MEMORY_TYPE_DEVICE, device, pptr);
}

ze_result_t ZE_APICALL zeMemAllocHost(
    ze_context_handle_t hContext,
    const ze_host_mem_alloc_desc_t* desc,
    size_t size,
    size_t alignment,
    void** pptr) {
  if (asContext(hContext) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  return allocate(size, alignment, ZE_MEMORY_TYPE_HOST, nullptr, pptr);
}

ze_result_t ZE_APICALL zeMemAllocShared(
    ze_context_handle_t hContext,
    const ze_device_mem_alloc_desc_t* ddesc,
    const ze_host_mem_alloc_desc_t* hdesc,
    size_t size,
    size_t alignment,
    ze_device_handle_t hDevice,
    void** pptr) {
  if (asContext(hContext) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (ddesc == nullptr || hdesc == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  DeviceObject* device = hDevice == nullptr ? nullptr : asDevice(hDevice);
  if (hDevice != nullptr && device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return allocate(size, alignment, ZE_MEMORY_TYPE_SHARED, device, pptr);
}

ze_result_t ZE_APICALL zeMemFree(ze_context_handle_t hContext, void* ptr) {
  if (asContext(hContext) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (ptr == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  DriverState& s = state();
  void* block = nullptr;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    auto found = s.allocations.find(reinterpret_cast<uintptr_t>(ptr));
    if (found == s.allocations.end()) {
      return ZE_RESULT_ERROR_INVALID_ARGUMENT;
    }
    block = found->second.block;
    s.allocations.erase(found);
  }
  ::operator delete(block);
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeMemGetAllocProperties(
    ze_context_handle_t hContext,
    const void* ptr,
    ze_memory_allocation_properties_t* p,
    ze_device_handle_t* phDevice) {
  if (asContext(hContext) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (ptr == nullptr || p == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  DriverState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const Allocation* allocation = findAllocation(s, ptr);
  p->type = allocation != nullptr ? allocation->type : ZE_MEMORY_TYPE_UNKNOWN;
  p->id = allocation != nullptr ? allocation->id : 0;
  p->pageSize = allocation != nullptr ? 4096 : 0;
  if (phDevice != nullptr) {
    *phDevice = allocation != nullptr && allocation->device != nullptr
        ? reinterpret_cast<ze_device_handle_t>(allocation->device)
        : nullptr;
  }
  return ZE_RESULT_SUCCESS;
}

} // namespace impl

// ------------------------------------------------------------ DDI tables

namespace {

ze_result_t checkTableVersion(ze_api_version_t version, const void* table) {
  if (table == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT)) {
    return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  }
  return ZE_RESULT_SUCCESS;
}

// Tables this driver does not implement stay empty: the loader then answers
// ZE_RESULT_ERROR_UNINITIALIZED (or UNSUPPORTED) for their functions.
template <typename Table>
void fill(Table*) {}

void fill(ze_global_dditable_t* t) {
  t->pfnInit = impl::zeInit;
}
void fill(ze_driver_dditable_t* t) {
  t->pfnGet = impl::zeDriverGet;
  t->pfnGetApiVersion = impl::zeDriverGetApiVersion;
  t->pfnGetProperties = impl::zeDriverGetProperties;
}
void fill(ze_device_dditable_t* t) {
  t->pfnGet = impl::zeDeviceGet;
  t->pfnGetProperties = impl::zeDeviceGetProperties;
  t->pfnGetComputeProperties = impl::zeDeviceGetComputeProperties;
}
void fill(ze_context_dditable_t* t) {
  t->pfnCreate = impl::zeContextCreate;
  t->pfnDestroy = impl::zeContextDestroy;
}
void fill(ze_module_dditable_t* t) {
  t->pfnCreate = impl::zeModuleCreate;
  t->pfnDestroy = impl::zeModuleDestroy;
  t->pfnGetKernelNames = impl::zeModuleGetKernelNames;
}
void fill(ze_module_build_log_dditable_t* t) {
  t->pfnDestroy = impl::zeModuleBuildLogDestroy;
  t->pfnGetString = impl::zeModuleBuildLogGetString;
}
void fill(ze_kernel_dditable_t* t) {
  t->pfnCreate = impl::zeKernelCreate;
  t->pfnDestroy = impl::zeKernelDestroy;
  t->pfnGetProperties = impl::zeKernelGetProperties;
  t->pfnSetGroupSize = impl::zeKernelSetGroupSize;
  t->pfnSetArgumentValue = impl::zeKernelSetArgumentValue;
}
void fill(ze_command_list_dditable_t* t) {
  t->pfnCreateImmediate = impl::zeCommandListCreateImmediate;
  t->pfnDestroy = impl::zeCommandListDestroy;
  t->pfnAppendLaunchKernel = impl::zeCommandListAppendLaunchKernel;
}
void fill(ze_mem_dditable_t* t) {
  t->pfnAllocDevice = impl::zeMemAllocDevice;
  t->pfnAllocHost = impl::zeMemAllocHost;
  t->pfnAllocShared = impl::zeMemAllocShared;
  t->pfnFree = impl::zeMemFree;
  t->pfnGetAllocProperties = impl::zeMemGetAllocProperties;
}

template <typename Table>
ze_result_t fillTable(ze_api_version_t version, Table* table) {
  const ze_result_t result = checkTableVersion(version, table);
  if (result == ZE_RESULT_SUCCESS) {
    fill(table);
  }
  return result;
}

} // namespace

} // namespace test_driver
} // namespace xsl

// Every zeGet*/zetGet*/zesGet*ProcAddrTable of the installed headers
// (generated at configure time into ddi_tables.inc): the 1.8 loader refuses
// a driver that lacks any of them.
#define XSL_DDI_TABLE(function, table_type)                \
  extern "C" ZE_DLLEXPORT ze_result_t ZE_APICALL function( \
      ze_api_version_t version, table_type* table) {       \
    return xsl::test_driver::fillTable(version, table);    \
  }
#include "ddi_tables.inc"
#undef XSL_DDI_TABLE

// ------------------------------------------------------ Inspection API

extern "C" {

size_t xslTestDriverGetLaunchCount(void) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.launches.size();
}

int xslTestDriverGetLaunchRecord(size_t launch, XslTestLaunchRecord* out) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (out == nullptr || launch >= s.launches.size()) {
    return -1;
  }
  *out = s.launches[launch].header;
  return 0;
}

int xslTestDriverGetLaunchArg(
    size_t launch,
    uint32_t arg,
    XslTestArgRecord* out) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (out == nullptr || launch >= s.launches.size() ||
      arg >= s.launches[launch].args.size()) {
    return -1;
  }
  const xsl::test_driver::ArgState& recorded = s.launches[launch].args[arg];
  out->is_set = recorded.is_set ? 1u : 0u;
  out->is_null = recorded.is_null ? 1u : 0u;
  out->size = recorded.size;
  std::memcpy(out->bytes, recorded.bytes, sizeof(out->bytes));
  return 0;
}

void xslTestDriverClearLaunchRecords(void) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.launches.clear();
}

} // extern "C"
