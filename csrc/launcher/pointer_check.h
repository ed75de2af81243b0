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
#include "level_zero/level_zero.h"

namespace xsl {
namespace launcher {

// Judges what level_zero::queryPointer answered for argument `index`.
Status checkPointerArgument(
    size_t index,
    uint64_t address,
    const level_zero::PointerInfo& query,
    ze_device_handle_t kernel_device);

} // namespace launcher
} // namespace xsl
