// The warm-start load benchmark's floor: the runtime calls every loader of a
// Triton kernel makes on this runtime, and nothing else. The file read,
// zeModuleCreate, zeKernelCreate, zeKernelGetProperties (n_spills) and the
// SYCL kernel bundle and kernel over those handles: what Triton-XPU's
// load_binary does in C, without its Python around it, and what the static
// launcher's _load_kernel does without reading `.ze_info`.

#include "load_floor.h"

#include <c10/xpu/XPUFunctions.h>
#include <sycl/sycl.hpp>

#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "file_io/file_io.h"
#include "level_zero/loader.h"
#include "python/abi/cpython.h"

namespace xsl {
namespace torch_glue_test {
namespace {

constexpr const char* kCapsuleName = "xsl.load_floor_kernel";

struct FloorKernel {
  const level_zero::Api* api = nullptr;
  ze_module_handle_t module = nullptr;
  ze_kernel_handle_t kernel = nullptr;
  std::unique_ptr<sycl::kernel> sycl_kernel;

  ~FloorKernel() {
    sycl_kernel.reset(); // before the handles it was made over
    if (kernel != nullptr) {
      api->zeKernelDestroy(kernel);
    }
    if (module != nullptr) {
      api->zeModuleDestroy(module);
    }
  }
};

PyObject* fail(const std::string& message) {
  return xsl::python::raise(PyExc_RuntimeError, message);
}

} // namespace

PyObject* loadFloor(PyObject* /*self*/, PyObject* args) {
  const char* path = nullptr;
  const char* name = nullptr;
  int device = 0;
  if (!PyArg_ParseTuple(args, "ssi", &path, &name, &device)) {
    return nullptr;
  }
  try {
    auto api = level_zero::api();
    if (!api) {
      return fail(api.error().message());
    }
    std::string bytes;
    if (Status read = file_io::readFileInto(path, bytes); !read) {
      return fail(read.error().message());
    }
    const sycl::device& sycl_device =
        c10::xpu::get_raw_device(static_cast<c10::DeviceIndex>(device));
    const sycl::context& context = c10::xpu::get_device_context();
    auto held = std::make_unique<FloorKernel>();
    held->api = *api;
    ze_module_desc_t module_desc;
    std::memset(&module_desc, 0, sizeof(module_desc));
    module_desc.stype = ZE_STRUCTURE_TYPE_MODULE_DESC;
    module_desc.format = ZE_MODULE_FORMAT_NATIVE;
    module_desc.inputSize = bytes.size();
    module_desc.pInputModule = reinterpret_cast<const uint8_t*>(bytes.data());
    module_desc.pBuildFlags = "";
    ze_result_t result = held->api->zeModuleCreate(
        sycl::get_native<sycl::backend::ext_oneapi_level_zero>(context),
        sycl::get_native<sycl::backend::ext_oneapi_level_zero>(sycl_device),
        &module_desc,
        &held->module,
        nullptr);
    if (result != ZE_RESULT_SUCCESS) {
      held->module = nullptr;
      return fail(std::string("zeModuleCreate failed for ") + path);
    }
    ze_kernel_desc_t kernel_desc;
    std::memset(&kernel_desc, 0, sizeof(kernel_desc));
    kernel_desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
    kernel_desc.pKernelName = name;
    result =
        held->api->zeKernelCreate(held->module, &kernel_desc, &held->kernel);
    if (result != ZE_RESULT_SUCCESS) {
      held->kernel = nullptr;
      return fail(std::string("zeKernelCreate failed for ") + name);
    }
    ze_kernel_properties_t properties;
    std::memset(&properties, 0, sizeof(properties));
    properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    if (held->api->zeKernelGetProperties(held->kernel, &properties) !=
        ZE_RESULT_SUCCESS) {
      return fail(std::string("zeKernelGetProperties failed for ") + name);
    }
    namespace ze_interop = sycl::ext::oneapi::level_zero;
    auto bundle = sycl::make_kernel_bundle<
        sycl::backend::ext_oneapi_level_zero,
        sycl::bundle_state::executable>(
        {held->module, ze_interop::ownership::keep}, context);
    held->sycl_kernel = std::make_unique<sycl::kernel>(
        sycl::make_kernel<sycl::backend::ext_oneapi_level_zero>(
            {bundle, held->kernel, ze_interop::ownership::keep}, context));
    PyObject* capsule = PyCapsule_New(
        held.get(),
        kCapsuleName,
        xsl::python::deleteCapsuleContents<FloorKernel>);
    if (capsule == nullptr) {
      return nullptr;
    }
    held.release();
    return Py_BuildValue("(NI)", capsule, properties.spillMemSize);
  } catch (const std::exception& e) {
    return fail(std::string("load_floor: ") + e.what());
  }
}

} // namespace torch_glue_test
} // namespace xsl
