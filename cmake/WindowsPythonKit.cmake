# A Windows Python for the MSVC build under wine (cmake/toolchains/msvc-wine.cmake),
# which has none of its own: XSL_WINDOWS_PYTHON_KIT is a folder that
# `scripts/windows_build_kit.py python` wrote (CPython 3.11.2's headers with
# the Windows pyconfig.h, and python311.def). Gives what FindPython gives a
# native build:
#   Python::Module              the headers, and python311.lib, made here from
#                               the .def by MSVC's lib (CMAKE_AR); its folder
#                               is a link directory, for pyconfig.h's
#                               `#pragma comment(lib, "python311.lib")`
#   XSL_PYTHON_MODULE_SUFFIX    .cp311-win_amd64.pyd, the name CPython imports
set(_kit "${XSL_WINDOWS_PYTHON_KIT}")
file(GLOB _xsl_python_def "${_kit}/python3*.def")
if(NOT MSVC OR NOT EXISTS "${_kit}/include/pyconfig.h" OR NOT _xsl_python_def)
  message(FATAL_ERROR "XSL_WINDOWS_PYTHON_KIT=${_kit} is not a Windows Python kit for MSVC "
                      "(include/pyconfig.h and python3XY.def): run `python3 scripts/windows_build_kit.py "
                      "python --dest <folder>` and configure with an MSVC toolchain")
endif()
get_filename_component(_xsl_python_name "${_xsl_python_def}" NAME_WE) # python311
string(REGEX REPLACE "^python([0-9]+)$" "\\1" _xsl_python_tag "${_xsl_python_name}")

set(_xsl_python_lib_dir "${PROJECT_BINARY_DIR}/windows-python")
set(_xsl_python_lib "${_xsl_python_lib_dir}/${_xsl_python_name}.lib")
if(NOT EXISTS "${_xsl_python_lib}" OR "${_xsl_python_def}" IS_NEWER_THAN "${_xsl_python_lib}")
  file(MAKE_DIRECTORY "${_xsl_python_lib_dir}")
  execute_process(
    COMMAND "${CMAKE_AR}" /nologo /machine:x64 "/def:${_xsl_python_def}" "/out:${_xsl_python_lib}"
    RESULT_VARIABLE _xsl_result OUTPUT_VARIABLE _xsl_output ERROR_VARIABLE _xsl_output)
  if(NOT _xsl_result EQUAL 0)
    message(FATAL_ERROR "lib /def:${_xsl_python_def} failed: ${_xsl_output}")
  endif()
endif()

add_library(Python::Module INTERFACE IMPORTED)
set_target_properties(Python::Module PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "${_kit}/include"
  INTERFACE_LINK_DIRECTORIES "${_xsl_python_lib_dir}"
  INTERFACE_LINK_LIBRARIES "${_xsl_python_lib}")
set(XSL_PYTHON_MODULE_SUFFIX ".cp${_xsl_python_tag}-win_amd64.pyd")
message(STATUS "Windows Python: ${_kit} (${_xsl_python_name}.dll), modules *${XSL_PYTHON_MODULE_SUFFIX}")
