// Windows only: exports the test driver's functions under their ze* names so
// the library can stand in for ze_loader.dll (there is no Windows Level Zero
// loader to load the driver under wine). Tests put it in System32 of the
// wine prefix, which is where LoadLibraryExW(LOAD_LIBRARY_SEARCH_SYSTEM32)
// looks.

#include "driver.h"

#define XSL_STANDIN_EXPORT(name, params, args)      \
  ZE_APIEXPORT ze_result_t ZE_APICALL name params { \
    return xsl::test_driver::impl::name args;       \
  }

extern "C" {
XSL_TEST_DRIVER_FUNCTIONS(XSL_STANDIN_EXPORT)
}
