# Level Zero is loaded at run time, so only its headers are needed to build.
# They come from an explicit place (the missing `level_zero/ze_api.h` reports
# on Windows came from builds that assumed a system include path):
#   XSL_LEVEL_ZERO_INCLUDE_DIR  the folder that holds level_zero/ze_api.h
#                               (the official Level Zero SDK zip, which
#                               scripts/level_zero_sdk.py fetches, or
#                               Debian's libze-dev at /usr/include), as a
#                               CMake variable or an environment variable;
#   else $LEVEL_ZERO_SDK/include, $LEVEL_ZERO_ROOT/include, /usr/include,
#   /usr/local/include.
# For a cross build the host's /usr/include must not be added wholesale, so
# the headers are staged into the build tree and only that folder is used.
set(XSL_LEVEL_ZERO_INCLUDE_DIR "$ENV{XSL_LEVEL_ZERO_INCLUDE_DIR}" CACHE PATH
    "Folder that contains level_zero/ze_api.h")

if(NOT XSL_LEVEL_ZERO_INCLUDE_DIR)
  set(_xsl_ze_candidates "$ENV{LEVEL_ZERO_SDK}/include" "$ENV{LEVEL_ZERO_ROOT}/include"
      "/usr/include" "/usr/local/include")
  foreach(_dir IN LISTS _xsl_ze_candidates)
    if(EXISTS "${_dir}/level_zero/ze_api.h")
      set(XSL_LEVEL_ZERO_INCLUDE_DIR "${_dir}")
      break()
    endif()
  endforeach()
endif()
if(NOT EXISTS "${XSL_LEVEL_ZERO_INCLUDE_DIR}/level_zero/ze_api.h")
  message(FATAL_ERROR
    "Level Zero headers not found. Install them (Debian: apt install libze-dev; "
    "Windows: python scripts\\level_zero_sdk.py --dest C:\\xsl\\level-zero-sdk, "
    "the official SDK zip) and set XSL_LEVEL_ZERO_INCLUDE_DIR (or pass "
    "-DXSL_LEVEL_ZERO_INCLUDE_DIR) to the folder containing level_zero/ze_api.h.")
endif()

set(_xsl_ze_stage "${CMAKE_BINARY_DIR}/level_zero_headers")
file(GLOB _xsl_ze_headers "${XSL_LEVEL_ZERO_INCLUDE_DIR}/level_zero/*.h")
file(COPY ${_xsl_ze_headers} DESTINATION "${_xsl_ze_stage}/level_zero")
# The loader's own headers (only the test driver's loader build needs them).
foreach(_sub loader layers)
  if(IS_DIRECTORY "${XSL_LEVEL_ZERO_INCLUDE_DIR}/level_zero/${_sub}")
    file(COPY "${XSL_LEVEL_ZERO_INCLUDE_DIR}/level_zero/${_sub}"
         DESTINATION "${_xsl_ze_stage}/level_zero")
  endif()
endforeach()
add_library(xsl_level_zero_headers INTERFACE)
target_include_directories(xsl_level_zero_headers SYSTEM INTERFACE "${_xsl_ze_stage}")
message(STATUS "Level Zero headers: ${XSL_LEVEL_ZERO_INCLUDE_DIR}")
