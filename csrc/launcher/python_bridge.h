#pragma once

// The CPython half of _launch_kernel/_load_kernel, shared by the standalone
// extension (csrc/python/launcher_module.cpp) and the PyTorch glue
// (csrc/torch_glue/xpu.cpp) so both convert and reject Python values the same
// way. Header-only and not part of the xsl_launcher library (which has no
// Python); include <Python.h> (or torch/csrc/python_headers.h) first.
//
// Errors: TypeError for a value of the wrong kind (None for a scalar, a float
// for an int, a wrong capsule), ValueError for a bad value (out of range,
// unknown type code, argument count, negative grid), RuntimeError for driver
// and file failures. Every message names the argument.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "launcher/arg_plan.h"
#include "launcher/geometry.h"
#include "launcher/loaded_kernel.h"

namespace xsl {
namespace launcher {
namespace python {

inline std::nullptr_t raise(PyObject* type, const std::string& message) {
  PyErr_SetString(type, message.c_str());
  return nullptr;
}

inline std::nullptr_t raiseError(PyObject* type, const Error& error) {
  return raise(type, error.message());
}

inline const char* typeName(PyObject* obj) {
  return Py_TYPE(obj)->tp_name;
}

// A Python int as an unsigned 64-bit value; false (no Python error set)
// when it is negative or does not fit. PyLong_AsLongLongAndOverflow first:
// PyLong_AsUnsignedLongLong goes through a slow byte-array conversion.
inline bool unsignedValue(PyObject* obj, uint64_t* out) {
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow == 0) {
    if (value < 0) {
      PyErr_Clear(); // -1 may also mean an error
      return false;
    }
    *out = static_cast<uint64_t>(value);
    return true;
  }
  if (overflow < 0) {
    return false;
  }
  const unsigned long long big = PyLong_AsUnsignedLongLong(obj);
  if (big == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  *out = static_cast<uint64_t>(big);
  return true;
}

// An int parameter of the launcher call (grid, num_warps, shared, device).
inline bool parseInt64(PyObject* obj, const char* what, int64_t* out) {
  if (!PyLong_Check(obj)) {
    if (obj == Py_None || !PyIndex_Check(obj)) {
      raise(
          PyExc_TypeError,
          std::string(what) + " must be an int, got " + typeName(obj));
      return false;
    }
    PyObject* index = PyNumber_Index(obj);
    if (index == nullptr) {
      return false;
    }
    const bool ok = parseInt64(index, what, out);
    Py_DECREF(index);
    return ok;
  }
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow != 0) {
    raise(
        PyExc_ValueError,
        std::string(what) + " does not fit in a signed 64-bit integer");
    return false;
  }
  if (value == -1 && PyErr_Occurred()) {
    return false;
  }
  *out = static_cast<int64_t>(value);
  return true;
}

// A raw handle (stream, address): a non-negative int below 2^64.
inline bool parseHandle(PyObject* obj, const char* what, uint64_t* out) {
  if (!PyLong_Check(obj)) {
    raise(
        PyExc_TypeError,
        std::string(what) + " must be an int handle, got " + typeName(obj));
    return false;
  }
  if (!unsignedValue(obj, out)) {
    raise(
        PyExc_ValueError, std::string(what) + " must be an int in [0, 2**64)");
    return false;
  }
  return true;
}

inline std::string argWhere(size_t index, ArgType type) {
  std::string text = "argument ";
  text += std::to_string(index);
  text += " ('";
  text += argTypeCode(type);
  text += "', ";
  text += argTypeName(type);
  text += ")";
  return text;
}

inline bool packInteger(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot) {
  if (!PyLong_Check(obj)) {
    if (obj == Py_None || PyFloat_Check(obj) || !PyIndex_Check(obj)) {
      raise(
          PyExc_TypeError,
          argWhere(index, arg.type) + ": expected an int, got " +
              typeName(obj));
      return false;
    }
    PyObject* as_int = PyNumber_Index(obj); // numpy and other int-likes
    if (as_int == nullptr) {
      return false;
    }
    const bool ok = packInteger(as_int, arg, index, slot);
    Py_DECREF(as_int);
    return ok;
  }
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  Status status;
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) {
      return false;
    }
    status = packSignedValue(arg, index, static_cast<int64_t>(value), slot);
  } else if (overflow > 0) {
    const unsigned long long big = PyLong_AsUnsignedLongLong(obj);
    if (big == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
      PyErr_Clear();
      raise(
          PyExc_ValueError,
          argWhere(index, arg.type) + ": the int does not fit in 64 bits");
      return false;
    }
    status = packUnsignedValue(arg, index, static_cast<uint64_t>(big), slot);
  } else {
    raise(
        PyExc_ValueError,
        argWhere(index, arg.type) + ": the int is below -2**63");
    return false;
  }
  if (!status) {
    raiseError(PyExc_ValueError, status.error());
    return false;
  }
  return true;
}

