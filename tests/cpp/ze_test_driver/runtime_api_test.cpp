// The test driver's entry points beyond the project's own launcher, as a
// runtime such as SYCL's Level Zero adapter uses them: device queries,
// event pools and events, regular command lists executed by a queue, fences,
// and USM copies and fills that move real bytes. Called through the real
// loader (ZE_ENABLE_ALT_DRIVERS), so the loader's dispatch is covered too.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include <level_zero/ze_api.h>

namespace {

class RuntimeApi : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(zeInit(0), ZE_RESULT_SUCCESS);
    uint32_t count = 1;
    ASSERT_EQ(zeDriverGet(&count, &driver_), ZE_RESULT_SUCCESS);
    count = 1;
    ASSERT_EQ(zeDeviceGet(driver_, &count, &device_), ZE_RESULT_SUCCESS);
    ze_context_desc_t context_desc = {
        ZE_STRUCTURE_TYPE_CONTEXT_DESC, nullptr, 0};
    ASSERT_EQ(
        zeContextCreate(driver_, &context_desc, &context_), ZE_RESULT_SUCCESS);
    ze_command_queue_desc_t queue_desc = {};
    queue_desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
    queue_desc.mode = ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS;
    ASSERT_EQ(
        zeCommandListCreateImmediate(
            context_, device_, &queue_desc, &immediate_),
        ZE_RESULT_SUCCESS);
  }
  void TearDown() override {
    if (immediate_ != nullptr) {
      EXPECT_EQ(zeCommandListDestroy(immediate_), ZE_RESULT_SUCCESS);
    }
    if (context_ != nullptr) {
      EXPECT_EQ(zeContextDestroy(context_), ZE_RESULT_SUCCESS);
    }
  }

  // A host-visible pool of `count` events; nullptr when it cannot be made.
  ze_event_pool_handle_t hostVisibleEventPool(uint32_t count) {
    ze_event_pool_desc_t desc = {};
    desc.stype = ZE_STRUCTURE_TYPE_EVENT_POOL_DESC;
    desc.flags = ZE_EVENT_POOL_FLAG_HOST_VISIBLE;
    desc.count = count;
    ze_event_pool_handle_t pool = nullptr;
    EXPECT_EQ(
        zeEventPoolCreate(context_, &desc, 1, &device_, &pool),
        ZE_RESULT_SUCCESS);
    return pool;
  }

  void* allocDevice(size_t size) {
    ze_device_mem_alloc_desc_t desc = {};
    desc.stype = ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC;
    void* ptr = nullptr;
    EXPECT_EQ(
        zeMemAllocDevice(context_, &desc, size, 64, device_, &ptr),
        ZE_RESULT_SUCCESS);
    return ptr;
  }

  // A regular list holding one fill of `size` bytes at `device` with
  // `value`, not closed; nullptr when it cannot be made.
  ze_command_list_handle_t regularFill(
      uint8_t* device,
      const uint8_t& value,
      size_t size) {
    ze_command_list_desc_t desc = {};
    desc.stype = ZE_STRUCTURE_TYPE_COMMAND_LIST_DESC;
    ze_command_list_handle_t list = nullptr;
    EXPECT_EQ(
        zeCommandListCreate(context_, device_, &desc, &list),
        ZE_RESULT_SUCCESS);
    EXPECT_EQ(
        zeCommandListAppendMemoryFill(
            list, device, &value, 1, size, nullptr, 0, nullptr),
        ZE_RESULT_SUCCESS);
    return list;
  }

  ze_driver_handle_t driver_ = nullptr;
  ze_device_handle_t device_ = nullptr;
  ze_context_handle_t context_ = nullptr;
  ze_command_list_handle_t immediate_ = nullptr;
};

// ze_device_ip_version_ext_t (API 1.6; the installed headers may be older).
struct IpVersionExt {
  ze_structure_type_t stype;
  void* pNext;
  uint32_t ipVersion;
};

