#pragma once

// The test driver's objects and shared state (internal to the driver). Each
// source file implements one group of Level Zero entry points over these and
// fills the DDI tables of its group (tables.h).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <level_zero/ze_api.h>

#include "test_driver.h"
#include "zebin/zebin.h"

namespace xsl {
namespace test_driver {

// Every object starts with a tag, so a handle of the wrong kind (or a stale
// one, whose tag is cleared on destruction) is refused instead of used.
enum class Tag : uint32_t {
  kDead = 0,
  kDriver = 0x44525652,
  kDevice = 0x44455643,
  kContext = 0x43545854,
  kModule = 0x4d4f4455,
  kBuildLog = 0x424c4f47,
  kKernel = 0x4b524e4c,
  kCommandList = 0x434d444c,
  kCommandQueue = 0x434d4451,
  kEventPool = 0x45565050,
  kEvent = 0x45564e54,
  kFence = 0x46454e43,
};

// The base of every object: its tag, and the handle type it is reached by.
template <Tag kKind, typename HandleType>
struct Tagged {
  using Handle = HandleType;
  static constexpr Tag kTag = kKind;
  Tag tag = kKind;
};

struct DriverObject : Tagged<Tag::kDriver, ze_driver_handle_t> {};

struct DeviceObject : Tagged<Tag::kDevice, ze_device_handle_t> {
  uint32_t index = 0;
  std::string name;
  uint32_t product_family = 0;
  uint32_t gfx_core = 0;
  uint32_t device_id = 0;
  uint32_t ip_version = 0;
  uint32_t vendor_id = 0x8086;
  ze_device_type_t type = ZE_DEVICE_TYPE_GPU;
  uint32_t max_shared_local_memory = 0;
  std::vector<uint32_t> sub_group_sizes;
};

struct ContextObject : Tagged<Tag::kContext, ze_context_handle_t> {};

struct ModuleObject : Tagged<Tag::kModule, ze_module_handle_t> {
  DeviceObject* device = nullptr;
  std::string bytes; // zebin views point into it
  zebin::Zebin zebin;
};

struct BuildLogObject : Tagged<Tag::kBuildLog, ze_module_build_log_handle_t> {
  std::string text;
};

struct ArgState {
  bool is_set = false;
  bool is_null = false;
  uint64_t size = 0;
  uint8_t bytes[XSL_TEST_DRIVER_MAX_ARG_BYTES] = {};
};

struct KernelObject : Tagged<Tag::kKernel, ze_kernel_handle_t> {
  ModuleObject* module = nullptr;
  const zebin::KernelInfo* info = nullptr;
  uint32_t group_size[3] = {0, 0, 0};
  std::vector<ArgState> args;
  // Arguments never set, so a launch checks "all set" in O(1).
  size_t unset_args = 0;
};

struct EventPoolObject;

struct EventObject : Tagged<Tag::kEvent, ze_event_handle_t> {
  EventPoolObject* pool = nullptr;
  uint32_t index = 0;
  std::atomic<bool> signaled{false};
};

struct EventPoolObject : Tagged<Tag::kEventPool, ze_event_pool_handle_t> {
  uint32_t count = 0;
  ze_event_pool_flags_t flags = 0;
  std::vector<EventObject*> live; // by index; null where none exists
};

struct LaunchRecord {
  XslTestLaunchRecord header;
  std::vector<ArgState> args;
};

// A command of a regular (non-immediate) list, run at execute time. Launches
// are captured when appended, as a real driver captures the arguments then.
struct Command {
  enum class Kind { kLaunch, kCopy, kFill, kSignal, kReset, kWait, kBarrier };
  Kind kind = Kind::kBarrier;
  LaunchRecord launch;
  void* dst = nullptr;
  const void* src = nullptr;
  size_t size = 0;
  std::string pattern;
  EventObject* signal = nullptr;
  std::vector<ze_event_handle_t> waits;
};

struct CommandListObject : Tagged<Tag::kCommandList, ze_command_list_handle_t> {
  DeviceObject* device = nullptr;
  ContextObject* context = nullptr;
  bool immediate = false;
  bool closed = false;
  uint32_t ordinal = 0;
  std::vector<Command> commands; // regular lists only
};

struct CommandQueueObject
    : Tagged<Tag::kCommandQueue, ze_command_queue_handle_t> {
  DeviceObject* device = nullptr;
  uint32_t ordinal = 0;
};

struct FenceObject : Tagged<Tag::kFence, ze_fence_handle_t> {
  CommandQueueObject* queue = nullptr;
  bool signaled = false;
};

struct Allocation {
  size_t size = 0;
  ze_memory_type_t type = ZE_MEMORY_TYPE_UNKNOWN;
  DeviceObject* device = nullptr;
  void* block = nullptr; // what operator new returned
  uint64_t id = 0;
};

constexpr uint32_t kMaxDevices = 8;
constexpr uint32_t kMaxTotalGroupSize = 1024;

struct DriverState {
  std::once_flag init_once;
  DriverObject driver;
  std::vector<std::unique_ptr<DeviceObject>> devices;
  bool record_launches = true;

