// xpu_static_launcher._zebin: the zebin reader for Python (plain CPython C
// API, so it builds with MSVC as well as GCC/Clang).
//
//   read_zebin(data) -> dict     everything the reader knows, for tools/tests
//   kernel_summary(data) -> list[(name, simd_size, grf_count, spill_bytes)]
//       (reads only what it returns: per-argument lists are skipped)
//
// `data` is any bytes-like object. Bad input raises ValueError carrying the
// reader's message.

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "file_io/file_io.h"
#include "python/abi/cpython.h"
#include "python/module_init.h"
#include "zebin/zebin.h"

namespace {

namespace py = xsl::python;
using xsl::zebin::KernelInfo;
using xsl::zebin::Zebin;

// Parses a bytes-like argument; the view lives as long as the Py_buffer.
class BufferArg {
 public:
  ~BufferArg() {
    if (held_) {
      PyBuffer_Release(&buffer_);
    }
  }
  bool parse(PyObject* args, const char* format) {
    held_ = PyArg_ParseTuple(args, format, &buffer_) != 0;
    return held_;
  }
  std::string_view bytes() const {
    return std::string_view(
        static_cast<const char*>(buffer_.buf),
        static_cast<size_t>(buffer_.len));
  }

 private:
  Py_buffer buffer_{};
  bool held_ = false;
};

PyObject* readOrRaise(
    std::string_view bytes,
    xsl::Expected<Zebin>& out,
    xsl::zebin::ZeInfoDetail detail = xsl::zebin::ZeInfoDetail::kFull) {
  out = xsl::zebin::readZebin(bytes, detail);
  if (!out) {
    return py::raise(PyExc_ValueError, out.error().message());
  }
  return Py_None;
}

// An int, or None for an absent value.
PyObject* optionalInt(const std::optional<int64_t>& value) {
  if (!value) {
    Py_RETURN_NONE;
  }
  return PyLong_FromLongLong(*value);
}

PyObject* userArgumentDict(const xsl::zebin::UserArgument& arg) {
  return py::dictOf({
      {"index", PyLong_FromUnsignedLong(arg.index)},
      {"kind",
       PyUnicode_FromString(xsl::zebin::userArgumentKindName(arg.kind))},
      {"size", PyLong_FromUnsignedLongLong(arg.size)},
      {"type_size", PyLong_FromUnsignedLongLong(arg.type_size)},
      {"name", py::text(arg.name)},
      {"type_name", py::text(arg.type_name)},
  });
}

PyObject* payloadArgumentDict(const xsl::zebin::PayloadArgument& arg) {
  return py::dictOf({
      {"arg_type", py::text(arg.arg_type)},
      {"offset", PyLong_FromLongLong(arg.offset)},
      {"size", PyLong_FromLongLong(arg.size)},
      {"arg_index", optionalInt(arg.arg_index)},
      {"addrmode", py::text(arg.addrmode)},
      {"addrspace", py::text(arg.addrspace)},
      {"access_type", py::text(arg.access_type)},
  });
}

PyObject* bufferDict(const xsl::zebin::PerThreadMemoryBuffer& buffer) {
  return py::dictOf({
      {"type", py::text(buffer.type)},
      {"usage", py::text(buffer.usage)},
      {"size", PyLong_FromLongLong(buffer.size)},
      {"slot", PyLong_FromLongLong(buffer.slot)},
      {"is_simt_thread", PyBool_FromLong(buffer.is_simt_thread)},
  });
}

PyObject* flagsDict(const std::map<std::string, bool>& flags) {
  py::PyRef dict(PyDict_New());
  if (!dict) {
    return nullptr;
  }
  for (const auto& [name, value] : flags) {
    const py::PyRef flag(PyBool_FromLong(value));
    if (!flag ||
        PyDict_SetItemString(dict.get(), name.c_str(), flag.get()) < 0) {
      return nullptr;
    }
  }
  return dict.release();
}

PyObject* kernelDict(const KernelInfo& kernel) {
  const xsl::zebin::ExecutionEnv& env = kernel.execution_env;
  return py::dictOf({
      {"name", py::text(kernel.name)},
      {"simd_size", PyLong_FromLongLong(env.simd_size)},
      {"grf_count", PyLong_FromLongLong(env.grf_count)},
      {"spill_size", PyLong_FromUnsignedLongLong(kernel.spill_bytes)},
      {"execution_env_spill_size", optionalInt(env.spill_size)},
      {"private_size", PyLong_FromUnsignedLongLong(kernel.private_bytes)},
      {"slm_size", PyLong_FromLongLong(env.slm_size)},
      {"barrier_count", PyLong_FromLongLong(env.barrier_count)},
      {"required_sub_group_size",
       PyLong_FromLongLong(env.required_sub_group_size)},
      {"threads_per_warp", PyLong_FromUnsignedLong(kernel.threads_per_warp)},
      {"flags", flagsDict(env.flags)},
      {"args", py::listOf(kernel.user_arguments, userArgumentDict)},
      {"payload_arguments",
       py::listOf(kernel.payload_arguments, payloadArgumentDict)},
      {"per_thread_memory_buffers",
       py::listOf(kernel.per_thread_memory_buffers, bufferDict)},
  });
}

PyObject* sectionDict(const xsl::zebin::Section& section) {
  return py::dictOf({
      {"name", py::text(section.name)},
      {"type", PyLong_FromUnsignedLong(section.type)},
      {"flags", PyLong_FromUnsignedLongLong(section.flags)},
      {"offset", PyLong_FromUnsignedLongLong(section.file_offset)},
      {"size", PyLong_FromSize_t(section.data.size())},
  });
}

PyObject* noteTuple(const xsl::zebin::Note& note) {
  return Py_BuildValue(
      "(Nky#)",
      py::text(note.owner),
      static_cast<unsigned long>(note.type),
      note.desc.data(),
      static_cast<Py_ssize_t>(note.desc.size()));
}

PyObject* readZebinPy(PyObject* /*self*/, PyObject* args) {
  BufferArg data;
  if (!data.parse(args, "y*:read_zebin")) {
    return nullptr;
  }
  xsl::Expected<Zebin> zebin = xsl::Error("");
  if (readOrRaise(data.bytes(), zebin) == nullptr) {
    return nullptr;
  }
  return py::dictOf({
      {"version", py::text(zebin->ze_info.version_text)},
      {"kernels", py::listOf(zebin->ze_info.kernels, kernelDict)},
      {"sections", py::listOf(zebin->elf.sections, sectionDict)},
      {"notes", py::listOf(zebin->elf.intelgt_notes, noteTuple)},
      {"warnings", py::listOf(zebin->ze_info.warnings, py::text)},
  });
}

PyObject* kernelSummaryPy(PyObject* /*self*/, PyObject* args) {
  BufferArg data;
  if (!data.parse(args, "y*:kernel_summary")) {
    return nullptr;
  }
  xsl::Expected<Zebin> zebin = xsl::Error("");
  if (readOrRaise(
          data.bytes(), zebin, xsl::zebin::ZeInfoDetail::kExecutionOnly) ==
      nullptr) {
    return nullptr;
  }
  return py::listOf(zebin->ze_info.kernels, [](const KernelInfo& kernel) {
    return Py_BuildValue(
        "(NLLK)",
        py::text(kernel.name),
        static_cast<long long>(kernel.execution_env.simd_size),
        static_cast<long long>(kernel.execution_env.grf_count),
        static_cast<unsigned long long>(kernel.spill_bytes));
  });
}

// The launcher's own file reader (regular files only, size limit, UTF-8 and
// long paths on Windows), so Python and C++ refuse a bad path alike.
PyObject* readFileBytesPy(PyObject* /*self*/, PyObject* arg) {
  if (!PyUnicode_Check(arg)) {
    PyErr_Format(
        PyExc_TypeError, "path must be a str, got %s", Py_TYPE(arg)->tp_name);
    return nullptr;
  }
  Py_ssize_t length = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(arg, &length);
  if (utf8 == nullptr) {
    return nullptr;
  }
  xsl::Expected<std::string> bytes = xsl::file_io::readFileBytes(
      std::string(utf8, static_cast<size_t>(length)));
  if (!bytes) {
    return py::raise(PyExc_OSError, bytes.error().message());
  }
  return PyBytes_FromStringAndSize(
      bytes->data(), static_cast<Py_ssize_t>(bytes->size()));
}

PyMethodDef kMethods[] = {
    {"read_file_bytes",
     readFileBytesPy,
     METH_O,
     "read_file_bytes(path, /)\n--\n\nThe bytes of the file at `path` (str), "
     "with the launcher's file checks; OSError names the file."},
    {"read_zebin",
     readZebinPy,
     METH_VARARGS,
     "read_zebin(data, /)\n--\n\nParse a zebin held in memory into a dict: "
     "version, kernels, sections, notes, warnings. ValueError on bad input."},
    {"kernel_summary",
     kernelSummaryPy,
     METH_VARARGS,
     "kernel_summary(data, /)\n--\n\n[(name, simd_size, grf_count, "
     "spill_bytes), ...] of a zebin held in memory: the fast path."},
    {nullptr, nullptr, 0, nullptr}};

} // namespace

PyMODINIT_FUNC PyInit__zebin(void) {
  return xsl::python::createModule<kMethods>(
      "_zebin", "Reader for Intel GPU native binaries (zebin).");
}
