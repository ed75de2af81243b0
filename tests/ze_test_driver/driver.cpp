// The test driver's entry into the loader: the zeGet*ProcAddrTable exports
// the loader calls, and the inspection API tests read launch records with.
// See test_driver.h for the environment the driver reads.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>

#include <level_zero/ze_ddi.h>
#include <level_zero/zes_ddi.h>
#include <level_zero/zet_ddi.h>

#include "objects.h"
#include "tables.h"
#include "test_driver.h"

namespace xsl {
namespace test_driver {

// Tables no source file fills (tables.h) stay empty. Declared beside the
// fill() overloads so overload resolution sees them all.
template <typename Table>
void fill(Table*) {}

namespace {

ze_result_t checkTableVersion(ze_api_version_t version, const void* table) {
  if (table == nullptr) {
    return ZE_RESULT_ERROR_INVALID_NULL_POINTER;
  }
  if (ZE_MAJOR_VERSION(version) != ZE_MAJOR_VERSION(ZE_API_VERSION_CURRENT)) {
    return ZE_RESULT_ERROR_UNSUPPORTED_VERSION;
  }
  return ZE_RESULT_SUCCESS;
}

template <typename Table>
ze_result_t fillTable(ze_api_version_t version, Table* table) {
  const ze_result_t result = checkTableVersion(version, table);
  if (result == ZE_RESULT_SUCCESS) {
    fill(table);
  }
  return result;
}

} // namespace
} // namespace test_driver
} // namespace xsl

// Every zeGet*/zetGet*/zesGet*ProcAddrTable of the installed headers
// (generated at configure time into ddi_tables.inc): the 1.8 loader refuses
// a driver that lacks any of them.
#define XSL_DDI_TABLE(function, table_type)                \
  extern "C" ZE_DLLEXPORT ze_result_t ZE_APICALL function( \
      ze_api_version_t version, table_type* table) {       \
    return xsl::test_driver::fillTable(version, table);    \
  }
#include "ddi_tables.inc"
#undef XSL_DDI_TABLE

// ------------------------------------------------------ Inspection API

extern "C" {

size_t xslTestDriverGetLaunchCount(void) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  return s.launches.size();
}

int xslTestDriverGetLaunchRecord(size_t launch, XslTestLaunchRecord* out) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (out == nullptr || launch >= s.launches.size()) {
    return -1;
  }
  *out = s.launches[launch].header;
  return 0;
}

int xslTestDriverGetLaunchArg(
    size_t launch,
    uint32_t arg,
    XslTestArgRecord* out) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (out == nullptr || launch >= s.launches.size() ||
      arg >= s.launches[launch].args.size()) {
    return -1;
  }
  const xsl::test_driver::ArgState& recorded = s.launches[launch].args[arg];
  out->is_set = recorded.is_set ? 1u : 0u;
  out->is_null = recorded.is_null ? 1u : 0u;
  out->size = recorded.size;
  std::memcpy(out->bytes, recorded.bytes, sizeof(out->bytes));
  return 0;
}

void xslTestDriverClearLaunchRecords(void) {
  xsl::test_driver::DriverState& s = xsl::test_driver::state();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.launches.clear();
}

} // extern "C"
