# torch as the target Python environment has it (for the PyTorch glue's test
# build, tests/torch_glue), and the package's SYCL backend, built from the
# SYCL runtime alone (cmake/SyclRuntime.cmake).
#
# xsl_locate_torch() runs scripts/find_torch.py with the build's Python and
# sets, in the caller's scope (the first three empty when torch is absent):
#   XSL_TORCH_VERSION     the installed release (e.g. 2.13.0)
#   XSL_TORCH_INCLUDE     its include dir (torch/include)
#   XSL_TORCH_LIB         its lib dir
#   XSL_TORCH_GENERATED   folder with the one header a torch build generates
#                         (c10/xpu/impl/xpu_cmake_macros.h), for CPU wheels
#                         that do not ship it; put it after XSL_TORCH_INCLUDE
function(xsl_locate_torch)
  foreach(var VERSION INCLUDE LIB)
    set(XSL_TORCH_${var} "" PARENT_SCOPE)
  endforeach()
  set(generated "${PROJECT_BINARY_DIR}/torch_generated")
  file(WRITE "${generated}/c10/xpu/impl/xpu_cmake_macros.h"
       "#pragma once\n#define C10_XPU_BUILD_SHARED_LIBS\n")
  set(XSL_TORCH_GENERATED "${generated}" PARENT_SCOPE)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/find_torch.py" --cmake
    OUTPUT_VARIABLE found ERROR_VARIABLE why RESULT_VARIABLE status
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT status EQUAL 0)
    message(STATUS "torch not found: ${why}")
    return()
  endif()
  string(REPLACE "\n" ";" lines "${found}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^(XSL_TORCH_[A-Z]+)=(.*)$")
      set(${CMAKE_MATCH_1} "${CMAKE_MATCH_2}" PARENT_SCOPE)
    endif()
  endforeach()
endfunction()

# The torch libraries the glue links, by their names in the wheel.
function(xsl_torch_libraries out torch_lib)
  set(libraries "")
  foreach(name torch_python torch torch_cpu c10)
    find_library(_xsl_lib_${name} NAMES ${name} PATHS "${torch_lib}" NO_DEFAULT_PATH)
    if(NOT _xsl_lib_${name})
      set(${out} "" PARENT_SCOPE)
      return()
    endif()
    list(APPEND libraries "${_xsl_lib_${name}}")
  endforeach()
  set(${out} "${libraries}" PARENT_SCOPE)
endfunction()

# A target that builds against torch and SYCL as the glue does: C++20 (what
# torch >= 2.13 needs), torch's headers as system includes, USE_XPU, and the
# torch and libsycl folders as the build-tree run path.
function(xsl_torch_sycl_settings target)
  set_target_properties(${target} PROPERTIES
    CXX_STANDARD 20 BUILD_RPATH "${XSL_TORCH_LIB};${XSL_SYCL_LIBRARY_DIR}")
  target_include_directories(${target} SYSTEM PRIVATE
    "${XSL_TORCH_INCLUDE}" "${XSL_TORCH_INCLUDE}/torch/csrc/api/include"
    "${XSL_TORCH_GENERATED}")
  target_compile_definitions(${target} PRIVATE
    USE_XPU SYCL_DISABLE_FSYCL_SYCLHPP_WARNING)
endfunction()

# The same, for the project's own sources: with the project's warnings.
function(xsl_torch_sycl_target target)
  xsl_torch_sycl_settings(${target})
  xsl_set_warnings(${target})
endfunction()

# The package's torch-free SYCL backend (csrc/python/sycl_launcher_module.cpp):
# the glue's launch (csrc/sycl_launch) with torch's devices and context found
# on the SYCL runtime. It links Python and libsycl only, so one build serves
# every torch on that libsycl major; it is named for that major,
# _sycl_launcher_sycl<N>, so one wheel can carry one per major (the Python
# module _sycl_launcher imports the one for the libsycl torch loaded).
# XSL_SYCL_BACKEND_ABI3: built for Python's limited API 3.10 (abi3), one
# module for every CPython >= 3.10. Off: tests/bench/bench_backend_launch.py
# measured its launch 1.10-1.13x the full API's on adapter v2 (data_ptr() through
# PyObject_CallFunctionObjArgs instead of a vectorcall), beyond the 10% the
# project allows; and _launcher, _zebin, _compile are full-API anyway.
option(XSL_SYCL_BACKEND_ABI3 "Build the SYCL backend for Python's limited API (abi3, CPython >= 3.10)" OFF)

# Compile settings of a backend module named `module` (abi3: ON/OFF).
function(xsl_sycl_backend_settings target module abi3)
  target_compile_definitions(${target} PRIVATE XSL_SYCL_BACKEND_MODULE=${module})
  if(abi3)
    # 3.10: METH_FASTCALL and PyUnicode_AsUTF8AndSize are in the limited API.
    target_compile_definitions(${target} PRIVATE Py_LIMITED_API=0x030A0000)
    if(NOT WIN32)
      set_target_properties(${target} PROPERTIES SUFFIX ".abi3.so")
    endif()
  endif()
endfunction()

function(xsl_add_sycl_backend)
  if(NOT TARGET xsl_sycl_launch)
    return() # SyclRuntime.cmake said why
  endif()
  set(module _sycl_launcher_sycl${XSL_SYCL_MAJOR})
  # Older build trees hold the backend as a compiled _sycl_launcher, which
  # Python would import instead of _sycl_launcher.py: removed.
  file(GLOB stale "${XSL_PYTHON_PACKAGE_DIR}/_sycl_launcher.*.so"
                  "${XSL_PYTHON_PACKAGE_DIR}/_sycl_launcher.*.pyd"
                  "${XSL_PYTHON_PACKAGE_DIR}/_sycl_launcher.pyd")
  if(stale)
    file(REMOVE ${stale})
  endif()
  xsl_add_python_extension(${module} SOURCES sycl_launcher_module.cpp LIBS xsl_sycl_launch)
  xsl_sycl_backend_settings(${module} ${module} ${XSL_SYCL_BACKEND_ABI3})
  # One target name whatever the major (dev.sh, the tests' builds).
  add_custom_target(_sycl_launcher DEPENDS ${module})
  message(STATUS "SYCL backend (${module}): libsycl major ${XSL_SYCL_MAJOR}, "
                 "abi3 ${XSL_SYCL_BACKEND_ABI3}, no torch")
endfunction()
