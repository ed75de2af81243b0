#include "level_zero/level_zero.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/enum_names.h"

namespace xsl {
namespace level_zero {
namespace {

std::string quoted(std::string_view text) {
  std::string out = "'";
  out.append(text.data(), text.size());
  out += "'";
  return out;
}

// The text before the first NUL of a fixed-size buffer.
std::string boundedString(const char* text, size_t capacity) {
  const void* nul = std::memchr(text, '\0', capacity);
  return std::string(
      text,
      nul == nullptr
          ? capacity
          : static_cast<size_t>(static_cast<const char*>(nul) - text));
}

// Every driver the loader lists, in its order.
Expected<std::vector<ze_driver_handle_t>> listDrivers(const Api& api) {
  uint32_t count = 0;
  ze_result_t result = api.zeDriverGet(&count, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeDriverGet", result, "listing Level Zero drivers");
  }
  std::vector<ze_driver_handle_t> drivers(count);
  if (count > 0) {
    result = api.zeDriverGet(&count, drivers.data());
    if (result != ZE_RESULT_SUCCESS) {
      return zeError("zeDriverGet", result, "listing Level Zero drivers");
    }
    drivers.resize(count);
  }
  return drivers;
}

// Every device of one driver.
Expected<std::vector<ze_device_handle_t>> listDevices(
    const Api& api,
    ze_driver_handle_t driver) {
  uint32_t count = 0;
  ze_result_t result = api.zeDeviceGet(driver, &count, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeDeviceGet", result, "listing Level Zero devices");
  }
  std::vector<ze_device_handle_t> devices(count);
  if (count > 0) {
    result = api.zeDeviceGet(driver, &count, devices.data());
    if (result != ZE_RESULT_SUCCESS) {
      return zeError("zeDeviceGet", result, "listing Level Zero devices");
    }
    devices.resize(count);
  }
  return devices;
}

} // namespace

// ---------------------------------------------------------------- Device

std::string deviceLabel(const Device& device) {
  return "XPU device " + std::to_string(device.index());
}

Expected<uint32_t> Device::count(const Api& api, uint32_t driver_index) {
  Expected<std::vector<ze_driver_handle_t>> drivers = listDrivers(api);
  if (!drivers) {
    return drivers.error();
  }
  if (driver_index >= drivers->size()) {
    return 0u;
  }
  Expected<std::vector<ze_device_handle_t>> devices =
      listDevices(api, (*drivers)[driver_index]);
  if (!devices) {
    return devices.error();
  }
  return static_cast<uint32_t>(devices->size());
}

Expected<uint32_t> Device::gpuDriverIndex(const Api& api) {
  Expected<std::vector<ze_driver_handle_t>> drivers = listDrivers(api);
  if (!drivers) {
    return drivers.error();
  }
  for (size_t d = 0; d < drivers->size(); ++d) {
    Expected<std::vector<ze_device_handle_t>> devices =
        listDevices(api, (*drivers)[d]);
    if (!devices) {
      return devices.error();
    }
    for (ze_device_handle_t device : *devices) {
      ze_device_properties_t props;
      std::memset(&props, 0, sizeof(props));
      props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      const ze_result_t result = api.zeDeviceGetProperties(device, &props);
      if (result != ZE_RESULT_SUCCESS) {
        return zeError(
            "zeDeviceGetProperties", result, "finding the GPU driver");
      }
      if (props.type == ZE_DEVICE_TYPE_GPU) {
        return static_cast<uint32_t>(d);
      }
    }
  }
  return 0u;
}

Expected<Device> Device::gpuByIndex(uint32_t device_index) {
  Expected<const Api*> table = level_zero::api();
  if (!table) {
    return table.error();
  }
  Expected<uint32_t> driver_index = gpuDriverIndex(**table);
  if (!driver_index) {
    return driver_index.error();
  }
  return byIndex(**table, device_index, *driver_index);
}

Expected<Device> Device::byIndex(uint32_t device_index, uint32_t driver_index) {
  Expected<const Api*> table = level_zero::api();
  if (!table) {
    return table.error();
  }
  return byIndex(**table, device_index, driver_index);
}

Expected<Device> Device::byIndex(
    const Api& api,
    uint32_t device_index,
    uint32_t driver_index) {
  Expected<std::vector<ze_driver_handle_t>> drivers = listDrivers(api);
  if (!drivers) {
    return drivers.error();
  }
  const size_t driver_count = drivers->size();
  if (driver_index >= driver_count) {
    return Error(
        "Level Zero driver " + std::to_string(driver_index) +
        " not found: " + std::to_string(driver_count) +
        " driver(s) installed; install the Intel GPU driver or pick a "
        "smaller driver index");
  }
  const std::string driver_label = driver_count == 1
      ? std::string("the Level Zero driver")
      : "Level Zero driver " + std::to_string(driver_index);
  ze_driver_handle_t driver = (*drivers)[driver_index];
  Expected<std::vector<ze_device_handle_t>> listed = listDevices(api, driver);
  if (!listed) {
    return listed.error();
  }
  const std::vector<ze_device_handle_t>& devices = *listed;
  const size_t device_count = devices.size();
  if (device_count == 0) {
    return Error(
        "XPU device " + std::to_string(device_index) +
        " not found: no Intel GPU; " + driver_label +
        " is installed but reports no devices (check that the GPU is "
        "present and enabled)");
  }
  if (device_index >= device_count) {
    return Error(
        "XPU device " + std::to_string(device_index) +
        " not found: " + driver_label + " has " + std::to_string(device_count) +
        " device(s); pass a device index below " +
        std::to_string(device_count));
  }
  return Device(api, driver, devices[device_index], device_index);
}

const char* deviceTypeName(ze_device_type_t type) noexcept {
  static_assert(ZE_DEVICE_TYPE_GPU == 1 && ZE_DEVICE_TYPE_VPU == 5);
  static constexpr const char* kNames[] = {
      "device of unknown type",
      "GPU",
      "CPU",
      "FPGA",
      "memory copy accelerator",
      "NPU/VPU"};
  return enumName(type, kNames, kNames[0]);
}

Status checkIntelGpu(const Device& device) {
  Expected<DeviceProperties> props = device.properties();
  if (!props) {
    return props.error();
  }
  if (props->type == ZE_DEVICE_TYPE_GPU && props->vendor_id == kIntelVendorId) {
    return Status::success();
  }
  char vendor[16];
  std::snprintf(vendor, sizeof(vendor), "0x%04x", props->vendor_id);
  return Error(
      deviceLabel(device) + " is '" + props->name + "' (" +
      deviceTypeName(props->type) + ", vendor " + vendor +
      "), not an Intel GPU: it cannot run zebins; pass the index of an "
      "Intel GPU");
}

namespace {

// zeDeviceGetProperties with the IP version, and the driver's version: what
// properties() and identity() both read.
struct DeviceAndDriver {
  ze_device_properties_t device;
  Device::Identity identity;
};

Expected<DeviceAndDriver> queryDeviceAndDriver(const Device& device) {
  DeviceAndDriver out;
  std::memset(&out.device, 0, sizeof(out.device));
  out.device.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  DeviceIpVersionExt ip;
  std::memset(&ip, 0, sizeof(ip));
  ip.stype = kDeviceIpVersionExtType;
  out.device.pNext = &ip;
  const Api& api = device.api();
  ze_result_t result = api.zeDeviceGetProperties(device.handle(), &out.device);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeDeviceGetProperties", result, deviceLabel(device));
  }
  out.device.pNext = nullptr;
  ze_driver_properties_t driver;
  std::memset(&driver, 0, sizeof(driver));
  driver.stype = ZE_STRUCTURE_TYPE_DRIVER_PROPERTIES;
  result = api.zeDriverGetProperties(device.driver(), &driver);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeDriverGetProperties", result, deviceLabel(device));
  }
  out.identity.ip_version = ip.ipVersion;
  out.identity.driver_version = driver.driverVersion;
  return out;
}

} // namespace