inline bool packFloating(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot) {
  double value = 0.0;
  if (PyFloat_CheckExact(obj)) {
    value = PyFloat_AS_DOUBLE(obj);
  } else if (obj == Py_None) {
    raise(
        PyExc_TypeError,
        argWhere(index, arg.type) + ": expected a float, got None");
    return false;
  } else {
    value = PyFloat_AsDouble(obj); // float subclasses, ints, __float__
    if (value == -1.0 && PyErr_Occurred()) {
      if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
        PyErr_Clear();
        raise(
            PyExc_ValueError,
            argWhere(index, arg.type) + ": the int is too large for a float");
      } else {
        PyErr_Clear();
        raise(
            PyExc_TypeError,
            argWhere(index, arg.type) + ": expected a float, got " +
                typeName(obj));
      }
      return false;
    }
  }
  packFloatingValue(arg, value, slot);
  return true;
}

// int, None (null), or an object with data_ptr() (a tensor).
inline bool pointerValue(PyObject* obj, size_t index, uint64_t* address) {
  if (obj == Py_None) {
    *address = 0;
    return true;
  }
  if (PyLong_Check(obj)) {
    if (!unsignedValue(obj, address)) {
      raise(
          PyExc_ValueError,
          argWhere(index, ArgType::kPointer) +
              ": an int address must be in [0, 2**64)");
      return false;
    }
    return true;
  }
  static PyObject* data_ptr_name = PyUnicode_InternFromString("data_ptr");
  if (data_ptr_name == nullptr) {
    return false;
  }
  PyObject* result = PyObject_CallMethodObjArgs(obj, data_ptr_name, nullptr);
  if (result == nullptr) {
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
      PyErr_Clear();
      raise(
          PyExc_TypeError,
          argWhere(index, ArgType::kPointer) +
              ": expected a tensor (an object with data_ptr()), an int "
              "address or None, got " +
              typeName(obj));
    }
    return false;
  }
  if (!PyLong_Check(result)) {
    raise(
        PyExc_TypeError,
        argWhere(index, ArgType::kPointer) + ": data_ptr() returned " +
            typeName(result) + ", not an int");
    Py_DECREF(result);
    return false;
  }
  const bool ok = pointerValue(result, index, address);
  Py_DECREF(result);
  return ok;
}

// Converts every value of `args` (a tuple) into `storage` by `plan`;
// `check_pointer(index, address)` -> Status validates each non-null pointer.
template <typename PointerCheck>
bool packArgs(
    PyObject* args,
    const ArgPlan& plan,
    ArgStorage& storage,
    const PointerCheck& check_pointer) {
  const size_t count = plan.args.size();
  for (size_t i = 0; i < count; ++i) {
    PyObject* obj = PyTuple_GET_ITEM(args, static_cast<Py_ssize_t>(i));
    const PlannedArg& arg = plan.args[i];
    void* slot = storage.slot(i);
    if (arg.type == ArgType::kPointer) {
      uint64_t address = 0;
      if (!pointerValue(obj, i, &address)) {
        return false;
      }
      if (address != 0) {
        Status status = check_pointer(i, address);
        if (!status) {
          raiseError(PyExc_ValueError, status.error());
          return false;
        }
      }
      std::memcpy(slot, &address, sizeof(address));
    } else if (isInteger(arg.type)) {
      if (!packInteger(obj, arg, i, slot)) {
        return false;
      }
    } else if (!packFloating(obj, arg, i, slot)) {
      return false;
    }
  }
  return true;
}

// The fixed arguments of _launch_kernel(function, grid_x, grid_y, grid_z,
// num_warps, shared, arg_types, args, stream).
constexpr Py_ssize_t kLaunchArgCount = 9;

struct LaunchCall {
  PyObject* function = nullptr;
  LaunchGeometry geometry;
  uint32_t shared_bytes = 0;
  PyObject* arg_types = nullptr;
  PyObject* args = nullptr;
  uint64_t stream = 0;
};

