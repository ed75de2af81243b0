// The launch benchmark's reference: a launch written the way PyTorch's
// upstream static_launcher/xpu.cpp and Triton-XPU's launcher submit, so the
// glue's host cost can be compared with it side by side in one process.
// Per launch: every argument converted from Python, a queue.submit command
// group with one set_arg per argument, parallel_for over an nd_range, and
// the default event. Nothing is cached between launches except the kernel.

#include <c10/xpu/XPUFunctions.h>
#include <sycl/sycl.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "c10_xpu_shim.h"
#include "level_zero/level_zero.h"
#include "level_zero/loader.h"
#include "upstream_style.h"

namespace xsl {
namespace torch_glue_test {
namespace {

constexpr const char* kCapsuleName = "xsl.upstream_style_kernel";

struct UpstreamKernel {
  std::shared_ptr<level_zero::Module> module;
  std::unique_ptr<level_zero::Kernel> ze_kernel;
  std::unique_ptr<sycl::kernel> kernel;
  uint32_t threads_per_warp = 32;
};

void destroy(PyObject* capsule) {
  delete static_cast<UpstreamKernel*>(
      PyCapsule_GetPointer(capsule, kCapsuleName));
}

PyObject* fail(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  return nullptr;
}

} // namespace

PyObject* upstreamStyleLoad(PyObject* /*self*/, PyObject* args) {
  const char* path = nullptr;
  const char* name = nullptr;
  int device = 0;
  if (!PyArg_ParseTuple(args, "ssi", &path, &name, &device)) {
    return nullptr;
  }
  auto api = level_zero::api();
  if (!api) {
    return fail(PyExc_RuntimeError, api.error().message());
  }
  const sycl::device& sycl_device =
      c10::xpu::get_raw_device(static_cast<c10::DeviceIndex>(device));
  const sycl::context& context = c10::xpu::get_device_context();
  level_zero::Device ze_device(
      **api,
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(
          sycl_device.get_platform()),
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(sycl_device),
      static_cast<uint32_t>(device));
  auto ze_context = level_zero::Context::wrap(
      ze_device,
      sycl::get_native<sycl::backend::ext_oneapi_level_zero>(context),
      false);
  auto module = level_zero::Module::fromFile(ze_context, path);
  if (!module) {
    return fail(PyExc_RuntimeError, module.error().message());
  }
  auto ze_kernel = level_zero::Kernel::create(*module, name);
  if (!ze_kernel) {
    return fail(PyExc_RuntimeError, ze_kernel.error().message());
  }
  auto held = std::make_unique<UpstreamKernel>();
  held->module = *module;
  held->ze_kernel = std::make_unique<level_zero::Kernel>(std::move(*ze_kernel));
  held->threads_per_warp = held->ze_kernel->info().threads_per_warp;
  namespace ze_interop = sycl::ext::oneapi::level_zero;
  auto bundle = sycl::make_kernel_bundle<
      sycl::backend::ext_oneapi_level_zero,
      sycl::bundle_state::executable>(
      {held->module->handle(), ze_interop::ownership::keep}, context);
  held->kernel = std::make_unique<sycl::kernel>(
      sycl::make_kernel<sycl::backend::ext_oneapi_level_zero>(
          {bundle, held->ze_kernel->handle(), ze_interop::ownership::keep},
          context));
  PyObject* capsule = PyCapsule_New(held.get(), kCapsuleName, destroy);
  if (capsule != nullptr) {
    held.release();
  }
  return capsule;
}

// (kernel, grid_x, grid_y, grid_z, num_warps, shared, arg_types, args, stream)
PyObject* upstreamStyleLaunch(
    PyObject* /*self*/,
    PyObject* const* argv,
    Py_ssize_t argc) {
  if (argc != 9) {
    return fail(PyExc_TypeError, "upstream_style_launch takes 9 arguments");
  }
  auto* held =
      static_cast<UpstreamKernel*>(PyCapsule_GetPointer(argv[0], kCapsuleName));
  if (held == nullptr) {
    return nullptr;
  }
  const long long grid[3] = {
      PyLong_AsLongLong(argv[1]),
      PyLong_AsLongLong(argv[2]),
      PyLong_AsLongLong(argv[3])};
  const long long num_warps = PyLong_AsLongLong(argv[4]);
  const char* codes = PyUnicode_AsUTF8(argv[6]);
  PyObject* values = argv[7];
  const unsigned long long stream = PyLong_AsUnsignedLongLong(argv[8]);
  if (PyErr_Occurred() || codes == nullptr || !PyTuple_Check(values)) {
    return PyErr_Occurred() ? nullptr
                            : fail(PyExc_TypeError, "bad launch arguments");
  }
  const size_t count = std::strlen(codes);
  if (static_cast<size_t>(PyTuple_GET_SIZE(values)) != count) {
    return fail(PyExc_ValueError, "arg_types and args differ in length");
  }
  // Converted per launch, as upstream's THPUtils_unpack* calls do.
  std::vector<uint64_t> slots(count);
  std::vector<size_t> sizes(count);
  for (size_t i = 0; i < count; ++i) {
    PyObject* value = PyTuple_GET_ITEM(values, static_cast<Py_ssize_t>(i));
    switch (codes[i]) {
      case 'O':
        slots[i] = value == Py_None ? 0 : PyLong_AsUnsignedLongLong(value);
        sizes[i] = 8;
        break;
      case 'i':
      case 'I':
        slots[i] = static_cast<uint32_t>(PyLong_AsLongLong(value));
        sizes[i] = 4;
        break;
      case 'f': {
        const float f = static_cast<float>(PyFloat_AsDouble(value));
        std::memcpy(&slots[i], &f, sizeof(f));
        sizes[i] = 4;
        break;
      }
      default:
        slots[i] = static_cast<uint64_t>(PyLong_AsLongLong(value));
        sizes[i] = 8;
        break;
    }
  }
  if (PyErr_Occurred()) {
    return nullptr;
  }
  sycl::queue& queue = stream != 0
      ? *reinterpret_cast<sycl::queue*>(stream)
      : *reinterpret_cast<sycl::queue*>(currentQueue(0));
  const size_t local = static_cast<size_t>(num_warps) * held->threads_per_warp;
  const sycl::nd_range<3> range(
      sycl::range<3>(
          static_cast<size_t>(grid[2]),
          static_cast<size_t>(grid[1]),
          static_cast<size_t>(grid[0]) * local),
      sycl::range<3>(1, 1, local));
  sycl::kernel& kernel = *held->kernel;
  sycl::event done = queue.submit([&](sycl::handler& cgh) {
    for (size_t i = 0; i < count; ++i) {
      if (sizes[i] == 4) {
        cgh.set_arg(static_cast<int>(i), static_cast<uint32_t>(slots[i]));
      } else if (codes[i] == 'O') {
        cgh.set_arg(static_cast<int>(i), reinterpret_cast<void*>(slots[i]));
      } else {
        cgh.set_arg(static_cast<int>(i), slots[i]);
      }
    }
    cgh.parallel_for(range, kernel);
  });
  static_cast<void>(done);
  Py_RETURN_NONE;
}

PyObject* fastcallFloor(
    PyObject* /*self*/,
    PyObject* const* /*argv*/,
    Py_ssize_t /*argc*/) {
  Py_RETURN_NONE;
}

} // namespace torch_glue_test
} // namespace xsl
