#pragma once

// The benchmark's reference launch and its floor (upstream_style.cpp).

#include <torch/csrc/python_headers.h>

namespace xsl {
namespace torch_glue_test {

// upstream_style_load(zebin_path, kernel_name, device) -> capsule
PyObject* upstreamStyleLoad(PyObject* self, PyObject* args);
// The launches the benchmark compares. Each entry point takes (kernel, gx,
// gy, gz, num_warps, shared, arg_types, args, stream) and converts them from
// Python per call, as upstream does.
enum class LaunchVariant {
  // upstream_style_launch: one queue.submit per call, as upstream launches.
  kUpstreamStyle,
  // native_append_launch: appended to the queue's immediate command list
  // directly (measured, not used by the glue).
  kNativeAppend,
  // native_append_external_event_launch: the direct append ordered with
  // SYCL by the queue's external event (measured only).
  kNativeAppendExternalEvent,
};

// False with a Python error set.
bool convertAndLaunch(
    LaunchVariant variant,
    PyObject* const* argv,
    Py_ssize_t argc);

// The METH_FASTCALL entry point of `variant`.
template <LaunchVariant variant>
PyObject* launch(PyObject* /*self*/, PyObject* const* argv, Py_ssize_t argc) {
  if (!convertAndLaunch(variant, argv, argc)) {
    return nullptr;
  }
  Py_RETURN_NONE;
}

// fastcall_floor(*args): an empty METH_FASTCALL function, the cost of
// calling into C++ at all.
PyObject* fastcallFloor(PyObject* self, PyObject* const* argv, Py_ssize_t argc);

} // namespace torch_glue_test
} // namespace xsl
