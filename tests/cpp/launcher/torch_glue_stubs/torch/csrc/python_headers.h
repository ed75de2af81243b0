#pragma once
// Compile-check stand-in for <torch/csrc/python_headers.h>.
#define PY_SSIZE_T_CLEAN
#include <Python.h>