Expected<DeviceProperties> Device::properties() const {
  Expected<DeviceAndDriver> queried = queryDeviceAndDriver(*this);
  if (!queried) {
    return std::move(queried).error();
  }
  const ze_device_properties_t& device_props = queried->device;
  ze_device_compute_properties_t compute;
  std::memset(&compute, 0, sizeof(compute));
  compute.stype = ZE_STRUCTURE_TYPE_DEVICE_COMPUTE_PROPERTIES;
  const ze_result_t result =
      api_->zeDeviceGetComputeProperties(device_, &compute);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeDeviceGetComputeProperties", result, deviceLabel(*this));
  }
  DeviceProperties out;
  out.name = boundedString(device_props.name, sizeof(device_props.name));
  out.type = device_props.type;
  out.vendor_id = device_props.vendorId;
  out.device_id = device_props.deviceId;
  out.ip_version = queried->identity.ip_version;
  out.driver_version = queried->identity.driver_version;
  out.max_total_group_size = compute.maxTotalGroupSize;
  out.max_shared_local_memory = compute.maxSharedLocalMemory;
  const uint32_t sizes = compute.numSubGroupSizes < ZE_SUBGROUPSIZE_COUNT
      ? compute.numSubGroupSizes
      : static_cast<uint32_t>(ZE_SUBGROUPSIZE_COUNT);
  out.sub_group_sizes.assign(
      compute.subGroupSizes, compute.subGroupSizes + sizes);
  return out;
}

