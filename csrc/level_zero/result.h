#pragma once

// ze_result_t as text: every code of the Level Zero headers has its enum name
// and the header's one-line description, and every Level Zero error in csrc/
// carries both.

#include <string_view>

#include <level_zero/ze_api.h>

#include "common/expected.h"

namespace xsl {
namespace level_zero {

// "ZE_RESULT_ERROR_INVALID_NATIVE_BINARY"; "unknown ze_result_t" otherwise.
const char* resultName(ze_result_t result) noexcept;
// "native binary is not supported by the device".
const char* resultDescription(ze_result_t result) noexcept;

// "<context>: <call> failed: <NAME> (<description>)", or without the context
// prefix when it is empty. Unknown codes show their hex value.
Error zeError(
    std::string_view call,
    ze_result_t result,
    std::string_view context = {});

} // namespace level_zero
} // namespace xsl