// Parses everything but `function` (checked by the caller, which knows its
// capsule name) and `arg_types` (checked against the plan cache). Returns
// false with a Python error set.
inline bool parseLaunchCall(
    PyObject* const* argv,
    Py_ssize_t argc,
    uint32_t threads_per_warp,
    LaunchCall* call) {
  int64_t grid[3] = {0, 0, 0};
  int64_t num_warps = 0;
  int64_t shared = 0;
  if (!parseInt64(argv[1], "grid_x", &grid[0]) ||
      !parseInt64(argv[2], "grid_y", &grid[1]) ||
      !parseInt64(argv[3], "grid_z", &grid[2]) ||
      !parseInt64(argv[4], "num_warps", &num_warps) ||
      !parseInt64(argv[5], "shared", &shared)) {
    return false;
  }
  (void)argc;
  auto geometry = computeLaunchGeometry(
      grid[0], grid[1], grid[2], num_warps, threads_per_warp);
  if (!geometry) {
    raiseError(PyExc_ValueError, geometry.error());
    return false;
  }
  if (shared < 0 || shared > static_cast<int64_t>(UINT32_MAX)) {
    raise(
        PyExc_ValueError,
        "shared = " + std::to_string(shared) +
            " must be in [0, 2**32) bytes of shared local memory");
    return false;
  }
  if (!PyTuple_Check(argv[7])) {
    raise(
        PyExc_TypeError,
        std::string("args must be a tuple, got ") + typeName(argv[7]));
    return false;
  }
  if (!parseHandle(argv[8], "stream", &call->stream)) {
    return false;
  }
  call->function = argv[0];
  call->geometry = *geometry;
  call->shared_bytes = static_cast<uint32_t>(shared);
  call->arg_types = argv[6];
  call->args = argv[7];
  return true;
}

// The plan for this call's arg_types, cached by the identity of the str
// object Inductor passes on every launch (it holds a reference, so the
// identity stays valid).
struct PlanCache {
  PyObject* arg_types = nullptr; // strong reference
  const ArgPlan* plan = nullptr;

  void clear() {
    Py_CLEAR(arg_types);
    plan = nullptr;
  }
};

// `compile(std::string_view) -> Expected<const ArgPlan*>`.
template <typename Compile>
const ArgPlan* planForCall(
    PlanCache& cache,
    PyObject* arg_types,
    PyObject* args,
    const Compile& compile) {
  const ArgPlan* plan = cache.plan;
  if (arg_types != cache.arg_types) {
    if (!PyUnicode_Check(arg_types)) {
      return raise(
          PyExc_TypeError,
          std::string("arg_types must be a str, got ") + typeName(arg_types));
    }
    Py_ssize_t length = 0;
    const char* text = PyUnicode_AsUTF8AndSize(arg_types, &length);
    if (text == nullptr) {
      return nullptr;
    }
    auto compiled =
        compile(std::string_view(text, static_cast<size_t>(length)));
    if (!compiled) {
      return raiseError(PyExc_ValueError, compiled.error());
    }
    plan = *compiled;
    PyObject* previous = cache.arg_types;
    Py_INCREF(arg_types);
    cache.arg_types = arg_types;
    cache.plan = plan;
    Py_XDECREF(previous);
  }
  const Py_ssize_t passed = PyTuple_GET_SIZE(args);
  if (static_cast<size_t>(passed) != plan->args.size()) {
    return raise(
        PyExc_ValueError,
        "args has " + std::to_string(passed) + " values but arg_types '" +
            plan->type_codes + "' has " + std::to_string(plan->args.size()) +
            "; pass one value per type code");
  }
  return plan;
}

enum class Prepared { kError, kEmptyGrid, kReady };

// Everything _launch_kernel does before the backend's launch, after the
// caller found `kernel` and `cache` from args[0]: argument count, parsing,
// geometry, the plan for arg_types, and packing `args` into `storage`
// (pointer arguments checked in the kernel's context). kEmptyGrid: a zero
// grid dimension, nothing to launch and no error.
inline Prepared prepareLaunch(
    PyObject* const* argv,
    Py_ssize_t argc,
    LoadedKernel& kernel,
    PlanCache& cache,
    LaunchCall* call,
    const ArgPlan** plan) {
  if (!parseLaunchCall(argv, argc, kernel.threadsPerWarp(), call)) {
    return Prepared::kError;
  }
  if (call->geometry.empty()) {
    return Prepared::kEmptyGrid;
  }
  *plan = planForCall(
      cache, call->arg_types, call->args, [&kernel](std::string_view codes) {
        return kernel.planFor(codes);
      });
  return *plan == nullptr ? Prepared::kError : Prepared::kReady;
}

inline bool packLaunchArgs(
    const LaunchCall& call,
    const ArgPlan& plan,
    const LoadedKernel& kernel,
    ArgStorage& storage) {
  return packArgs(
      call.args, plan, storage, [&kernel](size_t index, uint64_t address) {
        return kernel.checkPointer(index, address);
      });
}

// The argument count check both launchers start with.
inline bool checkLaunchArgCount(Py_ssize_t argc) {
  if (argc == kLaunchArgCount) {
    return true;
  }
  raise(
      PyExc_TypeError,
      "_launch_kernel takes 9 arguments (function, grid_x, grid_y, grid_z, "
      "num_warps, shared, arg_types, args, stream), got " +
          std::to_string(argc));
  return false;
}

} // namespace python
} // namespace launcher
} // namespace xsl
