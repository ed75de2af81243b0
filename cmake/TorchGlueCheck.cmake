# The PyTorch glue (csrc/pytorch/xpu.cpp), unchanged, compiled as C++20
# (what torch >= 2.13 builds with) against real headers: the installed torch
# wheel's, those of the releases `tests/torch_glue/torch_headers.py fetch`
# unpacked into build/torch-headers/<version>/include (scripts/dev.sh setup),
# and the SYCL headers of the installed intel-sycl-rt (cmake/SyclRuntime.cmake).
# torch and SYCL are system includes, so -Werror judges only the project's
# code.

include(SyclBackend)
include(MsvcTorchHeaders)

function(xsl_add_torch_glue_checks)
  # All of them, by one name (empty when they are skipped).
  add_custom_target(xsl_torch_glue_checks)
  xsl_locate_torch()
  set(sycl_include "${XSL_SYCL_INCLUDE_DIR}")
  set(torch_trees "")
  if(NOT XSL_TORCH_INCLUDE STREQUAL "")
    list(APPEND torch_trees "${XSL_TORCH_VERSION}|${XSL_TORCH_INCLUDE}")
  endif()
  file(GLOB fetched LIST_DIRECTORIES true "${PROJECT_SOURCE_DIR}/build/torch-headers/*")
  list(SORT fetched)
  foreach(dir IN LISTS fetched)
    get_filename_component(version "${dir}" NAME)
    if(IS_DIRECTORY "${dir}/include/torch/csrc" AND NOT version STREQUAL XSL_TORCH_VERSION)
      list(APPEND torch_trees "${version}|${dir}/include")
    endif()
  endforeach()
  if(sycl_include STREQUAL "" OR torch_trees STREQUAL "")
    message(STATUS "PyTorch glue checks skipped: needs torch and intel-sycl-rt "
                   "(bash scripts/dev.sh setup installs both)")
    return()
  endif()
  # API drift between releases shows with any compiler: GCC checks every
  # release; another compiler checks the installed torch's (its own warnings
  # show on one). The glue launcher test module (tests/torch_glue) compiles
  # xpu.cpp against the installed torch already, with the same warnings.
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    list(GET torch_trees 0 torch_trees)
  endif()
  set(exported_tree "")
  if(TARGET xsl_glue_launcher_test)
    list(REMOVE_AT torch_trees 0)
  else()
    list(GET torch_trees 0 exported_tree)
  endif()
  set(generated "${XSL_TORCH_GENERATED}")

  foreach(tree IN LISTS torch_trees)
    string(REPLACE "|" ";" parts "${tree}")
    list(GET parts 0 version)
    list(GET parts 1 include)
    string(MAKE_C_IDENTIFIER "${version}" id)
    set(target "xsl_torch_glue_check_torch${id}")
    add_library(${target} OBJECT "${PROJECT_SOURCE_DIR}/csrc/pytorch/xpu.cpp")
    set_target_properties(${target} PROPERTIES CXX_STANDARD 20)
    target_include_directories(${target} SYSTEM PRIVATE
      "${generated}" "${include}" "${include}/torch/csrc/api/include"
      "${sycl_include}")
    target_compile_definitions(${target} PRIVATE
      USE_XPU SYCL_DISABLE_FSYCL_SYCLHPP_WARNING)
    target_link_libraries(${target} PRIVATE xsl_launcher Python::Module)
    # Only compiled, never linked or debugged: without debug info for torch's
    # headers GCC takes half the time (docs/verification.md).
    target_compile_options(${target} PRIVATE $<$<NOT:$<CXX_COMPILER_ID:MSVC>>:-g0>)
    # One compile command for clang-tidy: xpu.cpp's code is the same for every
    # release, and each command would read torch's headers again.
    if(NOT tree STREQUAL exported_tree)
      set_target_properties(${target} PROPERTIES EXPORT_COMPILE_COMMANDS OFF)
    endif()
    xsl_set_warnings(${target})
    xsl_msvc_torch_header_warnings(${target})
    add_dependencies(xsl_torch_glue_checks ${target})
    message(STATUS "PyTorch glue check: torch ${version} headers, SYCL headers "
                   "${sycl_include}")
  endforeach()
endfunction()
