#pragma once

// RAII handles over the Level Zero API and the few calls the launcher needs:
// device by index, context, module from native or SPIR-V bytes, kernel by
// name, kernel and device properties, argument setting, launches on an
// immediate command list, allocations and pointer queries. Knows the driver
// only: what a binary holds (its .ze_info) is the zebin reader's, and the
// launcher (launcher/kernel_module.h) puts the two together.
//
// Ownership: Context <- Module <- Kernel through shared_ptr, so a kernel keeps
// its module and context alive. Every handle keeps a pointer to the Api table
// it was made with (the process-wide api() unless a test passes another).
//
// Hot path: Kernel::setGroupSize, Kernel::setArgumentValue and
// CommandList::appendLaunch take no locks and allocate nothing on success
// (Status success holds no string); an Error is built only on failure.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <level_zero/ze_api.h>

#include "common/expected.h"
#include "level_zero/loader.h"
#include "level_zero/result.h"

namespace xsl {
namespace level_zero {

struct DeviceProperties {
  std::string name;
  ze_device_type_t type = ZE_DEVICE_TYPE_GPU;
  uint32_t vendor_id = 0;
  uint32_t device_id = 0;
  uint32_t max_total_group_size = 0;
  uint32_t max_shared_local_memory = 0;
  std::vector<uint32_t> sub_group_sizes;
  // ZE_extension_device_ip_version (architecture << 22 | release << 14 |
  // revision); 0 when the driver does not report it.
  uint32_t ip_version = 0;
  // zeDriverGetProperties().driverVersion of the device's driver.
  uint32_t driver_version = 0;
};

// ze_device_ip_version_ext_t (Level Zero 1.6), declared here because the
// headers the project builds with may predate it.
constexpr ze_structure_type_t kDeviceIpVersionExtType =
    static_cast<ze_structure_type_t>(0x1000f);
struct DeviceIpVersionExt {
  ze_structure_type_t stype;
  const void* pNext;
  uint32_t ipVersion;
};

// zeKernelGetProperties, in the driver's own units (bytes per thread).
struct KernelProperties {
  uint32_t num_kernel_args = 0;
  uint32_t spill_mem_size = 0;
  uint32_t private_mem_size = 0;
  uint32_t local_mem_size = 0;
  uint32_t required_sub_group_size = 0; // 0: none required
  uint32_t max_sub_group_size = 0;
};

class Device {
 public:
  // Device `device_index` of driver `driver_index`, through api(). Out of
  // range indices say how many drivers/devices exist.
  static Expected<Device> byIndex(
      uint32_t device_index,
      uint32_t driver_index = 0);
  static Expected<Device> byIndex(
      const Api& api,
      uint32_t device_index,
      uint32_t driver_index = 0);
  // Devices of driver `driver_index` (0 if that driver does not exist).
  static Expected<uint32_t> count(const Api& api, uint32_t driver_index = 0);
  // The first driver with a GPU device: torch's XPU devices are the GPUs of
  // the first Level Zero platform that has any, and on Core Ultra machines
  // the loader may list Intel's NPU driver before the GPU driver. 0 when no
  // driver has a GPU (byIndex then says what driver 0 has instead).
  static Expected<uint32_t> gpuDriverIndex(const Api& api);
  // Device `device_index` of that driver, through api(): how torch numbers
  // XPU devices.
  static Expected<Device> gpuByIndex(uint32_t device_index);
  // An existing device handle (e.g. from SYCL's native interop).
  Device(
      const Api& api,
      ze_driver_handle_t driver,
      ze_device_handle_t device,
      uint32_t index)
      : api_(&api), driver_(driver), device_(device), index_(index) {}

  Expected<DeviceProperties> properties() const;
  // What identifies the device's native binaries: ip_version and
  // driver_version of properties(), without its other queries.
  struct Identity {
    uint32_t ip_version = 0;
    uint32_t driver_version = 0;
  };
  Expected<Identity> identity() const;

  const Api& api() const noexcept {
    return *api_;
  }
  ze_driver_handle_t driver() const noexcept {
    return driver_;
  }
  ze_device_handle_t handle() const noexcept {
    return device_;
  }
  uint32_t index() const noexcept {
    return index_;
  }

