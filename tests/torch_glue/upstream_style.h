#pragma once

// The benchmark's reference launch and its floor (upstream_style.cpp).

#include <torch/csrc/python_headers.h>

namespace xsl {
namespace torch_glue_test {

// upstream_style_load(zebin_path, kernel_name, device) -> capsule
PyObject* upstreamStyleLoad(PyObject* self, PyObject* args);
// upstream_style_launch(kernel, gx, gy, gz, num_warps, shared, arg_types,
// args, stream): one queue.submit per call, as upstream launches.
PyObject* upstreamStyleLaunch(
    PyObject* self,
    PyObject* const* argv,
    Py_ssize_t argc);
// native_append_launch(...same...): appended to the queue's immediate
// command list directly (measured, not used by the glue).
PyObject* nativeAppendLaunch(
    PyObject* self,
    PyObject* const* argv,
    Py_ssize_t argc);
// native_append_external_event_launch(...same...): the direct append
// ordered with SYCL by the queue's external event (measured only).
PyObject* nativeAppendExternalEventLaunch(
    PyObject* self,
    PyObject* const* argv,
    Py_ssize_t argc);
// fastcall_floor(*args): an empty METH_FASTCALL function, the cost of
// calling into C++ at all.
PyObject* fastcallFloor(PyObject* self, PyObject* const* argv, Py_ssize_t argc);

} // namespace torch_glue_test
} // namespace xsl
