#pragma once

// Output of zebin-info: a human-readable listing and a stable JSON schema
// (documented in docs/zebin.md). Kept apart from main.cpp so other options
// (e.g. --load) can reuse the writers.

#include <ostream>
#include <string>
#include <string_view>

#include "zebin/zebin.h"

namespace xsl {
namespace tools {

// `only_kernel` empty means every kernel.
void printZebinText(
    std::ostream& out,
    const std::string& file,
    const zebin::Zebin& zebin,
    std::string_view only_kernel);

// One JSON object on one line:
// {"file","version","kernels":[{...,"args":[...]}],"warnings":[...]}
void printZebinJson(
    std::ostream& out,
    const std::string& file,
    const zebin::Zebin& zebin,
    std::string_view only_kernel);

// JSON string literal (with quotes); invalid UTF-8 becomes U+FFFD.
std::string jsonString(std::string_view text);

} // namespace tools
} // namespace xsl