Expected<Device::Identity> Device::identity() const {
  Expected<DeviceAndDriver> queried = queryDeviceAndDriver(*this);
  if (!queried) {
    return std::move(queried).error();
  }
  return queried->identity;
}

// --------------------------------------------------------------- Context

Expected<std::shared_ptr<Context>> Context::create(const Device& device) {
  ze_context_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ze_context_handle_t context = nullptr;
  const ze_result_t result =
      device.api().zeContextCreate(device.driver(), &desc, &context);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeContextCreate", result, deviceLabel(device));
  }
  return std::shared_ptr<Context>(new Context(device, context, true));
}

std::shared_ptr<Context> Context::wrap(
    const Device& device,
    ze_context_handle_t context,
    bool owned) {
  return std::shared_ptr<Context>(new Context(device, context, owned));
}

Context::~Context() {
  if (owned_ && context_ != nullptr) {
    api().zeContextDestroy(context_);
  }
}

Expected<std::shared_ptr<Context>> sharedContext(uint32_t device_index) {
  static std::mutex mutex;
  static std::map<uint32_t, std::shared_ptr<Context>>* contexts =
      new std::map<uint32_t, std::shared_ptr<Context>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto found = contexts->find(device_index);
  if (found != contexts->end()) {
    return found->second;
  }
  Expected<Device> device = Device::gpuByIndex(device_index);
  if (!device) {
    return device.error();
  }
  Status intel_gpu = checkIntelGpu(*device);
  if (!intel_gpu) {
    return intel_gpu.error();
  }
  Expected<std::shared_ptr<Context>> context = Context::create(*device);
  if (!context) {
    return context.error();
  }
  contexts->emplace(device_index, *context);
  return context;
}

DeviceAccess openDevice(uint32_t device_index) {
  DeviceAccess out;
  const auto fail = [&out](DeviceProblem problem, const Error& error) {
    out.problem = problem;
    out.message = error.message();
    return out;
  };
  Expected<const Api*> table = api();
  if (!table) {
    return fail(DeviceProblem::kNoLevelZero, table.error());
  }
  Expected<uint32_t> count = Device::count(**table);
  if (!count) {
    return fail(DeviceProblem::kNoLevelZero, count.error());
  }
  Expected<Device> device = Device::byIndex(**table, device_index);
  if (!device) {
    // No device at all is a machine without an Intel GPU; a missing index
    // is the user's choice.
    return fail(
        *count == 0 ? DeviceProblem::kNoLevelZero : DeviceProblem::kBadDevice,
        device.error());
  }
  Status intel_gpu = checkIntelGpu(*device);
  if (!intel_gpu) {
    return fail(DeviceProblem::kBadDevice, intel_gpu.error());
  }
  Expected<std::shared_ptr<Context>> context = sharedContext(device_index);
  if (!context) {
    return fail(DeviceProblem::kNoLevelZero, context.error());
  }
  out.context = *context;
  return out;
}

