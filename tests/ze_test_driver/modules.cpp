// Modules from zebins (through the project's zebin reader) or from SPIR-V
// (compiled by spirv_build.cpp, then read the same way), and kernels.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "objects.h"
#include "spirv_build.h"
#include "tables.h"

namespace xsl {
namespace test_driver {
namespace {

ze_result_t ZE_APICALL zeModuleCreate(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    const ze_module_desc_t* desc,
    ze_module_handle_t* phModule,
    ze_module_build_log_handle_t* phBuildLog) {
  DeviceObject* device = as<DeviceObject>(hDevice);
  if (as<ContextObject>(hContext) == nullptr || device == nullptr) {
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
  if (desc->format == ZE_MODULE_FORMAT_IL_SPIRV) {
    SpirvBuild built = buildSpirv(
        *device,
        std::string_view(
            reinterpret_cast<const char*>(desc->pInputModule), desc->inputSize),
        desc->pBuildFlags != nullptr ? desc->pBuildFlags : "");
    log->text = std::move(built.log);
    result = built.result;
    module->bytes = std::move(built.zebin);
  } else if (desc->format != ZE_MODULE_FORMAT_NATIVE) {
    log->text = "xsl test driver: unknown module format " +
        std::to_string(static_cast<int>(desc->format));
    result = ZE_RESULT_ERROR_INVALID_ENUMERATION;
  } else {
    module->bytes.assign(
        reinterpret_cast<const char*>(desc->pInputModule), desc->inputSize);
  }
  if (result == ZE_RESULT_SUCCESS) {
    Expected<zebin::Zebin> parsed = zebin::readZebin(module->bytes);
    if (!parsed) {
      log->text = "xsl test driver: not a zebin: " + parsed.error().message();
      result = ZE_RESULT_ERROR_INVALID_NATIVE_BINARY;
    } else {
      module->zebin = std::move(parsed).value();
      const uint32_t family =
          module->zebin.elf.noteValue(zebin::kNoteProductFamily);
      const uint32_t core = module->zebin.elf.noteValue(zebin::kNoteGfxCore);
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

const std::string& logText(const BuildLogObject& log) {
  return log.text;
}

ze_result_t ZE_APICALL zeModuleGetKernelNames(
    ze_module_handle_t hModule,
    uint32_t* pCount,
    const char** pNames) {
  ModuleObject* module = as<ModuleObject>(hModule);
  if (const auto bad = nullArgument({module}, {pCount})) {
    return *bad;
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
  ModuleObject* module = as<ModuleObject>(hModule);
  if (const auto bad =
          nullArgument({module}, {desc, desc->pKernelName, phKernel})) {
    return *bad;
  }
  const zebin::KernelInfo* info = module->zebin.findKernel(desc->pKernelName);
  if (info == nullptr) {
    return ZE_RESULT_ERROR_INVALID_KERNEL_NAME;
  }
  return create<KernelObject>(phKernel, [&](KernelObject& kernel) {
    kernel.module = module;
    kernel.info = info;
    kernel.args.resize(info->user_arguments.size());
    kernel.unset_args = kernel.args.size();
  });
}

ze_result_t ZE_APICALL
zeKernelGetProperties(ze_kernel_handle_t hKernel, ze_kernel_properties_t* p) {
  KernelObject* kernel = as<KernelObject>(hKernel);
  if (const auto bad = nullArgument({kernel}, {p})) {
    return *bad;
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
  KernelObject* kernel = as<KernelObject>(hKernel);
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
  KernelObject* kernel = as<KernelObject>(hKernel);
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
      // As compute-runtime's setArgImmediate: fewer bytes than the payload
      // fill its start and leave the rest as it was (Triton-XPU's and
      // PyTorch's launchers pass a char's 1 byte for IGC's 4-byte payload).
      // More bytes than the payload are refused as a type mismatch, where
      // compute-runtime would copy the payload's size and drop the rest.
      if (size == 0 || size > arg.size) {
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
  // A by-value argument is recorded as its payload, what the kernel reads.
  slot.size = arg.kind == zebin::UserArgumentKind::kByValue ? arg.size : size;
  if (value != nullptr) {
    std::memcpy(
        slot.bytes,
        value,
        std::min<size_t>(size, XSL_TEST_DRIVER_MAX_ARG_BYTES));
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeModuleGetNativeBinary(
    ze_module_handle_t hModule,
    size_t* pSize,
    uint8_t* pModuleNativeBinary) {
  ModuleObject* module = as<ModuleObject>(hModule);
  if (const auto bad = nullArgument({module}, {pSize})) {
    return *bad;
  }
  if (pModuleNativeBinary == nullptr) {
    *pSize = module->bytes.size();
    return ZE_RESULT_SUCCESS;
  }
  if (*pSize < module->bytes.size()) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  std::memcpy(pModuleNativeBinary, module->bytes.data(), module->bytes.size());
  *pSize = module->bytes.size();
  return ZE_RESULT_SUCCESS;
}

void moduleProperties(const ModuleObject&, ze_module_properties_t* p) {
  p->flags = 0; // no unresolved imports
}

ze_result_t ZE_APICALL zeModuleGetGlobalPointer(
    ze_module_handle_t hModule,
    const char* pGlobalName,
    size_t*,
    void**) {
  if (const auto bad =
          nullArgument({as<ModuleObject>(hModule)}, {pGlobalName})) {
    return *bad;
  }
  return ZE_RESULT_ERROR_INVALID_GLOBAL_NAME; // zebins here export none
}

ze_result_t ZE_APICALL zeModuleDynamicLink(
    uint32_t numModules,
    ze_module_handle_t* phModules,
    ze_module_build_log_handle_t* phLinkLog) {
  if (numModules > 0 && phModules == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  for (uint32_t i = 0; i < numModules; ++i) {
    if (as<ModuleObject>(phModules[i]) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
  }
  if (phLinkLog != nullptr) {
    *phLinkLog = reinterpret_cast<ze_module_build_log_handle_t>(
        new BuildLogObject()); // nothing to link: modules have no imports
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeKernelSuggestGroupSize(
    ze_kernel_handle_t hKernel,
    uint32_t globalSizeX,
    uint32_t globalSizeY,
    uint32_t globalSizeZ,
    uint32_t* groupSizeX,
    uint32_t* groupSizeY,
    uint32_t* groupSizeZ) {
  KernelObject* kernel = as<KernelObject>(hKernel);
  if (const auto bad =
          nullArgument({kernel}, {groupSizeX, groupSizeY, groupSizeZ})) {
    return *bad;
  }
  // The largest power of two <= 256 per dimension that divides the global
  // size, within the total limit: what a driver's simple heuristic gives.
  const uint32_t global[3] = {globalSizeX, globalSizeY, globalSizeZ};
  uint32_t group[3] = {1, 1, 1};
  uint32_t total = 1;
  for (int d = 0; d < 3; ++d) {
    if (global[d] == 0) {
      return ZE_RESULT_ERROR_INVALID_GLOBAL_WIDTH_DIMENSION;
    }
    while (group[d] < 256 && global[d] % (group[d] * 2) == 0 &&
           total * 2 <= kMaxTotalGroupSize / 4) {
      group[d] *= 2;
      total *= 2;
    }
  }
  *groupSizeX = group[0];
  *groupSizeY = group[1];
  *groupSizeZ = group[2];
  return ZE_RESULT_SUCCESS;
}

void maxCooperativeGroupCount(const KernelObject&, uint32_t* count) {
  *count = 64;
}

void indirectAccess(const KernelObject&, ze_kernel_indirect_access_flags_t* f) {
  *f = 0;
}

// The kernel settings that change nothing here: only unknown flags are
// refused.
template <typename Flags, Flags kKnown>
ze_result_t ZE_APICALL setFlags(ze_kernel_handle_t hKernel, Flags flags) {
  if (as<KernelObject>(hKernel) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return (flags & ~kKnown) != 0 ? ZE_RESULT_ERROR_INVALID_ENUMERATION
                                : ZE_RESULT_SUCCESS;
}

const std::string& kernelName(const KernelObject& kernel) {
  return kernel.info->name;
}

ze_result_t ZE_APICALL zeKernelGetSourceAttributes(
    ze_kernel_handle_t hKernel,
    uint32_t* pSize,
    char** pString) {
  if (const auto bad = nullArgument({as<KernelObject>(hKernel)}, {pSize})) {
    return *bad;
  }
  // No attributes: the empty string.
  static char empty[1] = {'\0'};
  if (pString == nullptr) {
    *pSize = 1;
    return ZE_RESULT_SUCCESS;
  }
  *pString = empty;
  return ZE_RESULT_SUCCESS;
}

} // namespace

void fill(ze_module_dditable_t* t) {
  t->pfnCreate = zeModuleCreate;
  t->pfnDestroy = destroy<ModuleObject>;
  t->pfnDynamicLink = zeModuleDynamicLink;
  t->pfnGetNativeBinary = zeModuleGetNativeBinary;
  t->pfnGetGlobalPointer = zeModuleGetGlobalPointer;
  t->pfnGetKernelNames = zeModuleGetKernelNames;
  t->pfnGetProperties =
      query<ModuleObject, ze_module_properties_t, moduleProperties>;
}

void fill(ze_module_build_log_dditable_t* t) {
  t->pfnDestroy = destroy<BuildLogObject>;
  t->pfnGetString = stringQuery<BuildLogObject, logText>;
}

void fill(ze_kernel_dditable_t* t) {
  t->pfnCreate = zeKernelCreate;
  t->pfnDestroy = destroy<KernelObject>;
  t->pfnSetCacheConfig = setFlags<
      ze_cache_config_flags_t,
      ZE_CACHE_CONFIG_FLAG_LARGE_SLM | ZE_CACHE_CONFIG_FLAG_LARGE_DATA>;
  t->pfnSetGroupSize = zeKernelSetGroupSize;
  t->pfnSuggestGroupSize = zeKernelSuggestGroupSize;
  t->pfnSuggestMaxCooperativeGroupCount =
      query<KernelObject, uint32_t, maxCooperativeGroupCount>;
  t->pfnSetArgumentValue = zeKernelSetArgumentValue;
  t->pfnSetIndirectAccess = setFlags<
      ze_kernel_indirect_access_flags_t,
      ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST |
          ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
          ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED>;
  t->pfnGetIndirectAccess =
      query<KernelObject, ze_kernel_indirect_access_flags_t, indirectAccess>;
  t->pfnGetSourceAttributes = zeKernelGetSourceAttributes;
  t->pfnGetProperties = zeKernelGetProperties;
  t->pfnGetName = stringQuery<KernelObject, kernelName>;
}

} // namespace test_driver
} // namespace xsl
