// Event pools and events. Commands complete when appended (immediate lists)
// or executed (regular lists), so an event is signaled by then; only the
// host can signal an event later.

#include <chrono>
#include <cstdint>
#include <cstring>
#include <thread>

#include "objects.h"
#include "tables.h"

namespace xsl {
namespace test_driver {

ze_result_t checkWaitEvents(uint32_t count, const ze_event_handle_t* events) {
  if (count > 0 && events == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  for (uint32_t i = 0; i < count; ++i) {
    EventObject* event = as<EventObject>(events[i]);
    if (event == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (!event->signaled.load()) {
      // A real GPU would stall until the host signals; this driver runs
      // each command when it is submitted, so it cannot wait.
      return ZE_RESULT_ERROR_NOT_AVAILABLE;
    }
  }
  return ZE_RESULT_SUCCESS;
}

namespace {

ze_result_t ZE_APICALL zeEventPoolCreate(
    ze_context_handle_t hContext,
    const ze_event_pool_desc_t* desc,
    uint32_t numDevices,
    ze_device_handle_t* phDevices,
    ze_event_pool_handle_t* phEventPool) {
  if (as<ContextObject>(hContext) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (desc == nullptr || phEventPool == nullptr ||
      (numDevices > 0 && phDevices == nullptr)) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  for (uint32_t i = 0; i < numDevices; ++i) {
    if (as<DeviceObject>(phDevices[i]) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
  }
  if (desc->count == 0) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  return create<EventPoolObject>(phEventPool, [&](EventPoolObject& pool) {
    pool.count = desc->count;
    pool.flags = desc->flags;
    pool.live.assign(desc->count, nullptr);
  });
}

ze_result_t ZE_APICALL zeEventPoolDestroy(ze_event_pool_handle_t hPool) {
  if (const EventPoolObject* pool = as<EventPoolObject>(hPool)) {
    for (const EventObject* event : pool->live) {
      if (event != nullptr) {
        return ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE;
      }
    }
  }
  return destroy<EventPoolObject>(hPool);
}

ze_result_t ZE_APICALL zeEventCreate(
    ze_event_pool_handle_t hPool,
    const ze_event_desc_t* desc,
    ze_event_handle_t* phEvent) {
  EventPoolObject* pool = as<EventPoolObject>(hPool);
  if (const auto bad = nullArgument({pool}, {desc, phEvent})) {
    return *bad;
  }
  if (desc->index >= pool->count || pool->live[desc->index] != nullptr) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  return create<EventObject>(phEvent, [&](EventObject& event) {
    event.pool = pool;
    event.index = desc->index;
    pool->live[desc->index] = &event;
  });
}

ze_result_t ZE_APICALL zeEventDestroy(ze_event_handle_t hEvent) {
  if (const EventObject* event = as<EventObject>(hEvent)) {
    event->pool->live[event->index] = nullptr;
  }
  return destroy<EventObject>(hEvent);
}

ze_result_t ZE_APICALL
zeEventHostSynchronize(ze_event_handle_t hEvent, uint64_t timeout) {
  EventObject* event = as<EventObject>(hEvent);
  if (event == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  // Only another host thread can still signal it: poll until the timeout.
  const auto start = std::chrono::steady_clock::now();
  while (!event->signaled.load()) {
    const uint64_t waited = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(
            std::chrono::steady_clock::now() - start)
            .count());
    if (waited >= timeout) {
      return ZE_RESULT_NOT_READY;
    }
    std::this_thread::yield();
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeEventQueryKernelTimestamp(
    ze_event_handle_t hEvent,
    ze_kernel_timestamp_result_t* dstptr) {
  EventObject* event = as<EventObject>(hEvent);
  if (const auto bad = nullArgument({event}, {dstptr})) {
    return *bad;
  }
  if (!event->signaled.load()) {
    return ZE_RESULT_NOT_READY;
  }
  std::memset(dstptr, 0, sizeof(*dstptr)); // commands take no device time
  return ZE_RESULT_SUCCESS;
}

} // namespace

void fill(ze_event_pool_dditable_t* t) {
  t->pfnCreate = zeEventPoolCreate;
  t->pfnDestroy = zeEventPoolDestroy;
}

void fill(ze_event_dditable_t* t) {
  t->pfnCreate = zeEventCreate;
  t->pfnDestroy = zeEventDestroy;
  t->pfnHostSignal = setSignaled<EventObject, true>;
  t->pfnHostSynchronize = zeEventHostSynchronize;
  t->pfnQueryStatus = querySignaled<EventObject>;
  t->pfnHostReset = setSignaled<EventObject, false>;
  t->pfnQueryKernelTimestamp = zeEventQueryKernelTimestamp;
}

} // namespace test_driver
} // namespace xsl
