#pragma once

// SPIR-V modules (ZE_MODULE_FORMAT_IL_SPIRV): the test driver compiles them
// as a real driver does, with IGC, here reached through the ocloc library
// (libocloc.so / ocloc64.dll) in-process. Which library: the one named by
// XSL_TEST_DRIVER_OCLOC (what XSL_OCLOC may hold), else the one the
// project's ocloc discovery finds. The device's IP version selects
// `-device`; the build flags go to IGC unchanged (IGC reads the Level Zero
// spellings such as -ze-opt-large-register-file itself). Flags that contain
// XSL_TEST_DRIVER_REJECT_FLAG fail the build, as a driver refuses an option
// it does not support (IGC itself accepts any). Without an ocloc library
// (the stand-in ze_loader.dll under wine), the driver answers with the
// zebins ocloc made for the same SPIR-V, flags and IP version, listed in
// <XSL_TEST_DRIVER_SPIRV_BUILDS>/spirv_builds.tsv (the zebin corpus); the
// flags are compared without surrounding spaces and without the 128-GRF
// flag, the default GRF mode of the devices listed there. When
// XSL_TEST_DRIVER_COMPILE_CACHE names a folder, each build is kept there
// and later ones with the same IP version, flags and SPIR-V read it, as a
// real driver's compiler cache does (the pytest runs name one per run).

#include <string>
#include <string_view>

#include <level_zero/ze_api.h>

#include "objects.h"

namespace xsl {
namespace test_driver {

struct SpirvBuild {
  ze_result_t result = ZE_RESULT_SUCCESS;
  std::string zebin; // when result is ZE_RESULT_SUCCESS
  std::string log;   // the build log, on success and failure
};

SpirvBuild buildSpirv(
    const DeviceObject& device,
    std::string_view spirv,
    const std::string& build_flags);

} // namespace test_driver
} // namespace xsl