TEST_F(RuntimeApi, DeviceReportsIpVersionThroughTheExtensionChain) {
  IpVersionExt ip = {static_cast<ze_structure_type_t>(0x1000f), nullptr, 0};
  ze_device_properties_t props = {};
  props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  props.pNext = &ip;
  ASSERT_EQ(zeDeviceGetProperties(device_, &props), ZE_RESULT_SUCCESS);
  EXPECT_EQ(props.vendorId, 0x8086u);
  // pvc is GPU IP 12.60.7: architecture << 22 | release << 14 | revision.
  EXPECT_EQ(ip.ipVersion, (12u << 22) | (60u << 14) | 7u);
}

TEST_F(RuntimeApi, DeviceQueriesDescribeOneComputeEngine) {
  uint32_t groups = 0;
  ASSERT_EQ(
      zeDeviceGetCommandQueueGroupProperties(device_, &groups, nullptr),
      ZE_RESULT_SUCCESS);
  ASSERT_EQ(groups, 1u);
  ze_command_queue_group_properties_t group = {};
  group.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_GROUP_PROPERTIES;
  ASSERT_EQ(
      zeDeviceGetCommandQueueGroupProperties(device_, &groups, &group),
      ZE_RESULT_SUCCESS);
  EXPECT_NE(group.flags & ZE_COMMAND_QUEUE_GROUP_PROPERTY_FLAG_COMPUTE, 0u);
  EXPECT_EQ(group.numQueues, 1u);

  ze_device_module_properties_t module = {};
  module.stype = ZE_STRUCTURE_TYPE_DEVICE_MODULE_PROPERTIES;
  ASSERT_EQ(zeDeviceGetModuleProperties(device_, &module), ZE_RESULT_SUCCESS);
  EXPECT_NE(module.flags & ZE_DEVICE_MODULE_FLAG_FP64, 0u);

  uint32_t subdevices = 5;
  ASSERT_EQ(
      zeDeviceGetSubDevices(device_, &subdevices, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(subdevices, 0u);
}

TEST_F(RuntimeApi, ImmediateCopyAndFillMoveBytes) {
  uint8_t* device = static_cast<uint8_t*>(allocDevice(256));
  ASSERT_NE(device, nullptr);
  const uint32_t pattern = 0xa1b2c3d4u;
  ASSERT_EQ(
      zeCommandListAppendMemoryFill(
          immediate_,
          device,
          &pattern,
          sizeof(pattern),
          256,
          nullptr,
          0,
          nullptr),
      ZE_RESULT_SUCCESS);
  std::vector<uint8_t> host(256, 0);
  ASSERT_EQ(
      zeCommandListAppendMemoryCopy(
          immediate_, host.data(), device, 256, nullptr, 0, nullptr),
      ZE_RESULT_SUCCESS);
  uint32_t word = 0;
  std::memcpy(&word, host.data() + 252, sizeof(word));
  EXPECT_EQ(word, pattern);
  // Past the allocation's end, or a pattern that does not divide the size.
  EXPECT_EQ(
      zeCommandListAppendMemoryCopy(
          immediate_, host.data(), device + 8, 256, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(
      zeCommandListAppendMemoryFill(
          immediate_,
          device,
          &pattern,
          sizeof(pattern),
          6,
          nullptr,
          0,
          nullptr),
      ZE_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(zeMemFree(context_, device), ZE_RESULT_SUCCESS);
}

TEST_F(RuntimeApi, EventsAreSignaledByCommandsAndRefuseMisuse) {
  ze_event_pool_handle_t pool = hostVisibleEventPool(2);
  ASSERT_NE(pool, nullptr);
  ze_event_desc_t event_desc = {};
  event_desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
  event_desc.index = 0;
  ze_event_handle_t done = nullptr;
  ASSERT_EQ(zeEventCreate(pool, &event_desc, &done), ZE_RESULT_SUCCESS);
  ze_event_handle_t twin = nullptr;
  EXPECT_EQ(
      zeEventCreate(pool, &event_desc, &twin),
      ZE_RESULT_ERROR_INVALID_ARGUMENT);
  event_desc.index = 1;
  ze_event_handle_t never = nullptr;
  ASSERT_EQ(zeEventCreate(pool, &event_desc, &never), ZE_RESULT_SUCCESS);

  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);
  ASSERT_EQ(
      zeCommandListAppendBarrier(immediate_, done, 0, nullptr),
      ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventHostSynchronize(done, UINT64_MAX), ZE_RESULT_SUCCESS);
  // Nothing can signal `never` later: waiting on it is refused, and a host
  // wait times out instead of hanging.
  EXPECT_EQ(
      zeCommandListAppendWaitOnEvents(immediate_, 1, &never),
      ZE_RESULT_ERROR_NOT_AVAILABLE);
  EXPECT_EQ(zeEventHostSynchronize(never, 1000), ZE_RESULT_NOT_READY);
  EXPECT_EQ(zeEventHostReset(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);

  EXPECT_EQ(zeEventPoolDestroy(pool), ZE_RESULT_ERROR_HANDLE_OBJECT_IN_USE);
  EXPECT_EQ(zeEventDestroy(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventDestroy(never), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventPoolDestroy(pool), ZE_RESULT_SUCCESS);
}

TEST_F(RuntimeApi, RegularListRunsOnlyWhenAQueueExecutesIt) {
  uint8_t* device = static_cast<uint8_t*>(allocDevice(64));
  ASSERT_NE(device, nullptr);
  const uint8_t seven = 7;
  ze_command_list_handle_t list = regularFill(device, seven, 64);
  ASSERT_NE(list, nullptr);
  EXPECT_EQ(device[10], 0); // recorded, not run
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(
      zeCommandListAppendBarrier(list, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_ARGUMENT); // closed

  ze_command_queue_desc_t queue_desc = {};
  queue_desc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  ze_command_queue_handle_t queue = nullptr;
  ASSERT_EQ(
      zeCommandQueueCreate(context_, device_, &queue_desc, &queue),
      ZE_RESULT_SUCCESS);
  ze_fence_desc_t fence_desc = {ZE_STRUCTURE_TYPE_FENCE_DESC, nullptr, 0};
  ze_fence_handle_t fence = nullptr;
  ASSERT_EQ(zeFenceCreate(queue, &fence_desc, &fence), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceQueryStatus(fence), ZE_RESULT_NOT_READY);
  ASSERT_EQ(
      zeCommandQueueExecuteCommandLists(queue, 1, &list, fence),
      ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeFenceHostSynchronize(fence, UINT64_MAX), ZE_RESULT_SUCCESS);
  EXPECT_EQ(device[10], 7);
  // Immediate lists are not for queues; a second queue index does not exist.
  EXPECT_EQ(
      zeCommandQueueExecuteCommandLists(queue, 1, &immediate_, nullptr),
      ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  queue_desc.index = 1;
  ze_command_queue_handle_t second = nullptr;
  EXPECT_EQ(
      zeCommandQueueCreate(context_, device_, &queue_desc, &second),
      ZE_RESULT_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(zeFenceDestroy(fence), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandQueueDestroy(queue), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemFree(context_, device), ZE_RESULT_SUCCESS);
}

} // namespace

// zeCommandListImmediateAppendCommandListsExp, from the extension
// ZE_experimental_immediate_command_list_append (declared here: the Level
// Zero headers the project may build with predate it). Adapter v2's batched
// queues run their regular lists this way.
using ImmediateAppendCommandLists = ze_result_t(ZE_APICALL*)(
    ze_command_list_handle_t,
    uint32_t,
    ze_command_list_handle_t*,
    ze_event_handle_t,
    uint32_t,
    ze_event_handle_t*);

TEST_F(RuntimeApi, RegularListsRunOnAnImmediateListThroughTheAppendExtension) {
  uint32_t count = 0;
  ASSERT_EQ(
      zeDriverGetExtensionProperties(driver_, &count, nullptr),
      ZE_RESULT_SUCCESS);
  std::vector<ze_driver_extension_properties_t> extensions(count);
  ASSERT_EQ(
      zeDriverGetExtensionProperties(driver_, &count, extensions.data()),
      ZE_RESULT_SUCCESS);
  bool listed = false;
  for (const ze_driver_extension_properties_t& extension : extensions) {
    listed = listed ||
        (std::strcmp(
             extension.name, "ZE_experimental_immediate_command_list_append") ==
             0 &&
         extension.version == ZE_MAKE_VERSION(1, 0));
  }
  EXPECT_TRUE(listed);
  void* address = nullptr;
  ASSERT_EQ(
      zeDriverGetExtensionFunctionAddress(
          driver_, "zeCommandListImmediateAppendCommandListsExp", &address),
      ZE_RESULT_SUCCESS);
  ASSERT_NE(address, nullptr);
  auto append = reinterpret_cast<ImmediateAppendCommandLists>(address);

  uint8_t* device = static_cast<uint8_t*>(allocDevice(64));
  ASSERT_NE(device, nullptr);
  const uint8_t five = 5;
  ze_command_list_handle_t list = regularFill(device, five, 64);
  ASSERT_NE(list, nullptr);
  // Open lists, immediate lists as work, a regular list as the target and
  // null handles are refused, and nothing runs.
  EXPECT_EQ(
      append(immediate_, 1, &list, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  ASSERT_EQ(zeCommandListClose(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(
      append(immediate_, 1, &immediate_, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  EXPECT_EQ(
      append(list, 1, &list, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_COMMAND_LIST_TYPE);
  EXPECT_EQ(
      append(nullptr, 1, &list, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_NULL_HANDLE);
  EXPECT_EQ(
      append(immediate_, 1, nullptr, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(
      append(immediate_, 0, &list, nullptr, 0, nullptr),
      ZE_RESULT_ERROR_INVALID_SIZE);

  ze_event_pool_handle_t pool = hostVisibleEventPool(2);
  ASSERT_NE(pool, nullptr);
  ze_event_desc_t event_desc = {};
  event_desc.stype = ZE_STRUCTURE_TYPE_EVENT_DESC;
  ze_event_handle_t done = nullptr;
  ASSERT_EQ(zeEventCreate(pool, &event_desc, &done), ZE_RESULT_SUCCESS);
  event_desc.index = 1;
  ze_event_handle_t unsignaled = nullptr;
  ASSERT_EQ(zeEventCreate(pool, &event_desc, &unsignaled), ZE_RESULT_SUCCESS);
  // Commands run when appended: a wait on an event nothing signaled cannot
  // be met, so the append is refused before anything runs.
  EXPECT_EQ(
      append(immediate_, 1, &list, done, 1, &unsignaled),
      ZE_RESULT_ERROR_NOT_AVAILABLE);
  EXPECT_EQ(device[10], 0);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_NOT_READY);

  ASSERT_EQ(append(immediate_, 1, &list, done, 0, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(device[10], 5);
  EXPECT_EQ(device[63], 5);
  EXPECT_EQ(zeEventQueryStatus(done), ZE_RESULT_SUCCESS);
  // The list keeps its commands and runs again.
  std::memset(device, 0, 64);
  ASSERT_EQ(
      append(immediate_, 1, &list, nullptr, 0, nullptr), ZE_RESULT_SUCCESS);
  EXPECT_EQ(device[0], 5);

  EXPECT_EQ(zeEventDestroy(unsignaled), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventDestroy(done), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeEventPoolDestroy(pool), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeCommandListDestroy(list), ZE_RESULT_SUCCESS);
  EXPECT_EQ(zeMemFree(context_, device), ZE_RESULT_SUCCESS);
}
