#pragma once

// The CPython half of _launch_kernel/_load_kernel, shared by the standalone
// extension (csrc/python/launcher_module.cpp) and the PyTorch glue
// (csrc/pytorch/xpu.cpp) so both convert and reject Python values the same
// way. Header-only and not part of the xsl_launcher library (which has no
// Python); include <Python.h> (or torch/csrc/python_headers.h) first.
//
// Errors: TypeError for a value of the wrong kind (None for a scalar, a float
// for an int, a wrong capsule), OverflowError for a scalar where Triton-XPU's
// own launcher raises it (an int outside the C type its code is read with, a
// float beyond float16), ValueError for other bad values (a bool parameter
// given 2, unknown type code, argument count, negative grid), RuntimeError
// for driver and file failures. Every message names the argument.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "common/expected.h"
#include "launcher/arg_plan.h"
#include "launcher/geometry.h"
#include "launcher/loaded_kernel.h"
#include "launcher/native_binary_cache.h"
#include "launcher/triton_metadata.h"
#include "python/abi/cpython.h"

// The launch path is split into small inline fast paths (exact ints, None,
// floats) and out-of-line checked paths, so the fast paths do not pay the
// register saves and stack frames of the error-reporting code.
#if defined(_MSC_VER)
#define XSL_BRIDGE_NOINLINE __declspec(noinline)
#else
#define XSL_BRIDGE_NOINLINE __attribute__((noinline))
#endif

