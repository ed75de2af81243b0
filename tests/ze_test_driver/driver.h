#pragma once

// The test driver's implementation of the Level Zero calls the project uses.
// driver.cpp fills the loader's DDI tables with these; the stand-in loader
// build (loader_exports.cpp) also exports them under their ze* names, so the
// same code serves as libze_loader.so.1 and ze_loader.dll.

#include <level_zero/ze_api.h>

namespace xsl {
namespace test_driver {

#define XSL_TEST_DRIVER_FUNCTIONS(X)                                       \
  X(zeInit, (ze_init_flags_t flags), (flags))                              \
  X(zeDriverGet,                                                           \
    (uint32_t * pCount, ze_driver_handle_t * phDrivers),                   \
    (pCount, phDrivers))                                                   \
  X(zeDriverGetApiVersion,                                                 \
    (ze_driver_handle_t hDriver, ze_api_version_t * v),                    \
    (hDriver, v))                                                          \
  X(zeDriverGetProperties,                                                 \
    (ze_driver_handle_t hDriver, ze_driver_properties_t * p),              \
    (hDriver, p))                                                          \
  X(zeDeviceGet,                                                           \
    (ze_driver_handle_t hDriver,                                           \
     uint32_t * pCount,                                                    \
     ze_device_handle_t * phDevices),                                      \
    (hDriver, pCount, phDevices))                                          \
  X(zeDeviceGetProperties,                                                 \
    (ze_device_handle_t hDevice, ze_device_properties_t * p),              \
    (hDevice, p))                                                          \
  X(zeDeviceGetComputeProperties,                                          \
    (ze_device_handle_t hDevice, ze_device_compute_properties_t * p),      \
    (hDevice, p))                                                          \
  X(zeContextCreate,                                                       \
    (ze_driver_handle_t hDriver,                                           \
     const ze_context_desc_t* desc,                                        \
     ze_context_handle_t* phContext),                                      \
    (hDriver, desc, phContext))                                            \
  X(zeContextDestroy, (ze_context_handle_t hContext), (hContext))          \
  X(zeModuleCreate,                                                        \
    (ze_context_handle_t hContext,                                         \
     ze_device_handle_t hDevice,                                           \
     const ze_module_desc_t* desc,                                         \
     ze_module_handle_t* phModule,                                         \
     ze_module_build_log_handle_t* phBuildLog),                            \
    (hContext, hDevice, desc, phModule, phBuildLog))                       \
  X(zeModuleDestroy, (ze_module_handle_t hModule), (hModule))              \
  X(zeModuleBuildLogGetString,                                             \
    (ze_module_build_log_handle_t hLog, size_t * pSize, char* pBuildLog),  \
    (hLog, pSize, pBuildLog))                                              \
  X(zeModuleBuildLogDestroy, (ze_module_build_log_handle_t hLog), (hLog))  \
  X(zeModuleGetKernelNames,                                                \
    (ze_module_handle_t hModule, uint32_t * pCount, const char** pNames),  \
    (hModule, pCount, pNames))                                             \
  X(zeModuleGetNativeBinary,                                               \
    (ze_module_handle_t hModule, size_t * pSize, uint8_t * pBinary),       \
    (hModule, pSize, pBinary))                                             \
  X(zeKernelCreate,                                                        \
    (ze_module_handle_t hModule,                                           \
     const ze_kernel_desc_t* desc,                                         \
     ze_kernel_handle_t* phKernel),                                        \
    (hModule, desc, phKernel))                                             \
  X(zeKernelDestroy, (ze_kernel_handle_t hKernel), (hKernel))              \
  X(zeKernelGetProperties,                                                 \
    (ze_kernel_handle_t hKernel, ze_kernel_properties_t * p),              \
    (hKernel, p))                                                          \
  X(zeKernelSetGroupSize,                                                  \
    (ze_kernel_handle_t hKernel, uint32_t x, uint32_t y, uint32_t z),      \
    (hKernel, x, y, z))                                                    \
  X(zeKernelSetArgumentValue,                                              \
    (ze_kernel_handle_t hKernel,                                           \
     uint32_t index,                                                       \
     size_t size,                                                          \
     const void* value),                                                   \
    (hKernel, index, size, value))                                         \
  X(zeCommandListCreateImmediate,                                          \
    (ze_context_handle_t hContext,                                         \
     ze_device_handle_t hDevice,                                           \
     const ze_command_queue_desc_t* desc,                                  \
     ze_command_list_handle_t* phList),                                    \
    (hContext, hDevice, desc, phList))                                     \
  X(zeCommandListDestroy, (ze_command_list_handle_t hList), (hList))       \
  X(zeCommandListAppendLaunchKernel,                                       \
    (ze_command_list_handle_t hList,                                       \
     ze_kernel_handle_t hKernel,                                           \
     const ze_group_count_t* count,                                        \
     ze_event_handle_t hSignal,                                            \
     uint32_t numWait,                                                     \
     ze_event_handle_t* phWait),                                           \
    (hList, hKernel, count, hSignal, numWait, phWait))                     \
  X(zeMemAllocDevice,                                                      \
    (ze_context_handle_t hContext,                                         \
     const ze_device_mem_alloc_desc_t* desc,                               \
     size_t size,                                                          \
     size_t alignment,                                                     \
     ze_device_handle_t hDevice,                                           \
     void** pptr),                                                         \
    (hContext, desc, size, alignment, hDevice, pptr))                      \
  X(zeMemAllocHost,                                                        \
    (ze_context_handle_t hContext,                                         \
     const ze_host_mem_alloc_desc_t* desc,                                 \
     size_t size,                                                          \
     size_t alignment,                                                     \
     void** pptr),                                                         \
    (hContext, desc, size, alignment, pptr))                               \
  X(zeMemAllocShared,                                                      \
    (ze_context_handle_t hContext,                                         \
     const ze_device_mem_alloc_desc_t* ddesc,                              \
     const ze_host_mem_alloc_desc_t* hdesc,                                \
     size_t size,                                                          \
     size_t alignment,                                                     \
     ze_device_handle_t hDevice,                                           \
     void** pptr),                                                         \
    (hContext, ddesc, hdesc, size, alignment, hDevice, pptr))              \
  X(zeMemFree, (ze_context_handle_t hContext, void* ptr), (hContext, ptr)) \
  X(zeMemGetAllocProperties,                                               \
    (ze_context_handle_t hContext,                                         \
     const void* ptr,                                                      \
     ze_memory_allocation_properties_t* p,                                 \
     ze_device_handle_t* phDevice),                                        \
    (hContext, ptr, p, phDevice))

#define XSL_TEST_DRIVER_DECLARE(name, params, args) \
  ze_result_t ZE_APICALL name params;

// The implementations live in namespace impl so that, on Linux, the driver
// library never exports ze* symbols that could shadow the real loader's.
namespace impl {
XSL_TEST_DRIVER_FUNCTIONS(XSL_TEST_DRIVER_DECLARE)
} // namespace impl

#undef XSL_TEST_DRIVER_DECLARE

} // namespace test_driver
} // namespace xsl
