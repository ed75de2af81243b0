// Command queues, command lists and fences. Immediate lists run each command
// when it is appended; regular lists keep commands until a queue executes
// them. Launches are recorded, not run; copies and fills move real bytes.

#include <cstdint>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "objects.h"
#include "tables.h"

#if defined(_MSC_VER)
#define XSL_DRIVER_NOINLINE __declspec(noinline)
#else
#define XSL_DRIVER_NOINLINE __attribute__((noinline))
#endif

namespace xsl {
namespace test_driver {

LaunchRecord captureLaunch(
    const KernelObject& kernel,
    const ze_group_count_t& count,
    const void* command_list) {
  LaunchRecord record;
  std::memset(&record.header, 0, sizeof(record.header));
  copyName(
      record.header.kernel_name,
      sizeof(record.header.kernel_name),
      kernel.info->name);
  for (int i = 0; i < 3; ++i) {
    record.header.group_size[i] = kernel.group_size[i];
  }
  record.header.group_count[0] = count.groupCountX;
  record.header.group_count[1] = count.groupCountY;
  record.header.group_count[2] = count.groupCountZ;
  record.header.num_args = static_cast<uint32_t>(kernel.args.size());
  record.header.device_index = kernel.module->device->index;
  record.header.command_list =
      static_cast<uint64_t>(reinterpret_cast<uintptr_t>(command_list));
  record.args = kernel.args;
  return record;
}

void storeLaunch(LaunchRecord&& record) {
  DriverState& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.launches.push_back(std::move(record));
}

namespace {

// Out of line so the no-record launch path stays a few compares.
XSL_DRIVER_NOINLINE void recordNow(
    const KernelObject& kernel,
    const ze_group_count_t& count,
    const void* command_list) {
  storeLaunch(captureLaunch(kernel, count, command_list));
}

// A regular list can run again, so the command stays as it was.
void runCommand(const Command& command) {
  switch (command.kind) {
    case Command::Kind::kLaunch:
      if (state().record_launches) {
        storeLaunch(LaunchRecord(command.launch));
      }
      break;
    case Command::Kind::kCopy:
      std::memmove(command.dst, command.src, command.size);
      break;
    case Command::Kind::kFill: {
      uint8_t* out = static_cast<uint8_t*>(command.dst);
      for (size_t at = 0; at < command.size; at += command.pattern.size()) {
        std::memcpy(out + at, command.pattern.data(), command.pattern.size());
      }
      break;
    }
    case Command::Kind::kReset:
      command.signal->signaled.store(false);
      return; // the event is the target, not a completion signal
    case Command::Kind::kSignal:
    case Command::Kind::kWait:
    case Command::Kind::kBarrier:
      break;
  }
  if (command.signal != nullptr) {
    command.signal->signaled.store(true);
  }
}

// Checks the list and the events of an append, then runs the command
// (immediate list) or keeps it (regular list).
ze_result_t submit(
    CommandListObject* list,
    Command&& command,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  if (list == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (!list->immediate && list->closed) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT; // appending to a closed list
  }
  if (hSignal != nullptr) {
    command.signal = as<EventObject>(hSignal);
    if (command.signal == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
  }
  if (list->immediate) {
    const ze_result_t waits = checkWaitEvents(numWait, phWait);
    if (waits != ZE_RESULT_SUCCESS) {
      return waits;
    }
    runCommand(command);
    return ZE_RESULT_SUCCESS;
  }
  if (numWait > 0 && phWait == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  for (uint32_t i = 0; i < numWait; ++i) {
    if (as<EventObject>(phWait[i]) == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    command.waits.push_back(phWait[i]);
  }
  list->commands.push_back(std::move(command));
  return ZE_RESULT_SUCCESS;
}

// An append of a command that is only its kind (barrier, signal, wait,
// event reset).
ze_result_t appendKind(
    ze_command_list_handle_t hList,
    Command::Kind kind,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  Command command;
  command.kind = kind;
  return submit(
      as<CommandListObject>(hList),
      std::move(command),
      hSignal,
      numWait,
      phWait);
}

// A new list or queue of `hDevice`, on the one queue of its one queue group
// (zeDeviceGetCommandQueueGroupProperties).
template <typename Object, typename Init>
ze_result_t createOnQueue(
    const ze_command_queue_desc_t* desc,
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    typename Object::Handle* out,
    Init init) {
  if (const auto bad = nullArgument(
          {as<ContextObject>(hContext), as<DeviceObject>(hDevice)},
          {desc, out})) {
    return *bad;
  }
  if (desc->ordinal != 0 || desc->index != 0) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  return create<Object>(out, [&](Object& made) {
    made.device = as<DeviceObject>(hDevice);
    init(made);
  });
}

ze_result_t ZE_APICALL zeCommandListCreateImmediate(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    const ze_command_queue_desc_t* desc,
    ze_command_list_handle_t* phList) {
  return createOnQueue<CommandListObject>(
      desc, hContext, hDevice, phList, [&](CommandListObject& list) {
        list.context = as<ContextObject>(hContext);
        list.immediate = true;
      });
}

ze_result_t ZE_APICALL zeCommandListAppendLaunchKernel(
    ze_command_list_handle_t hList,
    ze_kernel_handle_t hKernel,
    const ze_group_count_t* count,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  CommandListObject* list = as<CommandListObject>(hList);
  KernelObject* kernel = as<KernelObject>(hKernel);
  if (const auto bad = nullArgument({list, kernel}, {count})) {
    return *bad;
  }
  if (kernel->module->device != list->device) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  // Stricter than a real driver on purpose: a launch without a group size
  // or with an argument never set is a launcher bug worth failing on.
  if (kernel->group_size[0] == 0) {
    return ZE_RESULT_ERROR_INVALID_GROUP_SIZE_DIMENSION;
  }
  if (kernel->unset_args != 0) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  // The hot path of the launch benchmarks: no events, immediate list.
  if (hSignal == nullptr && numWait == 0 && list->immediate) {
    if (state().record_launches) {
      recordNow(*kernel, *count, list);
    }
    return ZE_RESULT_SUCCESS;
  }
  Command command;
  command.kind = Command::Kind::kLaunch;
  if (state().record_launches) {
    command.launch = captureLaunch(*kernel, *count, list);
  }
  return submit(list, std::move(command), hSignal, numWait, phWait);
}

ze_result_t ZE_APICALL zeCommandListCreate(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    const ze_command_list_desc_t* desc,
    ze_command_list_handle_t* phList) {
  if (const auto bad = nullArgument(
          {as<ContextObject>(hContext), as<DeviceObject>(hDevice)},
          {desc, phList})) {
    return *bad;
  }
  if (desc->commandQueueGroupOrdinal != 0) {
    return ZE_RESULT_ERROR_INVALID_ARGUMENT;
  }
  return create<CommandListObject>(phList, [&](CommandListObject& list) {
    list.device = as<DeviceObject>(hDevice);
    list.context = as<ContextObject>(hContext);
  });
}

ze_result_t ZE_APICALL zeCommandListClose(ze_command_list_handle_t hList) {
  CommandListObject* list = as<CommandListObject>(hList);
  if (list == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (!list->immediate) {
    list->closed = true;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeCommandListReset(ze_command_list_handle_t hList) {
  CommandListObject* list = as<CommandListObject>(hList);
  if (list == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  list->commands.clear();
  list->closed = false;
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeCommandListAppendBarrier(
    ze_command_list_handle_t hList,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  return appendKind(hList, Command::Kind::kBarrier, hSignal, numWait, phWait);
}

ze_result_t ZE_APICALL zeCommandListAppendMemoryRangesBarrier(
    ze_command_list_handle_t hList,
    uint32_t numRanges,
    const size_t* pRangeSizes,
    const void** pRanges,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  if (numRanges > 0 && (pRangeSizes == nullptr || pRanges == nullptr)) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  return test_driver::zeCommandListAppendBarrier(
      hList, hSignal, numWait, phWait);
}

ze_result_t ZE_APICALL zeCommandListAppendMemoryCopy(
    ze_command_list_handle_t hList,
    void* dst,
    const void* src,
    size_t size,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  CommandListObject* list = as<CommandListObject>(hList);
  if (const auto bad = nullArgument({list}, {dst, src})) {
    return *bad;
  }
  if (!isCopyableRange(dst, size) || !isCopyableRange(src, size)) {
    return ZE_RESULT_ERROR_INVALID_SIZE; // runs past an allocation's end
  }
  Command command;
  command.kind = Command::Kind::kCopy;
  command.dst = dst;
  command.src = src;
  command.size = size;
  return submit(list, std::move(command), hSignal, numWait, phWait);
}

ze_result_t ZE_APICALL zeCommandListAppendMemoryFill(
    ze_command_list_handle_t hList,
    void* ptr,
    const void* pattern,
    size_t pattern_size,
    size_t size,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  CommandListObject* list = as<CommandListObject>(hList);
  if (const auto bad = nullArgument({list}, {ptr, pattern})) {
    return *bad;
  }
  // maxMemoryFillPatternSize is 128; sizes must be whole patterns.
  if (pattern_size == 0 || pattern_size > 128 ||
      (pattern_size & (pattern_size - 1)) != 0 || size % pattern_size != 0) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  if (!isCopyableRange(ptr, size)) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  Command command;
  command.kind = Command::Kind::kFill;
  command.dst = ptr;
  command.size = size;
  command.pattern.assign(static_cast<const char*>(pattern), pattern_size);
  return submit(list, std::move(command), hSignal, numWait, phWait);
}

ze_result_t ZE_APICALL zeCommandListAppendMemoryPrefetch(
    ze_command_list_handle_t hList,
    const void* ptr,
    size_t) {
  if (as<CommandListObject>(hList) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return ptr == nullptr ? ZE_RESULT_ERROR_INVALID_NULL_POINTER
                        : ZE_RESULT_SUCCESS; // memory is already host memory
}

ze_result_t ZE_APICALL zeCommandListAppendMemAdvise(
    ze_command_list_handle_t hList,
    ze_device_handle_t hDevice,
    const void* ptr,
    size_t,
    ze_memory_advice_t) {
  if (as<CommandListObject>(hList) == nullptr ||
      as<DeviceObject>(hDevice) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return ptr == nullptr ? ZE_RESULT_ERROR_INVALID_NULL_POINTER
                        : ZE_RESULT_SUCCESS;
}

// zeCommandListAppendSignalEvent and zeCommandListAppendEventReset.
template <Command::Kind kKind>
ze_result_t ZE_APICALL
appendOnEvent(ze_command_list_handle_t hList, ze_event_handle_t hEvent) {
  if (as<EventObject>(hEvent) == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return appendKind(hList, kKind, hEvent, 0, nullptr);
}

ze_result_t ZE_APICALL zeCommandListAppendWaitOnEvents(
    ze_command_list_handle_t hList,
    uint32_t numEvents,
    ze_event_handle_t* phEvents) {
  return appendKind(hList, Command::Kind::kWait, nullptr, numEvents, phEvents);
}

ze_result_t ZE_APICALL zeCommandListAppendWriteGlobalTimestamp(
    ze_command_list_handle_t hList,
    uint64_t* dstptr,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  CommandListObject* list = as<CommandListObject>(hList);
  if (const auto bad = nullArgument({list}, {dstptr})) {
    return *bad;
  }
  static const uint64_t kZero = 0; // commands take no device time
  Command command;
  command.kind = Command::Kind::kCopy;
  command.dst = dstptr;
  command.src = &kZero;
  command.size = sizeof(kZero);
  return submit(list, std::move(command), hSignal, numWait, phWait);
}

ze_result_t ZE_APICALL zeCommandQueueCreate(
    ze_context_handle_t hContext,
    ze_device_handle_t hDevice,
    const ze_command_queue_desc_t* desc,
    ze_command_queue_handle_t* phQueue) {
  return createOnQueue<CommandQueueObject>(
      desc, hContext, hDevice, phQueue, [](CommandQueueObject&) {});
}

// What zeCommandQueueExecuteCommandLists and
// zeCommandListImmediateAppendCommandListsExp both require of their lists:
// closed regular lists of the device that runs them.
ze_result_t checkRegularLists(
    const DeviceObject* device,
    uint32_t numLists,
    ze_command_list_handle_t* phLists) {
  if (numLists == 0) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  if (phLists == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  for (uint32_t i = 0; i < numLists; ++i) {
    const CommandListObject* list = as<CommandListObject>(phLists[i]);
    if (list == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
    if (list->immediate || !list->closed || list->device != device) {
      return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
    }
  }
  return ZE_RESULT_SUCCESS;
}

// Checks the regular lists for `device` and the events to wait for, then
// runs the lists in order; a list can run again, so it keeps its commands.
ze_result_t runRegularLists(
    const DeviceObject* device,
    uint32_t numLists,
    ze_command_list_handle_t* phLists,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  const ze_result_t checked = checkRegularLists(device, numLists, phLists);
  if (checked != ZE_RESULT_SUCCESS) {
    return checked;
  }
  const ze_result_t waited = checkWaitEvents(numWait, phWait);
  if (waited != ZE_RESULT_SUCCESS) {
    return waited;
  }
  for (uint32_t i = 0; i < numLists; ++i) {
    const CommandListObject* list = as<CommandListObject>(phLists[i]);
    for (const Command& command : list->commands) {
      const ze_result_t waits = checkWaitEvents(
          static_cast<uint32_t>(command.waits.size()), command.waits.data());
      if (waits != ZE_RESULT_SUCCESS) {
        return waits;
      }
      runCommand(command);
    }
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeCommandQueueExecuteCommandLists(
    ze_command_queue_handle_t hQueue,
    uint32_t numLists,
    ze_command_list_handle_t* phLists,
    ze_fence_handle_t hFence) {
  CommandQueueObject* queue = as<CommandQueueObject>(hQueue);
  if (queue == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  FenceObject* fence = nullptr;
  if (hFence != nullptr) {
    fence = as<FenceObject>(hFence);
    if (fence == nullptr || fence->queue != queue) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
  }
  const ze_result_t ran =
      runRegularLists(queue->device, numLists, phLists, 0, nullptr);
  if (ran != ZE_RESULT_SUCCESS) {
    return ran;
  }
  if (fence != nullptr) {
    fence->signaled = true;
  }
  return ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL
zeCommandQueueSynchronize(ze_command_queue_handle_t hQueue, uint64_t) {
  return as<CommandQueueObject>(hQueue) == nullptr
      ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE
      : ZE_RESULT_SUCCESS;
}

ze_result_t ZE_APICALL zeFenceCreate(
    ze_command_queue_handle_t hQueue,
    const ze_fence_desc_t* desc,
    ze_fence_handle_t* phFence) {
  CommandQueueObject* queue = as<CommandQueueObject>(hQueue);
  if (const auto bad = nullArgument({queue}, {desc, phFence})) {
    return *bad;
  }
  return create<FenceObject>(phFence, [&](FenceObject& fence) {
    fence.queue = queue;
    fence.signaled = (desc->flags & ZE_FENCE_FLAG_SIGNALED) != 0;
  });
}

ze_result_t ZE_APICALL
zeFenceHostSynchronize(ze_fence_handle_t hFence, uint64_t) {
  // Nothing pending can signal a fence later: it is signaled or never will be.
  return querySignaled<FenceObject>(hFence);
}

} // namespace

ze_result_t ZE_APICALL immediateAppendCommandLists(
    ze_command_list_handle_t hImmediate,
    uint32_t numLists,
    ze_command_list_handle_t* phLists,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait) {
  CommandListObject* immediate = as<CommandListObject>(hImmediate);
  if (immediate == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  if (!immediate->immediate) {
    return ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE;
  }
  EventObject* signal = nullptr;
  if (hSignal != nullptr) {
    signal = as<EventObject>(hSignal);
    if (signal == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
  }
  const ze_result_t ran =
      runRegularLists(immediate->device, numLists, phLists, numWait, phWait);
  if (ran != ZE_RESULT_SUCCESS) {
    return ran;
  }
  if (signal != nullptr) {
    signal->signaled.store(true);
  }
  return ZE_RESULT_SUCCESS;
}

void fill(ze_command_queue_dditable_t* t) {
  t->pfnCreate = zeCommandQueueCreate;
  t->pfnDestroy = destroy<CommandQueueObject>;
  t->pfnExecuteCommandLists = zeCommandQueueExecuteCommandLists;
  t->pfnSynchronize = zeCommandQueueSynchronize;
}

void fill(ze_command_list_dditable_t* t) {
  t->pfnCreate = zeCommandListCreate;
  t->pfnCreateImmediate = zeCommandListCreateImmediate;
  t->pfnDestroy = destroy<CommandListObject>;
  t->pfnClose = zeCommandListClose;
  t->pfnReset = zeCommandListReset;
  t->pfnAppendWriteGlobalTimestamp = zeCommandListAppendWriteGlobalTimestamp;
  t->pfnAppendBarrier = zeCommandListAppendBarrier;
  t->pfnAppendMemoryRangesBarrier = zeCommandListAppendMemoryRangesBarrier;
  t->pfnAppendMemoryCopy = zeCommandListAppendMemoryCopy;
  t->pfnAppendMemoryFill = zeCommandListAppendMemoryFill;
  t->pfnAppendMemoryPrefetch = zeCommandListAppendMemoryPrefetch;
  t->pfnAppendMemAdvise = zeCommandListAppendMemAdvise;
  t->pfnAppendSignalEvent = appendOnEvent<Command::Kind::kSignal>;
  t->pfnAppendWaitOnEvents = zeCommandListAppendWaitOnEvents;
  t->pfnAppendEventReset = appendOnEvent<Command::Kind::kReset>;
  t->pfnAppendLaunchKernel = zeCommandListAppendLaunchKernel;
}

void fill(ze_fence_dditable_t* t) {
  t->pfnCreate = zeFenceCreate;
  t->pfnDestroy = destroy<FenceObject>;
  t->pfnHostSynchronize = zeFenceHostSynchronize;
  t->pfnQueryStatus = querySignaled<FenceObject>;
  t->pfnReset = setSignaled<FenceObject, false>;
}

} // namespace test_driver
} // namespace xsl
