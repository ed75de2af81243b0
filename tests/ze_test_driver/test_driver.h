/* Inspection API of the Level Zero test driver (tests only, never installed).
 *
 * The driver records every zeCommandListAppendLaunchKernel: kernel name,
 * group size, group count and the bytes of every argument set at that time.
 * Tests read the records through these C functions, exported from the driver
 * library (libxsl_ze_test_driver.so, or the stand-in ze_loader.dll on
 * Windows); test_driver_client.h finds them.
 *
 * Environment read by the driver when the loader initialises it:
 *   XSL_TEST_DRIVER_DEVICES         number of devices (default 1, max 8)
 *   XSL_TEST_DRIVER_DEVICE_NAME     device name (default "XSL test device")
 *   XSL_TEST_DRIVER_PRODUCT         product per device, comma-separated (the
 *                                   last repeats): pvc (default), dg2,
 *                                   acm-g10, tgllp, or a decimal
 *                                   PRODUCT_FAMILY value; zebins whose
 *                                   .note.intelgt.compat product family
 *                                   differs are rejected with
 *                                   ZE_RESULT_ERROR_INVALID_NATIVE_BINARY
 *   XSL_TEST_DRIVER_IP_VERSION      GPU IP version per device (default: the
 *                                   product's, e.g. pvc 12.60.7); SYCL's
 *                                   Level Zero adapter picks its v2 for
 *                                   0x05004000 (Xe2) and newer
 *   XSL_TEST_DRIVER_GFX_CORE        decimal GFX core per device (0 = any)
 *   XSL_TEST_DRIVER_DEVICE_TYPE     gpu (default), cpu, fpga, mca or vpu
 *   XSL_TEST_DRIVER_VENDOR          PCI vendor id (default 0x8086, Intel)
 *   XSL_TEST_DRIVER_NO_RECORD=1     keep no launch records (benchmarks)
 */
#ifndef XSL_ZE_TEST_DRIVER_H
#define XSL_ZE_TEST_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#ifdef _WIN32
#define XSL_TEST_DRIVER_EXPORT __declspec(dllexport)
#else
#define XSL_TEST_DRIVER_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define XSL_TEST_DRIVER_MAX_ARG_BYTES 64

typedef struct XslTestLaunchRecord {
  char kernel_name[128];
  uint32_t group_size[3];
  uint32_t group_count[3];
  uint32_t num_args;     /* numKernelArgs of the kernel */
  uint32_t device_index; /* the device the kernel's module was built for */
  uint64_t command_list; /* the list the launch was appended to */
} XslTestLaunchRecord;

typedef struct XslTestArgRecord {
  uint32_t is_set;  /* zeKernelSetArgumentValue was called for it */
  uint32_t is_null; /* value pointer was null (local memory arguments) */
  uint64_t size;    /* size passed to zeKernelSetArgumentValue */
  /* first min(size, XSL_TEST_DRIVER_MAX_ARG_BYTES) bytes of the value */
  uint8_t bytes[XSL_TEST_DRIVER_MAX_ARG_BYTES];
} XslTestArgRecord;

/* Function types, for GetProcAddress/dlsym. */
typedef size_t (*XslTestDriverGetLaunchCountFn)(void);
typedef int (*XslTestDriverGetLaunchRecordFn)(size_t, XslTestLaunchRecord*);
typedef int (*XslTestDriverGetLaunchArgFn)(size_t, uint32_t, XslTestArgRecord*);
typedef void (*XslTestDriverClearLaunchRecordsFn)(void);

/* Launches recorded since start or the last clear. */
XSL_TEST_DRIVER_EXPORT size_t xslTestDriverGetLaunchCount(void);
/* 0 on success, -1 if `launch` is out of range or `out` is null. */
XSL_TEST_DRIVER_EXPORT int xslTestDriverGetLaunchRecord(
    size_t launch,
    XslTestLaunchRecord* out);
/* 0 on success, -1 if `launch` or `arg` is out of range or `out` is null. */
XSL_TEST_DRIVER_EXPORT int xslTestDriverGetLaunchArg(
    size_t launch,
    uint32_t arg,
    XslTestArgRecord* out);
XSL_TEST_DRIVER_EXPORT void xslTestDriverClearLaunchRecords(void);

#ifdef __cplusplus
}
#endif

#endif /* XSL_ZE_TEST_DRIVER_H */