namespace xsl {
namespace launcher {
namespace python {

using xsl::python::deleteCapsuleContents;
using xsl::python::raise;

inline std::nullptr_t raiseError(PyObject* type, const Error& error) {
  return raise(type, error.message());
}

// The limited API (abi3 builds, csrc/python/sycl_launcher_module.cpp) has
// neither the type struct nor the macros that read tuples and floats in
// place; its functions do the same with a check.
#if defined(Py_LIMITED_API)
inline std::string typeName(PyObject* obj) {
  PyObject* name = PyObject_GetAttrString(
      reinterpret_cast<PyObject*>(Py_TYPE(obj)), "__qualname__");
  const char* text =
      name != nullptr ? PyUnicode_AsUTF8AndSize(name, nullptr) : nullptr;
  std::string result = text != nullptr ? text : "object";
  Py_XDECREF(name);
  PyErr_Clear();
  return result;
}
#define XSL_TUPLE_ITEM(tuple, i) PyTuple_GetItem(tuple, i)
#define XSL_TUPLE_SIZE(tuple) PyTuple_Size(tuple)
#define XSL_FLOAT_VALUE(obj) PyFloat_AsDouble(obj)
#else
inline const char* typeName(PyObject* obj) {
  return Py_TYPE(obj)->tp_name;
}
#define XSL_TUPLE_ITEM(tuple, i) PyTuple_GET_ITEM(tuple, i)
#define XSL_TUPLE_SIZE(tuple) PyTuple_GET_SIZE(tuple)
#define XSL_FLOAT_VALUE(obj) PyFloat_AS_DOUBLE(obj)
#endif

// The launch hot path: an exact Python int that fits in int64. An exact int
// converts without error (only overflow), so no PyErr_Occurred check; every
// other object (subclasses, __index__, None, big ints) returns false and
// takes the caller's checked path.
inline bool exactInt64(PyObject* obj, int64_t* out) {
  if (!PyLong_CheckExact(obj)) {
    return false;
  }
  int overflow = 0;
  const long long value = PyLong_AsLongLongAndOverflow(obj, &overflow);
  *out = static_cast<int64_t>(value);
  return overflow == 0;
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

inline bool parseInt64(PyObject* obj, const char* what, int64_t* out);

// parseInt64 for everything but an exact int that fits.
XSL_BRIDGE_NOINLINE inline bool parseInt64Checked(
    PyObject* obj,
    const char* what,
    int64_t* out) {
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

// An int parameter of the launcher call (grid, num_warps, shared, device).
inline bool parseInt64(PyObject* obj, const char* what, int64_t* out) {
  return exactInt64(obj, out) || parseInt64Checked(obj, what, out);
}

// A raw handle (stream, address): a non-negative int below 2^64.
XSL_BRIDGE_NOINLINE inline bool parseHandleChecked(
    PyObject* obj,
    const char* what,
    uint64_t* out) {
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

inline bool parseHandle(PyObject* obj, const char* what, uint64_t* out) {
  int64_t value = 0;
  if (exactInt64(obj, &value) && value >= 0) {
    *out = static_cast<uint64_t>(value);
    return true;
  }
  return parseHandleChecked(obj, what, out);
}

inline bool packInteger(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot);

// The Python exception a failed conversion maps to.
inline PyObject* packErrorType(PackErrorKind kind) {
  switch (kind) {
    case PackErrorKind::kType:
      return PyExc_TypeError;
    case PackErrorKind::kOverflow:
      return PyExc_OverflowError;
    case PackErrorKind::kValue:
      break;
  }
  return PyExc_ValueError;
}

// Raises the Python exception a failed conversion maps to.
XSL_BRIDGE_NOINLINE inline bool raisePackError(const PackStatus& status) {
  raiseError(packErrorType(status.kind()), status.error());
  return false;
}

// Raises "<argument>: expected <what>, got <obj's type>" as a TypeError.
XSL_BRIDGE_NOINLINE inline bool raiseExpected(
    size_t index,
    ArgType type,
    const char* what,
    PyObject* obj) {
  raise(
      PyExc_TypeError,
      argumentLabel(index, type) + ": expected " + what + ", got " +
          typeName(obj));
  return false;
}

// packInteger for int-likes, big ints, and values outside the plan's
// store-unchanged range (wrapped or refused as arg_plan.h describes).
XSL_BRIDGE_NOINLINE inline bool packIntegerChecked(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot) {
  if (!PyLong_Check(obj)) {
    if (obj == Py_None || PyFloat_Check(obj) || !PyIndex_Check(obj)) {
      return raiseExpected(index, arg.type, "an int", obj);
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
  PackStatus status;
  if (overflow == 0) {
    if (value == -1 && PyErr_Occurred()) {
      return false;
    }
    status = packSignedValue(arg, index, static_cast<int64_t>(value), slot);
  } else {
    unsigned long long big = 0;
    if (overflow > 0) {
      big = PyLong_AsUnsignedLongLong(obj);
    }
    if (overflow < 0 ||
        (big == static_cast<unsigned long long>(-1) && PyErr_Occurred())) {
      PyErr_Clear();
      // str() refuses ints beyond sys.get_int_max_str_digits().
      PyObject* text = PyObject_Str(obj);
      const char* utf8 =
          text != nullptr ? PyUnicode_AsUTF8AndSize(text, nullptr) : nullptr;
      if (utf8 == nullptr) {
        PyErr_Clear();
      }
      status = integerTooWide(
          arg,
          index,
          utf8 != nullptr
              ? utf8
              : (overflow < 0 ? "a huge negative int" : "a huge int"));
      Py_XDECREF(text);
    } else {
      status = packUnsignedValue(arg, index, static_cast<uint64_t>(big), slot);
    }
  }
  return status.ok() || raisePackError(status);
}

inline bool packInteger(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot) {
  int64_t value = 0;
  if (exactInt64(obj, &value) && value >= arg.min_value &&
      value <= arg.max_value) {
    const uint64_t bits = lowBytes(static_cast<uint64_t>(value), arg.size);
    std::memcpy(slot, &bits, sizeof(bits));
    return true;
  }
  return packIntegerChecked(obj, arg, index, slot);
}

// float16 bits from the running CPython's PyFloat_Pack2, which Triton-XPU's
// launcher and torch's unpackTritonFp16 call. Used for NaN only: for every
// other double it gives what doubleToHalfBits gives, but its NaN rules
// changed in CPython 3.14 (sign, quiet bit and payload kept).
XSL_BRIDGE_NOINLINE inline bool pythonHalfNanBits(double value, void* slot) {
  unsigned char bytes[2] = {0, 0};
#if defined(Py_LIMITED_API)
  // struct's 'e' format packs with PyFloat_Pack2.
  PyObject* module = PyImport_ImportModule("struct");
  PyObject* packed = module != nullptr
      ? PyObject_CallMethod(module, "pack", "sd", "<e", value)
      : nullptr;
  Py_XDECREF(module);
  char* data = nullptr;
  Py_ssize_t length = 0;
  const int status = packed != nullptr &&
          PyBytes_AsStringAndSize(packed, &data, &length) == 0 && length == 2
      ? 0
      : -1;
  if (status == 0) {
    std::memcpy(bytes, data, 2);
  }
  Py_XDECREF(packed);
#elif PY_VERSION_HEX >= 0x030B0000
  const int status = PyFloat_Pack2(value, reinterpret_cast<char*>(bytes), 1);
#else
  const int status = _PyFloat_Pack2(value, bytes, 1);
#endif
  if (status < 0) {
    return false;
  }
  const uint64_t bits =
      static_cast<uint64_t>(bytes[0]) | (static_cast<uint64_t>(bytes[1]) << 8);
  std::memcpy(slot, &bits, sizeof(bits));
  return true;
}

// Converts `value` by `arg`; raises on float16 overflow.
inline bool packDouble(
    const PlannedArg& arg,
    size_t index,
    double value,
    void* slot) {
  const PackStatus status = packFloatingValue(arg, index, value, slot);
  if (!status) {
    return raisePackError(status);
  }
  if (arg.type == ArgType::kFloat16 && value != value) {
    return pythonHalfNanBits(value, slot);
  }
  return true;
}

XSL_BRIDGE_NOINLINE inline bool packFloatingChecked(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot) {
  // Float subclasses, ints, objects with __float__; None fails here too.
  const double value = PyFloat_AsDouble(obj);
  if (value == -1.0 && PyErr_Occurred()) {
    if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
      PyErr_Clear();
      raise(
          PyExc_OverflowError,
          argumentLabel(index, arg.type) +
              ": the int is too large for a float (Triton's launcher raises "
              "OverflowError too); pass a float");
      return false;
    }
    PyErr_Clear();
    return raiseExpected(index, arg.type, "a float", obj);
  }
  return packDouble(arg, index, value, slot);
}

inline bool packFloating(
    PyObject* obj,
    const PlannedArg& arg,
    size_t index,
    void* slot) {
  if (PyFloat_CheckExact(obj)) {
    return packDouble(arg, index, XSL_FLOAT_VALUE(obj), slot);
  }
  return packFloatingChecked(obj, arg, index, slot);
}

// Reads a tensor's address without calling its data_ptr() method. The
// PyTorch glue installs one when its module initializes
// (pytorch/tensor_address.h); the standalone extension, which has no
// libtorch, leaves it null. False sends the object through data_ptr().
using TensorAddressReader = bool (*)(PyObject* obj, uint64_t* address);
inline TensorAddressReader tensor_address_reader = nullptr;

inline bool pointerValue(PyObject* obj, size_t index, uint64_t* address);

// pointerValue for int subclasses, big ints, and tensors (data_ptr()).
XSL_BRIDGE_NOINLINE inline bool pointerValueChecked(
    PyObject* obj,
    size_t index,
    uint64_t* address) {
  if (PyLong_Check(obj)) {
    if (!unsignedValue(obj, address)) {
      raise(
          PyExc_ValueError,
          argumentLabel(index, ArgType::kPointer) +
              ": an int address must be in [0, 2**64)");
      return false;
    }
    return true;
  }
  if (tensor_address_reader != nullptr && tensor_address_reader(obj, address)) {
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
      raiseExpected(
          index,
          ArgType::kPointer,
          "a tensor (an object with data_ptr()), an int address or None",
          obj);
    }
    return false;
  }
  if (!PyLong_Check(result)) {
    raise(
        PyExc_TypeError,
        argumentLabel(index, ArgType::kPointer) + ": data_ptr() returned " +
            typeName(result) + ", not an int");
    Py_DECREF(result);
    return false;
  }
  const bool ok = pointerValue(result, index, address);
  Py_DECREF(result);
  return ok;
}

// int, None (null), or an object with data_ptr() (a tensor).
inline bool pointerValue(PyObject* obj, size_t index, uint64_t* address) {
  if (obj == Py_None) {
    *address = 0;
    return true;
  }
  int64_t value = 0;
  if (exactInt64(obj, &value) && value >= 0) {
    *address = static_cast<uint64_t>(value);
    return true;
  }
  return pointerValueChecked(obj, index, address);
}

// Converts every value of `args` (a tuple) into `storage` by `plan`.
// Pointers are not validated here (checkPointerArgs). Out of line: inlined
// into the launch function, the loop's state spilled to the stack.
XSL_BRIDGE_NOINLINE inline bool packArgValues(
    PyObject* args,
    const ArgPlan& plan,
    ArgStorage& storage) {
  const size_t count = plan.args.size();
  const PlannedArg* planned = plan.args.data();
  uint64_t* slots = storage.mutableValues();
  for (size_t i = 0; i < count; ++i) {
    PyObject* obj = XSL_TUPLE_ITEM(args, static_cast<Py_ssize_t>(i));
    const PlannedArg& arg = planned[i];
    uint64_t* slot = &slots[i];
    if (arg.type == ArgType::kPointer) {
      if (!pointerValue(obj, i, slot)) {
        return false;
      }
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

// `check_pointer(index, address)` -> Status on every non-null pointer in
// `storage`; the first failure raises ValueError.
template <typename PointerCheck>
bool checkPointerArgs(
    const ArgPlan& plan,
    const ArgStorage& storage,
    const PointerCheck& check_pointer) {
  const size_t count = plan.args.size();
  const uint64_t* values = storage.values();
  for (size_t i = 0; i < count; ++i) {
    if (plan.args[i].type == ArgType::kPointer && values[i] != 0) {
      Status status = check_pointer(i, values[i]);
      if (!status) {
        raiseError(PyExc_ValueError, status.error());
        return false;
      }
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

// The plan for this call's arg_types, cached by the identity of the str
// object Inductor passes on every launch (it holds a reference, so the
// identity stays valid): saves 4 of 61 ns per 8-argument launch, nothing
// measurable at 64 (bench_launch.py, CPython 3.11).
struct PlanCache {
  PyObject* arg_types = nullptr; // strong reference
  const ArgPlan* plan = nullptr;
  // The last valid geometry and the values it was computed from: a launch
  // loop repeats grid and num_warps, so only the compare is paid. Saves 8
  // of 76 ns per 8-argument launch whose ints are new objects.
  int64_t grid[3] = {0, 0, 0};
  int64_t num_warps = 0;
  uint32_t threads_per_warp = 0; // 0: no geometry cached
  LaunchGeometry geometry;
  // The exact int objects grid_x, grid_y, grid_z, num_warps, shared and
  // stream of the last parsed call (strong references) and what they parsed
  // to. Ints are immutable, so the same objects again mean the same values:
  // a launch loop passing the same objects (small ints are shared by
  // CPython; Inductor passes num_warps/shared from the kernel's metadata)
  // pays six pointer compares instead of six conversions: saves 12 of 68 ns
  // per 8-argument launch.
  PyObject* int_objects[6] =
      {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
  uint32_t shared_bytes = 0;
  uint64_t stream = 0;

  void clearIntObjects() {
    for (PyObject*& object : int_objects) {
      Py_CLEAR(object);
    }
  }
  void clear() {
    Py_CLEAR(arg_types);
    plan = nullptr;
    threads_per_warp = 0;
    clearIntObjects();
  }

  PlanCache() = default;
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;
  // Runs with the GIL held: in the kernel capsule's destructor
  // (deleteCapsuleContents, cpython.h).
  ~PlanCache() {
    clear();
  }
};

// Field by field: GCC -O2 copies the 40-byte struct with `rep movsl`, whose
// start-up latency costs 4 of 61 ns per 8-argument launch (bench_launch.py).
inline void copyGeometry(const LaunchGeometry& from, LaunchGeometry* to) {
  to->group_count_x = from.group_count_x;
  to->group_count_y = from.group_count_y;
  to->group_count_z = from.group_count_z;
  to->group_size_x = from.group_size_x;
  to->global_size_x = from.global_size_x;
  to->global_size_y = from.global_size_y;
  to->global_size_z = from.global_size_z;
}

inline bool checkArgsTuple(PyObject* args) {
  if (PyTuple_Check(args)) {
    return true;
  }
  raise(
      PyExc_TypeError,
      std::string("args must be a tuple, got ") + typeName(args));
  return false;
}

// Keeps the six int objects of a successfully parsed call when all are exact
// ints (a subclass or __index__ object may not be immutable).
XSL_BRIDGE_NOINLINE inline void rememberIntObjects(
    PyObject* const* argv,
    PlanCache& cache,
    const LaunchCall& call) {
  PyObject* const objects[6] = {
      argv[1], argv[2], argv[3], argv[4], argv[5], argv[8]};
  cache.clearIntObjects();
  for (PyObject* object : objects) {
    if (!PyLong_CheckExact(object)) {
      return;
    }
  }
  for (size_t i = 0; i < 6; ++i) {
    Py_INCREF(objects[i]);
    cache.int_objects[i] = objects[i];
  }
  cache.shared_bytes = call.shared_bytes;
  cache.stream = call.stream;
}

// Parses everything but `function` (checked by the caller, which knows its
// capsule name) and `arg_types` (checked against the plan cache). Returns
// false with a Python error set.
inline bool parseLaunchCall(
    PyObject* const* argv,
    Py_ssize_t argc,
    uint32_t threads_per_warp,
    PlanCache& cache,
    LaunchCall* call) {
  PyObject* const* ints = cache.int_objects;
  if (argv[1] == ints[0] && argv[2] == ints[1] && argv[3] == ints[2] &&
      argv[4] == ints[3] && argv[5] == ints[4] && argv[8] == ints[5] &&
      ints[0] != nullptr && cache.threads_per_warp == threads_per_warp) {
    if (!checkArgsTuple(argv[7])) {
      return false;
    }
    call->function = argv[0];
    copyGeometry(cache.geometry, &call->geometry);
    call->shared_bytes = cache.shared_bytes;
    call->arg_types = argv[6];
    call->args = argv[7];
    call->stream = cache.stream;
    return true;
  }
  // The remembered objects stand for cache.geometry, which changes below.
  cache.clearIntObjects();
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
  if (cache.threads_per_warp != threads_per_warp || cache.grid[0] != grid[0] ||
      cache.grid[1] != grid[1] || cache.grid[2] != grid[2] ||
      cache.num_warps != num_warps) {
    auto geometry = computeLaunchGeometry(
        grid[0], grid[1], grid[2], num_warps, threads_per_warp);
    if (!geometry) {
      raiseError(PyExc_ValueError, geometry.error());
      return false;
    }
    cache.geometry = *geometry;
    cache.grid[0] = grid[0];
    cache.grid[1] = grid[1];
    cache.grid[2] = grid[2];
    cache.num_warps = num_warps;
    cache.threads_per_warp = threads_per_warp;
  }
  if (shared < 0 || shared > static_cast<int64_t>(UINT32_MAX)) {
    raise(
        PyExc_ValueError,
        "shared = " + std::to_string(shared) +
            " must be in [0, 2**32) bytes of shared local memory");
    return false;
  }
  if (!checkArgsTuple(argv[7])) {
    return false;
  }
  if (!parseHandle(argv[8], "stream", &call->stream)) {
    return false;
  }
  call->function = argv[0];
  copyGeometry(cache.geometry, &call->geometry);
  call->shared_bytes = static_cast<uint32_t>(shared);
  call->arg_types = argv[6];
  call->args = argv[7];
  rememberIntObjects(argv, cache, *call);
  return true;
}

// `compile(std::string_view) -> Expected<const ArgPlan*>`.
// planForCall for a different arg_types object: compile (or find) its plan
// and remember the object.
template <typename Compile>
XSL_BRIDGE_NOINLINE const ArgPlan* planForNewTypes(
    PlanCache& cache,
    PyObject* arg_types,
    const Compile& compile) {
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
  auto compiled = compile(std::string_view(text, static_cast<size_t>(length)));
  if (!compiled) {
    return raiseError(PyExc_ValueError, compiled.error());
  }
  const ArgPlan* plan = *compiled;
  PyObject* previous = cache.arg_types;
  Py_INCREF(arg_types);
  cache.arg_types = arg_types;
  cache.plan = plan;
  Py_XDECREF(previous);
  return plan;
}

XSL_BRIDGE_NOINLINE inline std::nullptr_t raiseArgCountMismatch(
    Py_ssize_t passed,
    const ArgPlan& plan) {
  return raise(
      PyExc_ValueError,
      "args has " + std::to_string(passed) + " values but arg_types '" +
          plan.type_codes + "' has " + std::to_string(plan.args.size()) +
          "; pass one value per type code");
}

// `compile(std::string_view) -> Expected<const ArgPlan*>`.
template <typename Compile>
inline const ArgPlan* planForCall(
    PlanCache& cache,
    PyObject* arg_types,
    PyObject* args,
    const Compile& compile) {
  const ArgPlan* plan = arg_types == cache.arg_types
      ? cache.plan
      : planForNewTypes(cache, arg_types, compile);
  if (plan == nullptr) {
    return nullptr;
  }
  const Py_ssize_t passed = XSL_TUPLE_SIZE(args);
  if (static_cast<size_t>(passed) != plan->args.size()) {
    return raiseArgCountMismatch(passed, *plan);
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
  if (!parseLaunchCall(argv, argc, kernel.threadsPerWarp(), cache, call)) {
    return Prepared::kError;
  }
  if (call->geometry.empty()) {
    return Prepared::kEmptyGrid;
  }
  *plan = planForCall(
      cache, call->arg_types, call->args, [&kernel](std::string_view codes) {
        return kernel.planFor(codes);
      });
  if (*plan == nullptr) {
    return Prepared::kError;
  }
  if ((*plan)->binds_shared_memory && call->shared_bytes == 0) {
    raise(
        PyExc_ValueError,
        "kernel '" + kernel.name() +
            "' takes a dynamic shared memory argument but shared is 0; pass "
            "the kernel's metadata.shared");
    return Prepared::kError;
  }
  return Prepared::kReady;
}

// Packs `args` into `storage` and checks its pointers in the kernel's
// context. `held` (optional) tells whether the kernel's Level Zero handle
// already holds exactly these argument bytes.
inline bool packLaunchArgs(
    const LaunchCall& call,
    const ArgPlan& plan,
    const LoadedKernel& kernel,
    ArgStorage& storage,
    bool* held = nullptr) {
  if (!packArgValues(call.args, plan, storage)) {
    return false;
  }
  // Arguments the kernel handle already holds were checked when they were
  // set: a launch repeating all of them skips the pointer checks.
  const bool holds = kernel.holdsArgs(plan, storage);
  if (held != nullptr) {
    *held = holds;
  }
  if (holds) {
    return true;
  }
  return checkPointerArgs(
      plan, storage, [&kernel](size_t index, uint64_t address) {
        return kernel.checkPointer(index, address);
      });
}

// What _load_kernel returns, (function, n_regs, n_spills): `held` goes into
// a capsule named `name` that deletes it; the capsule's context points at
// it too, for the launch's read without a name compare. "N" hands the
// capsule reference to the tuple (upstream's "O" leaked it).
template <typename Held>
PyObject* loadResult(
    std::unique_ptr<Held> held,
    const char* name,
    long long n_regs,
    long long n_spills) {
  PyObject* capsule =
      PyCapsule_New(held.get(), name, deleteCapsuleContents<Held>);
  if (capsule == nullptr) {
    return nullptr;
  }
  Held* owned = held.release(); // the capsule owns it now
  if (PyCapsule_SetContext(capsule, owned) < 0) {
    Py_DECREF(capsule); // which deletes `owned`
    return nullptr;
  }
  return Py_BuildValue("(NLL)", capsule, n_regs, n_spills);
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

// A str (or os.PathLike for paths) as UTF-8, with no NUL character (the C
// APIs below would stop at it and name another file or kernel).
inline bool parseStr(PyObject* obj, const char* what, std::string* out) {
  PyObject* text = obj;
  PyObject* converted = nullptr;
  if (!PyUnicode_Check(obj)) {
    converted = PyOS_FSPath(obj);
    if (converted == nullptr || !PyUnicode_Check(converted)) {
      Py_XDECREF(converted);
      PyErr_Clear();
      raise(
          PyExc_TypeError,
          std::string(what) + " must be a str, got " + typeName(obj));
      return false;
    }
    text = converted;
  }
  Py_ssize_t length = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(text, &length);
  if (utf8 != nullptr) {
    out->assign(utf8, static_cast<size_t>(length));
  }
  Py_XDECREF(converted);
  if (utf8 == nullptr) {
    return false;
  }
  const size_t nul = out->find('\0');
  if (nul != std::string::npos) {
    raise(
        PyExc_ValueError,
        std::string(what) + " '" + out->substr(0, nul) +
            "...' contains a NUL character at index " + std::to_string(nul) +
            ": pass it without one");
    return false;
  }
  return true;
}

// _load_kernel(path, name, shared_mem_bytes, device[, build_flags]):
// build_flags is Triton's metadata.build_flags (a str, or None for the
// four-argument ABI).
struct LoadArgs {
  std::string path;
  std::string name;
  int64_t device = 0;
  LoadOptions options; // shared_mem_bytes in options.shared_bytes
};

inline bool parseLoadArgs(PyObject* args, LoadArgs* out) {
  PyObject* path = nullptr;
  PyObject* name = nullptr;
  PyObject* shared = nullptr;
  PyObject* device = nullptr;
  PyObject* flags = Py_None;
  if (!PyArg_UnpackTuple(
          args, "_load_kernel", 4, 5, &path, &name, &shared, &device, &flags)) {
    return false;
  }
  int64_t shared_bytes = 0;
  if (!parseStr(path, "path", &out->path) ||
      !parseStr(name, "name", &out->name) ||
      !parseInt64(shared, "shared_mem_bytes", &shared_bytes) ||
      !parseInt64(device, "device", &out->device)) {
    return false;
  }
  if (shared_bytes < 0 || shared_bytes > static_cast<int64_t>(UINT32_MAX)) {
    raise(
        PyExc_ValueError,
        "shared_mem_bytes = " + std::to_string(shared_bytes) +
            " must be in [0, 2**32)");
    return false;
  }
  out->options.shared_bytes = static_cast<uint64_t>(shared_bytes);
  if (flags != Py_None) {
    std::string text;
    if (!parseStr(flags, "build_flags", &text)) {
      return false;
    }
    out->options.build_flags = std::move(text);
  }
  return true;
}

// One RuntimeWarning per thing a load had to say without failing; false
// when a warnings filter turned one into an error (then set).
inline bool warnLoad(const LoadedKernel& kernel) {
  for (const std::string& warning : kernel.loadWarnings()) {
    if (PyErr_WarnEx(PyExc_RuntimeWarning, warning.c_str(), 1) < 0) {
      return false;
    }
  }
  return true;
}

// Module functions every launcher module has:
//   _set_triton_version(version) -> rule: report n_regs/n_spills as that
//       Triton-XPU release does ("bytes" or "per-lane");
//   _triton_metadata_rule() -> rule;
//   _kernel_cache_info() -> dict; _kernel_cache_clear() -> entries removed.
inline PyObject* setTritonVersion(PyObject* /*module*/, PyObject* arg) {
  std::string version;
  if (!parseStr(arg, "version", &version)) {
    return nullptr;
  }
  Expected<TritonRelease> release = tritonReleaseFor(version);
  if (!release) {
    return raiseError(PyExc_ValueError, release.error());
  }
  setTritonRelease(*release);
  return PyUnicode_FromString(tritonMetadataRuleName(release->rule));
}

inline PyObject* tritonMetadataRuleNow(
    PyObject* /*module*/,
    PyObject* /*unused*/) {
  return PyUnicode_FromString(tritonMetadataRuleName(tritonMetadataRule()));
}

inline PyObject* kernelCacheInfo(PyObject* /*module*/, PyObject* /*unused*/) {
  const NativeBinaryCache& cache = NativeBinaryCache::process();
  const NativeBinaryCache::Settings& settings = cache.settings();
  unsigned long long entries = 0;
  unsigned long long bytes = 0;
  if (cache.enabled()) {
    Expected<NativeBinaryCache::Usage> usage = cache.usage();
    if (!usage) {
      return raiseError(PyExc_OSError, usage.error());
    }
    entries = usage->entries;
    bytes = usage->bytes;
  }
  return Py_BuildValue(
      "{s:O,s:s,s:K,s:K,s:K,s:s}",
      "enabled",
      cache.enabled() ? Py_True : Py_False,
      "folder",
      settings.folder.c_str(),
      "max_bytes",
      static_cast<unsigned long long>(settings.max_bytes),
      "entries",
      entries,
      "bytes",
      bytes,
      "disabled_why",
      settings.disabled_why.c_str());
}

inline PyObject* kernelCacheClear(PyObject* /*module*/, PyObject* /*unused*/) {
  const NativeBinaryCache& cache = NativeBinaryCache::process();
  if (!cache.enabled()) {
    return PyLong_FromLong(0);
  }
  Expected<uint64_t> removed = cache.clear();
  if (!removed) {
    return raiseError(PyExc_OSError, removed.error());
  }
  return PyLong_FromUnsignedLongLong(static_cast<unsigned long long>(*removed));
}

// clang-format off
#define XSL_BRIDGE_MODULE_METHODS                                             \
  {"_set_triton_version", ::xsl::launcher::python::setTritonVersion, METH_O, \
   "_set_triton_version(version) -> rule: report n_regs and n_spills as "     \
   "that Triton-XPU release does ('bytes' before 3.9, 'per-lane' from 3.9)"}, \
  {"_triton_metadata_rule", ::xsl::launcher::python::tritonMetadataRuleNow,   \
   METH_NOARGS, "_triton_metadata_rule() -> 'bytes' or 'per-lane'"},          \
  {"_kernel_cache_info", ::xsl::launcher::python::kernelCacheInfo,            \
   METH_NOARGS,                                                               \
   "_kernel_cache_info() -> dict: the kept native binaries (enabled, "        \
   "folder, max_bytes, entries, bytes, disabled_why)"},                       \
  {"_kernel_cache_clear", ::xsl::launcher::python::kernelCacheClear,          \
   METH_NOARGS, "_kernel_cache_clear() -> int: remove every kept native binary"}
// clang-format on

} // namespace python
} // namespace launcher
} // namespace xsl
