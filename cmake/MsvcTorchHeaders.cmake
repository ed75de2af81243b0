# The warnings torch's headers give under MSVC /W4 /WX that /external:W0
# (CMake's SYSTEM includes) does not silence, because MSVC reports them in
# the including translation unit: an instantiation of a standard header and
# an optimizer warning. Measured with MSVC 14.44 on the torch 2.13.0 and
# 2.15.0 Windows wheels; every target that compiles torch's headers with MSVC
# calls this, so the list lives here only.
#   C4267  conversion from size_t to int, in MSVC's <optional>(82),
#          instantiated by ATen/core/function_schema.h(437)
#   C4702  unreachable code, in c10/util/irange.h(66)
function(xsl_msvc_torch_header_warnings target)
  if(MSVC)
    target_compile_options(${target} PRIVATE /wd4267 /wd4702)
  endif()
endfunction()
