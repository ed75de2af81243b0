#pragma once

// Small CPython helpers every extension module here uses (the limited API
// has all they call). Include <Python.h> first.

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <string_view>
#include <utility>

namespace xsl {
namespace python {

// Raises `type` with `message`. The message is passed with its length, so
// text after a NUL byte (from a caller's path or kernel name) is not cut
// off; invalid UTF-8 is escaped. Returns nullptr, for `return raise(...)`.
inline std::nullptr_t raise(PyObject* type, std::string_view message) {
  PyObject* value = PyUnicode_DecodeUTF8(
      message.data(),
      static_cast<Py_ssize_t>(message.size()),
      "backslashreplace");
  if (value == nullptr) {
    return nullptr; // the decoding error is set
  }
  PyErr_SetObject(type, value);
  Py_DECREF(value);
  return nullptr;
}

// A str of text read from a binary or a driver, which may not be UTF-8:
// such bytes are replaced rather than refused. A new reference, or nullptr.
inline PyObject* text(std::string_view utf8) {
  return PyUnicode_DecodeUTF8(
      utf8.data(), static_cast<Py_ssize_t>(utf8.size()), "replace");
}

// A function taking other arguments than PyCFunction's (METH_FASTCALL) as a
// method table's PyCFunction: CPython calls it back with its own type. The
// cast goes through void(*)(void), which compilers accept without warning.
template <typename Function>
PyCFunction methodFunction(Function* function) {
  return reinterpret_cast<PyCFunction>(
      reinterpret_cast<void (*)(void)>(function));
}

// Owns a new reference; releases it unless released to the caller.
class PyRef {
 public:
  explicit PyRef(PyObject* object = nullptr) : object_(object) {}
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() {
    Py_XDECREF(object_);
  }
  PyObject* get() const {
    return object_;
  }
  PyObject* release() {
    PyObject* object = object_;
    object_ = nullptr;
    return object;
  }
  explicit operator bool() const {
    return object_ != nullptr;
  }

 private:
  PyObject* object_;
};

// The destructor of a capsule that holds a `Held` (set only on those).
template <typename Held>
void deleteCapsuleContents(PyObject* capsule) {
  delete static_cast<Held*>(
      PyCapsule_GetPointer(capsule, PyCapsule_GetName(capsule)));
}

// [to_entry(item) for item in items], each entry a new reference; nullptr
// (with the exception set) on failure.
template <typename Items, typename ToEntry>
PyObject* listOf(const Items& items, ToEntry to_entry) {
  PyRef list(PyList_New(static_cast<Py_ssize_t>(std::size(items))));
  if (!list) {
    return nullptr;
  }
  Py_ssize_t index = 0;
  for (const auto& item : items) {
    PyObject* entry = to_entry(item);
    if (entry == nullptr || PyList_SetItem(list.get(), index++, entry) < 0) {
      return nullptr;
    }
  }
  return list.release();
}

// {key: value, ...}, consuming every value: each a new reference, or
// nullptr with its exception set. nullptr, with the exception set, on failure.
// The values are made before the call, so after one fails (MemoryError only)
// the later ones are still made with that error pending; all are released.
inline PyObject* dictOf(
    std::initializer_list<std::pair<const char*, PyObject*>> items) {
  PyRef dict(PyDict_New());
  bool ok = static_cast<bool>(dict);
  for (const auto& [key, value] : items) {
    const PyRef owned(value);
    ok = ok && value != nullptr &&
        PyDict_SetItemString(dict.get(), key, value) == 0;
  }
  return ok ? dict.release() : nullptr;
}

} // namespace python
} // namespace xsl
