// Test helpers for running the PyTorch glue (the package's _sycl_launcher)
// for real: the torch XPU entry points a CPU wheel lacks, queues and device
// memory on the c10::xpu shim, and the launch benchmark's references.

#include <torch/csrc/python_headers.h>

#include <c10/xpu/XPUFunctions.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>

#include "c10_xpu_shim.h"
#include "load_floor.h"
#include "python/abi/cpython.h"
#include "python/module_init.h"
#include "python/native_handles.h"
#include "upstream_style.h"

namespace {

namespace shim = xsl::torch_glue_test;

template <typename Call>
PyObject* guarded(Call call) {
  try {
    return call();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
    return nullptr;
  }
}

PyObject* currentRawStream(PyObject* /*self*/, PyObject* arg) {
  const long device = PyLong_AsLong(arg);
  if (device == -1 && PyErr_Occurred()) {
    return nullptr;
  }
  return guarded([device] {
    return PyLong_FromUnsignedLongLong(
        shim::currentQueue(static_cast<int>(device)));
  });
}

PyObject* newQueue(PyObject* /*self*/, PyObject* args) {
  int device = 0;
  int batched = 0;
  if (!PyArg_ParseTuple(args, "i|p", &device, &batched)) {
    return nullptr;
  }
  return guarded([device, batched] {
    return PyLong_FromUnsignedLongLong(shim::newQueue(device, batched != 0));
  });
}

PyObject* waitAll(PyObject* /*self*/, PyObject* /*unused*/) {
  return guarded([] {
    shim::waitAll();
    Py_RETURN_NONE;
  });
}

PyObject* nativeCommandList(PyObject* /*self*/, PyObject* arg) {
  const unsigned long long queue = PyLong_AsUnsignedLongLong(arg);
  if (PyErr_Occurred()) {
    return nullptr;
  }
  return guarded([queue] {
    return PyLong_FromUnsignedLongLong(
        shim::nativeCommandList(static_cast<uintptr_t>(queue)));
  });
}

PyObject* mallocDevice(PyObject* /*self*/, PyObject* args) {
  unsigned long long bytes = 0;
  int device = 0;
  if (!PyArg_ParseTuple(args, "Ki", &bytes, &device)) {
    return nullptr;
  }
  return guarded([bytes, device] {
    return PyLong_FromUnsignedLongLong(
        shim::mallocDevice(static_cast<size_t>(bytes), device));
  });
}

PyObject* platformName(PyObject* /*self*/, PyObject* /*unused*/) {
  return guarded([] {
    const std::string name = shim::platformName();
    return PyUnicode_FromStringAndSize(
        name.data(), static_cast<Py_ssize_t>(name.size()));
  });
}

PyObject* nativeHandles(PyObject* /*self*/, PyObject* /*unused*/) {
  return guarded([]() -> PyObject* {
    return xsl::python::nativeHandlesValue(
        shim::nativeContext(), shim::nativeDevices());
  });
}

PyObject* deviceCount(PyObject* /*self*/, PyObject* /*unused*/) {
  return guarded([] { return PyLong_FromLong(c10::xpu::device_count()); });
}

PyMethodDef kMethods[] = {
    {"platform_name",
     platformName,
     METH_NOARGS,
     "name of the SYCL platform the devices come from"},
    {"device_count", deviceCount, METH_NOARGS, "c10::xpu::device_count()"},
    {"native_handles",
     nativeHandles,
     METH_NOARGS,
     "(ze_context, [(ze_driver, ze_device), ...]) under c10::xpu's context "
     "and devices"},
    {"load_floor",
     shim::loadFloor,
     METH_VARARGS,
     "load_floor(zebin_path, kernel_name, device) -> (kernel, n_spills)"},
    {"upstream_style_load",
     shim::upstreamStyleLoad,
     METH_VARARGS,
     "upstream_style_load(zebin_path, kernel_name, device)"},
    {"upstream_style_launch",
     xsl::python::methodFunction(
         shim::launch<shim::LaunchVariant::kUpstreamStyle>),
     METH_FASTCALL,
     "a launch as upstream submits it (benchmark reference)"},
    {"native_append_launch",
     xsl::python::methodFunction(
         shim::launch<shim::LaunchVariant::kNativeAppend>),
     METH_FASTCALL,
     "the same launch appended to the queue's immediate command list (benchmark)"},
    {"native_append_external_event_launch",
     xsl::python::methodFunction(
         shim::launch<shim::LaunchVariant::kNativeAppendExternalEvent>),
     METH_FASTCALL,
     "the direct append ordered by the queue's external event (benchmark)"},
    {"fastcall_floor",
     xsl::python::methodFunction(shim::fastcallFloor),
     METH_FASTCALL,
     "an empty METH_FASTCALL function (benchmark floor)"},
    {"current_raw_stream",
     currentRawStream,
     METH_O,
     "torch._C._xpu_getCurrentRawStream(device): the current queue's address"},
    {"new_queue",
     newQueue,
     METH_VARARGS,
     "new_queue(device, batched=False): address of a further in-order "
     "sycl::queue; batched: with no_immediate_command_list"},
    {"wait_all", waitAll, METH_NOARGS, "queue.wait() on every queue"},
    {"native_command_list",
     nativeCommandList,
     METH_O,
     "native_command_list(queue): the immediate command list under a queue"},
    {"malloc_device",
     mallocDevice,
     METH_VARARGS,
     "malloc_device(nbytes, device): sycl::malloc_device in torch's context"},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMODINIT_FUNC PyInit__xsl_torch_glue() {
  return xsl::python::createModule<kMethods>(
      "_xsl_torch_glue",
      "Helpers for running the PyTorch glue on the real SYCL runtime (tests only).");
}
