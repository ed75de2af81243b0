# The PyTorch glue (csrc/torch_glue/xpu.cpp), unchanged, compiled as C++20
# (what torch >= 2.13 builds with) against real headers: each torch include
# tree tests/torch_glue/torch_headers.py finds (the installed wheel and trees
# it fetched into build/torch-headers) and the SYCL headers of the installed
# intel-sycl-rt. torch and SYCL are system includes, so -Werror judges only
# the project's code.

function(xsl_add_torch_glue_checks)
  set(fetched_root "${PROJECT_SOURCE_DIR}/build/torch-headers")
  execute_process(
    COMMAND "${Python_EXECUTABLE}"
            "${PROJECT_SOURCE_DIR}/tests/torch_glue/torch_headers.py"
            locate --fetched-root "${fetched_root}"
    OUTPUT_VARIABLE found
    RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(WARNING "torch_headers.py locate failed: glue checks skipped")
    return()
  endif()
  string(REPLACE "\n" ";" lines "${found}")
  set(sycl_include "")
  set(torch_trees "")
  set(runtime "")
  foreach(line IN LISTS lines)
    if(line MATCHES "^runtime ([^ ]+) (.+)$")
      set(runtime "${CMAKE_MATCH_1}|${CMAKE_MATCH_2}")
    elseif(line MATCHES "^sycl (.+)$")
      set(sycl_include "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^torch ([^ ]+) (.+)$")
      list(APPEND torch_trees "${CMAKE_MATCH_1}|${CMAKE_MATCH_2}")
    endif()
  endforeach()
  if(sycl_include STREQUAL "" OR torch_trees STREQUAL "")
    message(STATUS "PyTorch glue checks skipped: needs torch and intel-sycl-rt "
                   "(bash scripts/dev.sh setup installs both)")
    return()
  endif()

  # The one header a torch build generates; what a USE_XPU build writes.
  set(generated "${CMAKE_CURRENT_BINARY_DIR}/torch_generated")
  file(WRITE "${generated}/c10/xpu/impl/xpu_cmake_macros.h"
       "#pragma once\n#define C10_XPU_BUILD_SHARED_LIBS\n")

  foreach(tree IN LISTS torch_trees)
    string(REPLACE "|" ";" parts "${tree}")
    list(GET parts 0 version)
    list(GET parts 1 include)
    string(MAKE_C_IDENTIFIER "${version}" id)
    set(target "xsl_torch_glue_check_torch${id}")
    add_library(${target} OBJECT "${PROJECT_SOURCE_DIR}/csrc/torch_glue/xpu.cpp")
    set_target_properties(${target} PROPERTIES CXX_STANDARD 20)
    target_include_directories(${target} SYSTEM PRIVATE
      "${generated}" "${include}" "${include}/torch/csrc/api/include"
      "${sycl_include}")
    target_compile_definitions(${target} PRIVATE
      USE_XPU SYCL_DISABLE_FSYCL_SYCLHPP_WARNING)
    target_link_libraries(${target} PRIVATE xsl_launcher Python::Module)
    xsl_set_warnings(${target})
    message(STATUS "PyTorch glue check: torch ${version} headers, SYCL headers "
                   "${sycl_include}")
    if(NOT runtime STREQUAL "" AND NOT DEFINED installed_include)
      set(installed_include "${include}") # the first tree is the installed one
    endif()
  endforeach()

  if(NOT runtime STREQUAL "" AND WIN32)
    set(runtime "") # the CPU wheel's libraries are not linkable from mingw
  endif()
  if(runtime STREQUAL "")
    message(STATUS "PyTorch glue runtime module skipped: needs an installed torch "
                   "and intel-sycl-rt")
    return()
  endif()
  # The glue run for real: the Python module _xsl_torch_glue links the
  # installed torch wheel and libsycl; tests/torch_glue/c10_xpu_shim.cpp
  # provides the c10::xpu functions a CPU wheel lacks.
  string(REPLACE "|" ";" parts "${runtime}")
  list(GET parts 0 torch_lib)
  list(GET parts 1 sycl_library)
  get_filename_component(sycl_lib_dir "${sycl_library}" DIRECTORY)
  set(glue_tests "${PROJECT_SOURCE_DIR}/tests/torch_glue")
  Python_add_library(xsl_torch_glue_runtime MODULE
    "${PROJECT_SOURCE_DIR}/csrc/torch_glue/xpu.cpp"
    "${glue_tests}/glue_module.cpp" "${glue_tests}/c10_xpu_shim.cpp"
    "${glue_tests}/upstream_style.cpp")
  set_target_properties(xsl_torch_glue_runtime PROPERTIES
    CXX_STANDARD 20 OUTPUT_NAME _xsl_torch_glue
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/torch_glue_runtime"
    BUILD_RPATH "${torch_lib};${sycl_lib_dir}")
  target_include_directories(xsl_torch_glue_runtime SYSTEM PRIVATE
    "${generated}" "${installed_include}"
    "${installed_include}/torch/csrc/api/include" "${sycl_include}")
  target_include_directories(xsl_torch_glue_runtime PRIVATE "${glue_tests}")
  target_compile_definitions(xsl_torch_glue_runtime PRIVATE
    USE_XPU SYCL_DISABLE_FSYCL_SYCLHPP_WARNING)
  target_link_libraries(xsl_torch_glue_runtime PRIVATE xsl_launcher
    "${torch_lib}/libtorch_python.so" "${torch_lib}/libtorch.so"
    "${torch_lib}/libtorch_cpu.so" "${torch_lib}/libc10.so" "${sycl_library}")
  xsl_set_warnings(xsl_torch_glue_runtime)
  message(STATUS "PyTorch glue runtime module: torch ${torch_lib}, ${sycl_library}")
endfunction()
