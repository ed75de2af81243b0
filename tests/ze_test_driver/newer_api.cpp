// Entry points newer than the Level Zero headers the driver may be built
// with (Debian 12 ships API 1.4), which the SYCL runtime's adapters call.
// Each is declared here from the Level Zero specification, with the
// argument types it has there; newer_entry_points.txt lists them as
// `implemented`. Exported only by the stand-in loader build.

#include <cstdint>

#include <level_zero/ze_api.h>

#include "objects.h"

namespace xsl {
namespace test_driver {
namespace {

ze_result_t deviceGetRootDevice(
    ze_device_handle_t device,
    ze_device_handle_t* root) {
  if (const auto bad = nullArgument({as<DeviceObject>(device)}, {root})) {
    return *bad;
  }
  *root = nullptr; // every device is a root device: there are no sub-devices
  return ZE_RESULT_SUCCESS;
}

// Commands complete when they are appended, so a list has nothing to wait
// for; a regular list is refused as the spec requires.
ze_result_t commandListHostSynchronize(
    ze_command_list_handle_t list,
    uint64_t /*timeout*/) {
  CommandListObject* object = as<CommandListObject>(list);
  if (object == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return object->immediate ? ZE_RESULT_SUCCESS
                           : ZE_RESULT_ERROR_INVALID_ARGUMENT;
}

// One context per driver for the life of the process, as the spec's
// default context is; zeContextDestroy on it is the caller's error.
ze_context_handle_t driverGetDefaultContext(ze_driver_handle_t driver) {
  if (as<DriverObject>(driver) == nullptr) {
    return nullptr;
  }
  static ContextObject default_context;
  return reinterpret_cast<ze_context_handle_t>(&default_context);
}

} // namespace
} // namespace test_driver
} // namespace xsl

extern "C" {

// API 1.7
ZE_DLLEXPORT ze_result_t ZE_APICALL zeDeviceGetRootDevice(
    ze_device_handle_t hDevice,
    ze_device_handle_t* phRootDevice) {
  return xsl::test_driver::deviceGetRootDevice(hDevice, phRootDevice);
}

// API 1.6
ZE_DLLEXPORT ze_result_t ZE_APICALL zeCommandListHostSynchronize(
    ze_command_list_handle_t hCommandList,
    uint64_t timeout) {
  return xsl::test_driver::commandListHostSynchronize(hCommandList, timeout);
}

// API 1.14; returns the handle itself, not a ze_result_t.
ZE_DLLEXPORT ze_context_handle_t ZE_APICALL
zeDriverGetDefaultContext(ze_driver_handle_t hDriver) {
  return xsl::test_driver::driverGetDefaultContext(hDriver);
}

// Extension ZE_experimental_immediate_command_list_append.
ZE_DLLEXPORT ze_result_t ZE_APICALL zeCommandListImmediateAppendCommandListsExp(
    ze_command_list_handle_t hCommandListImmediate,
    uint32_t numCommandLists,
    ze_command_list_handle_t* phCommandLists,
    ze_event_handle_t hSignalEvent,
    uint32_t numWaitEvents,
    ze_event_handle_t* phWaitEvents) {
  return xsl::test_driver::immediateAppendCommandLists(
      hCommandListImmediate,
      numCommandLists,
      phCommandLists,
      hSignalEvent,
      numWaitEvents,
      phWaitEvents);
}

} // extern "C"