// ---------------------------------------------------------------- Module

namespace {

// The text of a module build log (empty for null), which is then destroyed.
std::string takeBuildLog(const Api& api, ze_module_build_log_handle_t log) {
  if (log == nullptr) {
    return std::string();
  }
  std::string text;
  size_t size = 0;
  if (api.zeModuleBuildLogGetString(log, &size, nullptr) == ZE_RESULT_SUCCESS &&
      size > 1) {
    text.assign(size, '\0');
    if (api.zeModuleBuildLogGetString(log, &size, &text[0]) !=
        ZE_RESULT_SUCCESS) {
      text.clear();
    }
    text = boundedString(text.data(), text.size());
  }
  api.zeModuleBuildLogDestroy(log);
  return text;
}

} // namespace

ModuleBuild buildModule(
    const Context& context,
    ze_device_handle_t device,
    std::string_view bytes,
    ModuleFormat format,
    const std::string& flags) {
  const Api& api = context.api();
  ze_module_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
  desc.format = format == ModuleFormat::kSpirv ? ZE_MODULE_FORMAT_IL_SPIRV
                                               : ZE_MODULE_FORMAT_NATIVE;
  desc.inputSize = bytes.size();
  desc.pInputModule = reinterpret_cast<const uint8_t*>(bytes.data());
  desc.pBuildFlags = flags.c_str();
  ModuleBuild built;
  ze_module_build_log_handle_t log = nullptr;
  built.result =
      api.zeModuleCreate(context.handle(), device, &desc, &built.module, &log);
  if (built.result != ZE_RESULT_SUCCESS) {
    built.module = nullptr;
  }
  built.log = takeBuildLog(api, log);
  return built;
}

Expected<std::string> nativeBinary(
    const Api& api,
    ze_module_handle_t module,
    const std::string& what) {
  std::string native;
  size_t size = 0;
  ze_result_t got = api.zeModuleGetNativeBinary(module, &size, nullptr);
  if (got == ZE_RESULT_SUCCESS && size > 0) {
    native.assign(size, '\0');
    got = api.zeModuleGetNativeBinary(
        module, &size, reinterpret_cast<uint8_t*>(&native[0]));
    native.resize(size);
  }
  if (got != ZE_RESULT_SUCCESS) {
    return zeError("zeModuleGetNativeBinary", got, what);
  }
  return native;
}

Expected<std::shared_ptr<Module>> Module::create(
    std::shared_ptr<Context> context,
    std::string_view bytes,
    ModuleFormat format,
    std::string source_name,
    std::string_view build_flags,
    ze_result_t* result) {
  std::shared_ptr<Module> module(new Module());
  module->context_ = std::move(context);
  module->source_name_ = std::move(source_name);
  const Context& ctx = *module->context_;
  const std::string flags(build_flags);
  ModuleBuild built =
      buildModule(ctx, ctx.device().handle(), bytes, format, flags);
  if (result != nullptr) {
    *result = built.result;
  }
  module->module_ = built.module;
  if (built.result == ZE_RESULT_SUCCESS) {
    return module;
  }
  const bool spirv = format == ModuleFormat::kSpirv;
  std::string message =
      zeError(
          "zeModuleCreate",
          built.result,
          module->source_name_ + " on " + deviceLabel(ctx.device()))
          .message();
  if (spirv) {
    message += "; the driver could not build the SPIR-V with build flags '" +
        flags + "'";
  }
  if (!built.log.empty()) {
    message += "; build log: " + built.log;
  } else if (spirv || built.result != ZE_RESULT_ERROR_INVALID_NATIVE_BINARY) {
    message += "; the driver gave no build log";
  }
  return Error(std::move(message));
}

