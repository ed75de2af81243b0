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
  foreach(line IN LISTS lines)
    if(line MATCHES "^sycl (.+)$")
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
  endforeach()
endfunction()
