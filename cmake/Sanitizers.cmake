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
