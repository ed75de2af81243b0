// Contexts and memory: every allocation kind is backed by host memory, so
// copies, fills and tests can read and write it directly.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "objects.h"
#include "tables.h"

namespace xsl {
namespace test_driver {

const Allocation* findAllocation(
    DriverState& s,
    const void* ptr,
    uintptr_t* base) {
  const uintptr_t address = reinterpret_cast<uintptr_t>(ptr);
  auto next = s.allocations.upper_bound(address);
  if (next == s.allocations.begin()) {
    return nullptr;
  }
  --next;
  if (address - next->first >= std::max<size_t>(next->second.size, 1)) {
    return nullptr;
  }
  if (base != nullptr) {
    *base = next->first;
  }
  return &next->second;
}

bool isCopyableRange(const void* ptr, size_t size) {
  DriverState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  uintptr_t base = 0;
  const Allocation* allocation = findAllocation(s, ptr, &base);
  if (allocation == nullptr) {
    return true; // plain host memory
  }
  const uintptr_t offset = reinterpret_cast<uintptr_t>(ptr) - base;
  return size <= allocation->size - offset;
}

namespace {

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

ze_result_t ZE_APICALL zeContextCreate(
    ze_driver_handle_t hDriver,
    const ze_context_desc_t* desc,
    ze_context_handle_t* phContext) {
  if (const auto bad =
          nullArgument({as<DriverObject>(hDriver)}, {desc, phContext})) {
    return *bad;
  }
  return create<ContextObject>(phContext, [](ContextObject&) {});
}

ze_result_t ZE_APICALL zeMemAllocDevice(
    ze_context_handle_t hContext,
    const ze_device_mem_alloc_desc_t* desc,
    size_t size,
    size_t alignment,
    ze_device_handle_t hDevice,
    void** pptr) {
  DeviceObject* device = as<DeviceObject>(hDevice);
  if (const auto bad =
          nullArgument({as<ContextObject>(hContext), device}, {desc})) {
    return *bad;
  }
  return allocate(size, alignment, ZE_MEMORY_TYPE_DEVICE, device, pptr);
}

ze_result_t ZE_APICALL zeMemAllocHost(
    ze_context_handle_t hContext,
    const ze_host_mem_alloc_desc_t* desc,
    size_t size,
    size_t alignment,
    void** pptr) {
  if (const auto bad = nullArgument({as<ContextObject>(hContext)}, {desc})) {
    return *bad;
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
  if (const auto bad =
          nullArgument({as<ContextObject>(hContext)}, {ddesc, hdesc})) {
    return *bad;
  }
  DeviceObject* device =
      hDevice == nullptr ? nullptr : as<DeviceObject>(hDevice);
  if (hDevice != nullptr && device == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return allocate(size, alignment, ZE_MEMORY_TYPE_SHARED, device, pptr);
}

ze_result_t ZE_APICALL zeMemFree(ze_context_handle_t hContext, void* ptr) {
  if (const auto bad = nullArgument({as<ContextObject>(hContext)}, {ptr})) {
    return *bad;
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
  if (const auto bad = nullArgument({as<ContextObject>(hContext)}, {ptr, p})) {
    return *bad;
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

ze_result_t ZE_APICALL zeContextMakeMemoryResident(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    void* ptr,
    size_t size) {
  if (const auto bad = nullArgument(
          {as<ContextObject>(hContext), as<DeviceObject>(hDevice)}, {ptr})) {
    return *bad;
  }
  DriverState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  const Allocation* allocation = findAllocation(s, ptr);
  return allocation != nullptr && size <= allocation->size
      ? ZE_RESULT_SUCCESS
      : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

// Memory is freed at once either way: nothing of it can still be in use,
// since every command completed when it was appended.
ze_result_t ZE_APICALL zeMemFreeExt(
    ze_context_handle_t hContext,
    const ze_memory_free_ext_desc_t* desc,
    void* ptr) {
  if (desc == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  const ze_driver_memory_free_policy_ext_flags_t known =
      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_BLOCKING_FREE |
      ZE_DRIVER_MEMORY_FREE_POLICY_EXT_FLAG_DEFER_FREE;
  if ((desc->freePolicy & ~known) != 0) {
    return ZE_RESULT_ERROR_INVALID_ENUMERATION;
  }
  return test_driver::zeMemFree(hContext, ptr);
}

ze_result_t ZE_APICALL zeMemGetAddressRange(
    ze_context_handle_t hContext,
    const void* ptr,
    void** pBase,
    size_t* pSize) {
  if (const auto bad = nullArgument({as<ContextObject>(hContext)}, {ptr})) {
    return *bad;
  }
  DriverState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  uintptr_t base = 0;
  const Allocation* allocation = findAllocation(s, ptr, &base);
  if (allocation == nullptr) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  if (pBase != nullptr) {
    *pBase = reinterpret_cast<void*>(base);
  }
  if (pSize != nullptr) {
    *pSize = allocation->size;
  }
  return ZE_RESULT_SUCCESS;
}

} // namespace

void fill(ze_context_dditable_t* t) {
  t->pfnCreate = zeContextCreate;
  t->pfnDestroy = destroy<ContextObject>;
  t->pfnGetStatus = ready<ContextObject>;
  t->pfnMakeMemoryResident = zeContextMakeMemoryResident;
}

void fill(ze_mem_dditable_t* t) {
  t->pfnAllocDevice = zeMemAllocDevice;
  t->pfnAllocHost = zeMemAllocHost;
  t->pfnAllocShared = zeMemAllocShared;
  t->pfnFree = zeMemFree;
  t->pfnGetAllocProperties = zeMemGetAllocProperties;
  t->pfnGetAddressRange = zeMemGetAddressRange;
  t->pfnFreeExt = zeMemFreeExt;
}

} // namespace test_driver
} // namespace xsl
