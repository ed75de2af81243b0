#include "compile/driver_compiler.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <level_zero/ze_api.h>

#include "level_zero/level_zero.h"
#include "level_zero/loader.h"
#include "level_zero/result.h"

namespace xsl {
namespace compile {
namespace {

struct NamedTarget {
  const char* name;
  uint32_t architecture;
  uint32_t release;
};

// ocloc device names and the IP versions (architecture.release) of the GPUs
// they name; a family name lists every member.
constexpr NamedTarget kNamedTargets[] = {
    {"tgllp", 12, 0},    {"rkl", 12, 1},      {"adl-s", 12, 2},
    {"adl-p", 12, 3},    {"adl-n", 12, 4},    {"dg1", 12, 10},
    {"acm-g10", 12, 55}, {"acm-g11", 12, 56}, {"acm-g12", 12, 57},
    {"dg2", 12, 55},     {"dg2", 12, 56},     {"dg2", 12, 57},
    {"pvc", 12, 60},     {"pvc", 12, 61},     {"mtl-u", 12, 70},
    {"mtl-h", 12, 71},   {"mtl", 12, 70},     {"mtl", 12, 71},
    {"arl-h", 12, 74},   {"bmg", 20, 1},      {"lnl", 20, 4},
    {"ptl-h", 30, 0},    {"ptl-u", 30, 1},    {"ptl", 30, 0},
    {"ptl", 30, 1},
};

bool parseNumber(const std::string& text, uint32_t& value) {
  if (text.empty() || text.size() > 10) {
    return false;
  }
  char* end = nullptr;
  const unsigned long parsed = std::strtoul(text.c_str(), &end, 0);
  if (end == nullptr || *end != '\0' || parsed > 0xffffffffUL) {
    return false;
  }
  value = static_cast<uint32_t>(parsed);
  return true;
}

std::string knownNames() {
  std::string names;
  for (const NamedTarget& target : kNamedTargets) {
    if (names.find(std::string(target.name) + ",") == std::string::npos) {
      names += std::string(target.name) + ", ";
    }
  }
  return names.substr(0, names.size() - 2);
}

// Process-wide: one context per driver, never destroyed (the driver may be
// unloading at exit).
Expected<std::shared_ptr<level_zero::Context>> contextFor(
    const level_zero::Device& device) {
  static std::mutex mutex;
  static auto* contexts =
      new std::map<ze_driver_handle_t, std::shared_ptr<level_zero::Context>>();
  std::lock_guard<std::mutex> lock(mutex);
  auto found = contexts->find(device.driver());
  if (found != contexts->end()) {
    return found->second;
  }
  auto context = level_zero::Context::create(device);
  if (!context) {
    return context.error();
  }
  contexts->emplace(device.driver(), *context);
  return context;
}

std::string deviceText(const DriverDevice& device) {
  return "driver " + std::to_string(device.driver_index) + " device " +
      std::to_string(device.device_index) + " '" + device.name + "' (IP " +
      (device.ip_version == 0 ? std::string("not reported")
                              : ipVersionText(device.ip_version)) +
      ")";
}

} // namespace

std::string ipVersionText(uint32_t ip_version) {
  return std::to_string(ip_version >> 22) + "." +
      std::to_string((ip_version >> 14) & 0xffu) + "." +
      std::to_string(ip_version & 0x3fffu);
}

Expected<std::vector<IpTarget>> parseTarget(const std::string& device) {
  std::vector<IpTarget> targets;
  for (const NamedTarget& named : kNamedTargets) {
    if (device == named.name) {
      IpTarget target;
      target.architecture = named.architecture;
      target.release = named.release;
      targets.push_back(target);
    }
  }
  if (!targets.empty()) {
    return targets;
  }
  // "12.60.7" or "12.60".
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t dot = device.find('.', start);
    parts.push_back(device.substr(start, dot - start));
    if (dot == std::string::npos) {
      break;
    }
    start = dot + 1;
  }
  IpTarget target;
  uint32_t value = 0;
  if (parts.size() == 2 || parts.size() == 3) {
    bool ok = parseNumber(parts[0], target.architecture) &&
        parseNumber(parts[1], target.release);
    if (ok && parts.size() == 3) {
      ok = parseNumber(parts[2], target.revision);
      target.has_revision = true;
    }
    if (ok) {
      return std::vector<IpTarget>{target};
    }
  } else if (parts.size() == 1 && parseNumber(device, value) && value > 0) {
    target.architecture = value >> 22;
    target.release = (value >> 14) & 0xffu;
    target.revision = value & 0x3fffu;
    target.has_revision = true;
    return std::vector<IpTarget>{target};
  }
  return Error(
      "target device '" + device +
      "' is not a device name the driver backend knows (" + knownNames() +
      ") or an IP version such as 12.60.7; pass one of those.");
}

bool deviceMatches(
    const DriverDevice& device,
    const std::vector<IpTarget>& targets) {
  if (device.ip_version == 0) {
    return false;
  }
  for (const IpTarget& target : targets) {
    if ((device.ip_version >> 22) == target.architecture &&
        ((device.ip_version >> 14) & 0xffu) == target.release &&
        (!target.has_revision ||
         (device.ip_version & 0x3fffu) == target.revision)) {
      return true;
    }
  }
  return false;
}

Expected<std::unique_ptr<DriverCompiler>> DriverCompiler::open() {
  const std::string loader = level_zero::loaderName();
  auto table = level_zero::api();
  if (!table) {
    return Error(
        "no Level Zero driver to compile with (" + table.error().message() +
        "); install the Intel GPU driver, or ocloc.");
  }
  const level_zero::Api& api = **table;
  uint32_t driver_count = 0;
  ze_result_t result = api.zeDriverGet(&driver_count, nullptr);
  if (result != ZE_RESULT_SUCCESS) {
    return Error(
        "no Level Zero driver to compile with (" +
        level_zero::zeError("zeDriverGet", result).message() +
        "); install the Intel GPU driver, or ocloc.");
  }
  std::vector<DriverDevice> devices;
  std::string others;
  for (uint32_t d = 0; d < driver_count; ++d) {
    auto count = level_zero::Device::count(api, d);
    if (!count) {
      return count.error();
    }
    for (uint32_t i = 0; i < *count; ++i) {
      auto device = level_zero::Device::byIndex(api, i, d);
      if (!device) {
        return device.error();
      }
      ze_device_properties_t props;
      std::memset(&props, 0, sizeof(props));
      props.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
      level_zero::DeviceIpVersionExt ip;
      std::memset(&ip, 0, sizeof(ip));
      ip.stype = level_zero::kDeviceIpVersionExtType;
      props.pNext = &ip;
      result = api.zeDeviceGetProperties(device->handle(), &props);
      if (result != ZE_RESULT_SUCCESS) {
        return level_zero::zeError("zeDeviceGetProperties", result);
      }
      props.name[sizeof(props.name) - 1] = '\0';
      if (props.type != ZE_DEVICE_TYPE_GPU ||
          props.vendorId != level_zero::kIntelVendorId) {
        others += std::string(others.empty() ? "" : ", ") + props.name + " (" +
            level_zero::deviceTypeName(props.type) + ")";
        continue;
      }
      DriverDevice entry;
      entry.driver_index = d;
      entry.device_index = i;
      entry.name = props.name;
      entry.ip_version = ip.ipVersion;
      devices.push_back(entry);
    }
  }
  if (devices.empty()) {
    return Error(
        "no Intel GPU to compile with: Level Zero (" + loader + ") lists " +
        (others.empty() ? std::string("no devices") : others) +
        "; install the Intel GPU driver, or ocloc.");
  }
  return std::unique_ptr<DriverCompiler>(
      new DriverCompiler(loader, std::move(devices)));
}

std::string DriverCompiler::description() const {
  std::string text = "Level Zero driver (" + loader_ + "):";
  for (const DriverDevice& device : devices_) {
    text += " " + deviceText(device) + ";";
  }
  text.pop_back();
  return text;
}

Expected<DriverDevice> DriverCompiler::deviceFor(
    const std::string& target) const {
  auto targets = parseTarget(target);
  if (!targets) {
    return targets.error();
  }
  for (const DriverDevice& device : devices_) {
    if (deviceMatches(device, *targets)) {
      return device;
    }
  }
  std::string present;
  for (const DriverDevice& device : devices_) {
    present += (present.empty() ? "" : ", ") + deviceText(device);
  }
  return Error(
      "no Intel GPU of target '" + target +
      "' for the driver to compile with (present: " + present +
      "); compile for a GPU this machine has, or install ocloc to compile "
      "for others.");
}

Expected<ocloc::CompileResult> DriverCompiler::compile(
    std::string_view spirv,
    const ocloc::CompileOptions& options) {
  ocloc::CompileOptions driver_options = options;
  if (driver_options.large_grf_flag == ocloc::kLargeGrfFlag) {
    driver_options.large_grf_flag = kDriverLargeGrfFlag;
  }
  DriverDevice target;
  std::shared_ptr<level_zero::Context> context;
  ze_device_handle_t device_handle = nullptr;
  if (!options.device.empty()) {
    auto device = deviceFor(options.device);
    if (!device) {
      return device.error();
    }
    target = *device;
    auto table = level_zero::api();
    if (!table) {
      return table.error();
    }
    auto handle = level_zero::Device::byIndex(
        **table, target.device_index, target.driver_index);
    if (!handle) {
      return handle.error();
    }
    auto shared = contextFor(*handle);
    if (!shared) {
      return shared.error();
    }
    context = *shared;
    device_handle = handle->handle();
  }
  return ocloc::compileWithGrfRetry(
      spirv,
      driver_options,
      "the driver",
      [&](const std::string& flags) -> Expected<ocloc::BuildOutcome> {
        level_zero::ModuleBuild built = level_zero::buildModule(
            *context,
            device_handle,
            spirv,
            level_zero::ModuleFormat::kSpirv,
            flags);
        ocloc::BuildOutcome outcome;
        outcome.log = std::move(built.log);
        if (built.result != ZE_RESULT_SUCCESS) {
          outcome.status = level_zero::resultName(built.result);
          outcome.failure = "the driver could not build the SPIR-V (" +
              outcome.status + ": " +
              level_zero::resultDescription(built.result) + ") for target '" +
              options.device + "' on " + deviceText(target) +
              " with build flags '" + flags + "'; build log:\n" +
              (outcome.log.empty() ? std::string("(empty)") : outcome.log);
          // Only a build failure may go away with another GRF mode.
          outcome.final_failure =
              built.result != ZE_RESULT_ERROR_MODULE_BUILD_FAILURE;
          return outcome;
        }
        Expected<std::string> native = level_zero::nativeBinary(
            context->api(),
            built.module,
            "target '" + options.device + "' on " + deviceText(target));
        context->api().zeModuleDestroy(built.module);
        if (!native) {
          return std::move(native).error();
        }
        outcome.binary = std::move(*native);
        outcome.built = !outcome.binary.empty();
        if (!outcome.built) {
          outcome.status = "empty native binary";
          outcome.failure =
              "the driver returned an empty native binary for "
              "target '" +
              options.device + "' on " + deviceText(target) + "; build log:\n" +
              outcome.log;
          outcome.final_failure = true;
        }
        return outcome;
      });
}

} // namespace compile
} // namespace xsl