Module::~Module() {
  if (module_ != nullptr) {
    context_->api().zeModuleDestroy(module_);
  }
}

Expected<std::string> Module::nativeBinary() const {
  return level_zero::nativeBinary(
      context_->api(),
      module_,
      source_name_ + " on " + deviceLabel(context_->device()));
}

Expected<std::vector<std::string>> Module::driverKernelNames() const {
  const Api& table = context_->api();
  uint32_t count = 0;
  ze_result_t result = table.zeModuleGetKernelNames(module_, &count, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeModuleGetKernelNames", result, source_name_);
  }
  std::vector<const char*> names(count, nullptr);
  if (count > 0) {
    result = table.zeModuleGetKernelNames(module_, &count, names.data());
    if (result != ZE_RESULT_SUCCESS) {
      return zeError("zeModuleGetKernelNames", result, source_name_);
    }
  }
  std::vector<std::string> out;
  for (uint32_t i = 0; i < count && i < names.size(); ++i) {
    out.emplace_back(names[i] != nullptr ? names[i] : "");
  }
  return out;
}

// ---------------------------------------------------------------- Kernel

Expected<Kernel> Kernel::create(
    std::shared_ptr<Module> module,
    std::string_view name) {
  const Api& table = module->context().api();
  // Made only for an error: loading many kernels builds no message.
  const auto label = [name](const Module& source) {
    return "kernel " + quoted(name) + " in " + source.sourceName();
  };
  ze_kernel_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
  std::string kernel_name(name);
  desc.pKernelName = kernel_name.c_str();
  ze_kernel_handle_t handle = nullptr;
  ze_result_t result = table.zeKernelCreate(module->handle(), &desc, &handle);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeKernelCreate", result, label(*module));
  }
  Kernel kernel;
  kernel.api_ = &table;
  kernel.name_ = std::move(kernel_name);
  kernel.kernel_ = {handle, detail::KernelDestroy{std::move(module)}};

  ze_kernel_properties_t props;
  std::memset(&props, 0, sizeof(props));
  props.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  result = table.zeKernelGetProperties(handle, &props);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError("zeKernelGetProperties", result, label(kernel.module()));
  }
  KernelProperties& out = kernel.properties_;
  out.num_kernel_args = props.numKernelArgs;
  out.spill_mem_size = props.spillMemSize;
  out.private_mem_size = props.privateMemSize;
  out.local_mem_size = props.localMemSize;
  out.required_sub_group_size = props.requiredSubgroupSize;
  out.max_sub_group_size = props.maxSubgroupSize;
  return kernel;
}

void detail::KernelDestroy::operator()(
    ze_kernel_handle_t kernel) const noexcept {
  module->context().api().zeKernelDestroy(kernel);
}

Status Kernel::setGroupSize(uint32_t x, uint32_t y, uint32_t z) const {
  const ze_result_t result = api_->zeKernelSetGroupSize(kernel_.get(), x, y, z);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError(
        "zeKernelSetGroupSize",
        result,
        "kernel " + quoted(name_) + " group size (" + std::to_string(x) + ", " +
            std::to_string(y) + ", " + std::to_string(z) + ")");
  }
  return Status::success();
}

Status Kernel::setArgumentValue(uint32_t index, size_t size, const void* value)
    const {
  const ze_result_t result =
      api_->zeKernelSetArgumentValue(kernel_.get(), index, size, value);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError(
        "zeKernelSetArgumentValue",
        result,
        "kernel " + quoted(name_) + " argument " + std::to_string(index) +
            " (" + std::to_string(size) + " bytes)");
  }
  return Status::success();
}

// ----------------------------------------------------------- CommandList

