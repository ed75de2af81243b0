# cmake -DCORPUS=<corpus dir> -DOUT=<seed dir> -P copy_seeds.cmake
# Copies the ocloc-built zebins as fuzzer seeds (nothing if not built).
file(GLOB _zebins "${CORPUS}/*.zebin")
foreach(_zebin IN LISTS _zebins)
  get_filename_component(_name "${_zebin}" NAME)
  configure_file("${_zebin}" "${OUT}/${_name}" COPYONLY)
endforeach()
