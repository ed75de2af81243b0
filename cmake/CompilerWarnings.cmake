# Warnings are errors on every compiler we build with: code that is clean on
# GCC, Clang and mingw with -Wpedantic, and on MSVC with /W4 /permissive-, is
# the best proxy we have for "merges cleanly into PyTorch's Windows build".
function(xsl_set_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /W4 /WX /permissive- /utf-8
                                             /Zc:__cplusplus /EHsc)
    target_compile_definitions(${target} PRIVATE _CRT_SECURE_NO_WARNINGS
                                                 NOMINMAX WIN32_LEAN_AND_MEAN)
  else()
    target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror)
    if(WIN32)
      target_compile_definitions(${target} PRIVATE NOMINMAX WIN32_LEAN_AND_MEAN
                                                   UNICODE _UNICODE)
    endif()
  endif()
endfunction()