Expected<CommandList> CommandList::createImmediate(
    std::shared_ptr<Context> context,
    bool synchronous) {
  ze_command_queue_desc_t desc;
  std::memset(&desc, 0, sizeof(desc));
  desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  desc.mode = synchronous ? ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS
                          : ZE_COMMAND_QUEUE_MODE_ASYNCHRONOUS;
  desc.priority = ZE_COMMAND_QUEUE_PRIORITY_NORMAL;
  ze_command_list_handle_t list = nullptr;
  const ze_result_t result = context->api().zeCommandListCreateImmediate(
      context->handle(), context->device().handle(), &desc, &list);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError(
        "zeCommandListCreateImmediate", result, deviceLabel(context->device()));
  }
  CommandList out;
  out.list_ = {list, detail::CommandListDestroy{std::move(context)}};
  return out;
}

void detail::CommandListDestroy::operator()(
    ze_command_list_handle_t list) const noexcept {
  context->api().zeCommandListDestroy(list);
}

Status CommandList::appendLaunch(
    const Kernel& kernel,
    const ze_group_count_t& group_count) const {
  const ze_result_t result =
      list_.get_deleter().context->api().zeCommandListAppendLaunchKernel(
          list_.get(), kernel.handle(), &group_count, nullptr, 0, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return zeError(
        "zeCommandListAppendLaunchKernel",
        result,
        "kernel " + quoted(kernel.name()) + " grid (" +
            std::to_string(group_count.groupCountX) + ", " +
            std::to_string(group_count.groupCountY) + ", " +
            std::to_string(group_count.groupCountZ) + ")");
  }
  return Status::success();
}

// ------------------------------------------------------------ Allocation

Expected<Allocation> Allocation::allocate(
    std::shared_ptr<Context> context,
    MemoryKind kind,
    size_t size,
    size_t alignment) {
  const Api& table = context->api();
  ze_device_mem_alloc_desc_t device_desc;
  std::memset(&device_desc, 0, sizeof(device_desc));
  device_desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
  ze_host_mem_alloc_desc_t host_desc;
  std::memset(&host_desc, 0, sizeof(host_desc));
  host_desc.stype = ZE_STRUCTURE_TYPE_HOST_MEM_ALLOC_DESC;
  ze_context_handle_t ctx = context->handle();
  ze_device_handle_t device = context->device().handle();
  void* data = nullptr;
  ze_result_t result = ZE_RESULT_SUCCESS;
  const char* call = "";
  switch (kind) {
    case MemoryKind::kDevice:
      call = "zeMemAllocDevice";
      result = table.zeMemAllocDevice(
          ctx, &device_desc, size, alignment, device, &data);
      break;
    case MemoryKind::kHost:
      call = "zeMemAllocHost";
      result = table.zeMemAllocHost(ctx, &host_desc, size, alignment, &data);
      break;
    case MemoryKind::kShared:
      call = "zeMemAllocShared";
      result = table.zeMemAllocShared(
          ctx, &device_desc, &host_desc, size, alignment, device, &data);
      break;
  }
  if (result != ZE_RESULT_SUCCESS) {
    return zeError(
        call,
        result,
        "allocating " + std::to_string(size) + " bytes on " +
            deviceLabel(context->device()));
  }
  Allocation out;
  out.data_ = {data, detail::MemFree{std::move(context)}};
  out.size_ = size;
  out.kind_ = kind;
  return out;
}

void detail::MemFree::operator()(void* data) const noexcept {
  context->api().zeMemFree(context->handle(), data);
}

PointerInfo queryPointer(const Context& context, const void* ptr) noexcept {
  ze_memory_allocation_properties_t props = {};
  props.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  PointerInfo info;
  info.result = context.api().zeMemGetAllocProperties(
      context.handle(), ptr, &props, &info.device);
  info.type = props.type;
  return info;
}

const char* memoryTypeName(ze_memory_type_t type) noexcept {
  static_assert(ZE_MEMORY_TYPE_UNKNOWN == 0 && ZE_MEMORY_TYPE_SHARED == 3);
  static constexpr const char* kNames[] = {
      "unknown", "host", "device", "shared"};
  return enumName(type, kNames, kNames[0]);
}

} // namespace level_zero
} // namespace xsl
