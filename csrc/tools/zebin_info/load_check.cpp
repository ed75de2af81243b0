#include "tools/zebin_info/load_check.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "launcher/kernel_module.h"
#include "tools/zebin_info/report.h"
#include "zebin/zebin.h"

namespace xsl {
namespace tools {
namespace {

struct Comparison {
  const char* property; // ze_kernel_properties_t field
  const char* ze_info;  // where the expected value comes from
  uint64_t expected;
  uint64_t reported;
};

std::vector<Comparison> compare(
    const zebin::KernelInfo& info,
    const level_zero::KernelProperties& props) {
  const zebin::ExecutionEnv& env = info.execution_env;
  return {
      {"numKernelArgs",
       "user arguments",
       info.user_arguments.size(),
       props.num_kernel_args},
      {"spillMemSize", "spill bytes", info.spill_bytes, props.spill_mem_size},
      {"privateMemSize",
       "private bytes",
       info.private_bytes,
       props.private_mem_size},
      {"localMemSize",
       "slm_size",
       static_cast<uint64_t>(env.slm_size),
       props.local_mem_size},
      {"requiredSubgroupSize",
       "required_sub_group_size",
       static_cast<uint64_t>(env.required_sub_group_size),
       props.required_sub_group_size},
      {"maxSubgroupSize",
       "simd_size",
       static_cast<uint64_t>(env.simd_size),
       props.max_sub_group_size},
  };
}

std::string deviceName(const level_zero::Context& context) {
  Expected<level_zero::DeviceProperties> props = context.device().properties();
  return props.ok() ? props->name : std::string("unknown device");
}

} // namespace

bool runLoadCheck(
    const Report& report,
    const std::string& bytes,
    const std::shared_ptr<level_zero::Context>& context) {
  std::ostream& out = report.out;
  const std::string& file = report.file;
  const std::string_view only_kernel = report.only_kernel;
  const bool json = report.json;
  const std::string device = deviceName(*context);
  const uint32_t device_index = context->device().index();
  Expected<std::shared_ptr<const launcher::KernelModule>> module =
      launcher::KernelModule::create(context, bytes, file);
  if (!module) {
    if (json) {
      out << "{\"file\":" << jsonString(file) << ",\"device\":" << device_index
          << ",\"device_name\":" << jsonString(device)
          << ",\"loaded\":false,\"error\":"
          << jsonString(module.error().message()) << "}\n";
    } else {
      out << "  load on device " << device_index << " (" << device
          << "): FAILED\n    " << module.error().message() << "\n";
    }
    return false;
  }
  bool all_agree = true;
  if (json) {
    out << "{\"file\":" << jsonString(file) << ",\"device\":" << device_index
        << ",\"device_name\":" << jsonString(device)
        << ",\"loaded\":true,\"kernels\":[";
  } else {
    out << "  load on device " << device_index << " (" << device << "):\n";
  }
  bool first = true;
  for (const zebin::KernelInfo& info : (*module)->zeInfo().kernels) {
    if (!only_kernel.empty() && info.name != only_kernel) {
      continue;
    }
    Expected<level_zero::Kernel> kernel = (*module)->createKernel(info.name);
    if (json) {
      out << (first ? "" : ",") << "{\"name\":" << jsonString(info.name);
    }
    first = false;
    if (!kernel) {
      all_agree = false;
      if (json) {
        out << ",\"loaded\":false,\"error\":"
            << jsonString(kernel.error().message()) << "}";
      } else {
        out << "    kernel " << info.name
            << ": FAILED: " << kernel.error().message() << "\n";
      }
      continue;
    }
    const std::vector<Comparison> rows = compare(info, kernel->properties());
    bool kernel_agrees = true;
    for (const Comparison& row : rows) {
      kernel_agrees = kernel_agrees && row.expected == row.reported;
    }
    all_agree = all_agree && kernel_agrees;
    if (json) {
      out << ",\"loaded\":true,\"agree\":" << (kernel_agrees ? "true" : "false")
          << ",\"properties\":[";
      for (size_t i = 0; i < rows.size(); ++i) {
        out << (i == 0 ? "" : ",") << "{\"property\":\"" << rows[i].property
            << "\",\"ze_info\":" << rows[i].expected
            << ",\"driver\":" << rows[i].reported << "}";
      }
      out << "]}";
      continue;
    }
    out << "    kernel " << info.name << ": loaded, "
        << (kernel_agrees ? "driver agrees with .ze_info"
                          : "DRIVER DISAGREES with .ze_info")
        << "\n";
    for (const Comparison& row : rows) {
      std::string line = "      " + std::string(row.property);
      line.resize(28, ' ');
      line += "driver " + std::to_string(row.reported);
      line.resize(48, ' ');
      line +=
          ".ze_info " + std::to_string(row.expected) + " (" + row.ze_info + ")";
      if (row.expected != row.reported) {
        line += "  <-- disagree";
      }
      out << line << "\n";
    }
  }
  if (json) {
    out << "]}\n";
  }
  return all_agree;
}

} // namespace tools
} // namespace xsl