 private:
  const Api* api_;
  ze_driver_handle_t driver_;
  ze_device_handle_t device_;
  uint32_t index_;
};

constexpr uint32_t kIntelVendorId = 0x8086;

// "GPU", "CPU", "NPU/VPU", ...
const char* deviceTypeName(ze_device_type_t type) noexcept;

// "XPU device <index>", how messages name a device.
std::string deviceLabel(const Device& device);

// Success for an Intel GPU; otherwise why `device` cannot run zebins (an NPU
// or another vendor's device next to the GPU, for example).
Status checkIntelGpu(const Device& device);

class Context {
 public:
  static Expected<std::shared_ptr<Context>> create(const Device& device);
  // Wraps a context made elsewhere (SYCL); destroyed here only if `owned`.
  static std::shared_ptr<Context> wrap(
      const Device& device,
      ze_context_handle_t context,
      bool owned);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
  ~Context();

  const Device& device() const noexcept {
    return device_;
  }
  const Api& api() const noexcept {
    return device_.api();
  }
  ze_context_handle_t handle() const noexcept {
    return context_;
  }

 private:
  Context(const Device& device, ze_context_handle_t context, bool owned)
      : device_(device), context_(context), owned_(owned) {}
  Device device_;
  ze_context_handle_t context_;
  bool owned_;
};

// One context per device index, created on first use through api() and kept
// for the life of the process; thread-safe. The device is
// Device::gpuByIndex(device_index) and must be an Intel GPU (checkIntelGpu).
Expected<std::shared_ptr<Context>> sharedContext(uint32_t device_index);

// Why a device cannot be used, by who has to act.
enum class DeviceProblem {
  kNone,
  kNoLevelZero, // no loader, no driver, or a driver that sees no Intel GPU
  kBadDevice,   // the index does not exist or is not an Intel GPU
};

struct DeviceAccess {
  std::shared_ptr<Context> context; // set when problem is kNone
  DeviceProblem problem = DeviceProblem::kNone;
  std::string message; // one line saying why, when problem is not kNone
};

// sharedContext(device_index), with a failure sorted into DeviceProblem
// (zebin-info's exit codes 3 and 4).
DeviceAccess openDevice(uint32_t device_index);

// What zeModuleCreate is given.
enum class ModuleFormat { kNative, kSpirv };

// One zeModuleCreate of `bytes` in `format` with `flags` for `device` (of the
// context's driver): the module (null unless `result` is success), the result
// and the driver's build log. Module::create and the driver compiler
// (compile/driver_compiler.h) both build through it.
struct ModuleBuild {
  ze_module_handle_t module = nullptr;
  ze_result_t result = ZE_RESULT_SUCCESS;
  std::string log;
};
ModuleBuild buildModule(
    const Context& context,
    ze_device_handle_t device,
    std::string_view bytes,
    ModuleFormat format,
    const std::string& flags);

// The native binary (zebin) the driver made of `module`; `what` names the
// module in an error.
Expected<std::string> nativeBinary(
    const Api& api,
    ze_module_handle_t module,
    const std::string& what);

class Module {
 public:
  // A module of `bytes` in `format` in `context`, built with `build_flags`
  // as they are (as Triton-XPU's loader passes them; for a native binary the
  // driver keeps the GRF mode it was compiled with). A failure names
  // `source_name` (usually the file path) and the device, and carries the
  // driver's build log and, for SPIR-V, the flags. `result`, when not null,
  // receives zeModuleCreate's result, so that a caller who knows the binary
  // can say why the driver refused it (for a native binary refused with
  // ZE_RESULT_ERROR_INVALID_NATIVE_BINARY and no build log, the message
  // leaves that to the caller). The bytes are not kept.
  static Expected<std::shared_ptr<Module>> create(
      std::shared_ptr<Context> context,
      std::string_view bytes,
      ModuleFormat format,
      std::string source_name,
      std::string_view build_flags = {},
      ze_result_t* result = nullptr);
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module();

