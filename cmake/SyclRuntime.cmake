# The SYCL runtime the package's SYCL backend builds against: the
# environment's own intel-sycl-rt (what torch loads), found in this order:
#   1. -DXSL_SYCL_INCLUDE_DIR=<folder with sycl/sycl.hpp> and
#      -DXSL_SYCL_LIBRARY_DIR=<folder with libsycl.so / sycl<N>.lib / sycl.lib>
#      (with pip: -C cmake.define.XSL_SYCL_INCLUDE_DIR=... and the same for
#      XSL_SYCL_LIBRARY_DIR);
#   2. the environment variables of the same names;
#   3. scripts/find_sycl.py run by the build's Python: intel-sycl-rt's file
#      list (importlib.metadata). `pip install --no-build-isolation .` makes
#      that the Python of the environment torch runs in.
# Sets XSL_SYCL_FOUND, XSL_SYCL_MAJOR (libsycl major) and, when found, the
# interface target xsl_sycl_runtime (SYCL headers as system includes, the
# libsycl import library). Not found is not an error: the SYCL backend is
# then left out and the reason is printed.
set(XSL_SYCL_INCLUDE_DIR "$ENV{XSL_SYCL_INCLUDE_DIR}" CACHE PATH "Folder that contains sycl/sycl.hpp")
set(XSL_SYCL_LIBRARY_DIR "$ENV{XSL_SYCL_LIBRARY_DIR}" CACHE PATH
    "Folder that contains libsycl.so (Linux) or sycl<N>.lib / sycl.lib (Windows)")
set(XSL_SYCL_FOUND FALSE)
set(XSL_SYCL_MAJOR "")
set(_xsl_sycl_library "")

if(NOT XSL_SYCL_INCLUDE_DIR OR NOT XSL_SYCL_LIBRARY_DIR)
  execute_process(
    COMMAND "${Python_EXECUTABLE}" "${PROJECT_SOURCE_DIR}/scripts/find_sycl.py" --cmake
    OUTPUT_VARIABLE _xsl_sycl_out ERROR_VARIABLE _xsl_sycl_err RESULT_VARIABLE _xsl_sycl_rc
    OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_STRIP_TRAILING_WHITESPACE)
  if(_xsl_sycl_rc EQUAL 0)
    string(REPLACE "\n" ";" _xsl_sycl_lines "${_xsl_sycl_out}")
    foreach(_line IN LISTS _xsl_sycl_lines)
      if(_line MATCHES "^(XSL_SYCL_[A-Z_]+)=(.*)$")
        set(_xsl_found_${CMAKE_MATCH_1} "${CMAKE_MATCH_2}")
      endif()
    endforeach()
    set(XSL_SYCL_INCLUDE_DIR "${_xsl_found_XSL_SYCL_INCLUDE_DIR}" CACHE PATH "" FORCE)
    set(XSL_SYCL_LIBRARY_DIR "${_xsl_found_XSL_SYCL_LIBRARY_DIR}" CACHE PATH "" FORCE)
    set(_xsl_sycl_library "${_xsl_found_XSL_SYCL_LIBRARY}")
    set(XSL_SYCL_MAJOR "${_xsl_found_XSL_SYCL_MAJOR}")
  else()
    message(STATUS "SYCL runtime not found, SYCL backend left out: ${_xsl_sycl_err}")
  endif()
endif()

if(XSL_SYCL_INCLUDE_DIR AND XSL_SYCL_LIBRARY_DIR)
  if(NOT _xsl_sycl_library)
    if(WIN32)
      file(GLOB _xsl_sycl_candidates "${XSL_SYCL_LIBRARY_DIR}/sycl[0-9]*.lib" "${XSL_SYCL_LIBRARY_DIR}/sycl.lib")
    else()
      file(GLOB _xsl_sycl_candidates "${XSL_SYCL_LIBRARY_DIR}/libsycl.so")
    endif()
    list(FILTER _xsl_sycl_candidates EXCLUDE REGEX "[Dd]\\.lib$")
    list(SORT _xsl_sycl_candidates)
    if(_xsl_sycl_candidates)
      list(GET _xsl_sycl_candidates 0 _xsl_sycl_library)
    endif()
  endif()
  if(NOT XSL_SYCL_MAJOR)
    # Windows: sycl<N>.lib/.dll; Linux: the libsycl.so.<N> next to libsycl.so.
    file(GLOB _xsl_sycl_named "${XSL_SYCL_LIBRARY_DIR}/sycl[0-9]*.lib" "${XSL_SYCL_LIBRARY_DIR}/../bin/sycl[0-9]*.dll"
         "${XSL_SYCL_LIBRARY_DIR}/libsycl.so.[0-9]*")
    foreach(_file IN LISTS _xsl_sycl_named)
      get_filename_component(_name "${_file}" NAME)
      # Two tests: a failed MATCHES after a match would clear CMAKE_MATCH_1.
      if(_name MATCHES "^sycl([0-9]+)\\.(lib|dll)$")
        set(XSL_SYCL_MAJOR "${CMAKE_MATCH_1}")
      elseif(_name MATCHES "^libsycl\\.so\\.([0-9]+)$")
        set(XSL_SYCL_MAJOR "${CMAKE_MATCH_1}")
      endif()
    endforeach()
  endif()
  if(NOT EXISTS "${XSL_SYCL_INCLUDE_DIR}/sycl/sycl.hpp")
    message(STATUS "SYCL backend left out: XSL_SYCL_INCLUDE_DIR=${XSL_SYCL_INCLUDE_DIR} has no sycl/sycl.hpp")
  elseif(NOT _xsl_sycl_library OR NOT XSL_SYCL_MAJOR)
    message(STATUS "SYCL backend left out: XSL_SYCL_LIBRARY_DIR=${XSL_SYCL_LIBRARY_DIR} has no libsycl "
                   "import library with a known major (libsycl.so + libsycl.so.<N>, or sycl<N>.lib / sycl.lib)")
  else()
    set(XSL_SYCL_FOUND TRUE)
    add_library(xsl_sycl_runtime INTERFACE)
    target_include_directories(xsl_sycl_runtime SYSTEM INTERFACE "${XSL_SYCL_INCLUDE_DIR}")
    target_link_libraries(xsl_sycl_runtime INTERFACE "${_xsl_sycl_library}")
    message(STATUS "SYCL runtime: headers ${XSL_SYCL_INCLUDE_DIR}, library ${_xsl_sycl_library}, "
                   "libsycl major ${XSL_SYCL_MAJOR}")
  endif()
endif()
