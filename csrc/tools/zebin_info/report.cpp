#include "tools/zebin_info/report.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>

namespace xsl {
namespace tools {
namespace {

bool selected(const zebin::KernelInfo& kernel, std::string_view only_kernel) {
  return only_kernel.empty() || kernel.name == only_kernel;
}

// Length of the valid UTF-8 sequence at text[i], or 0.
size_t utf8SequenceLength(std::string_view text, size_t i) {
  const auto byte = [&](size_t k) {
    return static_cast<unsigned char>(text[k]);
  };
  const unsigned char lead = byte(i);
  size_t length = 0;
  uint32_t min = 0;
  uint32_t code = 0;
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
    code = lead & 0x1fu;
    min = 0x80;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    code = lead & 0x0fu;
    min = 0x800;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    code = lead & 0x07u;
    min = 0x10000;
  } else {
    return 0;
  }
  if (i + length > text.size()) {
    return 0;
  }
  for (size_t k = 1; k < length; ++k) {
    if ((byte(i + k) & 0xc0u) != 0x80u) {
      return 0;
    }
    code = (code << 6) | (byte(i + k) & 0x3fu);
  }
  if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) {
    return 0;
  }
  return length;
}

} // namespace

std::string jsonString(std::string_view text) {
  std::string out = "\"";
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else if (c < 0x80) {
      out += static_cast<char>(c);
    } else {
      const size_t length = utf8SequenceLength(text, i);
      if (length == 0) {
        out += "\\ufffd";
      } else {
        out.append(text.substr(i, length));
        i += length - 1;
      }
    }
  }
  out += '"';
  return out;
}

namespace {

void printText(const Report& report, const zebin::Zebin& zebin) {
  std::ostream& out = report.out;
  const std::string_view only_kernel = report.only_kernel;
  const zebin::ZeInfo& info = zebin.ze_info;
  out << report.file << ": zeinfo " << info.version_text << ", "
      << info.kernels.size()
      << (info.kernels.size() == 1 ? " kernel\n" : " kernels\n");
  for (const zebin::KernelInfo& kernel : info.kernels) {
    if (!selected(kernel, only_kernel)) {
      continue;
    }
    const zebin::ExecutionEnv& env = kernel.execution_env;
    out << "  kernel " << kernel.name << ": simd " << env.simd_size << ", grf "
        << env.grf_count << ", spill " << kernel.spill_bytes << ", private "
        << kernel.private_bytes << ", slm " << env.slm_size << ", barriers "
        << env.barrier_count << ", threads_per_warp " << kernel.threads_per_warp
        << ", args " << kernel.user_arguments.size() << "\n";
    for (const zebin::UserArgument& arg : kernel.user_arguments) {
      out << "    arg " << arg.index << ": "
          << zebin::userArgumentKindName(arg.kind) << ", " << arg.size
          << " bytes";
      if (!arg.name.empty()) {
        out << ", " << arg.name;
      }
      if (!arg.type_name.empty()) {
        out << " (" << arg.type_name << ")";
      }
      out << "\n";
    }
  }
  for (const std::string& warning : info.warnings) {
    out << "  warning: " << warning << "\n";
  }
}

void printJson(const Report& report, const zebin::Zebin& zebin) {
  std::ostream& out = report.out;
  const std::string_view only_kernel = report.only_kernel;
  const zebin::ZeInfo& info = zebin.ze_info;
  out << "{\"file\":" << jsonString(report.file)
      << ",\"version\":" << jsonString(info.version_text) << ",\"kernels\":[";
  bool first_kernel = true;
  for (const zebin::KernelInfo& kernel : info.kernels) {
    if (!selected(kernel, only_kernel)) {
      continue;
    }
    const zebin::ExecutionEnv& env = kernel.execution_env;
    out << (first_kernel ? "" : ",") << "{\"name\":" << jsonString(kernel.name)
        << ",\"simd_size\":" << env.simd_size
        << ",\"grf_count\":" << env.grf_count
        << ",\"spill_size\":" << kernel.spill_bytes
        << ",\"private_size\":" << kernel.private_bytes
        << ",\"slm_size\":" << env.slm_size
        << ",\"barrier_count\":" << env.barrier_count
        << ",\"required_sub_group_size\":" << env.required_sub_group_size
        << ",\"threads_per_warp\":" << kernel.threads_per_warp << ",\"args\":[";
    first_kernel = false;
    bool first_arg = true;
    for (const zebin::UserArgument& arg : kernel.user_arguments) {
      out << (first_arg ? "" : ",") << "{\"index\":" << arg.index
          << ",\"kind\":" << jsonString(zebin::userArgumentKindName(arg.kind))
          << ",\"size\":" << arg.size << ",\"type_size\":" << arg.type_size
          << ",\"name\":" << jsonString(arg.name)
          << ",\"type_name\":" << jsonString(arg.type_name) << "}";
      first_arg = false;
    }
    out << "]}";
  }
  out << "],\"warnings\":[";
  bool first_warning = true;
  for (const std::string& warning : info.warnings) {
    out << (first_warning ? "" : ",") << jsonString(warning);
    first_warning = false;
  }
  out << "]}\n";
}

} // namespace

void printZebin(const Report& report, const zebin::Zebin& zebin) {
  if (report.json) {
    printJson(report, zebin);
  } else {
    printText(report, zebin);
  }
}

} // namespace tools
} // namespace xsl
