# XSL_SANITIZE=address,undefined instruments everything we build (not the
# prebuilt GoogleTest), and makes any UBSan report fatal.
set(XSL_SANITIZE "" CACHE STRING "Comma-separated -fsanitize= list (GCC/Clang)")
if(XSL_SANITIZE)
  if(MSVC)
    message(FATAL_ERROR "XSL_SANITIZE is for GCC/Clang builds")
  endif()
  add_compile_options(-fsanitize=${XSL_SANITIZE} -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=${XSL_SANITIZE})
endif()

# XSL_COVERAGE instruments everything we build for gcov (GCC); scripts/dev.sh
# coverage reads the counts with gcovr.
option(XSL_COVERAGE "Build with gcov coverage counters (GCC)" OFF)
if(XSL_COVERAGE)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    message(FATAL_ERROR "XSL_COVERAGE is for GCC builds")
  endif()
  # Atomic counters: tests run launches on several threads, and plain
  # counters lose updates there (gcov then reports negative branch counts).
  add_compile_options(--coverage -fprofile-update=atomic)
  add_link_options(--coverage)
endif()
