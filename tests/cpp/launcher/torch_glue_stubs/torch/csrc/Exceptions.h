#pragma once
// Compile-check stand-in for <torch/csrc/Exceptions.h>.
#include <torch/csrc/python_headers.h>
#include <exception>

#define HANDLE_TH_ERRORS try {
#define END_HANDLE_TH_ERRORS                       \
  }                                                \
  catch (const std::exception& e) {                \
    PyErr_SetString(PyExc_RuntimeError, e.what()); \
    return nullptr;                                \
  }
