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

namespace xsl {
namespace tools {

// Loads `bytes` (read from `file`) as a module and each kernel (or only
// `only_kernel`), prints the comparison as text or as one JSON line, and
// returns true if everything loaded and every property agrees.
bool runLoadCheck(
    std::ostream& out,
    const std::string& file,
    const std::string& bytes,
    const std::shared_ptr<level_zero::Context>& context,
    std::string_view only_kernel,
    bool json);

} // namespace tools
} // namespace xsl
