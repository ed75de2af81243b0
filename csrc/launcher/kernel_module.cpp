#include "launcher/kernel_module.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

namespace xsl {
namespace launcher {
namespace {

// Why the driver refused a native binary: it was built for another GPU.
std::string anotherArchitecture(
    const level_zero::Device& device,
    const zebin::Zebin& bin) {
  const uint32_t family = bin.elf.noteValue(zebin::kNoteProductFamily);
  std::string target = family != 0 ? "product family " +
          std::to_string(family) + " in its .note.intelgt.compat"
                                   : "no product family note";
  Expected<level_zero::DeviceProperties> props = device.properties();
  std::string here = level_zero::deviceLabel(device);
  if (props) {
    char id[16];
    std::snprintf(id, sizeof(id), "0x%04x", props->device_id);
    here += " ('" + props->name + "', PCI device id " + id + ")";
  }
  return "the zebin is for another GPU architecture (" + target + ") than " +
      here + ": compile the kernel for this device";
}

} // namespace

Expected<std::shared_ptr<const KernelModule>> KernelModule::create(
    std::shared_ptr<level_zero::Context> context,
    std::string_view bytes,
    std::string source_name,
    std::string_view build_flags,
    std::string* native_binary) {
  Expected<zebin::BinaryFormat> format =
      zebin::binaryFormat(bytes, source_name);
  if (!format) {
    return std::move(format).error();
  }
  std::shared_ptr<KernelModule> made(new KernelModule());
  made->format_ = *format;
  const level_zero::Device device = context->device();
  if (*format == zebin::BinaryFormat::kSpirv) {
    if (Status valid = zebin::checkSpirv(bytes, source_name); !valid) {
      return valid.error();
    }
    auto module = level_zero::Module::create(
        std::move(context),
        bytes,
        level_zero::ModuleFormat::kSpirv,
        std::move(source_name),
        build_flags);
    if (!module) {
      return std::move(module).error();
    }
    made->module_ = std::move(*module);
    made->build_options_ = std::string(build_flags);
    Expected<std::string> native = made->module_->nativeBinary();
    if (!native) {
      return std::move(native).error();
    }
    Expected<zebin::Zebin> compiled =
        zebin::readZebin(*native, zebin::ZeInfoDetail::kLaunch);
    if (!compiled) {
      return compiled.error().withContext(
          "the native binary the driver compiled from " + made->sourceName());
    }
    made->ze_info_ = std::move(compiled->ze_info);
    if (native_binary != nullptr) {
      *native_binary = std::move(*native);
    }
    return std::shared_ptr<const KernelModule>(std::move(made));
  }
  // kLaunch: the payload and args_info lists are read and checked, but not
  // kept (see zeInfo()).
  Expected<zebin::Zebin> parsed =
      zebin::readZebin(bytes, zebin::ZeInfoDetail::kLaunch);
  if (!parsed) {
    return parsed.error().withContext(source_name);
  }
  ze_result_t result = ZE_RESULT_SUCCESS;
  auto module = level_zero::Module::create(
      std::move(context),
      bytes,
      level_zero::ModuleFormat::kNative,
      std::move(source_name),
      build_flags,
      &result);
  if (!module) {
    if (result != ZE_RESULT_ERROR_INVALID_NATIVE_BINARY) {
      return std::move(module).error();
    }
    return Error(
        module.error().message() + "; " + anotherArchitecture(device, *parsed));
  }
  made->module_ = std::move(*module);
  // The ELF view points into the bytes, which go when this returns (the
  // driver keeps what it needs): a module keeps only what outlives them.
  if (const zebin::Section* options =
          parsed->elf.findSection(".misc.buildOptions")) {
    made->build_options_ = std::string(options->data);
  }
  made->ze_info_ = std::move(parsed->ze_info);
  return std::shared_ptr<const KernelModule>(std::move(made));
}

Expected<level_zero::Kernel> KernelModule::createKernel(
    std::string_view name,
    const zebin::KernelInfo** info) const {
  const zebin::KernelInfo* found = ze_info_.findKernel(name);
  if (found == nullptr) {
    return Error(
        "kernel '" + std::string(name) + "' not found in " + sourceName() +
        "; the zebin has: " + ze_info_.kernelNames() +
        " (pass one of these names)");
  }
  if (info != nullptr) {
    *info = found;
  }
  return level_zero::Kernel::create(module_, found->name);
}

} // namespace launcher
} // namespace xsl
