#pragma once

// Which source file fills which Level Zero DDI table. Tables no file fills
// stay empty: the loader then answers ZE_RESULT_ERROR_UNINITIALIZED for
// their functions, so a missing entry point fails loudly instead of
// pretending to work.

#include <level_zero/ze_ddi.h>

namespace xsl {
namespace test_driver {

// devices.cpp
void fill(ze_global_dditable_t* table);
void fill(ze_driver_dditable_t* table);
void fill(ze_device_dditable_t* table);
// memory.cpp
void fill(ze_context_dditable_t* table);
void fill(ze_mem_dditable_t* table);
// modules.cpp
void fill(ze_module_dditable_t* table);
void fill(ze_module_build_log_dditable_t* table);
void fill(ze_kernel_dditable_t* table);
// commands.cpp
void fill(ze_command_queue_dditable_t* table);
void fill(ze_command_list_dditable_t* table);
void fill(ze_fence_dditable_t* table);
// events.cpp
void fill(ze_event_pool_dditable_t* table);
void fill(ze_event_dditable_t* table);

} // namespace test_driver
} // namespace xsl