  std::mutex mutex;                            // guards everything below
  std::map<uintptr_t, Allocation> allocations; // by base address
  uint64_t next_allocation_id = 1;
  std::vector<LaunchRecord> launches;
};

DriverState& state();
// Reads the device configuration from the environment, once.
void initializeOnce();

// The object behind `handle`, or nullptr for a null handle, one of another
// kind, or one destroyed.
template <typename Object>
Object* as(typename Object::Handle handle) {
  Object* object = reinterpret_cast<Object*>(handle);
  if (object == nullptr || object->tag != Object::kTag) {
    return nullptr;
  }
  return object;
}

// The end of every zeXxxCreate: a new Object, filled by `init`, handed out
// as `*handle`. Out of host memory is the one failure.
template <typename Object, typename Init>
ze_result_t create(typename Object::Handle* handle, Init init) {
  Object* object = new (std::nothrow) Object();
  if (object == nullptr) {
    return ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY;
  }
  init(*object);
  *handle = reinterpret_cast<typename Object::Handle>(object);
  return ZE_RESULT_SUCCESS;
}

// zeXxxDestroy of an object that owns nothing else.
template <typename Object>
ze_result_t ZE_APICALL destroy(typename Object::Handle handle) {
  Object* object = as<Object>(handle);
  if (object == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  object->tag = Tag::kDead;
  delete object;
  return ZE_RESULT_SUCCESS;
}

// zeXxxGetStatus of an object that is always ready.
template <typename Object>
ze_result_t ZE_APICALL ready(typename Object::Handle handle) {
  return as<Object>(handle) == nullptr ? ZE_RESULT_ERROR_INVALID_NULL_HANDLE
                                       : ZE_RESULT_SUCCESS;
}

// The host's signal, reset and query of events and fences.
template <typename Object, bool kSignaled>
ze_result_t ZE_APICALL setSignaled(typename Object::Handle handle) {
  Object* object = as<Object>(handle);
  if (object == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  object->signaled = kSignaled;
  return ZE_RESULT_SUCCESS;
}

template <typename Object>
ze_result_t ZE_APICALL querySignaled(typename Object::Handle handle) {
  const Object* object = as<Object>(handle);
  if (object == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
  }
  return object->signaled ? ZE_RESULT_SUCCESS : ZE_RESULT_NOT_READY;
}

// What Level Zero answers a call with a null argument: INVALID_NULL_HANDLE
// when a handle is not a live object of its kind (`handles`, the as*()
// results), else INVALID_NULL_POINTER when a required pointer is null;
// nullopt when none is.
inline std::optional<ze_result_t> nullArgument(
    std::initializer_list<const void*> handles,
    std::initializer_list<const void*> pointers) {
  for (const void* handle : handles) {
    if (handle == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_HANDLE;
    }
  }
  for (const void* pointer : pointers) {
    if (pointer == nullptr) {
      return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
    }
  }
  return std::nullopt;
}

// The queries that take one object and fill one output: the handle and
// pointer checks are the same for all of them.
template <typename Object, typename Out, void (*Fill)(const Object&, Out*)>
ze_result_t ZE_APICALL query(typename Object::Handle handle, Out* out) {
  const Object* object = as<Object>(handle);
  if (const auto bad = nullArgument({object}, {out})) {
    return *bad;
  }
  Fill(*object, out);
  return ZE_RESULT_SUCCESS;
}

// Writes `name` into a fixed-size, NUL-terminated field.
void copyName(char* out, size_t capacity, const std::string& name);

// The string queries: a null `out` asks for the size, NUL included; else the
// text is copied, cut to fit `*size`.
template <typename Object, const std::string& (*Text)(const Object&)>
ze_result_t ZE_APICALL
stringQuery(typename Object::Handle handle, size_t* size, char* out) {
  const Object* object = as<Object>(handle);
  if (const auto bad = nullArgument({object}, {size})) {
    return *bad;
  }
  const std::string& text = Text(*object);
  if (out == nullptr) {
    *size = text.size() + 1;
    return ZE_RESULT_SUCCESS;
  }
  if (*size == 0) {
    return ZE_RESULT_ERROR_INVALID_SIZE;
  }
  copyName(out, *size, text);
  return ZE_RESULT_SUCCESS;
}

// The allocation that contains [ptr, ptr + 1), if any, and its base address.
// Caller holds the mutex.
const Allocation* findAllocation(
    DriverState& s,
    const void* ptr,
    uintptr_t* base = nullptr);

// True when [ptr, ptr + size) lies inside one allocation, or is host memory
// this driver does not know (USM allows plain host pointers for copies).
bool isCopyableRange(const void* ptr, size_t size);

// Snapshot of a kernel's launch, taken when the launch is appended.
LaunchRecord captureLaunch(
    const KernelObject& kernel,
    const ze_group_count_t& count,
    const void* command_list);
void storeLaunch(LaunchRecord&& record);

// zeCommandListImmediateAppendCommandListsExp (extension
// ZE_experimental_immediate_command_list_append, newer than the headers the
// driver may be built with): runs closed regular lists on an immediate list,
// after its wait events, then signals. Adapter v2's batched queues submit
// this way. Reached through zeDriverGetExtensionFunctionAddress and the
// stand-in loader's export.
ze_result_t ZE_APICALL immediateAppendCommandLists(
    ze_command_list_handle_t hImmediate,
    uint32_t numLists,
    ze_command_list_handle_t* phLists,
    ze_event_handle_t hSignal,
    uint32_t numWait,
    ze_event_handle_t* phWait);

// The one place that validates event lists of an append: every wait event
// must already be signaled (commands run synchronously, so nothing could
// signal it later).
ze_result_t checkWaitEvents(uint32_t count, const ze_event_handle_t* events);

} // namespace test_driver
} // namespace xsl
