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

// Where one file's report goes, and what it covers.
struct Report {
  std::ostream& out;
  const std::string& file;
  std::string_view only_kernel; // empty: every kernel
  bool json = false;            // one JSON object on one line, else text
};

// The zebin's metadata, as text or as
// {"file","version","kernels":[{...,"args":[...]}],"warnings":[...]}.
void printZebin(const Report& report, const zebin::Zebin& zebin);

// JSON string literal (with quotes); invalid UTF-8 becomes U+FFFD.
std::string jsonString(std::string_view text);

} // namespace tools
} // namespace xsl
