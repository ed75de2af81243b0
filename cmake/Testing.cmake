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

# Targets a ctest entry runs: `xsl_ctest_targets` (tests/CMakeLists.txt)
# builds them and what they depend on, and nothing else, so a first tier
# runs ctest before the rest of the build (scripts/dev.sh test).
function(xsl_ctest_runs)
  set_property(GLOBAL APPEND PROPERTY XSL_CTEST_TARGETS ${ARGN})
endfunction()

# Compiles the targets of the calling folder without optimization, whatever
# the build type (the flags of a build type are read per folder).
macro(xsl_unoptimized_test_code)
  foreach(_config RELEASE RELWITHDEBINFO MINSIZEREL)
    if(MSVC)
      string(REGEX REPLACE "/O[12sx]|/Ob[0-3]" "" CMAKE_CXX_FLAGS_${_config}
                           "${CMAKE_CXX_FLAGS_${_config}}")
      string(APPEND CMAKE_CXX_FLAGS_${_config} " /Od")
    else()
      string(REGEX REPLACE "-O[0-9sgz]?" "-O0" CMAKE_CXX_FLAGS_${_config}
                           "${CMAKE_CXX_FLAGS_${_config}}")
    endif()
  endforeach()
endmacro()

# Native builds: one ctest entry per test case, listed when ctest runs
# (PRE_TEST: the build never runs a test binary). Cross builds run each
# binary under wine, whose start costs seconds: one entry per executable.
include(GoogleTest)
# DEPENDS: targets the tests need built (the test driver ...); CORPUS: they
# read the zebin corpus when it is built (tests/kernels).
function(xsl_add_gtest target)
  cmake_parse_arguments(ARG "CORPUS" "" "SOURCES;LIBS;ENVIRONMENT;DEPENDS" ${ARGN})
  add_executable(${target} ${ARG_SOURCES})
  xsl_ctest_runs(${target})
  xsl_set_warnings(${target})
  target_link_libraries(${target} PRIVATE ${ARG_LIBS} GTest::gtest_main GTest::gtest)
  if(ARG_DEPENDS)
    add_dependencies(${target} ${ARG_DEPENDS})
  endif()
  if(ARG_CORPUS AND TARGET xsl_zebin_corpus)
    add_dependencies(${target} xsl_zebin_corpus)
  endif()
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

# One more ctest entry of a gtest executable: the cases `filter` selects
# (Scenario*), in the environment after `filter` (later entries win). Each
# is its own process, because the Level Zero loader (and the project's
# process-wide table) read the environment once.
function(xsl_add_scenario test name filter)
  add_test(NAME ${test}.${name}
           COMMAND ${test} --gtest_brief=1 --gtest_filter=${filter})
  set_tests_properties(${test}.${name} PROPERTIES ENVIRONMENT
    "XSL_SOURCE_DIR=${PROJECT_SOURCE_DIR};XSL_BINARY_DIR=${PROJECT_BINARY_DIR};XSL_TEST_SCENARIO=${name};${ARGN}")
endfunction()
