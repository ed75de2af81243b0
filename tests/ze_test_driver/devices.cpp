// zeInit, drivers and devices: what the test driver reports about itself.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "objects.h"
#include "tables.h"

namespace xsl {
namespace test_driver {
namespace {

struct Product {
  const char* name;
  uint32_t family;
  uint32_t device_id;
  uint32_t ip_version; // architecture << 22 | release << 14 | revision
  uint32_t max_shared_local_memory;
  uint32_t sub_group_sizes[3];
};

constexpr uint32_t ipVersion(uint32_t arch, uint32_t release, uint32_t rev) {
  return (arch << 22) | (release << 14) | rev;
}

// PRODUCT_FAMILY values as ocloc writes them into .note.intelgt.compat.
constexpr Product kProducts[] = {
    {"pvc", 1271, 0x0bd5, ipVersion(12, 60, 7), 128 * 1024, {16, 32, 0}},
    {"dg2", 1270, 0x56a0, ipVersion(12, 55, 8), 64 * 1024, {8, 16, 32}},
    {"acm-g10", 1270, 0x56a0, ipVersion(12, 55, 8), 64 * 1024, {8, 16, 32}},
    {"tgllp", 29, 0x9a49, ipVersion(12, 0, 0), 64 * 1024, {8, 16, 32}},
};

// Extensions this driver implements (the IP version is what the SYCL
// runtime's Level Zero adapter reads to choose between its two versions).
struct Extension {
  const char* name;
  uint32_t version;
};
constexpr Extension kExtensions[] = {
    {"ZE_extension_device_ip_version", ZE_MAKE_VERSION(1, 0)},
    {"ZE_experimental_immediate_command_list_append", ZE_MAKE_VERSION(1, 0)},
};
constexpr ze_structure_type_t kDeviceIpVersionExt =
    static_cast<ze_structure_type_t>(0x1000f);
struct DeviceIpVersionExt { // ze_device_ip_version_ext_t (API 1.6)
  ze_structure_type_t stype;
  const void* pNext;
  uint32_t ipVersion;
};

const char* envOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && value[0] != '\0' ? value : fallback;
}

// Item `index` of a comma-separated list; the last item repeats.
std::string listItem(const std::string& list, uint32_t index) {
  size_t begin = 0;
  for (uint32_t i = 0; i < index; ++i) {
    const size_t comma = list.find(',', begin);
    if (comma == std::string::npos) {
      break;
    }
    begin = comma + 1;
  }
  const size_t end = list.find(',', begin);
  return list.substr(begin, end == std::string::npos ? end : end - begin);
}

void configureDevice(DeviceObject& device, uint32_t index) {
  const std::string product_text =
      listItem(envOr("XSL_TEST_DRIVER_PRODUCT", "pvc"), index);
  const Product* product = &kProducts[0];
  bool named = false;
  for (const Product& candidate : kProducts) {
    if (product_text == candidate.name) {
      product = &candidate;
      named = true;
    }
  }
  device.product_family = named
      ? product->family
      : static_cast<uint32_t>(std::strtoul(product_text.c_str(), nullptr, 10));
  device.device_id = product->device_id;
  device.ip_version = product->ip_version;
  device.max_shared_local_memory = product->max_shared_local_memory;
  const std::string ip_text =
      listItem(envOr("XSL_TEST_DRIVER_IP_VERSION", ""), index);
  if (!ip_text.empty()) {
    device.ip_version =
        static_cast<uint32_t>(std::strtoul(ip_text.c_str(), nullptr, 0));
  }
  device.gfx_core = static_cast<uint32_t>(std::strtoul(
      listItem(envOr("XSL_TEST_DRIVER_GFX_CORE", "0"), index).c_str(),
      nullptr,
      10));
  for (uint32_t size : product->sub_group_sizes) {
    if (size != 0) {
      device.sub_group_sizes.push_back(size);
    }
  }
}

// XSL_TEST_DRIVER_DEVICE_TYPE: gpu (default), cpu, fpga, mca or vpu. The
// NPU build (XSL_TEST_DRIVER_AS_NPU) always has one NPU.
ze_device_type_t deviceType() {
#if defined(XSL_TEST_DRIVER_AS_NPU)
  return ZE_DEVICE_TYPE_VPU;
#else
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
#endif
}

void initializeDevices(DriverState& s) {
#if defined(XSL_TEST_DRIVER_AS_NPU)
  const unsigned long count = 1;
  const std::string name = "Intel(R) AI Boost";
#else
  unsigned long count =
      std::strtoul(envOr("XSL_TEST_DRIVER_DEVICES", "1"), nullptr, 10);
  count = std::min<unsigned long>(count, kMaxDevices);
  const std::string name =
      envOr("XSL_TEST_DRIVER_DEVICE_NAME", "XSL test device");
#endif
  const uint32_t vendor_id = static_cast<uint32_t>(
      std::strtoul(envOr("XSL_TEST_DRIVER_VENDOR", "0x8086"), nullptr, 0));
  const ze_device_type_t type = deviceType();
  for (uint32_t i = 0; i < static_cast<uint32_t>(count); ++i) {
    std::unique_ptr<DeviceObject> device(new DeviceObject());
    device->index = i;
    device->name = name;
    configureDevice(*device, i);
    device->vendor_id = vendor_id;
    device->type = type;
    s.devices.push_back(std::move(device));
  }
  s.record_launches =
      std::strcmp(envOr("XSL_TEST_DRIVER_NO_RECORD", "0"), "1") != 0;
}

// Answers the count-then-fill protocol of zeXxxGet-style queries.
template <typename T, typename Fill>
ze_result_t countAndFill(uint32_t* pCount, T* out, uint32_t available, Fill f) {
  if (pCount == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (*pCount == 0 || out == nullptr) {
    *pCount = available;
    return ZE_RESULT_SUCCESS;
  }
  const uint32_t count = std::min(*pCount, available);
  for (uint32_t i = 0; i < count; ++i) {
    f(out[i], i);
  }
  *pCount = count;
  return ZE_RESULT_SUCCESS;
}

// Zeroes every field of a properties struct but its stype and pNext (the
// caller's chain): what a device without the feature reports.
template <typename Properties>
void zeroFields(Properties* p) {
  const ze_structure_type_t stype = p->stype;
  void* const next = p->pNext;
  std::memset(static_cast<void*>(p), 0, sizeof(*p));
  p->stype = stype;
  p->pNext = next;
}

// The count-then-fill queries with a fixed number of entries.
template <
    typename Object,
    typename Entry,
    uint32_t kAvailable,
    void (*Fill)(Entry&, uint32_t)>
ze_result_t ZE_APICALL
listQuery(typename Object::Handle handle, uint32_t* pCount, Entry* entries) {
  if (as<Object>(handle) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return countAndFill(pCount, entries, kAvailable, Fill);
}

// What a device without the feature (images, external memory) reports.
template <typename Properties>
void unsupported(const DeviceObject&, Properties* p) {
  zeroFields(p);
}

} // namespace

DriverState& state() {
  // Never destroyed: the loader may call in while the process exits.
  static DriverState* instance = new DriverState();
  return *instance;
}

void initializeOnce() {
  DriverState& s = state();
  std::call_once(s.init_once, [&s] { initializeDevices(s); });
}

void copyName(char* out, size_t capacity, const std::string& name) {
  const size_t length = std::min(name.size(), capacity - 1);
  std::memcpy(out, name.data(), length);
  out[length] = '\0';
}

namespace {

void apiVersion(const DriverObject&, ze_api_version_t* version) {
  *version = ZE_API_VERSION_CURRENT;
}

void driverProperties(const DriverObject&, ze_driver_properties_t* p) {
  std::memset(&p->uuid, 0, sizeof(p->uuid));
  std::memcpy(p->uuid.id, "xsl-test-driver", 15);
  // XSL_TEST_DRIVER_VERSION stands for a driver update (kept native
  // binaries are keyed on it).
  const char* version = std::getenv("XSL_TEST_DRIVER_VERSION");
  p->driverVersion = version != nullptr
      ? static_cast<uint32_t>(std::strtoul(version, nullptr, 10))
      : 1u;
}

void ipcProperties(const DriverObject&, ze_driver_ipc_properties_t* p) {
  p->flags = 0; // no IPC
}

void extension(ze_driver_extension_properties_t& out, uint32_t i) {
  copyName(out.name, sizeof(out.name), kExtensions[i].name);
  out.version = kExtensions[i].version;
}

void deviceProperties(const DeviceObject& device, ze_device_properties_t* p) {
  zeroFields(p);
  p->type = device.type;
  p->vendorId = device.vendor_id;
  p->deviceId = device.device_id;
  p->coreClockRate = 1000;
  p->maxMemAllocSize = uint64_t(1) << 32;
  p->maxHardwareContexts = 64;
  p->numThreadsPerEU = 8;
  p->physicalEUSimdWidth = 16;
  p->numEUsPerSubslice = 8;
  p->numSubslicesPerSlice = 8;
  p->numSlices = 1;
  p->timerResolution = 1;
  p->timestampValidBits = 64;
  p->kernelTimestampValidBits = 32;
  p->uuid.id[0] = static_cast<uint8_t>(device.index);
  std::memcpy(p->uuid.id + 1, "xsl", 3);
  copyName(p->name, sizeof(p->name), device.name);
  // Extension structures chained by the caller; unknown ones stay as given.
  for (void* next = p->pNext; next != nullptr;) {
    ze_base_properties_t* base = static_cast<ze_base_properties_t*>(next);
    if (base->stype == kDeviceIpVersionExt) {
      static_cast<DeviceIpVersionExt*>(next)->ipVersion = device.ip_version;
    }
    next = base->pNext;
  }
}

void computeProperties(
    const DeviceObject& device,
    ze_device_compute_properties_t* p) {
  p->maxTotalGroupSize = kMaxTotalGroupSize;
  p->maxGroupSizeX = kMaxTotalGroupSize;
  p->maxGroupSizeY = kMaxTotalGroupSize;
  p->maxGroupSizeZ = 64;
  p->maxGroupCountX = 0xffffffffu;
  p->maxGroupCountY = 0xffffffffu;
  p->maxGroupCountZ = 0xffffffffu;
  p->maxSharedLocalMemory = device.max_shared_local_memory;
  p->numSubGroupSizes = static_cast<uint32_t>(device.sub_group_sizes.size());
  for (size_t i = 0; i < ZE_SUBGROUPSIZE_COUNT; ++i) {
    p->subGroupSizes[i] =
        i < device.sub_group_sizes.size() ? device.sub_group_sizes[i] : 0;
  }
}

// The device queries below report one compute engine, one memory and no
// images: the smallest honest description of a GPU whose work runs on the
// host.

void noSubDevice(ze_device_handle_t&, uint32_t) {}

void moduleProperties(const DeviceObject&, ze_device_module_properties_t* p) {
  p->spirvVersionSupported = ZE_MAKE_VERSION(1, 2);
  p->flags = ZE_DEVICE_MODULE_FLAG_FP16 | ZE_DEVICE_MODULE_FLAG_FP64 |
      ZE_DEVICE_MODULE_FLAG_INT64_ATOMICS;
  const ze_device_fp_flags_t fp = ZE_DEVICE_FP_FLAG_DENORM |
      ZE_DEVICE_FP_FLAG_INF_NAN | ZE_DEVICE_FP_FLAG_ROUND_TO_NEAREST |
      ZE_DEVICE_FP_FLAG_ROUND_TO_ZERO | ZE_DEVICE_FP_FLAG_ROUND_TO_INF |
      ZE_DEVICE_FP_FLAG_FMA;
  p->fp16flags = fp;
  p->fp32flags = fp;
  p->fp64flags = fp;
  p->maxArgumentsSize = 2048;
  p->printfBufferSize = 4 * 1024 * 1024;
  std::memset(&p->nativeKernelSupported, 0, sizeof(p->nativeKernelSupported));
  std::memcpy(p->nativeKernelSupported.id, "xsl-zebin", 9);
}

void queueGroup(ze_command_queue_group_properties_t& out, uint32_t) {
  out.flags = ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE |
      ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COPY;
  out.maxMemoryFillPatternSize = 128;
  out.numQueues = 1;
}

void memory(ze_device_memory_properties_t& out, uint32_t) {
  out.flags = 0;
  out.maxClockRate = 1000;
  out.maxBusWidth = 64;
  out.totalSize = uint64_t(16) << 30;
  copyName(out.name, sizeof(out.name), "host memory");
}

void memoryAccess(
    const DeviceObject&,
    ze_device_memory_access_properties_t* p) {
  zeroFields(p);
  const ze_memory_access_cap_flags_t rw =
      ZE_MEMORY_ACCESS_CAP_FLAG_RW | ZE_MEMORY_ACCESS_CAP_FLAG_ATOMIC;
  p->hostAllocCapabilities = rw;
  p->deviceAllocCapabilities = rw;
  p->sharedSingleDeviceAllocCapabilities = rw;
}

void cache(ze_device_cache_properties_t& out, uint32_t) {
  out.flags = 0;
  out.cacheSize = 512 * 1024;
}

ze_result_t ZE_APICALL zeInit(ze_init_flags_t flags) {
  if ((flags & ~(ZE_INIT_FLAG_GPU_ONLY | ZE_INIT_FLAG_VPU_ONLY)) != 0) {
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  }
  initializeOnce();
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeDriverGet(uint32_t* pCount, ze_driver_handle_t* phDrivers) {
  initializeOnce();
  DriverState& s = state();
  return countAndFill(
      pCount, phDrivers, 1, [&s](ze_driver_handle_t& out, uint32_t) {
        out = reinterpret_cast<ze_driver_handle_t>(&s.driver);
      });
}

ze_result_t ZE_APICALL zeDeviceGet(
    ze_driver_handle_t hDriver,
    uint32_t* pCount,
    ze_device_handle_t* phDevices) {
  if (as<DriverObject>(hDriver) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  DriverState& s = state();
  return countAndFill(
      pCount,
      phDevices,
      static_cast<uint32_t>(s.devices.size()),
      [&s](ze_device_handle_t& out, uint32_t i) {
        out = reinterpret_cast<ze_device_handle_t>(s.devices[i].get());
      });
}

ze_result_t ZE_APICALL zeDriverGetExtensionFunctionAddress(
    ze_driver_handle_t hDriver,
    const char* name,
    void** ppFunctionAddress) {
  if (const auto bad = nullArgument(
          {as<DriverObject>(hDriver)}, {name, ppFunctionAddress})) {
    return *bad;
  }
  if (std::strcmp(name, "zeCommandListImmediateAppendCommandListsExp") == 0) {
    *ppFunctionAddress = reinterpret_cast<void*>(immediateAppendCommandLists);
    return ZE_RESULT_SUCCESS;
  }
  // No other extension functions: callers fall back to core API paths.
  *ppFunctionAddress = nullptr;
  return ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

// The queries about a device and a peer device.
template <
    typename Out,
    void (*Fill)(const DeviceObject&, const DeviceObject&, Out*)>
ze_result_t ZE_APICALL
peerQuery(ze_device_handle_t hDevice, ze_device_handle_t hPeer, Out* out) {
  const DeviceObject* device = as<DeviceObject>(hDevice);
  const DeviceObject* peer = as<DeviceObject>(hPeer);
  if (const auto bad = nullArgument({device, peer}, {out})) {
    return *bad;
  }
  Fill(*device, *peer, out);
  return ZE_RESULT_SUCCESS;
}

void p2pProperties(
    const DeviceObject&,
    const DeviceObject&,
    ze_device_p2p_properties_t* p) {
  p->flags = 0;
}

void canAccessPeer(
    const DeviceObject& device,
    const DeviceObject& peer,
    ze_bool_t* value) {
  *value = &device == &peer;
}

ze_result_t ZE_APICALL zeDeviceGetGlobalTimestamps(
    ze_device_handle_t hDevice,
    uint64_t* hostTimestamp,
    uint64_t* deviceTimestamp) {
  if (const auto bad = nullArgument(
          {as<DeviceObject>(hDevice)}, {hostTimestamp, deviceTimestamp})) {
    return *bad;
  }
  const uint64_t now = static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(
          std::chrono::steady_clock::now().time_since_epoch())
          .count());
  *hostTimestamp = now;
  *deviceTimestamp = now; // timerResolution is 1 ns
  return ZE_RESULT_SUCCESS;
}

constexpr uint32_t kExtensionCount =
    static_cast<uint32_t>(sizeof(kExtensions) / sizeof(kExtensions[0]));

} // namespace

void fill(ze_global_dditable_t* t) {
  t->pfnInit = zeInit;
}

void fill(ze_driver_dditable_t* t) {
  t->pfnGet = zeDriverGet;
  t->pfnGetApiVersion = query<DriverObject, ze_api_version_t, apiVersion>;
  t->pfnGetProperties =
      query<DriverObject, ze_driver_properties_t, driverProperties>;
  t->pfnGetIpcProperties =
      query<DriverObject, ze_driver_ipc_properties_t, ipcProperties>;
  t->pfnGetExtensionProperties = listQuery<
      DriverObject,
      ze_driver_extension_properties_t,
      kExtensionCount,
      extension>;
  t->pfnGetExtensionFunctionAddress = zeDriverGetExtensionFunctionAddress;
}

void fill(ze_device_dditable_t* t) {
  using Device = DeviceObject;
  t->pfnGet = zeDeviceGet;
  t->pfnGetSubDevices = listQuery<Device, ze_device_handle_t, 0, noSubDevice>;
  t->pfnGetProperties = query<Device, ze_device_properties_t, deviceProperties>;
  t->pfnGetComputeProperties =
      query<Device, ze_device_compute_properties_t, computeProperties>;
  t->pfnGetModuleProperties =
      query<Device, ze_device_module_properties_t, moduleProperties>;
  t->pfnGetCommandQueueGroupProperties =
      listQuery<Device, ze_command_queue_group_properties_t, 1, queueGroup>;
  t->pfnGetMemoryProperties =
      listQuery<Device, ze_device_memory_properties_t, 1, memory>;
  t->pfnGetMemoryAccessProperties =
      query<Device, ze_device_memory_access_properties_t, memoryAccess>;
  t->pfnGetCacheProperties =
      listQuery<Device, ze_device_cache_properties_t, 1, cache>;
  t->pfnGetImageProperties =
      query<Device, ze_device_image_properties_t, unsupported>;
  t->pfnGetExternalMemoryProperties =
      query<Device, ze_device_external_memory_properties_t, unsupported>;
  t->pfnGetP2PProperties = peerQuery<ze_device_p2p_properties_t, p2pProperties>;
  t->pfnCanAccessPeer = peerQuery<ze_bool_t, canAccessPeer>;
  t->pfnGetStatus = ready<Device>;
  t->pfnGetGlobalTimestamps = zeDeviceGetGlobalTimestamps;
}

} // namespace test_driver
} // namespace xsl
