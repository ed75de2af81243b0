// xpu_static_launcher._compile: SPIR-V -> zebin for Python (plain CPython C
// API), through ocloc or the installed GPU driver (compile/zebin_compiler.h).
//
//   find(backend, python_paths) -> (description, tried)
//   compile(spirv, device, build_flags, retry_large_grf, backend,
//           python_paths) -> dict(zebin, build_flags, spill_bytes,
//                                 large_grf, log, description)
//
// backend: "auto" (XSL_ZEBIN_COMPILER, then ocloc, then the driver),
// "ocloc", "ocloc-library", "ocloc-executable" or "driver". python_paths:
// sys.path joined with os.pathsep, where the intel_ocloc wheel is looked for
// first. A compiler is opened once per (backend, python_paths) and kept.
// Failures raise RuntimeError with the compiler's one message (build log
// included).

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstddef>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "compile/zebin_compiler.h"
#include "ocloc/compiler.h"
#include "ocloc/discovery.h"
#include "python/abi/cpython.h"
#include "python/module_init.h"

namespace {

using xsl::compile::ZebinCompiler;
namespace py = xsl::python;

struct Opened {
  std::unique_ptr<ZebinCompiler> compiler;
  std::mutex mutex; // one compile at a time per compiler
};

// Opens (or returns the kept) compiler; sets a Python exception on failure.
Opened* openCompiler(const char* backend, const char* python_paths) {
  static std::mutex mutex;
  static auto* opened = new std::map<std::string, std::unique_ptr<Opened>>();
  auto choice = xsl::compile::parseCompilerChoice(backend);
  if (!choice) {
    return py::raise(PyExc_ValueError, choice.error().message());
  }
  const std::string key = std::string(backend) + '\n' + python_paths;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = opened->find(key);
  if (found != opened->end()) {
    return found->second.get();
  }
  xsl::ocloc::DiscoveryEnvironment env =
      xsl::ocloc::DiscoveryEnvironment::host();
  env.python_paths = xsl::ocloc::splitPathList(python_paths, env.windows);
  // With the GIL held: the registry mutex is never waited for without it.
  auto compiler = ZebinCompiler::open(choice->kind, choice->ocloc_backend, env);
  if (!compiler) {
    return py::raise(PyExc_RuntimeError, compiler.error().message());
  }
  auto entry = std::make_unique<Opened>();
  entry->compiler = std::move(*compiler);
  Opened* raw = entry.get();
  opened->emplace(key, std::move(entry));
  return raw;
}

PyObject* findPy(PyObject*, PyObject* args) {
  const char* backend = "auto";
  const char* python_paths = "";
  if (!PyArg_ParseTuple(args, "|ss", &backend, &python_paths)) {
    return nullptr;
  }
  Opened* opened = openCompiler(backend, python_paths);
  if (opened == nullptr) {
    return nullptr;
  }
  PyObject* tried = py::listOf(opened->compiler->tried(), py::text);
  if (tried == nullptr) {
    return nullptr;
  }
  return Py_BuildValue(
      "(NN)", py::text(opened->compiler->description()), tried);
}

PyObject* compilePy(PyObject*, PyObject* args) {
  Py_buffer spirv{};
  const char* device = "";
  const char* build_flags = "";
  int retry = 1;
  const char* backend = "auto";
  const char* python_paths = "";
  if (!PyArg_ParseTuple(
          args,
          "y*ss|pss",
          &spirv,
          &device,
          &build_flags,
          &retry,
          &backend,
          &python_paths)) {
    return nullptr;
  }
  Opened* opened = openCompiler(backend, python_paths);
  if (opened == nullptr) {
    PyBuffer_Release(&spirv);
    return nullptr;
  }
  xsl::ocloc::CompileOptions options;
  options.device = device;
  options.build_flags = build_flags;
  options.retry_large_grf = retry != 0;
  xsl::Expected<xsl::ocloc::CompileResult> result = xsl::Error("");
  const std::string_view bytes(
      static_cast<const char*>(spirv.buf), static_cast<size_t>(spirv.len));
  PyThreadState* released = PyEval_SaveThread();
  {
    std::lock_guard<std::mutex> lock(opened->mutex);
    result = opened->compiler->compile(bytes, options);
  }
  PyEval_RestoreThread(released);
  PyBuffer_Release(&spirv);
  if (!result) {
    return py::raise(PyExc_RuntimeError, result.error().message());
  }
  return Py_BuildValue(
      "{s:y#,s:N,s:K,s:O,s:N,s:N}",
      "zebin",
      result->zebin.data(),
      static_cast<Py_ssize_t>(result->zebin.size()),
      "build_flags",
      py::text(result->build_flags),
      "spill_bytes",
      static_cast<unsigned long long>(result->spill_bytes),
      "large_grf",
      result->large_grf ? Py_True : Py_False,
      "log",
      py::text(result->log),
      "description",
      py::text(opened->compiler->description()));
}

PyMethodDef kMethods[] = {
    {"find",
     findPy,
     METH_VARARGS,
     "find(backend='auto', python_paths='', /)\n--\n\n(description, tried) "
     "of the zebin compiler for `backend` (auto, ocloc, ocloc-library, "
     "ocloc-executable, driver)."},
    {"compile",
     compilePy,
     METH_VARARGS,
     "compile(spirv, device, build_flags, retry_large_grf=True, "
     "backend='auto', python_paths='', /)\n--\n\nSPIR-V -> zebin; a dict "
     "with zebin, build_flags, spill_bytes, large_grf, log, description."},
    {nullptr, nullptr, 0, nullptr}};

// BACKENDS: the names `backend` takes, from the one table C++ parses them by.
PyObject* backendNames() {
  constexpr size_t count = std::size(xsl::compile::kCompilerChoices);
  PyObject* names = PyTuple_New(static_cast<Py_ssize_t>(count));
  for (size_t i = 0; names != nullptr && i < count; ++i) {
    PyObject* name =
        PyUnicode_FromString(xsl::compile::kCompilerChoices[i].name);
    if (name == nullptr) {
      Py_CLEAR(names);
      break;
    }
    PyTuple_SetItem(names, static_cast<Py_ssize_t>(i), name); // steals name
  }
  return names;
}

} // namespace

PyMODINIT_FUNC PyInit__compile(void) {
  PyObject* module = xsl::python::createModule<kMethods>(
      "_compile",
      "SPIR-V -> zebin through ocloc or the installed Intel GPU driver.");
  PyObject* names = module != nullptr ? backendNames() : nullptr;
  const bool added =
      names != nullptr && PyModule_AddObjectRef(module, "BACKENDS", names) == 0;
  Py_XDECREF(names);
  if (!added) {
    Py_XDECREF(module);
    return nullptr;
  }
  return module;
}
