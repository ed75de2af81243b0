# GoogleTest: the installed package when there is one for this target, else
# built from the Debian source tree (/usr/src/googletest), which is how the
# mingw cross build gets a Windows GoogleTest.
find_package(GTest QUIET)
if(NOT GTest_FOUND)
  set(XSL_GTEST_SOURCE_DIR "/usr/src/googletest" CACHE PATH "GoogleTest sources")
  if(NOT EXISTS "${XSL_GTEST_SOURCE_DIR}/CMakeLists.txt")
    message(FATAL_ERROR "GoogleTest not found: install libgtest-dev/googletest "
                        "or set XSL_GTEST_SOURCE_DIR")
  endif()
  set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
  set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
  set(gtest_force_shared_crt ON CACHE BOOL "" FORCE)
  add_subdirectory("${XSL_GTEST_SOURCE_DIR}" "${CMAKE_BINARY_DIR}/googletest" EXCLUDE_FROM_ALL)
  if(NOT TARGET GTest::gtest)
    add_library(GTest::gtest ALIAS gtest)
    add_library(GTest::gtest_main ALIAS gtest_main)
  endif()
endif()

# Native builds: one ctest entry per test case, listed when ctest runs
# (PRE_TEST: the build never runs a test binary). Cross builds run each
# binary under wine, whose start costs seconds: one entry per executable.
include(GoogleTest)
function(xsl_add_gtest target)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;ENVIRONMENT" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  xsl_set_warnings(${target})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} GTest::gtest_main GTest::gtest)
  set(_environment
      "XSL_SOURCE_DIR=${PROJECT_SOURCE_DIR};XSL_BINARY_DIR=${PROJECT_BINARY_DIR};${ARG_ENVIRONMENT}")
  if(CMAKE_CROSSCOMPILING)
    add_test(NAME ${target} COMMAND ${target} --gtest_brief=1)
    set_tests_properties(${target} PROPERTIES ENVIRONMENT "${_environment}")
  else()
    # Scenario* cases need an environment of their own: each scenario is one
    # entry added beside the binary's (tests/cpp/level_zero, .../ocloc).
    set(_filter)
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.22)
      set(_filter TEST_FILTER "-Scenario*")
    endif()
    gtest_discover_tests(${target}
      TEST_PREFIX "${target}."
      EXTRA_ARGS --gtest_brief=1
      DISCOVERY_MODE PRE_TEST
      ${_filter}
      # The cases of one binary share its folders and files, as they did
      # when the binary ran them one after another: never two at once.
      PROPERTIES ENVIRONMENT "${_environment}" RESOURCE_LOCK "${target}")
  endif()
endfunction()