  const std::string& sourceName() const noexcept {
    return source_name_;
  }
  const Context& context() const noexcept {
    return *context_;
  }
  ze_module_handle_t handle() const noexcept {
    return module_;
  }
  // zeModuleGetNativeBinary: for SPIR-V, the zebin the driver compiled.
  Expected<std::string> nativeBinary() const;
  // zeModuleGetKernelNames: what the driver says the module holds.
  Expected<std::vector<std::string>> driverKernelNames() const;

 private:
  Module() = default;
  std::shared_ptr<Context> context_;
  std::string source_name_;
  ze_module_handle_t module_ = nullptr;
};

namespace detail {

// Deleters that hold what their handle was made in: a std::unique_ptr with
// one destroys its handle before it lets go of the module or context, and
// one that is assigned to destroys its old handle first.
struct KernelDestroy {
  std::shared_ptr<Module> module;
  void operator()(ze_kernel_handle_t kernel) const noexcept;
};
struct CommandListDestroy {
  std::shared_ptr<Context> context;
  void operator()(ze_command_list_handle_t list) const noexcept;
};
struct MemFree {
  std::shared_ptr<Context> context;
  void operator()(void* data) const noexcept;
};

} // namespace detail

class Kernel {
 public:
  // zeKernelCreate of `name` in `module`; reads the driver's kernel
  // properties once.
  static Expected<Kernel> create(
      std::shared_ptr<Module> module,
      std::string_view name);

  const std::string& name() const noexcept {
    return name_;
  }
  // What the driver reports (zeKernelGetProperties).
  const KernelProperties& properties() const noexcept {
    return properties_;
  }
  const Module& module() const noexcept {
    return *kernel_.get_deleter().module;
  }
  ze_kernel_handle_t handle() const noexcept {
    return kernel_.get();
  }

  // Hot path: no locks, no allocation on success.
  Status setGroupSize(uint32_t x, uint32_t y, uint32_t z) const;
  Status setArgumentValue(uint32_t index, size_t size, const void* value) const;

 private:
  Kernel() = default;
  const Api* api_ = nullptr;
  std::string name_;
  KernelProperties properties_;
  std::unique_ptr<
      std::remove_pointer_t<ze_kernel_handle_t>,
      detail::KernelDestroy>
      kernel_;
};

// An immediate command list on the context's device.
class CommandList {
 public:
  // `synchronous`: each append returns once the work is done.
  static Expected<CommandList> createImmediate(
      std::shared_ptr<Context> context,
      bool synchronous = true);
  ze_command_list_handle_t handle() const noexcept {
    return list_.get();
  }
  // Hot path: zeCommandListAppendLaunchKernel with no events.
  Status appendLaunch(const Kernel& kernel, const ze_group_count_t& group_count)
      const;

 private:
  CommandList() = default;
  std::unique_ptr<
      std::remove_pointer_t<ze_command_list_handle_t>,
      detail::CommandListDestroy>
      list_;
};

enum class MemoryKind { kDevice, kHost, kShared };

// zeMemAlloc{Device,Host,Shared} + zeMemFree.
class Allocation {
 public:
  static Expected<Allocation> allocate(
      std::shared_ptr<Context> context,
      MemoryKind kind,
      size_t size,
      size_t alignment = 64);
  void* data() const noexcept {
    return data_.get();
  }
  size_t size() const noexcept {
    return size_;
  }
  MemoryKind kind() const noexcept {
    return kind_;
  }

 private:
  Allocation() = default;
  std::unique_ptr<void, detail::MemFree> data_;
  size_t size_ = 0;
  MemoryKind kind_ = MemoryKind::kDevice;
};

// zeMemGetAllocProperties: what `ptr` is in `context` (UNKNOWN for memory
// Level Zero did not allocate) and which device owns it (null for host). A
// failed query stays in `result`: the launcher's pointer check
// (launcher/pointer_check.h) words it for the argument it judges.
struct PointerInfo {
  ze_result_t result = ZE_RESULT_SUCCESS;
  ze_memory_type_t type = ZE_MEMORY_TYPE_UNKNOWN;
  ze_device_handle_t device = nullptr;
};
PointerInfo queryPointer(const Context& context, const void* ptr) noexcept;

// "device", "host", "shared", "unknown".
const char* memoryTypeName(ze_memory_type_t type) noexcept;

} // namespace level_zero
} // namespace xsl
