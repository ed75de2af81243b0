#pragma once

// Pointer arguments must be memory the kernel's device can reach: a Level
// Zero USM allocation (device, shared or host USM) of the kernel's context;
// a device allocation must belong to the kernel's device. Anything the
// context does not know (plain host memory, a freed or foreign pointer) is
// rejected before the launch instead of faulting on the GPU.

#include <cstddef>
#include <cstdint>

#include <level_zero/ze_api.h>

#include "common/expected.h"

namespace xsl {
namespace launcher {

// What zeMemGetAllocProperties(context, address, &props, &device) answered.
struct PointerQuery {
  ze_result_t result = ZE_RESULT_SUCCESS;
  ze_memory_type_t memory_type = ZE_MEMORY_TYPE_UNKNOWN;
  ze_device_handle_t device = nullptr; // the allocation's, when known
};

// Judges that answer for argument `index`. Pure: the query is made by the
// caller's backend.
Status checkPointerArgument(
    size_t index,
    uint64_t address,
    const PointerQuery& query,
    ze_device_handle_t kernel_device);

} // namespace launcher
} // namespace xsl
