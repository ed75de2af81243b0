#pragma once

// zebin-info --load: loads every kernel of a zebin through Level Zero on one
// device and prints what the driver reports next to the .ze_info values, so a
// user sees whether the driver accepts the binary and whether spill/private
// sizes agree.

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "level_zero/level_zero.h"
#include "tools/zebin_info/report.h"

namespace xsl {
namespace tools {

// Loads `bytes` (read from `report.file`) as a module and each kernel it
// covers, prints the comparison to `report`, and returns true if everything
// loaded and every property agrees.
bool runLoadCheck(
    const Report& report,
    const std::string& bytes,
    const std::shared_ptr<level_zero::Context>& context);

} // namespace tools
} // namespace xsl
